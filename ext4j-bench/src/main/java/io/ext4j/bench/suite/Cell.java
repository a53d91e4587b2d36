package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import io.ext4j.jbd2.JournalStats;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * One measured thing: a scenario's variant on one target at one thread count (and block size). Its
 * time is measured in slices ({@link Body#run} once per slice); the cell adds them up. A slice that
 * throws fails the cell: it runs no more slices and the report shows why. Owned by the suite's
 * coordinating thread (no other thread touches the sums).
 */
final class Cell {
  /** Runs one slice: an unmeasured warmup, then the measured window. */
  @FunctionalInterface
  interface Body {
    Slice run(Duration warmup, Duration window) throws Exception;
  }

  /**
   * What one slice measured: {@code latency} per operation (null where a tool measured, as fio),
   * else the tool's own mean latency in {@code toolMeanMicros}; an in-process target's journal
   * commits when the scenario measured them ({@link Commits#NONE} otherwise); and for a journal the
   * scenario made itself ({@code journal}), how it ran, else null.
   */
  record Slice(long operations, long windowNanos, Histogram latency, double toolMeanMicros, Commits commits, JournalRan journal) {
    Slice(long operations, long windowNanos, Histogram latency, double toolMeanMicros) {
      this(operations, windowNanos, latency, toolMeanMicros, Commits.NONE, null);
    }

    static Slice of(TimedRun.Result r) {
      return new Slice(r.operations(), r.windowNanos(), r.latencyNanos(), Double.NaN);
    }

    Slice withCommits(Commits c) {
      return new Slice(operations, windowNanos, latency, toolMeanMicros, c, journal);
    }

    Slice withJournal(JournalRan j) {
      return new Slice(operations, windowNanos, latency, toolMeanMicros, commits, j);
    }
  }

  /**
   * How a journal of the {@code journal} scenario ran in a slice: the commit wake-up it really used
   * ({@code futex-broadcast} may fall back to {@code unpark-each} where the futex is unavailable),
   * and its statistics when the slice ended (cumulative since the slice created it, warmup included).
   */
  record JournalRan(String commitWakeup, JournalStats stats) {}

  final String scenario;
  final String variant;
  final String target;
  final String setting; // the strategy value an in-process row ran with (policy, locking), else null
  final boolean isDefault; // setting is the engine's default
  final int threads;
  final int bytesPerOp;
  private final Body body;
  private final Histogram latency = new Histogram(3);
  private long operations;
  private long nanos;
  private double toolMeanWeighted; // Σ mean × operations over the tool's slices
  private long toolOperations;
  private Commits commits = Commits.NONE; // summed over the slices
  private JournalRan journal; // the last slice's, or null
  private String failure;

  Cell(String scenario, String variant, String target, String setting, boolean isDefault, int threads, int bytesPerOp, Body body) {
    this.scenario = scenario;
    this.variant = variant;
    this.target = target;
    this.setting = setting;
    this.isDefault = isDefault;
    this.threads = threads;
    this.bytesPerOp = bytesPerOp;
    this.body = body;
  }

  /** Runs one more slice, unless an earlier one failed. */
  void runSlice(Duration warmup, Duration window) {
    if (failure != null) {
      return;
    }
    Slice s;
    try {
      s = body.run(warmup, window);
    } catch (Exception e) {
      failure = e.getMessage() != null ? e.getMessage() : e.toString();
      return;
    }
    if (s.latency() != null) {
      latency.add(s.latency());
    } else if (!Double.isNaN(s.toolMeanMicros())) {
      toolMeanWeighted += s.toolMeanMicros() * s.operations();
      toolOperations += s.operations();
    }
    operations += s.operations();
    nanos += s.windowNanos();
    commits = commits.plus(s.commits());
    if (s.journal() != null) {
      journal = s.journal();
    }
  }

  /**
   * Runs unmeasured slices of {@code window} until {@code window} has passed (one slice of a timed
   * body; several of a body that runs a whole job, as populate's), to let the JIT compile the code
   * every later slice runs; a failure is not recorded here (the measured slices will meet it).
   */
  void rehearse(Duration window) {
    long end = System.nanoTime() + window.toNanos();
    try {
      do {
        body.run(Duration.ZERO, window);
      } while (System.nanoTime() < end);
    } catch (Exception e) {
      // the measured slices report it
    }
  }

  /** The cell's figures over all its slices. */
  CellResult result() {
    double rate = nanos == 0 ? 0 : operations * 1e9 / nanos;
    boolean perOp = latency.getTotalCount() > 0;
    double mean = perOp ? latency.getMean() / 1000.0 : toolOperations > 0 ? toolMeanWeighted / toolOperations : Double.NaN;
    return new CellResult(scenario, variant, target, setting, isDefault, threads, bytesPerOp, rate, mean,
        perOp ? micros(50) : Double.NaN, perOp ? micros(99) : Double.NaN, perOp ? micros(99.9) : Double.NaN, operations,
        nanos / 1e9, failure, commits.perSecond(), commits.busy(), commits.cores(), commits.handlesPerTransaction(),
        commits.flushesPerSecond(), commits.diskFlushesPerSecond(), journal == null ? null : journal.commitWakeup(),
        journal == null ? null : journal.stats());
  }

  private double micros(double percentile) {
    return latency.getValueAtPercentile(percentile) / 1000.0;
  }

  @Override
  public String toString() {
    return scenario + "/" + variant + (bytesPerOp > 0 && !scenario.equals(FsyncScenario.NAME) ? " " + (bytesPerOp >> 10) + "k" : "")
        + " on " + target + " at " + threads + (threads == 1 ? " thread" : " threads");
  }
}
