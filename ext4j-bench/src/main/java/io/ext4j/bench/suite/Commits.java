package io.ext4j.bench.suite;

import io.ext4j.jbd2.JournalStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a journal (or a reference that stands in for one) did over a measured time: transactions
 * committed, the handles they carried, the device flushes issued (a journal's commits, checkpoints
 * and superblock updates; a reference's {@code fdatasync} calls), the flushes the disk itself
 * completed ({@link DiskFlushCounter}; NaN where not counted), the time spent committing
 * (locked, flushing and logging: commits run one at a time, so this over the elapsed time is how
 * busy the commit pipeline was), the processor time the whole process used (workload threads, the
 * journal's own, the JVM's), and the elapsed time. For an in-process target's file system it is
 * read from the store's {@code journalStats} attribute around a slice's timed run ({@link #around});
 * the {@code journal} scenario takes it at the measured window's edges ({@link JournalWorkload}).
 * Slices add up ({@link #plus}); a NaN disk count makes the sum's NaN too (not every slice counted).
 */
record Commits(long transactions, double handles, long flushes, double diskFlushes, double commitSeconds, double cpuSeconds,
    double elapsedSeconds) {
  /** Nothing measured: the identity of {@link #plus}. */
  static final Commits NONE = new Commits(0, 0, 0, 0, 0, 0, 0);

  /** A measured job: its slice. */
  @FunctionalInterface
  interface Job {
    Cell.Slice run() throws Exception;
  }

  /**
   * Runs {@code job} on an in-process target's directory {@code dir} and attaches its journal's
   * commits from just before to just after it (wrap only what is measured).
   */
  static Cell.Slice around(Path dir, Job job) throws Exception {
    JournalStats before = stats(dir);
    long cpu0 = processCpuNanos();
    long t0 = System.nanoTime();
    Cell.Slice s = job.run();
    double elapsed = (System.nanoTime() - t0) / 1e9;
    double cpu = (processCpuNanos() - cpu0) / 1e9;
    JournalStats after = stats(dir);
    if (before == null || after == null) {
      return s;
    }
    return s.withCommits(between(before, after, Double.NaN, cpu, elapsed));
  }

  /** What a journal did between two of its statistics snapshots {@code elapsedSeconds} apart. */
  static Commits between(JournalStats before, JournalStats after, double diskFlushes, double cpuSeconds, double elapsedSeconds) {
    long n = after.transactions() - before.transactions();
    double handles = after.handlesPerTransaction() * after.transactions() - before.handlesPerTransaction() * before.transactions();
    double seconds = (commitMillis(after) - commitMillis(before)) / 1e3;
    return new Commits(n, handles, after.deviceFlushes() - before.deviceFlushes(), diskFlushes, seconds, cpuSeconds, elapsedSeconds);
  }

  /** Processor time this JVM has used so far (all its threads), or 0 where the platform does not say. */
  static long processCpuNanos() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
        ? Math.max(0, os.getProcessCpuTime()) : 0;
  }

  private static JournalStats stats(Path dir) throws IOException {
    return (JournalStats) Files.getFileStore(dir).getAttribute("journalStats");
  }

  /** All committed transactions' commit time so far (the stats keep means over them). */
  private static double commitMillis(JournalStats s) {
    return s.transactions() * (s.averageLockedMillis() + s.averageFlushingMillis() + s.averageLoggingMillis());
  }

  Commits plus(Commits o) {
    return new Commits(transactions + o.transactions, handles + o.handles, flushes + o.flushes, diskFlushes + o.diskFlushes,
        commitSeconds + o.commitSeconds, cpuSeconds + o.cpuSeconds, elapsedSeconds + o.elapsedSeconds);
  }

  /** Transactions committed per second (NaN when nothing was measured). */
  double perSecond() {
    return elapsedSeconds > 0 ? transactions / elapsedSeconds : Double.NaN;
  }

  /** Handles per committed transaction (NaN when none committed). */
  double handlesPerTransaction() {
    return transactions > 0 ? handles / transactions : Double.NaN;
  }

  /** Device flushes issued per second (NaN when nothing was measured). */
  double flushesPerSecond() {
    return elapsedSeconds > 0 ? flushes / elapsedSeconds : Double.NaN;
  }

  /** Flushes the disk completed per second (NaN when nothing was measured or a slice could not count them). */
  double diskFlushesPerSecond() {
    return elapsedSeconds > 0 ? diskFlushes / elapsedSeconds : Double.NaN;
  }

  /** Processors the process kept busy on average (NaN when nothing was measured). */
  double cores() {
    return elapsedSeconds > 0 && cpuSeconds > 0 ? cpuSeconds / elapsedSeconds : Double.NaN;
  }

  /** The share of the elapsed time a commit was running (NaN when nothing was measured). */
  double busy() {
    return elapsedSeconds > 0 ? commitSeconds / elapsedSeconds : Double.NaN;
  }
}
