package io.ext4j.jbd2.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.jbd2.JournalStats;
import java.util.concurrent.atomic.LongAdder;

/** Accumulates the per-commit numbers behind {@link JournalStats}. Commit-thread sums are guarded by this object. */
final class StatsCollector {
  private final int maxTransactionBuffers;
  final LongAdder deviceFlushes = new LongAdder();
  final LongAdder checkpointRounds = new LongAdder();
  final LongAdder homeWrites = new LongAdder();
  final LongAdder batchWaits = new LongAdder();

  @GuardedBy("this") private long transactions;
  @GuardedBy("this") private long requested;
  @GuardedBy("this") private long waitNanos;
  @GuardedBy("this") private long requestDelayNanos;
  @GuardedBy("this") private long runningNanos;
  @GuardedBy("this") private long lockedNanos;
  @GuardedBy("this") private long flushingNanos;
  @GuardedBy("this") private long loggingNanos;
  @GuardedBy("this") private long handles;
  @GuardedBy("this") private long blocks;
  @GuardedBy("this") private long logged;

  StatsCollector(int maxTransactionBuffers) {
    this.maxTransactionBuffers = maxTransactionBuffers;
  }

  synchronized void commit(Transaction t, long lockedAt, long switchedAt, long flushAt, long commitAt, long doneAt) {
    transactions++;
    if (t.requestedNanos != 0) {
      requested++;
      requestDelayNanos += Math.max(0, lockedAt - t.requestedNanos);
    }
    waitNanos += t.maxWaitNanos.get();
    runningNanos += lockedAt - t.startNanos;
    lockedNanos += switchedAt - lockedAt;
    flushingNanos += commitAt - flushAt;
    loggingNanos += doneAt - commitAt;
    handles += t.handleCount;
    blocks += t.metadataBlocks;
    logged += t.loggedBlocks;
  }

  synchronized JournalStats snapshot(long averageCommitNanos) {
    double n = (double) Math.max(1, transactions);
    return new JournalStats(transactions, requested, maxTransactionBuffers, waitNanos / n / 1e6,
        requestDelayNanos / Math.max(1.0, (double) requested) / 1e6, runningNanos / n / 1e6, lockedNanos / n / 1e6,
        flushingNanos / n / 1e6, loggingNanos / n / 1e6, averageCommitNanos / 1e3, handles / n, blocks / n,
        logged / n, deviceFlushes.sum(), checkpointRounds.sum(), homeWrites.sum(), batchWaits.sum());
  }
}
