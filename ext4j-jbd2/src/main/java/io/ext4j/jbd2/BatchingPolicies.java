package io.ext4j.jbd2;

import java.util.List;
import java.util.Locale;

/**
 * The batching policies the benchmark compares: the history of jbd/jbd2 sync batching and ext4j's
 * adaptive default. See jbd2-design §3 for the kernel history each one reproduces.
 */
public final class BatchingPolicies {
  private BatchingPolicies() {}

  /**
   * The adaptive policy's quiet gap: stop waiting when no handle joined for this long. Released
   * threads rejoin a few microseconds apart even when they outnumber the cores several times; a gap
   * much longer than that means the rest are busy elsewhere.
   */
  static final long QUIET_FLOOR_NANOS = 20_000L;

  static final long QUIET_CAP_NANOS = 50_000L;

  /**
   * How many quiet gaps a wait costs in practice: the last writers to come back are the slowest to
   * be scheduled, so a wait that reaches them lasts several gaps, not one.
   */
  static final int WAIT_PAYS_FACTOR = 4;

  /** No batching: a synchronous stop requests its commit at once. */
  public static final BatchingPolicy NONE = new Named("none") {};

  /**
   * Original jbd: while new handles keep joining, yield the processor once more (loop
   * {@code old = handleCount; yield} until the count stands still).
   */
  public static final BatchingPolicy YIELD = new Named("yield") {
    @Override
    public void onSyncStop(BatchContext c) {
      int old;
      do {
        old = c.handleCount();
        c.yieldThread();
      } while (old != c.handleCount());
    }
  };

  /** Early 2.6 jbd: the same loop sleeping one tick per round. */
  public static final BatchingPolicy TICK = new Named("tick") {
    @Override
    public void onSyncStop(BatchContext c) {
      tickLoop(c);
    }
  };

  /** 2005 "fix transaction batching": the tick loop, skipped when the caller was also the last sync writer. */
  public static final BatchingPolicy TICK_SKIP_SAME_WRITER = new Named("tick-skip-same") {
    @Override
    public void onSyncStop(BatchContext c) {
      if (!c.swapLastSyncWriter()) {
        tickLoop(c);
      }
    }
  };

  /**
   * Current jbd2: unless the caller was the last sync writer (or the max batch time is 0), if the
   * transaction is younger than the average commit time clamped to [min, max] batch time, sleep
   * that whole clamped time (the kernel sleeps the full time, not the difference).
   */
  public static final BatchingPolicy JBD2 = new Named("jbd2") {
    @Override
    public void onSyncStop(BatchContext c) {
      if (c.maxBatchNanos() == 0 || c.swapLastSyncWriter()) {
        return;
      }
      long commitTime = Math.min(Math.max(c.averageCommitNanos(), c.minBatchNanos()), c.maxBatchNanos());
      if (c.transactionAgeNanos() < commitTime) {
        c.sleepNanos(commitTime);
      }
    }
  };

  /**
   * ext4j's default. At commit time, not at stop: when fewer threads have joined the running
   * transaction than were writing lately (joined it or one of the two committed before it), the
   * missing ones are probably about to come back — released by the last commit, on their way to
   * their next update; wait for them, waking as soon as all have joined, when no one joined for a
   * quiet gap, or at a deadline of half the average commit time (clamped to [min, max] batch time).
   * A lone writer finds its expected count (1) already there and never waits; a steady group commits
   * whole instead of in halves, and two fsync callers whose commits alternate (each transaction
   * holding one of them, which the last commit alone cannot show) are brought into one.
   */
  public static final BatchingPolicy ADAPTIVE = new Named("adaptive") {
    @Override
    public void beforeCommit(BatchContext c) {
      int expected = c.recentWriters();
      int joined = c.writerCount();
      if (expected <= 1 || joined >= expected) {
        return;
      }
      long window = Math.min(Math.max(c.averageCommitNanos() / 2, c.minBatchNanos()), c.maxBatchNanos());
      if (window <= 0) {
        return;
      }
      long quiet = Math.min(Math.max(window / 16, QUIET_FLOOR_NANOS), QUIET_CAP_NANOS);
      // A wait costs at least one quiet gap of this commit; it pays only when the missing writers'
      // share of the batch is larger than that gap's share of a commit (two of 64 are not worth it).
      long commit = Math.max(c.averageCommitNanos(), 2 * window);
      if ((long) (expected - joined) * commit < (long) expected * quiet * WAIT_PAYS_FACTOR) {
        return;
      }
      c.awaitWriters(expected, c.nanoTime() + window, quiet);
    }
  };

  /** Every policy, the default ({@link #ADAPTIVE}) last. */
  public static List<BatchingPolicy> all() {
    return List.of(NONE, YIELD, TICK, TICK_SKIP_SAME_WRITER, JBD2, ADAPTIVE);
  }

  /** The default policy. */
  public static BatchingPolicy defaultPolicy() {
    return ADAPTIVE;
  }

  /** Looks a policy up by {@link BatchingPolicy#name()}. */
  public static BatchingPolicy byName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    for (BatchingPolicy p : all()) {
      if (p.name().equals(n)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown batching policy '" + name + "'; known: "
        + all().stream().map(BatchingPolicy::name).toList());
  }

  private static void tickLoop(BatchContext c) {
    int old;
    do {
      old = c.handleCount();
      c.sleepNanos(c.tickNanos());
    } while (old != c.handleCount());
  }

  /** A policy with a name; subclasses override the hook they use. */
  private abstract static class Named implements BatchingPolicy {
    private final String name;

    Named(String name) {
      this.name = name;
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
