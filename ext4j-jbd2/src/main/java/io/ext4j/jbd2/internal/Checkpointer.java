package io.ext4j.jbd2.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.jbd2.JournalException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes committed buffers to their home blocks and moves the log tail past transactions that no
 * longer need the log: in the background (the home writer: every checkpoint interval, after a
 * commit that leaves the log more than a quarter full, and when the block cache is over capacity
 * with nothing evictable — checkpointed blocks become evictable), on demand when a handle cannot get
 * log space, and completely on a clean close. One checkpoint round writes home what every listed
 * transaction can give, as one scattered write sorted by block, and flushes once.
 *
 * <h2>Durability</h2>
 * Home writes are flushed at the end of their round, before the tail moves past them; the
 * superblock with the new tail is then written and flushed (standing in for jbd2's FUA superblock
 * write), and only then is the freed log space reused. A crash at any point leaves a tail that
 * still covers every transaction whose blocks may not be home.
 *
 * <h2>What is written home</h2>
 * A copy of the live block taken under its monitor while no running or committing transaction owns
 * it — that is, the last committed image. A block owned by a newer transaction blocks its old
 * transaction's checkpoint until the newer one commits (forced checkpoints ask for that commit).
 */
final class Checkpointer {
  /**
   * A round stops taking transactions once it holds this many blocks (16 MiB of copies at 4 KiB),
   * so a large journal's backlog goes home in several bounded rounds, oldest transactions first.
   */
  private static final int ROUND_BLOCKS = 4096;

  private final JournalEngine e;
  /**
   * Wake-ups never block the waker (the cache's pressure listener runs in threads that may hold
   * filesystem locks): a volatile flag and an unpark. The worker clears the flag before each round
   * and re-reads it before parking, and an unpark before the park makes the park return at once, so
   * no wake-up is lost.
   */
  private volatile boolean wakeRequested; // set by wakers, cleared by the worker
  private volatile boolean stopped; // set once by stop()
  private volatile Thread worker; // the home writer's thread, set when it starts
  /** Committed transactions with blocks still to write home, oldest first; guarded by the engine's listLock. */
  private final ArrayDeque<Transaction> list = new ArrayDeque<>();

  Checkpointer(JournalEngine engine) {
    this.e = engine;
  }

  /** A committed transaction whose blocks must go home joins the checkpoint list. Caller holds listLock. */
  void queueLocked(Transaction t) {
    assert e.listLock.isHeldByCurrentThread();
    list.addLast(t);
  }

  /** {@code t} has nothing left to write home (its buffers went home or moved on). Caller holds listLock. */
  void removeLocked(Transaction t) {
    assert e.listLock.isHeldByCurrentThread();
    list.remove(t);
  }

  boolean isEmptyLocked() {
    assert e.listLock.isHeldByCurrentThread();
    return list.isEmpty();
  }

  /** The home writer's loop; on its way out after an abort it records the abort in the superblock. */
  void run() {
    try {
      serve();
    } finally {
      if (e.isAborted()) {
        e.recordAbortInSuperblock();
      }
    }
  }

  private void serve() {
    worker = Thread.currentThread();
    while (true) {
      long deadline = System.nanoTime() + e.options.checkpointInterval().toNanos();
      for (long left; !wakeRequested && !stopped && (left = deadline - System.nanoTime()) > 0; ) {
        LockSupport.parkNanos(this, left);
        Thread.interrupted(); // never interrupted by ext4j; keep serving (and do not spin on a stray interrupt)
      }
      if (stopped) {
        return;
      }
      wakeRequested = false;
      if (e.isAborted()) {
        return;
      }
      try {
        e.checkpointMutex.lock();
        try {
          while (checkpointRound()) {
            // keep going while transactions complete
          }
          updateTail();
        } finally {
          e.checkpointMutex.unlock();
        }
      } catch (Throwable failure) {
        e.abort(failure);
        return;
      }
    }
  }

  /** Asks the home writer for a round now. Never blocks. */
  void wake() {
    wakeRequested = true; // volatile: before the unpark
    Thread w = worker;
    if (w != null) {
      LockSupport.unpark(w);
    }
  }

  void stop() {
    stopped = true;
    Thread w = worker;
    if (w != null) {
      LockSupport.unpark(w);
    }
  }

  /** Called after each commit: wake the home writer when the log is more than a quarter used. */
  void afterCommit() {
    long used;
    e.stateLock.lock();
    try {
      used = e.logUsedLocked();
    } finally {
      e.stateLock.unlock();
    }
    if (used > e.logSize() / 4) {
      wake();
    }
  }

  /**
   * Blocks until a new transaction can count on {@code maxTransactionBuffers} log blocks,
   * checkpointing in the caller's thread (jbd2's {@code __jbd2_log_wait_for_space}). Called without
   * the state lock.
   */
  void waitForSpace() throws JournalException {
    try {
      while (true) {
        e.checkNotAborted();
        Integer waitFor;
        e.checkpointMutex.lock();
        try {
          if (enoughSpace()) {
            return;
          }
          boolean progress = checkpointRound();
          progress |= updateTail();
          if (progress) {
            continue;
          }
          waitFor = busyTransaction();
        } finally {
          e.checkpointMutex.unlock();
        }
        if (waitFor == null && !hasCheckpointWork()) {
          e.stateLock.lock();
          try {
            if (e.committingLocked() == null && !enoughSpaceLocked()) {
              JournalException full = new JournalException(e.device.name()
                  + ": journal has no log space and nothing to checkpoint (log " + e.logSize() + " blocks, used "
                  + e.logUsedLocked() + ")");
              e.abort(full);
              throw full;
            }
          } finally {
            e.stateLock.unlock();
          }
        }
        if (waitFor != null) {
          e.commits.commitNowOrWait(waitFor);
        } else {
          e.stateLock.lock();
          try {
            if (!enoughSpaceLocked()) {
              JournalEngine.awaitNanos(e.spaceFreed, 10_000_000L);
            }
          } finally {
            e.stateLock.unlock();
          }
        }
      }
    } catch (JournalException ex) {
      throw ex;
    } catch (IOException ex) {
      e.abort(ex);
      throw new io.ext4j.jbd2.JournalAbortedException(e.device.name(), ex);
    }
  }

  /** Checkpoints every committed transaction and moves the tail to the head (used at close and flush). */
  void checkpointAll() throws IOException {
    try {
      checkpointAllOrThrow();
    } catch (io.ext4j.jbd2.JournalException ex) {
      throw ex;
    } catch (IOException | RuntimeException ex) {
      e.abort(ex);
      throw new io.ext4j.jbd2.JournalAbortedException(e.device.name(), ex);
    }
  }

  private void checkpointAllOrThrow() throws IOException {
    while (true) {
      e.checkNotAborted();
      Integer waitFor;
      e.checkpointMutex.lock();
      try {
        while (checkpointRound()) {
          // drain
        }
        updateTail();
        if (!hasCheckpointWork()) {
          return;
        }
        waitFor = busyTransaction();
      } finally {
        e.checkpointMutex.unlock();
      }
      if (waitFor != null) {
        e.commits.commitNowOrWait(waitFor);
      }
    }
  }

  private boolean enoughSpace() {
    e.stateLock.lock();
    try {
      return enoughSpaceLocked();
    } finally {
      e.stateLock.unlock();
    }
  }

  @GuardedBy("e.stateLock")
  private boolean enoughSpaceLocked() {
    return e.logSpaceLeftLocked() >= e.maxTransactionBuffers;
  }

  private boolean hasCheckpointWork() {
    e.listLock.lock();
    try {
      return !list.isEmpty();
    } finally {
      e.listLock.unlock();
    }
  }

  /**
   * The tid of a running or committing transaction that owns a buffer of the oldest checkpoint
   * transaction (whose commit would unblock it), requesting its commit; null if none.
   */
  private Integer busyTransaction() {
    Transaction oldest;
    List<BufferHead> buffers;
    e.listLock.lock();
    try {
      oldest = list.peekFirst();
      if (oldest == null) {
        return null;
      }
      buffers = new ArrayList<>(oldest.checkpoint);
    } finally {
      e.listLock.unlock();
    }
    for (BufferHead b : buffers) {
      Transaction owner = b.transaction;
      if (owner != null) {
        e.stateLock.lock();
        try {
          e.requestCommitLocked(owner.tid);
        } finally {
          e.stateLock.unlock();
        }
        return owner.tid;
      }
    }
    return null;
  }

  /** A buffer, the checkpoint transaction it was taken from, and the committed image copied for its home write. */
  private record HomeWrite(BufferHead buffer, Transaction from, byte[] image) {}

  /**
   * One round: writes home every block of every checkpoint transaction that can be written now (no
   * newer transaction owns it), as one scattered write and one flush, then drops the transactions
   * left with nothing to write. Caller holds checkpointMutex. Returns whether anything was written
   * or dropped.
   *
   * <p>Writing a newer transaction's blocks while an older one still waits on a busy buffer is safe:
   * each image is a committed one, the tail stays at the oldest transaction still listed, and
   * recovery replays the log in order from there, so every block ends at its newest committed image
   * whatever went home first. One flush per round, not one per transaction: a drain after a quarter
   * of the log filled covered tens of transactions, each with its own flush competing with the
   * commits' flushes (the bench's metadata mix at 1 thread: 2.4 flushes per commit before, 2.06
   * after). A round takes whole transactions, oldest first, until it holds {@link #ROUND_BLOCKS}
   * blocks.
   */
  private boolean checkpointRound() throws IOException {
    assert e.checkpointMutex.isHeldByCurrentThread();
    boolean dropped;
    List<Transaction> listed;
    e.listLock.lock();
    try {
      dropped = list.removeIf(c -> c.checkpoint.isEmpty());
      listed = new ArrayList<>(list);
    } finally {
      e.listLock.unlock();
    }
    List<HomeWrite> written = new ArrayList<>();
    for (int i = 0; i < listed.size() && written.size() < ROUND_BLOCKS; i++) {
      Transaction c = listed.get(i);
      List<BufferHead> buffers;
      e.listLock.lock();
      try {
        buffers = new ArrayList<>(c.checkpoint);
      } finally {
        e.listLock.unlock();
      }
      for (BufferHead b : buffers) {
        synchronized (b) {
          boolean mine;
          e.listLock.lock();
          try {
            mine = b.cpTransaction == c;
          } finally {
            e.listLock.unlock();
          }
          if (!mine || b.transaction != null) {
            continue; // moved on, or a newer transaction owns it: its commit will claim it
          }
          written.add(new HomeWrite(b, c, b.data.clone()));
        }
      }
    }
    if (written.isEmpty()) {
      return dropped;
    }
    written.sort(Comparator.comparingLong(w -> w.buffer().block));
    long[] blocks = new long[written.size()];
    ByteBuffer[] images = new ByteBuffer[written.size()];
    for (int i = 0; i < blocks.length; i++) {
      blocks[i] = written.get(i).buffer().block;
      images[i] = ByteBuffer.wrap(written.get(i).image());
    }
    e.device.write(blocks, images); // one call; contiguous runs become vectored writes
    e.flushDevice();
    e.stats.homeWrites.add(written.size());
    e.stats.checkpointRounds.increment();
    e.listLock.lock();
    try {
      for (HomeWrite w : written) {
        BufferHead b = w.buffer();
        if (b.cpTransaction == w.from()) {
          w.from().checkpoint.remove(b);
          b.cpTransaction = null;
        }
      }
      list.removeIf(c -> c.checkpoint.isEmpty());
    } finally {
      e.listLock.unlock();
    }
    return true;
  }

  /**
   * Moves the tail to the oldest transaction still needed, writing and flushing the superblock.
   * Caller holds checkpointMutex. Returns whether the tail moved.
   */
  boolean updateTail() throws IOException {
    assert e.checkpointMutex.isHeldByCurrentThread();
    if (e.superblock.isClean()) {
      return false;
    }
    int tid;
    long block;
    e.stateLock.lock();
    try {
      Transaction oldest;
      e.listLock.lock();
      try {
        oldest = list.peekFirst();
      } finally {
        e.listLock.unlock();
      }
      if (oldest != null) {
        tid = oldest.tid;
        block = oldest.logStart;
      } else if (e.committingLocked() != null) {
        tid = e.committingLocked().tid;
        block = e.committingLocked().logStart;
      } else if (e.runningLocked() != null) {
        tid = e.runningLocked().tid;
        block = e.logHeadLocked();
      } else {
        tid = e.nextTidLocked();
        block = e.logHeadLocked();
      }
      if (!e.tailCanAdvanceLocked(tid)) {
        return false;
      }
    } finally {
      e.stateLock.unlock();
    }
    // Every home write is already on the device: each round flushes after writing, under the
    // checkpointMutex held here. The superblock with the new tail is then made durable.
    e.superblock.writeTail(tid, block);
    e.flushDevice();
    e.stateLock.lock();
    try {
      e.advanceTailLocked(tid, block);
    } finally {
      e.stateLock.unlock();
    }
    e.stats.checkpointRounds.increment();
    return true;
  }
}
