package io.ext4j.jbd2.internal;

import io.ext4j.jbd2.BatchContext;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** {@link BatchContext} over the engine's real state and clock, for one transaction. */
final class EngineBatchContext implements BatchContext {
  private final JournalEngine engine;
  private final Transaction transaction;

  EngineBatchContext(JournalEngine engine, Transaction transaction) {
    this.engine = engine;
    this.transaction = transaction;
  }

  @Override
  public long nanoTime() {
    return engine.options.clock().nanoTime();
  }

  @Override
  public int handleCount() {
    return transaction.handleCount;
  }

  @Override
  public long transactionAgeNanos() {
    return nanoTime() - transaction.startNanos;
  }

  @Override
  public long averageCommitNanos() {
    return engine.commitProcess.averageCommitNanos();
  }

  @Override
  public int previousCommitHandles() {
    return engine.commitProcess.previousCommitHandles();
  }

  @Override
  public boolean swapLastSyncWriter() {
    return engine.swapLastSyncWriter(); // plain heuristic, racy as in jbd2
  }

  @Override
  public long minBatchNanos() {
    return engine.options.minBatchTime().toNanos();
  }

  @Override
  public long maxBatchNanos() {
    return engine.options.maxBatchTime().toNanos();
  }

  @Override
  public long tickNanos() {
    return engine.options.tick().toNanos();
  }

  @Override
  public void sleepNanos(long nanos) {
    engine.stats.batchWaits.increment();
    long deadline = System.nanoTime() + nanos;
    boolean interrupted = false;
    for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
      LockSupport.parkNanos(left);
      interrupted |= Thread.interrupted(); // finish the sleep without spinning; restore the interrupt after
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  @SuppressWarnings("ThreadPriorityCheck") // the batching policies' yield, by name, as jbd2's batching yields
  public void yieldThread() {
    Thread.yield();
  }

  @Override
  public int writerCount() {
    return transaction.writers;
  }

  @Override
  public int recentWriters() {
    engine.stateLock.lock();
    try {
      return engine.recentWritersLocked(transaction);
    } finally {
      engine.stateLock.unlock();
    }
  }

  @Override
  public int awaitWriters(int target, long deadlineNanos, long quietNanos) {
    engine.stats.batchWaits.increment();
    engine.stateLock.lock();
    try {
      long begun = nanoTime();
      engine.batchWaitBeginLocked(transaction, target);
      try {
        while (true) {
          int count = transaction.writers;
          long now = nanoTime();
          long quietEnd = Math.max(transaction.lastJoinNanos, begun) + quietNanos;
          if (count >= target || now - deadlineNanos >= 0 || now - quietEnd >= 0 || engine.isAborted()
              || transaction.state() != TransactionState.RUNNING) {
            return count;
          }
          long wait = Math.min(deadlineNanos, quietEnd) - now;
          try {
            engine.handleJoined.await(wait, TimeUnit.NANOSECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return transaction.writers;
          }
        }
      } finally {
        engine.batchWaitEndLocked(transaction);
      }
    } finally {
      engine.stateLock.unlock();
    }
  }
}
