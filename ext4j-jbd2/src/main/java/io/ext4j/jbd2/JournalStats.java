package io.ext4j.jbd2;

/**
 * A snapshot of the journal's runtime statistics, shaped like Linux's
 * {@code /proc/fs/jbd2/<dev>/info}; averages are over committed transactions.
 *
 * @param transactions committed transactions
 * @param requested of those, how many had an explicit commit request (sync stop, fsync, full, forced)
 * @param maxTransactionBuffers the most blocks one transaction may log
 * @param averageWaitMillis per transaction, the longest time a handle waited to join it
 * @param averageRequestDelayMillis from the first commit request to the transaction being locked
 * @param averageRunningMillis from creation to being locked
 * @param averageLockedMillis from being locked until its last handle stopped
 * @param averageFlushingMillis writing ordered data and revoke records
 * @param averageLoggingMillis writing metadata, the commit block and the flushes
 * @param averageCommitMicros the weighted average commit time the batching policies use
 * @param handlesPerTransaction handles per transaction
 * @param blocksPerTransaction metadata buffers per transaction
 * @param loggedBlocksPerTransaction all log blocks written per transaction (descriptors, data, revoke, commit)
 * @param deviceFlushes device flushes the journal issued (commits, checkpoints, superblock updates)
 * @param checkpointRounds checkpoint passes that wrote blocks home or moved the tail
 * @param homeWrites blocks written home by checkpointing
 * @param batchWaits batching waits taken by the policy (sleeps or joiner waits)
 */
public record JournalStats(
    long transactions,
    long requested,
    int maxTransactionBuffers,
    double averageWaitMillis,
    double averageRequestDelayMillis,
    double averageRunningMillis,
    double averageLockedMillis,
    double averageFlushingMillis,
    double averageLoggingMillis,
    double averageCommitMicros,
    double handlesPerTransaction,
    double blocksPerTransaction,
    double loggedBlocksPerTransaction,
    long deviceFlushes,
    long checkpointRounds,
    long homeWrites,
    long batchWaits) {

  /** The report in the layout of {@code /proc/fs/jbd2/<dev>/info}, plus ext4j's counters. */
  public String format() {
    return String.format(java.util.Locale.ROOT,
        "%d transactions (%d requested), each up to %d blocks%n"
            + "average: %n"
            + "  %.0fms waiting for transaction%n"
            + "  %.0fms request delay%n"
            + "  %.0fms running transaction%n"
            + "  %.0fms transaction was being locked%n"
            + "  %.0fms flushing data (in ordered mode)%n"
            + "  %.0fms logging transaction%n"
            + "  %.0fus average transaction commit time%n"
            + "  %.1f handles per transaction%n"
            + "  %.1f blocks per transaction%n"
            + "  %.1f logged blocks per transaction%n"
            + "%d device flushes, %d checkpoint rounds, %d blocks written home, %d batching waits%n",
        transactions, requested, maxTransactionBuffers, averageWaitMillis, averageRequestDelayMillis,
        averageRunningMillis, averageLockedMillis, averageFlushingMillis, averageLoggingMillis, averageCommitMicros,
        handlesPerTransaction, blocksPerTransaction, loggedBlocksPerTransaction, deviceFlushes, checkpointRounds,
        homeWrites, batchWaits);
  }
}
