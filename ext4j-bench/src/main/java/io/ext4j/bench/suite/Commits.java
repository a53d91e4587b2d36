package io.ext4j.bench.suite;

import io.ext4j.jbd2.JournalStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What an in-process target's journal did over a slice's timed run (warmup and window), from the
 * store's {@code journalStats} attribute before and after: transactions committed, the time spent
 * committing them (locked, flushing and logging: commits run one at a time, so this over the
 * elapsed time is how busy the commit pipeline was), the processor time the whole process used
 * (workload threads, the journal's own, the JVM's), and the elapsed time.
 */
record Commits(long transactions, double commitSeconds, double cpuSeconds, double elapsedSeconds) {
  static final Commits NONE = new Commits(0, 0, 0, 0);

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
    long n = after.transactions() - before.transactions();
    double seconds = (commitMillis(after) - commitMillis(before)) / 1e3;
    return s.withCommits(new Commits(n, seconds, cpu, elapsed));
  }

  /** Processor time this JVM has used so far (all its threads), or 0 where the platform does not say. */
  private static long processCpuNanos() {
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
    return new Commits(transactions + o.transactions, commitSeconds + o.commitSeconds, cpuSeconds + o.cpuSeconds,
        elapsedSeconds + o.elapsedSeconds);
  }

  /** Transactions committed per second (NaN when nothing was measured). */
  double perSecond() {
    return elapsedSeconds > 0 ? transactions / elapsedSeconds : Double.NaN;
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
