package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * One measured thing: a scenario's variant on one target at one thread count. Its time is measured
 * in slices ({@link Body#run} once per slice); the cell adds them up. Owned by the suite's
 * coordinating thread (no other thread touches the sums).
 */
final class Cell {
  /** Runs one slice: an unmeasured warmup, then the measured window. */
  @FunctionalInterface
  interface Body {
    TimedRun.Result run(Duration warmup, Duration window) throws Exception;
  }

  final String scenario;
  final String variant;
  final String target;
  final String policy; // null unless the engine in-process
  final boolean isDefaultPolicy;
  final int threads;
  private final Body body;
  private final Histogram latency = new Histogram(3);
  private long operations;
  private long nanos;
  private boolean hasLatency;

  Cell(String scenario, String variant, String target, String policy, boolean isDefaultPolicy, int threads, Body body) {
    this.scenario = scenario;
    this.variant = variant;
    this.target = target;
    this.policy = policy;
    this.isDefaultPolicy = isDefaultPolicy;
    this.threads = threads;
    this.body = body;
  }

  void runSlice(Duration warmup, Duration window) throws Exception {
    TimedRun.Result r = body.run(warmup, window);
    if (r.latencyNanos().getTotalCount() > 0) {
      latency.add(r.latencyNanos());
      hasLatency = true;
    }
    operations += r.operations();
    nanos += r.windowNanos();
  }

  /** The cell's figures over all its slices. */
  CellResult result() {
    double rate = nanos == 0 ? 0 : operations * 1e9 / nanos;
    return new CellResult(scenario, variant, target, policy, isDefaultPolicy, threads, rate, micros(50), micros(99),
        micros(99.9), operations, nanos / 1e9);
  }

  private double micros(double percentile) {
    return hasLatency ? latency.getValueAtPercentile(percentile) / 1000.0 : Double.NaN;
  }

  @Override
  public String toString() {
    return scenario + "/" + variant + " on " + target + " at " + threads + (threads == 1 ? " thread" : " threads");
  }
}
