package io.ext4j.bench.suite;

/**
 * One row of the report.
 *
 * @param target the target's name ({@link Target}; {@code ext4j/VALUE} for a changed strategy), or
 *     {@code device} for fio's bound on the host directory
 * @param setting the strategy value an in-process ext4j row ran with (a batching policy, a DIO
 *     locking), else null
 * @param isDefault whether {@code setting} is the engine's default
 * @param bytesPerOp bytes each operation moved
 * @param opsPerSec operations per second over all slices' windows
 * @param meanMicros mean latency in microseconds (fio's own for the device rows)
 * @param p50Micros median latency (NaN where not measured per operation: fio's rows)
 * @param operations operations counted in the windows
 * @param seconds the windows' total length
 * @param failure why the cell could not run (the rest of its figures are then those of its slices before), else null
 * @param commitsPerSec an in-process target's journal transactions committed per second, where the
 *     scenario measured them (fsync, metadata), else NaN
 * @param commitBusy the share of that time a commit was running (commits run one at a time), else NaN
 * @param processCores processors the benchmark's process kept busy on average over that time (the
 *     workload's threads and the engine's), where the commits were measured, else NaN
 */
public record CellResult(String scenario, String variant, String target, String setting, boolean isDefault, int threads,
    int bytesPerOp, double opsPerSec, double meanMicros, double p50Micros, double p99Micros, double p999Micros, long operations,
    double seconds, String failure, double commitsPerSec, double commitBusy, double processCores) {
  /** KiB per second. */
  public double kibPerSec() {
    return opsPerSec * bytesPerOp / 1024.0;
  }
}
