package io.ext4j.bench.suite;

import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import io.ext4j.jbd2.CommitWakeup;
import io.ext4j.jbd2.JournalOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code journal} scenario (group commit): synchronous handles on a jbd2 journal in
 * an image file, for every batching policy × commit wake-up and thread count, beside the same run's
 * kernel bound — N threads of 4 KiB {@code pwrite} + {@code fdatasync} on files of their own in the
 * same directory ({@link FdatasyncBaseline}) — and, when asked, the group-commit ceiling ({@link
 * GroupCommitCeiling}). It needs no file system targets: it runs in its bare work directory
 * ({@link Targets#bare}), which holds the image and the files and is removed with them unless kept.
 *
 * <p>Its cells, per thread count: the baseline, the ceiling, then each policy with each wake-up
 * ({@link JournalWorkload}); the suite rotates them within the thread count slice by slice, so the
 * drift of a shared machine's disk falls on a row and its baseline alike. Each slice of a journal
 * cell formats a fresh journal. Besides the slice's operations and latencies a cell reports its
 * transactions, handles and journal flushes, and the disk's completed flushes where the kernel
 * counts them ({@link DiskFlushCounter}), all taken at the measured window's edges.
 *
 * <h2>Why async commit</h2>
 * The journal runs with {@code journal_async_commit} ({@link JournalOptions#asyncCommit()}): the
 * commit block is written together with the log blocks and one device flush follows, instead of
 * flush → commit block → flush. Safety then rests on the checksums (journal_checksum_v3): recovery
 * treats a commit block whose transaction's blocks fail their checksums as the end of the log, and
 * such a transaction was never acknowledged. One flush per commit is what a synchronous writer pays
 * with {@code fdatasync} too, so the 1-thread comparison is like for like. The default
 * {@link JournalScenarioOptions#journalOptions()} sets it; a template without it measures the two-flush commit.
 */
final class JournalScenario implements Scenario {
  static final String NAME = "journal";
  static final String VARIANT = "sync-handles";
  /** The target of the same-run kernel baseline rows. */
  static final String BASELINE = "fdatasync-baseline";
  /** The target of the same-run group-commit ceiling rows. */
  static final String CEILING = "group-commit-ceiling";
  static final int BLOCK = 4096;
  /** The JIT warmup's thread count (at most the run's largest): the first rows are not measured while C2 compiles. */
  static final int REHEARSAL_THREADS = 4;

  /** What a journal row is called: the policy, then {@code /wake-up} unless it is the default one. */
  static String label(BatchingPolicy p, CommitWakeup w) {
    return w == CommitWakeup.FUTEX_BROADCAST ? p.name() : p.name() + "/" + JournalScenarioOptions.wakeupName(w);
  }

  /** Whether a row's target is one of the references (no journal): the baseline or the ceiling. */
  static boolean isReference(String target) {
    return target.equals(BASELINE) || target.equals(CEILING);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean needsTargets() {
    return false;
  }

  /** None: its rows compare policies and wake-ups of its own journal, not provider options. */
  @Override
  public Map<String, List<String>> knobs() {
    return Map.of();
  }

  /**
   * No probe: there is no file system engine to open in a JVM of its own; the scenario's memory is
   * the suite's peak heap over it, which its verdict holds to a bound.
   */
  @Override
  public boolean probesMemory() {
    return false;
  }

  @Override
  public Duration jitWarmup(SuiteOptions o) {
    return o.journal().jitWarmup();
  }

  /**
   * Each row (baseline, ceiling, every policy × wake-up) once, unmeasured, for an equal share of
   * {@link JournalScenarioOptions#jitWarmup()}, at the largest of the run's thread counts up to {@value
   * #REHEARSAL_THREADS} (its smallest if none is that small).
   */
  @Override
  public void rehearse(List<Cell> cells, SuiteOptions o) {
    Duration warmup = jitWarmup(o);
    if (warmup.isZero() || cells.isEmpty()) {
      return;
    }
    int threads = o.threads().stream().filter(t -> t <= REHEARSAL_THREADS).max(Comparator.naturalOrder())
        .orElseGet(() -> o.threads().stream().min(Comparator.naturalOrder()).orElseThrow());
    List<Cell> rows = cells.stream().filter(c -> c.threads == threads).toList();
    for (Cell c : rows) {
      c.rehearse(warmup.dividedBy(rows.size()));
    }
  }

  /**
   * Creates the image and the files in the bare directory (written through with zeros, so no
   * measured write allocates), then one cell per thread count and row: the baseline and the ceiling
   * when asked for, then every policy with every wake-up.
   */
  @Override
  public List<Cell> plan(Targets targets, SuiteOptions o, Path scratch) throws IOException {
    JournalScenarioOptions j = o.journal();
    Path dir = targets.work();
    int most = o.threads().stream().mapToInt(Integer::intValue).max().orElseThrow();
    Optional<DiskFlushCounter> disk = DiskFlushCounter.of(dir);
    JournalWorkload journal = j.policies().isEmpty() ? null : JournalWorkload.create(dir, most);
    FdatasyncBaseline baseline = j.baseline() ? FdatasyncBaseline.create(dir, most) : null;
    GroupCommitCeiling ceiling = j.ceiling() ? GroupCommitCeiling.create(dir, most, j.blocksPerOp()) : null;
    int bytes = BLOCK * j.blocksPerOp();
    List<Cell> cells = new ArrayList<>();
    for (int threads : o.threads()) {
      if (baseline != null) {
        cells.add(new Cell(NAME, VARIANT, BASELINE, null, false, threads, bytes,
            (warmup, window) -> baseline.run(threads, warmup, window, disk)));
      }
      if (ceiling != null) {
        cells.add(new Cell(NAME, VARIANT, CEILING, null, false, threads, bytes,
            (warmup, window) -> ceiling.run(threads, j.blocksPerOp(), warmup, window, disk)));
      }
      for (CommitWakeup w : j.wakeups()) {
        JournalOptions template = j.journalOptions().toBuilder().commitWakeup(w).build();
        for (BatchingPolicy p : j.policies()) {
          boolean dflt = p == BatchingPolicies.defaultPolicy() && w == CommitWakeup.FUTEX_BROADCAST;
          String label = label(p, w);
          cells.add(new Cell(NAME, VARIANT, dflt ? Target.EXT4J : Target.EXT4J + "/" + label, label, dflt, threads, bytes,
              (warmup, window) -> journal.run(template, p, threads, j.blocksPerOp(), warmup, window, disk)));
        }
      }
    }
    return cells;
  }
}
