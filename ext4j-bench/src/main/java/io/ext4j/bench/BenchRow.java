package io.ext4j.bench;

import java.util.OptionalDouble;

/**
 * One measured row: a policy (or the kernel baseline) at one thread count.
 *
 * @param policy the batching policy's name, or {@link #BASELINE} for the pwrite + fdatasync rows
 * @param threads concurrent writers
 * @param opsPerSec completed operations per second in the measured window (an operation is one
 *     synchronous handle, or one pwrite + fdatasync)
 * @param p50Micros median operation latency in microseconds
 * @param p99Micros 99th percentile latency in microseconds
 * @param handlesPerTransaction handles per committed transaction in the window; empty for the
 *     baseline, where it does not apply
 * @param flushesPerSec journal device flushes per second in the window (commits, checkpoints and
 *     superblock updates); for the baseline, fdatasync calls per second (the kernel may merge their
 *     device flushes)
 * @param transactionsPerSec journal commits per second in the window; for the baseline, fdatasync
 *     calls per second
 * @param isDefault true for the journal's default batching policy
 */
public record BenchRow(
    String policy,
    int threads,
    double opsPerSec,
    double p50Micros,
    double p99Micros,
    OptionalDouble handlesPerTransaction,
    double flushesPerSec,
    double transactionsPerSec,
    boolean isDefault) {

  /** The policy name of the same-run kernel baseline rows. */
  public static final String BASELINE = "fdatasync-baseline";

  public boolean isBaseline() {
    return BASELINE.equals(policy);
  }

  /** Device flushes per committed transaction (1.0 for the baseline). */
  public double flushesPerTransaction() {
    return transactionsPerSec == 0 ? Double.NaN : flushesPerSec / transactionsPerSec;
  }
}
