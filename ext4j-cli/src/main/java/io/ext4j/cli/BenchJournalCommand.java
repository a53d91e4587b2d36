package io.ext4j.cli;

import io.ext4j.bench.BenchReport;
import io.ext4j.bench.JournalBenchmark;
import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import io.ext4j.jbd2.CommitWakeup;
import io.ext4j.jbd2.JournalOptions;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ext4j bench journal}: parses the options into {@link JournalBenchmark.Options}, runs it and
 * prints its {@link BenchReport} (table and journal statistics, or JSON). Progress lines go to stderr.
 */
@Command(name = "journal", mixinStandardHelpOptions = true,
    description = {"Synchronous jbd2 handles per batching policy and thread count, on a journal in an image file "
        + "created in DIR (removed afterwards unless --keep), beside the same run's N threads of 4 KiB "
        + "pwrite + fdatasync on files of their own in DIR.",
        "Defaults (about a minute): the default policy and the baseline, threads 1,2,4,8,16,32,64, "
            + "2 s per row after a 0.5 s warmup."})
public final class BenchJournalCommand implements Callable<Integer> {
  @Option(names = "--threads", split = ",", paramLabel = "N[,N...]", defaultValue = "1,2,4,8,16,32,64",
      description = "Thread counts (default: ${DEFAULT-VALUE}).")
  List<Integer> threads;

  @Option(names = "--seconds", paramLabel = "S", defaultValue = "2",
      description = "Measured seconds per row (default: ${DEFAULT-VALUE}).")
  double seconds;

  @Option(names = "--warmup", paramLabel = "S", defaultValue = "0.5",
      description = "Unmeasured warmup seconds per row (default: ${DEFAULT-VALUE}).")
  double warmup;

  @Option(names = "--jvm-warmup", paramLabel = "S", defaultValue = "2",
      description = "Unmeasured seconds before the first row, shared by every contender at up to 4 threads, so the "
          + "JIT has compiled both paths (default: ${DEFAULT-VALUE}; 0 skips it).")
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
      description = "Interleave each thread count's rows in R slices of S/R seconds, rotating the order (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--json", description = "Print one JSON object instead of the table.")
  boolean json;

  @Option(names = "--keep", description = "Keep the image and baseline files.")
  boolean keep;

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = ".",
      description = "Directory for the image and baseline files (default: the current directory).")
  Path dir;

  private static CommitWakeup wakeup(String name) {
    for (CommitWakeup w : CommitWakeup.values()) {
      if (io.ext4j.bench.BenchRow.wakeupName(w).equals(name)) {
        return w;
      }
    }
    throw new IllegalArgumentException("unknown commit wake-up " + name + " (known: futex-broadcast, unpark-each)");
  }

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    JournalOptions.Builder journal = JournalOptions.builder().asyncCommit(!syncCommit);
    if (minBatchMicros != null) {
      journal.minBatchTime(Duration.ofNanos(minBatchMicros * 1000));
    }
    if (maxBatchMicros != null) {
      journal.maxBatchTime(Duration.ofNanos(maxBatchMicros * 1000));
    }
    List<BatchingPolicy> policies = policy == null ? List.of(BatchingPolicies.defaultPolicy())
        : policy.equalsIgnoreCase("all") ? BatchingPolicies.all()
        : java.util.Arrays.stream(policy.split(",")).map(String::trim).map(BatchingPolicies::byName).toList();
    List<CommitWakeup> wakeups = commitWakeup == null ? List.of(CommitWakeup.FUTEX_BROADCAST)
        : commitWakeup.equalsIgnoreCase("all") ? List.of(CommitWakeup.values())
        : java.util.Arrays.stream(commitWakeup.split(",")).map(String::trim).map(BenchJournalCommand::wakeup).toList();
    JournalBenchmark.Options options = JournalBenchmark.Options.builder()
        .wakeups(wakeups)
        .directory(dir)
        .policies(policies)
        .threads(threads)
        .duration(Duration.ofNanos((long) (seconds * 1e9)))
        .warmup(Duration.ofNanos((long) (warmup * 1e9)))
        .jvmWarmup(Duration.ofNanos((long) (jvmWarmup * 1e9)))
        .baseline(!noBaseline)
        .ceiling(ceiling)
        .keep(keep)
        .rounds(rounds)
        .blocksPerOp(blocks)
        .journalOptions(journal.build())
        .build();
    BenchReport report = JournalBenchmark.run(options, line -> {
      err.println(line);
      err.flush();
    });
    if (json) {
      out.println(report.toJson());
    } else {
      out.print(report.formatTable());
    }
    out.flush();
    return 0;
  }
}
