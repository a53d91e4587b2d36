package io.ext4j.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Runs one operation in a closed loop on N platform threads for a warmup and then a measured
 * window, recording the latency of every operation that started and finished inside the window.
 *
 * <p>Threads start together (a gate), each loops until the window ends, and the coordinator calls
 * {@code atMeasureStart}/{@code atMeasureEnd} at the window's edges (the journal benchmark takes its
 * statistics snapshots there). Workers are never interrupted — an interrupt during
 * {@code FileChannel} I/O would close the channel for every thread — they stop at the deadline or
 * when another worker failed; the first failure is rethrown after all have finished.
 */
public final class TimedRun {
  private TimedRun() {}

  /** One worker's operation; {@code seq} counts that worker's calls from 0. */
  @FunctionalInterface
  public interface Op {
    void run(long seq) throws Exception;
  }

  /** What a run measured: merged latencies (nanoseconds), operations, and the window's length. */
  @SuppressWarnings("exports") // HdrHistogram is an automatic module (requires transitive would warn in turn); only this module reads the histogram
  public record Result(Histogram latencyNanos, long operations, long windowNanos) {
    public double opsPerSec() {
      return operations * 1e9 / windowNanos;
    }

    /** The latency at {@code percentile} in microseconds; NaN if no operation was measured. */
    public double micros(double percentile) {
      return operations == 0 ? Double.NaN : latencyNanos.getValueAtPercentile(percentile) / 1000.0;
    }
  }

  public static Result run(List<Op> ops, Duration warmup, Duration window, Runnable atMeasureStart, Runnable atMeasureEnd)
      throws Exception {
    int n = ops.size();
    CountDownLatch ready = new CountDownLatch(n);
    CountDownLatch go = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long[] edges = new long[2]; // measureStart, measureEnd: written before go.countDown(), read after go.await()
    Histogram[] histograms = new Histogram[n];
    long[] counts = new long[n];
    List<Thread> threads = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int index = i;
      Op op = ops.get(i);
      histograms[i] = new Histogram(3); // auto-resizing, 3 significant digits
      Thread t = Thread.ofPlatform().name("ext4j-bench-" + i).unstarted(() -> {
        Histogram h = histograms[index];
        long done = 0;
        try {
          ready.countDown();
          go.await();
          long start = edges[0];
          long end = edges[1];
          for (long seq = 0; failure.get() == null; seq++) {
            long t0 = System.nanoTime();
            if (t0 - end >= 0) {
              break;
            }
            op.run(seq);
            long t1 = System.nanoTime();
            if (t0 - start >= 0 && t1 - end <= 0) {
              h.recordValue(t1 - t0);
              done++;
            }
          }
        } catch (Throwable e) {
          failure.compareAndSet(null, e);
        }
        counts[index] = done; // published by join
      });
      threads.add(t);
      t.start();
    }
    ready.await();
    long begin = System.nanoTime();
    edges[0] = begin + warmup.toNanos();
    edges[1] = edges[0] + window.toNanos();
    go.countDown(); // happens-before each worker's go.await() return: publishes edges
    try {
      sleepUntil(edges[0]);
      atMeasureStart.run();
      sleepUntil(edges[1]);
      atMeasureEnd.run();
    } catch (InterruptedException | RuntimeException e) {
      failure.compareAndSet(null, e); // stops the workers at their next operation
    }
    for (Thread t : threads) {
      boolean interrupted = false;
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // keep waiting: the workers hold open devices
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    Throwable f = failure.get();
    if (f instanceof Exception e) {
      throw e;
    } else if (f instanceof Error e) {
      throw e;
    }
    Histogram merged = new Histogram(3);
    long total = 0;
    for (int i = 0; i < n; i++) {
      merged.add(histograms[i]);
      total += counts[i];
    }
    return new Result(merged, total, edges[1] - edges[0]);
  }

  private static void sleepUntil(long deadline) throws InterruptedException {
    for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
      Thread.sleep(Duration.ofNanos(left));
    }
  }
}
