package io.ext4j.bench;

import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import io.ext4j.jbd2.CommitWakeup;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.jbd2.JournalStats;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The journal benchmark: synchronous handles on a jbd2 journal in an image file, for
 * every batching policy and thread count, beside the same run's kernel bound (N threads doing 4 KiB
 * {@code pwrite} + {@code fdatasync} on files of their own in the same directory).
 *
 * <p>Rows run thread count by thread count: for each count, first the baseline, then each policy,
 * so a row and its baseline are measured minutes apart at most. Every row has its own warmup and a
 * fresh journal. See {@link JournalWorkload} and {@link FdatasyncBaseline} for the operations and
 * the files; {@link BenchReport} for the output.
 *
 * <h2>Why async commit</h2>
 * The journal runs with {@code journal_async_commit} ({@link JournalOptions#asyncCommit()}): the
 * commit block is written together with the log blocks and one device flush follows, instead of
 * flush → commit block → flush. Safety then rests on the checksums (journal_checksum_v3): recovery
 * treats a commit block whose transaction's blocks fail their checksums as the end of the log, and
 * such a transaction was never acknowledged. One flush per commit is what a synchronous writer pays
 * with {@code fdatasync} too, so the 1-thread comparison is like for like. The default
 * {@link Options#journalOptions()} sets it; a template without it measures the two-flush commit.
 */
public final class JournalBenchmark {
  private JournalBenchmark() {}

  /**
   * What to run. Build with {@link #builder()}; {@link Builder#build()} validates.
   *
   * @param directory where the image and baseline files are created (default the current directory)
   * @param policies batching policies to measure (default: only {@link BatchingPolicies#defaultPolicy()})
   * @param threads thread counts, in run order (default 1, 2, 4, 8, 16, 32, 64)
   * @param duration the measured window of each row (default 2 s)
   * @param warmup the unmeasured lead-in of each row (default 0.5 s)
   * @param baseline also run the pwrite + fdatasync rows (default true)
   * @param keep leave the image and baseline files in place afterwards (default false)
   * @param blocksPerOp blocks each handle modifies, 1 or 2 (default 1)
   * @param journalOptions the template of every row's journal options; the policy is replaced per row
   *     (default: {@link JournalOptions#defaults()} with async commit on)
   * @param rounds each thread count's rows are measured in this many interleaved slices of
   *     {@code duration / rounds} — baseline and policies in turn, the order rotating each round —
   *     so that the drift of a shared machine's disk latency falls on every row alike (default 3)
   * @param jvmWarmup unmeasured time before the first row, shared by every contender at up to 4
   *     threads, so that the first rows are not measured while the JIT compiles (default 2 s; zero
   *     skips it)
   * @param wakeups commit wake-ups to measure, each with every policy (default: only
   *     {@link CommitWakeup#FUTEX_BROADCAST}); a row with another than the default is labelled
   *     {@code policy/wake-up}, e.g. {@code adaptive/unpark-each}
   * @param ceiling also run the group-commit ceiling rows ({@link GroupCommitCeiling}: the rate of
   *     a commit with no gap between commits, which no journal can beat; default false)
   */
  public record Options(
      Path directory,
      List<BatchingPolicy> policies,
      List<Integer> threads,
      Duration duration,
      Duration warmup,
      boolean baseline,
      boolean keep,
      int blocksPerOp,
      JournalOptions journalOptions,
      int rounds,
      Duration jvmWarmup,
      List<CommitWakeup> wakeups,
      boolean ceiling) {

    public Options {
      Objects.requireNonNull(directory, "directory");
      policies = List.copyOf(policies);
      threads = List.copyOf(threads);
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(warmup, "warmup");
      Objects.requireNonNull(journalOptions, "journalOptions");
      if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1 || t > 4096)) {
        throw new IllegalArgumentException("thread counts must be in [1, 4096]: " + threads);
      }
      if (policies.isEmpty() && !baseline && !ceiling) {
        throw new IllegalArgumentException("nothing to run: no policy, no baseline and no ceiling");
      }
      if (duration.isNegative() || duration.isZero() || warmup.isNegative()) {
        throw new IllegalArgumentException("duration must be positive and warmup not negative: " + duration + ", " + warmup);
      }
      if (blocksPerOp < 1 || blocksPerOp > 2) {
        throw new IllegalArgumentException("blocksPerOp must be 1 or 2: " + blocksPerOp);
      }
      Objects.requireNonNull(jvmWarmup, "jvmWarmup");
      wakeups = List.copyOf(wakeups);
      if (wakeups.isEmpty()) {
        throw new IllegalArgumentException("at least one commit wake-up");
      }
      if (jvmWarmup.isNegative()) {
        throw new IllegalArgumentException("jvmWarmup must not be negative: " + jvmWarmup);
      }
      if (rounds < 1 || rounds > 100) {
        throw new IllegalArgumentException("rounds must be in [1, 100]: " + rounds);
      }
    }

    /** The measured window of one slice. */
    Duration slice() {
      return duration.dividedBy(rounds);
    }

    public static Builder builder() {
      return new Builder();
    }

    int maxThreads() {
      return threads.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }
  }

  /** Builds {@link Options}; defaults as documented there. */
  public static final class Builder {
    private Path directory = Path.of(".");
    private List<BatchingPolicy> policies = List.of(BatchingPolicies.defaultPolicy());
    private List<Integer> threads = List.of(1, 2, 4, 8, 16, 32, 64);
    private Duration duration = Duration.ofSeconds(2);
    private Duration warmup = Duration.ofMillis(500);
    private boolean baseline = true;
    private boolean keep;
    private int blocksPerOp = 1;
    private JournalOptions journalOptions = JournalOptions.builder().asyncCommit(true).build();
    private int rounds = 3;
    private Duration jvmWarmup = Duration.ofSeconds(2);
    private List<CommitWakeup> wakeups = List.of(CommitWakeup.FUTEX_BROADCAST);
    private boolean ceiling;

    private Builder() {}

    public Builder wakeups(List<CommitWakeup> v) {
      wakeups = v;
      return this;
    }

    public Builder jvmWarmup(Duration v) {
      jvmWarmup = v;
      return this;
    }

    public Builder rounds(int v) {
      rounds = v;
      return this;
    }

    public Builder directory(Path v) {
      directory = v;
      return this;
    }

    public Builder policies(List<BatchingPolicy> v) {
      policies = v;
      return this;
    }

    public Builder threads(List<Integer> v) {
      threads = v;
      return this;
    }

    public Builder duration(Duration v) {
      duration = v;
      return this;
    }

    public Builder warmup(Duration v) {
      warmup = v;
      return this;
    }

    public Builder ceiling(boolean v) {
      ceiling = v;
      return this;
    }

    public Builder baseline(boolean v) {
      baseline = v;
      return this;
    }

    public Builder keep(boolean v) {
      keep = v;
      return this;
    }

    public Builder blocksPerOp(int v) {
      blocksPerOp = v;
      return this;
    }

    public Builder journalOptions(JournalOptions v) {
      journalOptions = v;
      return this;
    }

    public Options build() {
      return new Options(directory, policies, threads, duration, warmup, baseline, keep, blocksPerOp, journalOptions,
          rounds, jvmWarmup, wakeups, ceiling);
    }
  }

  /**
   * Runs every row and returns the report. {@code progress} receives one line per finished row (the
   * CLI prints them on stderr). The image and baseline files are removed at the end, even on
   * failure, unless {@link Options#keep()}.
   */
  public static BenchReport run(Options o, Consumer<String> progress) throws Exception {
    Path dir = o.directory();
    if (!Files.isDirectory(dir)) {
      throw new java.nio.file.NoSuchFileException(dir.toString(), null, "not a directory");
    }
    List<BenchRow> rows = new ArrayList<>();
    JournalStats defaultStats = null;
    resetPeakHeap();
    Optional<DiskFlushCounter> disk = DiskFlushCounter.of(dir);
    try (JournalWorkload journal = o.policies().isEmpty() ? null : JournalWorkload.create(dir, o.maxThreads(), o.keep());
        FdatasyncBaseline baseline = o.baseline() ? FdatasyncBaseline.create(dir, o.maxThreads(), o.keep()) : null;
        GroupCommitCeiling ceiling = o.ceiling()
            ? GroupCommitCeiling.create(dir, o.maxThreads(), o.blocksPerOp(), o.keep()) : null) {
      Subjects subjects = new Subjects(journal, baseline, ceiling);
      List<Contender> contenders = contenders(o);
      warmUpJvm(o, contenders, subjects);
      for (int threads : o.threads()) {
        // One contender per row; every round runs each once, starting one further along the list.
        java.util.Map<String, List<BenchRow>> slices = new java.util.LinkedHashMap<>();
        contenders.forEach(c -> slices.put(c.label(), new ArrayList<>()));
        for (int round = 0; round < o.rounds(); round++) {
          for (int k = 0; k < contenders.size(); k++) {
            Contender c = contenders.get((k + round) % contenders.size());
            JournalWorkload.Outcome out = runSlice(o, c, subjects, threads, o.warmup(), o.slice(), disk);
            slices.get(c.label()).add(out.row());
            if (out.row().isDefault()) {
              defaultStats = out.stats();
            }
          }
        }
        for (List<BenchRow> parts : slices.values()) {
          BenchRow row = BenchRow.merge(parts);
          rows.add(row);
          progress.accept(BenchReport.progressLine(row));
        }
      }
    }
    return new BenchReport(o, rows, Optional.ofNullable(defaultStats), peakHeapBytes());
  }

  /**
   * Runs every contender once, unmeasured, for {@link Options#jvmWarmup()} in all, so that the JIT
   * has compiled both code paths before the first measured row. Without it the first thread count's
   * rows share two cores with the C2 compiler (over a second of compile time on these machines),
   * which costs the journal — far more code than pwrite + fdatasync — more than the baseline.
   */
  private static void warmUpJvm(Options o, List<Contender> contenders, Subjects subjects) throws Exception {
    if (o.jvmWarmup().isZero()) {
      return;
    }
    int threads = Math.min(4, o.maxThreads());
    Duration each = o.jvmWarmup().dividedBy(contenders.size());
    for (Contender c : contenders) {
      runSlice(o, c, subjects, threads, Duration.ZERO, each, Optional.empty());
    }
  }

  /** The baseline and the ceiling (when asked for), then every policy with every commit wake-up. */
  private static List<Contender> contenders(Options o) {
    List<Contender> contenders = new ArrayList<>();
    if (o.baseline()) {
      contenders.add(new Contender(BenchRow.BASELINE, null, null));
    }
    if (o.ceiling()) {
      contenders.add(new Contender(BenchRow.CEILING, null, null));
    }
    for (CommitWakeup w : o.wakeups()) {
      for (BatchingPolicy p : o.policies()) {
        contenders.add(new Contender(Contender.label(p, w), p, w));
      }
    }
    return contenders;
  }

  /** What the contenders run on; a member is null when no contender needs it. */
  private record Subjects(JournalWorkload journal, FdatasyncBaseline baseline, GroupCommitCeiling ceiling) {}

  /** One slice of one contender; a baseline or ceiling outcome has no journal statistics. */
  private static JournalWorkload.Outcome runSlice(Options o, Contender c, Subjects s, int threads, Duration warmup,
      Duration window, Optional<DiskFlushCounter> disk) throws Exception {
    if (c.label().equals(BenchRow.BASELINE)) {
      return new JournalWorkload.Outcome(s.baseline().run(threads, warmup, window, disk), null);
    }
    if (c.label().equals(BenchRow.CEILING)) {
      return new JournalWorkload.Outcome(s.ceiling().run(threads, o.blocksPerOp(), warmup, window, disk), null);
    }
    return s.journal().run(o.journalOptions().toBuilder().commitWakeup(c.wakeup()).build(), c.policy(), c.label(),
        threads, o.blocksPerOp(), warmup, window, disk);
  }

  /** One row's subject: the baseline or the ceiling (no policy), or a policy with a commit wake-up. */
  private record Contender(String label, BatchingPolicy policy, CommitWakeup wakeup) {
    static String label(BatchingPolicy p, CommitWakeup w) {
      return w == CommitWakeup.FUTEX_BROADCAST ? p.name() : p.name() + "/" + BenchRow.wakeupName(w);
    }
  }

  private static void resetPeakHeap() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  /** The sum of the heap pools' peak usage since the run began (an upper bound of the peak heap). */
  private static long peakHeapBytes() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }
}
