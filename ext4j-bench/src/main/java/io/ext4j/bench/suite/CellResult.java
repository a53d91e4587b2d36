package io.ext4j.bench.suite;

import io.ext4j.jbd2.JournalStats;

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
 * @param handlesPerTransaction handles per committed transaction where the commits were measured
 *     (the group-commit ceiling's: its N), else NaN
 * @param flushesPerSec device flushes the journal issued per second (commits, checkpoints and
 *     superblock updates), where the commits were measured; for the {@code journal} scenario's
 *     references, their {@code fdatasync} calls per second (the kernel may merge their device
 *     flushes); else NaN
 * @param diskFlushesPerSec flush requests the disk holding the work directory completed per second
 *     ({@link DiskFlushCounter}: every process on that disk counts), where the scenario counted them
 *     ({@code journal}) and the kernel exposes the count, else NaN
 * @param commitWakeup the commit wake-up a {@code journal} scenario's journal row really ran
 *     ({@code futex-broadcast}, {@code unpark-each}), else null
 * @param journalStats that journal's statistics at the end of the cell's last slice (cumulative
 *     over that slice, its warmup included), else null
 */
public record CellResult(String scenario, String variant, String target, String setting, boolean isDefault, int threads,
    int bytesPerOp, double opsPerSec, double meanMicros, double p50Micros, double p99Micros, double p999Micros, long operations,
    double seconds, String failure, double commitsPerSec, double commitBusy, double processCores, double handlesPerTransaction,
    double flushesPerSec, double diskFlushesPerSec, String commitWakeup, JournalStats journalStats) {
  /** KiB per second. */
  public double kibPerSec() {
    return opsPerSec * bytesPerOp / 1024.0;
  }

  /** Operations per flush the disk really completed (NaN where not counted or none). */
  public double opsPerDiskFlush() {
    return diskFlushesPerSec > 0 ? opsPerSec / diskFlushesPerSec : Double.NaN;
  }

  /** Device flushes per committed transaction (NaN where either was not measured). */
  public double flushesPerTransaction() {
    return commitsPerSec > 0 ? flushesPerSec / commitsPerSec : Double.NaN;
  }
}
