package io.ext4j.bench;

import java.util.OptionalDouble;

/**
 * One measured row: a policy (or the kernel baseline) at one thread count.
 *
 * @param policy the batching policy's name, {@link #BASELINE} for the pwrite + fdatasync rows, or
 *     {@link #CEILING} for the group-commit ceiling
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
 * @param deviceFlushesPerSec flush requests the kernel's block layer completed per second on the
 *     disk during the window ({@link DiskFlushCounter}; all processes on that disk), empty where the
 *     kernel does not expose the count
 * @param commitWakeup the commit wake-up that ran ({@code futex-broadcast} or {@code unpark-each});
 *     empty for the baseline and the ceiling
 * @param isDefault true for the journal's default batching policy with the default commit wake-up
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
    OptionalDouble deviceFlushesPerSec,
    String commitWakeup,
    boolean isDefault) {

  /** The policy name of the same-run kernel baseline rows. */
  public static final String BASELINE = "fdatasync-baseline";

  /** The policy name of the same-run group-commit ceiling rows ({@link GroupCommitCeiling}). */
  public static final String CEILING = "group-commit-ceiling";

  /** The command-line name of a commit wake-up: {@code futex-broadcast}, {@code unpark-each}. */
  public static String wakeupName(io.ext4j.jbd2.CommitWakeup w) {
    return w.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  public boolean isBaseline() {
    return BASELINE.equals(policy);
  }

  /** Whether this row measures no journal: the fdatasync baseline or the group-commit ceiling. */
  public boolean isReference() {
    return isBaseline() || CEILING.equals(policy);
  }

  /**
   * One row from the slices of an interleaved measurement (equal windows): rates and handles per
   * transaction are the slices' means, latencies the median of the slices' percentiles.
   */
  public static BenchRow merge(java.util.List<BenchRow> slices) {
    if (slices.size() == 1) {
      return slices.getFirst();
    }
    BenchRow first = slices.getFirst();
    OptionalDouble handles = first.handlesPerTransaction().isPresent()
        ? OptionalDouble.of(slices.stream().mapToDouble(r -> r.handlesPerTransaction().orElse(0)).average().orElse(0))
        : OptionalDouble.empty();
    return new BenchRow(first.policy(), first.threads(),
        slices.stream().mapToDouble(BenchRow::opsPerSec).average().orElse(0),
        median(slices.stream().mapToDouble(BenchRow::p50Micros).toArray()),
        median(slices.stream().mapToDouble(BenchRow::p99Micros).toArray()),
        handles,
        slices.stream().mapToDouble(BenchRow::flushesPerSec).average().orElse(0),
        slices.stream().mapToDouble(BenchRow::transactionsPerSec).average().orElse(0),
        slices.stream().allMatch(r -> r.deviceFlushesPerSec().isPresent())
            ? OptionalDouble.of(slices.stream().mapToDouble(r -> r.deviceFlushesPerSec().getAsDouble()).average().orElse(0))
            : OptionalDouble.empty(),
        first.commitWakeup(),
        first.isDefault());
  }

  private static double median(double[] v) {
    java.util.Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  /** Operations per flush the disk really performed, if counted (see {@link #deviceFlushesPerSec}). */
  public OptionalDouble opsPerDeviceFlush() {
    return deviceFlushesPerSec.isPresent() && deviceFlushesPerSec.getAsDouble() > 0
        ? OptionalDouble.of(opsPerSec / deviceFlushesPerSec.getAsDouble())
        : OptionalDouble.empty();
  }

  /** Device flushes per committed transaction (1.0 for the baseline). */
  public double flushesPerTransaction() {
    return transactionsPerSec == 0 ? Double.NaN : flushesPerSec / transactionsPerSec;
  }
}
