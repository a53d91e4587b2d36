package io.ext4j.jbd2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Each batching policy, driven by a scripted {@link BatchContext}: a manual clock, a handle count that
 * grows by a scripted number of joiners after every wait, and a record of every wait the policy asks
 * for. The assertions name the exact waits.
 */
@Tag("fast")
class BatchingPoliciesTest {
  static final long US = 1_000;
  static final long MS = 1_000_000;

  /** A scripted journal: every field is what the policy will read; {@link #calls} what it asked. */
  static final class Script implements BatchContext {
    long now = 1_000 * MS;
    int handles = 1;
    long transactionStart = now;
    long averageCommit;
    int previousHandles;
    int writers = 1;
    int recentWriters;
    boolean lastSyncWriter;
    long minBatch;
    long maxBatch = 15 * MS;
    long tick = MS;
    /** Joiners arriving during each successive wait; none once exhausted. */
    final Deque<Integer> joins = new ArrayDeque<>();
    final List<String> calls = new ArrayList<>();
    int swaps;

    Script joining(Integer... perWait) {
      joins.addAll(List.of(perWait));
      return this;
    }

    private void joinersArrive() {
      Integer n = joins.poll();
      handles += n == null ? 0 : n;
      writers += n == null ? 0 : n;
    }

    @Override public long nanoTime() {
      return now;
    }

    @Override public int handleCount() {
      return handles;
    }

    @Override public long transactionAgeNanos() {
      return now - transactionStart;
    }

    @Override public long averageCommitNanos() {
      return averageCommit;
    }

    @Override public int previousCommitHandles() {
      return previousHandles;
    }

    @Override public boolean swapLastSyncWriter() {
      swaps++;
      boolean was = lastSyncWriter;
      lastSyncWriter = true;
      return was;
    }

    @Override public long minBatchNanos() {
      return minBatch;
    }

    @Override public long maxBatchNanos() {
      return maxBatch;
    }

    @Override public long tickNanos() {
      return tick;
    }

    @Override public void sleepNanos(long nanos) {
      calls.add("sleep " + nanos);
      now += nanos;
      joinersArrive();
    }

    @Override public void yieldThread() {
      calls.add("yield");
      joinersArrive();
    }

    @Override public int writerCount() {
      return writers;
    }

    @Override public int recentWriters() {
      return recentWriters;
    }

    @Override public int awaitWriters(int target, long deadlineNanos, long quietNanos) {
      calls.add("await " + target + " for " + (deadlineNanos - now) + " quiet " + quietNanos);
      joinersArrive();
      return writers;
    }
  }

  static Script run(BatchingPolicy policy, Script s) {
    policy.onSyncStop(s);
    policy.beforeCommit(s);
    return s;
  }

  // ---------------------------------------------------------------- none

  @Test
  void none_neverWaits() {
    Script s = new Script().joining(3, 3);
    s.previousHandles = 8;
    s.averageCommit = 2 * MS;
    assertThat(run(BatchingPolicies.NONE, s).calls).isEmpty();
  }

  // ---------------------------------------------------------------- yield and tick loops

  @Test
  void yield_yieldsAgainWhileHandlesKeepJoining_andStopsWhenTheCountStandsStill() {
    Script s = run(BatchingPolicies.YIELD, new Script().joining(2, 1, 0, 5));
    assertThat(s.calls).containsExactly("yield", "yield", "yield");
    assertThat(s.handles).isEqualTo(4);
  }

  @Test
  void yield_loneWriter_yieldsOnce() {
    assertThat(run(BatchingPolicies.YIELD, new Script()).calls).containsExactly("yield");
  }

  @Test
  void tick_sleepsOneTickPerRoundWhileHandlesKeepJoining() {
    Script s = new Script().joining(1, 1, 0);
    s.tick = 4 * MS;
    assertThat(run(BatchingPolicies.TICK, s).calls).containsExactly("sleep " + 4 * MS, "sleep " + 4 * MS, "sleep " + 4 * MS);
  }

  @Test
  void tick_loneWriter_sleepsExactlyOneTick() {
    assertThat(run(BatchingPolicies.TICK, new Script()).calls).containsExactly("sleep " + MS);
  }

  @Test
  void tickSkipSameWriter_whenTheCallerWasTheLastSyncWriter_doesNotWait() {
    Script s = new Script().joining(1, 0);
    s.lastSyncWriter = true;
    assertThat(run(BatchingPolicies.TICK_SKIP_SAME_WRITER, s).calls).isEmpty();
    assertThat(s.swaps).isEqualTo(1);
  }

  @Test
  void tickSkipSameWriter_forANewSyncWriter_runsTheTickLoop_andRecordsItAsTheLastWriter() {
    Script s = new Script().joining(1, 0);
    assertThat(run(BatchingPolicies.TICK_SKIP_SAME_WRITER, s).calls).containsExactly("sleep " + MS, "sleep " + MS);
    assertThat(s.lastSyncWriter).isTrue();
    s.calls.clear();
    assertThat(run(BatchingPolicies.TICK_SKIP_SAME_WRITER, s).calls).as("the same writer again").isEmpty();
  }

  // ---------------------------------------------------------------- jbd2

  @Test
  void jbd2_transactionYoungerThanTheAverageCommit_sleepsTheWholeAverage() {
    Script s = new Script();
    s.averageCommit = 2 * MS;
    s.now += MS; // one millisecond old
    assertThat(run(BatchingPolicies.JBD2, s).calls).containsExactly("sleep " + 2 * MS);
  }

  @Test
  void jbd2_transactionOlderThanTheAverageCommit_doesNotSleep() {
    Script s = new Script();
    s.averageCommit = 2 * MS;
    s.now += 3 * MS;
    assertThat(run(BatchingPolicies.JBD2, s).calls).isEmpty();
  }

  @Test
  void jbd2_callerWasTheLastSyncWriter_doesNotSleep() {
    Script s = new Script();
    s.averageCommit = 2 * MS;
    s.lastSyncWriter = true;
    assertThat(run(BatchingPolicies.JBD2, s).calls).isEmpty();
  }

  @Test
  void jbd2_maxBatchTimeZero_disablesTheSleep() {
    Script s = new Script();
    s.averageCommit = 2 * MS;
    s.maxBatch = 0;
    assertThat(run(BatchingPolicies.JBD2, s).calls).isEmpty();
  }

  @Test
  void jbd2_averageAboveMaxBatch_sleepsMaxBatch() {
    Script s = new Script();
    s.averageCommit = 40 * MS;
    s.now += 10 * MS; // younger than the clamped 15 ms
    assertThat(run(BatchingPolicies.JBD2, s).calls).containsExactly("sleep " + 15 * MS);
  }

  @Test
  void jbd2_averageBelowMinBatch_sleepsMinBatch() {
    Script s = new Script();
    s.averageCommit = 100 * US;
    s.minBatch = MS;
    s.now += 500 * US;
    assertThat(run(BatchingPolicies.JBD2, s).calls).containsExactly("sleep " + MS);
  }

  @Test
  void jbd2_beforeTheFirstCommit_withNoMinimum_doesNotSleep() {
    Script s = new Script(); // average 0, age 0: 0 < 0 is false
    assertThat(run(BatchingPolicies.JBD2, s).calls).isEmpty();
  }

  // ---------------------------------------------------------------- adaptive

  @Test
  void adaptive_fewerWritersThanLately_awaitsThemForHalfTheAverageCommit() {
    Script s = new Script().joining(3);
    s.recentWriters = 4;
    s.averageCommit = 2 * MS;
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).containsExactly("await 4 for " + MS + " quiet " + 50 * US);
  }

  @Test
  void adaptive_expectedWritersAlreadyJoined_doesNotWait() {
    Script s = new Script();
    s.writers = 4;
    s.recentWriters = 4;
    s.averageCommit = 2 * MS;
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).isEmpty();
  }

  @Test
  void adaptive_loneWriter_neverWaits() {
    Script s = new Script();
    s.recentWriters = 1;
    s.averageCommit = 2 * MS;
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).isEmpty();
  }

  @Test
  void adaptive_deadlineIsClampedToMaxBatch_andTheQuietGapTo50Microseconds() {
    Script s = new Script();
    s.recentWriters = 10;
    s.averageCommit = 100 * MS;
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).containsExactly("await 10 for " + 15 * MS + " quiet " + 50 * US);
  }

  @Test
  void adaptive_quietGapIsASixteenthOfTheWindow_betweenTheBounds() {
    Script s = new Script();
    s.recentWriters = 3;
    s.averageCommit = 1200 * US; // window 600 us
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).containsExactly("await 3 for " + 600 * US + " quiet " + 37_500);
  }

  @Test
  void adaptive_deadlineIsRaisedToMinBatch_andTheQuietGapIsAtLeast20Microseconds() {
    Script s = new Script();
    s.recentWriters = 3;
    s.averageCommit = 40 * US;
    s.minBatch = 100 * US;
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).containsExactly("await 3 for " + 100 * US + " quiet " + 20 * US);
  }

  @Test
  void adaptive_withoutAnAverageOrMinimum_doesNotWait() {
    Script s = new Script();
    s.recentWriters = 3;
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).isEmpty();
  }

  @Test
  void adaptive_aFewMissingOfAManyWriterBatch_areNotWorthTheWait() {
    Script s = new Script();
    s.recentWriters = 16;
    s.writers = 14; // 2 of 16 missing: 12 % of the batch, against 4 × 20 us of a 300 us commit
    s.averageCommit = 300 * US;
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).isEmpty();
    s.writers = 10; // 6 missing: worth it
    assertThat(run(BatchingPolicies.ADAPTIVE, s).calls).containsExactly("await 16 for " + 150 * US + " quiet " + 20 * US);
  }

  @Test
  void adaptive_waitsOnlyAtCommit_neverInTheSyncStop() {
    Script s = new Script();
    s.recentWriters = 4;
    s.averageCommit = 2 * MS;
    BatchingPolicies.ADAPTIVE.onSyncStop(s);
    assertThat(s.calls).isEmpty();
    assertThat(s.swaps).isZero();
  }

  // ---------------------------------------------------------------- registry

  @Test
  void all_listsEveryPolicyOnce_withTheAdaptiveDefaultLast() {
    assertThat(BatchingPolicies.all()).containsExactly(BatchingPolicies.NONE, BatchingPolicies.YIELD, BatchingPolicies.TICK,
        BatchingPolicies.TICK_SKIP_SAME_WRITER, BatchingPolicies.JBD2, BatchingPolicies.ADAPTIVE);
    assertThat(BatchingPolicies.defaultPolicy()).isSameAs(BatchingPolicies.ADAPTIVE);
    assertThat(JournalOptions.defaults().batchingPolicy()).isSameAs(BatchingPolicies.ADAPTIVE);
  }

  @Test
  void byName_findsEachPolicyCaseInsensitively_andRejectsUnknownNames() {
    for (BatchingPolicy p : BatchingPolicies.all()) {
      assertThat(BatchingPolicies.byName(p.name().toUpperCase(java.util.Locale.ROOT))).isSameAs(p);
    }
    assertThatThrownBy(() -> BatchingPolicies.byName("eager")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("adaptive");
  }
}
