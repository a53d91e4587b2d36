package io.ext4j.jbd2.internal;

import io.ext4j.jbd2.CommitWakeup;
import io.ext4j.jbd2.CommittedCheck;
import io.ext4j.jbd2.JournalAbortedException;
import io.ext4j.jbd2.JournalException;
import io.ext4j.jbd2.Tid;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Who commits and who waits. Holds the commit sequence — the tid of the last transaction whose
 * commit block is durable, published by the committer with a volatile write and read without a
 * lock by {@link #isCommitted} — and the two ways to wait for a tid: park on its transaction until
 * the committer publishes it and unparks its waiters ({@link #waitCommit}), or commit it in the
 * calling thread when no commit is under way ({@link #commitNowOrWait}: the leader commit, which
 * spares a lone synchronous writer two thread hand-offs per operation).
 *
 * <h2>Durability</h2>
 * Every method that waits returns only once the tid is published, which {@link CommitProcess} does
 * after the flush that makes its commit block durable — or throws {@link JournalAbortedException}.
 */
final class CommitWaits {
  /** Futex words: the waiters for tid t sleep on word t mod SLOTS (at most two tids have waiters at once). */
  private static final int SLOTS = 4;
  /** Byte offset of slot i's sleeper count: after the SLOTS words. */
  private static final long SLEEPERS = (long) SLOTS * Integer.BYTES;
  private static final VarHandle WORD = ValueLayout.JAVA_INT.varHandle();

  private final JournalEngine e;
  private volatile int commitSequence; // written under stateLock with release (publish); read lock-free
  /**
   * FUTEX_BROADCAST: one int per slot, bumped (a volatile read-modify-write) after each publish of a
   * tid in that slot and on abort, then woken if it has sleepers; then one int per slot counting the
   * threads inside {@link #sleepUntilCommitted} on it. Null for UNPARK_EACH. Never freed while the
   * engine is reachable (automatic arena), so a late sleeper never faults.
   */
  private final MemorySegment words;
  private final MemorySegment[] slotWords; // words, one 4-byte slice per slot; immutable

  CommitWaits(JournalEngine engine, int committedTid, CommitWakeup wakeup) {
    this.e = engine;
    this.commitSequence = committedTid;
    if (wakeup == CommitWakeup.FUTEX_BROADCAST && Futex.available()) {
      words = Arena.ofAuto().allocate(2L * SLOTS * Integer.BYTES, Integer.BYTES);
      slotWords = new MemorySegment[SLOTS];
      for (int i = 0; i < SLOTS; i++) {
        slotWords[i] = words.asSlice((long) i * Integer.BYTES, Integer.BYTES);
      }
    } else {
      words = null;
      slotWords = null;
    }
  }

  /** The wake-up in use: FUTEX_BROADCAST only when asked for and available. */
  CommitWakeup wakeup() {
    return words != null ? CommitWakeup.FUTEX_BROADCAST : CommitWakeup.UNPARK_EACH;
  }

  /**
   * Groups smaller than this wait the UNPARK_EACH way even under FUTEX_BROADCAST: one futex wake pays
   * for itself when it replaces many unparks, but a thread or two wake faster by unpark (the
   * journal benchmark's wake-up rows compare the two; docs/BENCHMARKS.md).
   */
  static final int FUTEX_MIN_GROUP = 6;

  /**
   * Whether a thread about to wait for {@code t} queues on it and parks (true), or sleeps on the
   * futex (false): the futex when it is available, the caller is a platform thread, and the group —
   * this transaction's handles so far, or the last commit's — is large. Caller holds the engine's
   * stateLock; the answer is the caller's to keep, since the committer wakes both kinds.
   */
  boolean queuesWaiter(Transaction t) {
    // A virtual thread never sleeps in the futex: a native call pins its carrier, and with every
    // carrier pinned by sleepers the thread that would commit could never run.
    return words == null || Thread.currentThread().isVirtual()
        || Math.max(t.handleCount, e.commitProcess.previousCommitHandles()) < FUTEX_MIN_GROUP;
  }

  /** The tid of the last committed transaction: a volatile read, no lock. */
  int lastCommitted() {
    return commitSequence; // volatile read: pairs with the release in publish
  }

  /** Whether {@code tid} has committed, by the commit sequence (whatever {@link CommittedCheck} says). */
  boolean isCommittedLockFree(int tid) {
    return Tid.geq(commitSequence, tid);
  }

  /** Whether {@code tid} has committed, answered as {@link CommittedCheck} says. */
  boolean isCommitted(int tid) {
    if (e.options.committedCheck() == CommittedCheck.LOCK_FREE) {
      return Tid.geq(commitSequence, tid); // volatile read: pairs with the release in publish
    }
    e.stateLock.lock();
    try {
      return !(e.runningLocked() != null && e.runningLocked().tid == tid) && !(e.committingLocked() != null && e.committingLocked().tid == tid);
    } finally {
      e.stateLock.unlock();
    }
  }

  /**
   * Publishes {@code t} as committed: its commit block is durable. Caller holds the engine's
   * stateLock; the waiters are woken by {@link #wake} after the lock is released.
   */
  void publish(Transaction t) {
    assert e.stateLock.isHeldByCurrentThread();
    commitSequence = t.tid; // volatile write (release): pairs with the volatile reads in isCommitted and waitCommit
  }

  /**
   * Wakes every thread waiting for {@code t}, after {@link #publish} (or an abort) made the outcome
   * visible: one futex wake for the whole slot (waiters of another tid in it re-check and sleep
   * again), and an unpark for each thread registered on the transaction's queue.
   */
  void wake(Transaction t) {
    if (words != null) {
      bumpAndWake(t.tid & (SLOTS - 1));
    }
    unparkQueued(t);
  }

  /** Unparks every thread queued on {@code t} ({@link #queuesWaiter}). */
  private static void unparkQueued(Transaction t) {
    for (Thread w; (w = t.waiters.poll()) != null; ) {
      LockSupport.unpark(w);
    }
  }

  /**
   * Bumps the slot's word, then wakes its sleepers — skipping the system call when there are none (a
   * lone writer's commit has no one to wake). Lost wake-ups are impossible: the bump, the sleeper
   * count's read here, and a sleeper's increment of it and read of the word are all volatile, so
   * sequentially consistent; if this read sees no sleeper, a thread that is about to sleep
   * incremented after it and therefore reads the bumped word and the published outcome, and does
   * not sleep (or its futex call returns at once).
   */
  private void bumpAndWake(int slot) {
    WORD.getAndAdd(words, (long) slot * Integer.BYTES, 1); // volatile: after the publish or the abort
    if ((int) WORD.getVolatile(words, SLEEPERS + (long) slot * Integer.BYTES) != 0) {
      Futex.wakeAll(slotWords[slot]);
    }
  }

  /** After an abort: wakes every waiter of every slot and of the given transactions (which may be null). */
  void wakeAll(Transaction... ts) {
    if (words != null) {
      for (int slot = 0; slot < SLOTS; slot++) {
        bumpAndWake(slot);
      }
    }
    for (Transaction t : ts) {
      if (t != null) {
        unparkQueued(t);
      }
    }
  }

  /**
   * Waits until {@code tid} has committed: queues on the transaction and parks, or sleeps on the
   * futex ({@link #queuesWaiter}); the committer wakes both after publishing, so waking needs no lock.
   */
  void waitCommit(int tid) throws JournalException {
    while (!Tid.geq(commitSequence, tid)) {
      e.checkNotAborted();
      Transaction t;
      boolean queued;
      e.stateLock.lock();
      try {
        if (Tid.geq(commitSequence, tid)) {
          break;
        }
        t = e.runningLocked() != null && e.runningLocked().tid == tid ? e.runningLocked() : e.committingLocked() != null && e.committingLocked().tid == tid ? e.committingLocked() : null;
        if (t == null) {
          return; // a tid never started (or not ours): nothing to wait for
        }
        queued = queuesWaiter(t);
        if (queued) {
          t.waiters.add(Thread.currentThread());
        }
      } finally {
        e.stateLock.unlock();
      }
      // Race: publish may happen between our registration and here; the volatile read below sees it,
      // and a stale unpark only ends a later park early (every park here re-checks its condition).
      parkUntilCommitted(tid, queued);
    }
  }

  /**
   * Parks until {@code tid} is committed or the journal aborts. Uninterruptible, like jbd2's
   * commit waits, but an interrupt is kept for the caller (and does not turn the loop into a spin:
   * park returns at once while the interrupt status is set, so it is cleared here and restored).
   */
  private void parkUntilCommitted(int tid, boolean queued) {
    if (!queued && words != null) {
      sleepUntilCommitted(tid);
      return;
    }
    boolean interrupted = false;
    while (!Tid.geq(commitSequence, tid) && !e.isAborted()) {
      LockSupport.park(this);
      interrupted |= Thread.interrupted();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * FUTEX_BROADCAST: sleeps on the tid's slot word until {@code tid} is committed or the journal
   * aborts. The word is read before the condition: if the committer's bump comes after that read,
   * the kernel either sees the changed word and returns at once or is woken by the wake that follows
   * the bump, so no wake-up is lost. Uninterruptible (a Java interrupt does not end a futex sleep).
   */
  private void sleepUntilCommitted(int tid) {
    int slot = tid & (SLOTS - 1);
    long offset = (long) slot * Integer.BYTES;
    long sleepers = SLEEPERS + offset;
    if (Tid.geq(commitSequence, tid) || e.isAborted()) {
      return;
    }
    WORD.getAndAdd(words, sleepers, 1); // volatile; before reading the word (see bumpAndWake)
    try {
      while (true) {
        int seen = (int) WORD.getVolatile(words, offset);
        if (Tid.geq(commitSequence, tid) || e.isAborted()) {
          return;
        }
        if (Futex.await(slotWords[slot], seen) != 0 && (int) WORD.getVolatile(words, offset) == seen) {
          LockSupport.parkNanos(this, 20_000); // an unexpected error with the word unchanged: do not spin
        }
      }
    } finally {
      WORD.getAndAdd(words, sleepers, -1);
    }
  }

  /**
   * Commits {@code tid} in the calling thread when no commit is under way (the caller becomes the
   * leader), else waits for the committer. The caller must hold no handle.
   */
  void commitNowOrWait(int tid) throws JournalException {
    commitNowOrWait(tid, false, false);
  }

  /**
   * As {@link #commitNowOrWait(int)}; {@code registered} says the caller already chose how to wait
   * for the transaction (a synchronous stop does so while detaching), and {@code queued} whether it
   * then queued on it ({@link #queuesWaiter}) rather than being due to sleep on the futex.
   */
  void commitNowOrWait(int tid, boolean registered, boolean queued) throws JournalException {
    while (!Tid.geq(commitSequence, tid)) {
      e.checkNotAborted();
      if (!e.commitMutex.tryLock()) {
        // Someone commits now. Our request was recorded before this tryLock failed, hence before
        // the holder's unlock, and every committer looks for pending requests after unlocking
        // (wakeCommitThreadIfRequested): the commit thread will take ours.
        if (registered) {
          parkUntilCommitted(tid, queued);
          if (!Tid.geq(commitSequence, tid)) {
            e.checkNotAborted();
          }
          return;
        }
        waitCommit(tid);
        return;
      }
      try {
        Transaction t;
        e.stateLock.lock();
        try {
          t = e.runningLocked() != null && e.runningLocked().tid == tid ? e.runningLocked() : null;
          if (t != null) {
            e.markCommitRequestedLocked(tid);
          }
        } finally {
          e.stateLock.unlock();
        }
        if (t == null) {
          waitCommit(tid); // committed meanwhile, or not a transaction of ours
          return;
        }
        e.commitProcess.commit(t);
      } catch (JournalException failure) {
        throw failure;
      } catch (IOException | RuntimeException | Error failure) {
        e.abort(failure);
        throw new JournalAbortedException(e.device.name(), failure);
      } finally {
        e.commitMutex.unlock();
        wakeCommitThreadIfRequested();
      }
    }
  }

  /** After a leader's commit: hands a commit requested meanwhile to the commit thread. */
  private void wakeCommitThreadIfRequested() {
    e.stateLock.lock();
    try {
      if (e.runningLocked() != null && e.commitRequestLocked() == e.runningLocked().tid) {
        e.commitWake.signal();
      }
    } finally {
      e.stateLock.unlock();
    }
  }

  /**
   * ext4's fsync path: commit {@code tid} if running and wait; wait if committing; else return. The
   * request does not wake the commit thread: this thread commits next unless a commit is under way,
   * and every committer looks for requests after its commit ({@link #commitNowOrWait}), so a wake
   * here would only send the commit thread to queue on the commit mutex behind us (for a lone
   * writer, a futex wake and a lock hand-off per fsync).
   */
  void completeTransaction(int tid) throws JournalException {
    e.stateLock.lock();
    try {
      if (e.runningLocked() != null && e.runningLocked().tid == tid) {
        e.requestCommitLocked(tid, false);
      } else if (e.committingLocked() == null || e.committingLocked().tid != tid) {
        e.checkNotAborted();
        return;
      }
    } finally {
      e.stateLock.unlock();
    }
    commitNowOrWait(tid);
  }

  /**
   * Commits the running transaction (if any) and waits for it and any committing one; the request
   * does not wake the commit thread, as in {@link #completeTransaction}.
   */
  void forceCommit() throws JournalException {
    int target;
    e.stateLock.lock();
    try {
      e.checkNotAborted();
      if (e.runningLocked() != null && e.runningLocked().handleCount > 0) {
        target = e.runningLocked().tid;
        e.requestCommitLocked(target, false);
      } else if (e.committingLocked() != null) {
        target = e.committingLocked().tid;
      } else {
        return;
      }
    } finally {
      e.stateLock.unlock();
    }
    commitNowOrWait(target);
  }
}
