package io.ext4j.jbd2.internal;

import io.ext4j.jbd2.OrderedData;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One jbd2 transaction: the set of buffers and revoke records that commit atomically.
 *
 * <p>Guards: fields marked {@code stateLock} change only under {@link JournalEngine}'s state lock;
 * the buffer lists under its list lock; the rest as noted.
 */
final class Transaction {
  final int tid;
  final long startNanos;
  final long expiresNanos;

  private volatile TransactionState state = TransactionState.RUNNING; // written under stateLock (advance); read bare by batching policies

  int updates; // stateLock: open handles
  int outstandingCredits; // stateLock: credits handed out plus the descriptor/commit overhead
  volatile int handleCount; // written under stateLock; read lock-free by batching policies
  volatile long lastJoinNanos; // written under stateLock
  volatile int writers; // written under stateLock: distinct threads that joined; read lock-free by batching policies
  int batchTarget = Integer.MAX_VALUE; // stateLock: a batching wait wants a signal when this many writers joined
  long requestedNanos; // stateLock: first commit request, 0 if none
  long lockedNanos; // commit thread only
  long flushNanos; // commit thread only
  long logStart; // stateLock (set at FLUSH)
  int reserve; // stateLock: log blocks still to be written while committing

  final AtomicLong maxWaitNanos = new AtomicLong(); // handles' waits to join

  final Set<BufferHead> metadata = new LinkedHashSet<>(); // list lock: dirtied buffers, commit order
  final Set<BufferHead> reserved = new LinkedHashSet<>(); // list lock: write access, not dirtied
  final Set<BufferHead> forget = new LinkedHashSet<>(); // list lock: freed buffers whose older checkpoint claims go at commit
  final Set<BufferHead> checkpoint = new LinkedHashSet<>(); // list lock: committed, not yet written home

  final Set<Long> revoked = new LinkedHashSet<>(); // guarded by itself (synchronized)
  volatile boolean anyRevoked; // set once the first revoke is recorded; lets write access skip cancelRevoke
  /**
   * Ordered data by owner, in the order owners were first added; guarded by its own monitor. Handles
   * add while the transaction runs; {@link JournalEngine#cancelOrderedData} trims it while it runs
   * (under the state lock, so before the commit's FLUSH) and only reads it while it commits; the
   * commit reads it once after FLUSH, when no handle is attached any more.
   */
  final Map<OrderedData, OrderedRanges> ordered = new LinkedHashMap<>();
  final ConcurrentLinkedQueue<Thread> waiters = new ConcurrentLinkedQueue<>(); // parked in waitCommit; unparked at publish

  // Commit statistics, commit thread only.
  int loggedBlocks;
  int metadataBlocks;

  Transaction(int tid, long startNanos, long expiresNanos) {
    this.tid = tid;
    this.startNanos = startNanos;
    this.expiresNanos = expiresNanos;
  }

  TransactionState state() {
    return state; // volatile read
  }

  /**
   * Moves to a later state. The caller holds the engine's state lock ({@link JournalEngine#advance}),
   * so readers under that lock see transitions in order with the running/committing slots.
   */
  void advance(TransactionState next, java.util.concurrent.locks.ReentrantLock stateLock) {
    assert stateLock.isHeldByCurrentThread() : "transaction state written without the state lock";
    assert next.compareTo(state) > 0 : state + " -> " + next;
    state = next;
  }

  void addRevoke(long block) {
    synchronized (revoked) {
      revoked.add(block);
      anyRevoked = true;
    }
  }

  boolean cancelRevoke(long block) {
    if (!anyRevoked) {
      return false;
    }
    synchronized (revoked) {
      return revoked.remove(block);
    }
  }

  void addOrdered(OrderedData owner, long first, long count) {
    synchronized (ordered) {
      ordered.computeIfAbsent(owner, o -> new OrderedRanges()).add(first, count);
    }
  }

  /** The ordered ranges, owner by owner (for the commit). */
  Map<OrderedData, List<OrderedData.Range>> orderedSnapshot() {
    Map<OrderedData, List<OrderedData.Range>> out = new LinkedHashMap<>();
    synchronized (ordered) {
      ordered.forEach((owner, ranges) -> out.put(owner, ranges.toList()));
    }
    return out;
  }

  private static final long[] NO_BLOCKS = {};

  long[] revokedBlocks() {
    synchronized (revoked) {
      if (revoked.isEmpty()) {
        return NO_BLOCKS; // most commits: no stream, no array
      }
      long[] out = new long[revoked.size()];
      int i = 0;
      for (long b : revoked) {
        out[i++] = b;
      }
      return out;
    }
  }

  @Override
  public String toString() {
    return "Transaction[" + Integer.toUnsignedString(tid) + " " + state + "]";
  }
}
