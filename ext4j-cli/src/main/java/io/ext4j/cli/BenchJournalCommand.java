package io.ext4j.cli;

import io.ext4j.bench.suite.BenchSuite;
import io.ext4j.bench.suite.JournalScenarioOptions;
import io.ext4j.bench.suite.ReportFiles;
import io.ext4j.bench.suite.SuiteOptions;
import io.ext4j.bench.suite.SuiteReport;
import io.ext4j.bench.suite.SuiteResult;
import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import io.ext4j.jbd2.CommitWakeup;
import io.ext4j.jbd2.JournalOptions;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ext4j bench journal}: the suite's {@code journal} scenario alone, with its options. Parses
 * them into {@link SuiteOptions} (scenarios {@code [journal]}, its {@link JournalScenarioOptions}),
 * runs {@link BenchSuite#run} and prints the report as {@code ext4j bench} does (the table, the
 * default policy's journal statistics and the verdicts, or JSON), writing the full report to
 * {@code --out}. Progress goes to stderr.
 */
@Command(name = "journal", mixinStandardHelpOptions = true,
    description = {"Synchronous jbd2 handles per batching policy and thread count, on a journal in an image file, "
        + "beside the same run's N threads of 4 KiB pwrite + fdatasync on files of their own: the suite's journal "
        + "scenario alone, with its options. The image and files are made in DIR/ext4j-bench-work/journal (removed "
        + "afterwards unless --keep); the report (table, journal statistics, verdicts) goes to standard output and, "
        + "with CSV, JSON and charts, to --out.",
        "Defaults (about a minute): the default policy and the baseline, threads 1,2,4,8,16,32,64, "
            + "2 s per row in 3 interleaved slices, each after a 0.5 s warmup."})
public final class BenchJournalCommand implements Callable<Integer> {
  @Option(names = "--threads", split = ",", paramLabel = "N[,N...]", defaultValue = "1,2,4,8,16,32,64",
      description = "Thread counts (default: ${DEFAULT-VALUE}).")
  List<Integer> threads;

  @Option(names = "--seconds", paramLabel = "S", defaultValue = "2",
      description = "Measured seconds per row, split over the --rounds slices (default: ${DEFAULT-VALUE}).")
  double seconds;

  @Option(names = "--warmup", paramLabel = "S", defaultValue = "0.5",
      description = "Unmeasured warmup seconds before each slice of a row (default: ${DEFAULT-VALUE}).")
  double warmup;

  @Option(names = "--jvm-warmup", paramLabel = "S", defaultValue = "2",
      description = "Unmeasured seconds before the first slice, shared by every row at up to 4 threads (the largest "
          + "--threads count up to 4, else the smallest), so the JIT has compiled both paths (default: ${DEFAULT-VALUE}; 0 skips it).")
  double jvmWarmup;

  @Option(names = "--policy", paramLabel = "NAME[,NAME...]|all",
      description = "Batching policies to measure (comma-separated), or all (default: the default policy, adaptive). Known: "
          + "none, yield, tick, tick-skip-same, jbd2, adaptive.")
  String policy;

  @Option(names = "--commit-wakeup", paramLabel = "NAME[,NAME...]|all",
      description = "How the committer wakes its waiters, each measured with every policy: futex-broadcast "
          + "(the default; one futex wake for all), unpark-each (the before: one unpark per thread), or all.")
  String commitWakeup;

  @Option(names = "--no-baseline", description = "Skip the pwrite + fdatasync baseline rows.")
  boolean noBaseline;

  @Option(names = "--ceiling",
      description = "Also measure the group-commit ceiling: one writer committing N handles' blocks per fdatasync back "
          + "to back, the rate no journal can beat; adds an ops/ceil column.")
  boolean ceiling;

  @Option(names = "--blocks", paramLabel = "1|2", defaultValue = "1",
      description = "4 KiB blocks each handle modifies (default: ${DEFAULT-VALUE}).")
  int blocks;

  @Option(names = "--min-batch-us", paramLabel = "US",
      description = "Journal min batch time in microseconds (default: the journal's, 0).")
  Long minBatchMicros;

  @Option(names = "--max-batch-us", paramLabel = "US",
      description = "Journal max batch time in microseconds (default: the journal's, 15000).")
  Long maxBatchMicros;

  @Option(names = "--sync-commit", description = "Commit with two flushes (no journal_async_commit).")
  boolean syncCommit;

  @Option(names = "--rounds", paramLabel = "R", defaultValue = "3",
      description = "Measure each row in R interleaved slices of S/R seconds: every row's first slice before any row's "
          + "second, the rows of one thread count in an order rotating each slice (the suite's --slices; default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--json", description = "Print the report as one JSON object (the suite's results.json) instead of the table.")
  boolean json;

  @Option(names = "--keep", description = "Keep the work directory DIR/ext4j-bench-work with the image and baseline files.")
  boolean keep;

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = ".",
      description = "Directory in which the work directory ext4j-bench-work is made; it must not exist yet, and its journal/ "
          + "holds the image and baseline files, on DIR's disk (default: the current directory).")
  Path dir;

  @Option(names = "--out", paramLabel = "DIR", defaultValue = "bench-report-journal",
      description = "Where the report goes: results.csv, results.json, charts/, index.html (default: ${DEFAULT-VALUE}).")
  Path out;

  /** The image size the suite's options require; the journal scenario makes no file system image. */
  private static final long UNUSED_IMAGE_SIZE = 128L << 20;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** The run the options ask for; an option out of range gives IllegalArgumentException naming it. */
  SuiteOptions options() {
    if (!(seconds > 0) || !(warmup >= 0) || !(jvmWarmup >= 0) || !Double.isFinite(seconds) || !Double.isFinite(warmup)
        || !Double.isFinite(jvmWarmup)) {
      throw new IllegalArgumentException("--seconds must be positive, --warmup and --jvm-warmup not negative");
    }
    if (rounds < 1 || rounds > 100) {
      throw new IllegalArgumentException("--rounds must be in [1, 100]: " + rounds);
    }
    JournalOptions.Builder journal = JournalScenarioOptions.DEFAULT_JOURNAL.toBuilder().asyncCommit(!syncCommit);
    if (minBatchMicros != null) {
      journal.minBatchTime(Duration.ofNanos(minBatchMicros * 1000));
    }
    if (maxBatchMicros != null) {
      journal.maxBatchTime(Duration.ofNanos(maxBatchMicros * 1000));
    }
    List<BatchingPolicy> policies = policy == null ? List.of(BatchingPolicies.defaultPolicy())
        : policy.equalsIgnoreCase("all") ? BatchingPolicies.all()
        : java.util.Arrays.stream(policy.split(",", -1)).map(String::trim).map(BatchingPolicies::byName).toList();
    List<CommitWakeup> wakeups = commitWakeup == null ? List.of(CommitWakeup.FUTEX_BROADCAST)
        : commitWakeup.equalsIgnoreCase("all") ? List.of(CommitWakeup.values())
        : java.util.Arrays.stream(commitWakeup.split(",", -1)).map(String::trim).map(JournalScenarioOptions::wakeup).toList();
    JournalScenarioOptions options = JournalScenarioOptions.builder()
        .policies(policies)
        .wakeups(wakeups)
        .baseline(!noBaseline)
        .ceiling(ceiling)
        .blocksPerOp(blocks)
        .journalOptions(journal.build())
        .jitWarmup(Duration.ofNanos((long) (jvmWarmup * 1e9)))
        .build();
    return new SuiteOptions(List.of("journal"), threads, List.of(4096), Duration.ofNanos((long) (seconds * 1e9)), rounds,
        Duration.ofNanos((long) (warmup * 1e9)), UNUSED_IMAGE_SIZE, dir.resolve("ext4j-bench-work"), out, keep, options);
  }

  @Override
  public Integer call() throws Exception {
    SuiteOptions o = options();
    PrintWriter stdout = spec.commandLine().getOut();
    PrintStream log = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true,
        java.nio.charset.StandardCharsets.UTF_8);
    SuiteResult r = BenchSuite.run(o, log, Progress.onTerminal() ? new BenchCommand.Bar() : BenchSuite.Listener.silent());
    SuiteReport report = new SuiteReport(r);
    Files.createDirectories(out);
    List<Path> files = ReportFiles.write(report, out);
    if (json) {
      stdout.print(report.json());
    } else {
      stdout.print(report.text());
      stdout.println();
      stdout.println("report: " + out.resolve("index.html") + " (" + files.size() + " files)");
    }
    stdout.flush();
    return 0;
  }
}
