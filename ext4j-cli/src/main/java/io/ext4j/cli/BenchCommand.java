package io.ext4j.cli;

import io.ext4j.bench.suite.BenchSuite;
import io.ext4j.bench.suite.ReportFiles;
import io.ext4j.bench.suite.SuiteOptions;
import io.ext4j.bench.suite.SuiteReport;
import io.ext4j.bench.suite.SuiteResult;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j bench [SCENARIO...]}: the benchmark suite ({@link BenchSuite}) against the kernel's
 * ext4 and peers in the same run: tables on standard output (or JSON with {@code --json}), a
 * progress bar on a terminal, and the full report (CSV, JSON, charts, index.html) in {@code --out}.
 * {@code ext4j bench journal} runs the {@code journal} scenario alone, with its own options.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Run the benchmark suite: each scenario on ext4j in-process, through its FUSE mount, on the kernel's "
        + "ext4 (a loop mount of an identical image, and the host directory), on fuse2fs, with fio's device bound and "
        + "a lone journaled append's own I/O (commit-io), side by side in one run, rows interleaved in slices. Targets that need root or a missing tool are "
        + "skipped and the report says so. Scenarios: fsync, dio, committed-check, metadata, stat-depth, populate, journal "
        + "(jbd2's group commit alone against fdatasync, with its defaults; `bench journal` runs it alone with its options).",
        "Defaults (about two minutes as root): every scenario, fsync, metadata, stat-depth and journal at 1, 2 and 16 threads, dio at 4k and 1m, 0.2 s per "
            + "cell in two slices after 0.05 s of warmup each, 128 MiB images under ./ext4j-bench-work (removed afterwards), the report in "
            + "./bench-report. The full run (about 50 minutes as root): --threads 1,2,4,8,16,32,64 --block-sizes "
            + "4k,16k,64k,512k,1m --seconds 4 --slices 2 --warmup 0.5."},
    subcommands = {BenchJournalCommand.class})
public final class BenchCommand implements Callable<Integer> {
  @Parameters(paramLabel = "SCENARIO", arity = "0..*", description = "Scenarios to run (default: all). The word journal after "
      + "bench is the subcommand (`bench journal`: the journal scenario alone, with its options), so name the others only.")
  List<String> scenarios;

  @Option(names = "--threads", split = ",", paramLabel = "N[,N...]", defaultValue = "1,2,16",
      description = "Thread counts (default: ${DEFAULT-VALUE}; the full run: 1,2,4,8,16,32,64).")
  List<Integer> threads;

  @Option(names = "--block-sizes", split = ",", paramLabel = "SIZE[,SIZE...]", defaultValue = "4k,1m",
      description = "Block sizes of the dio scenario, multiples of 4k (default: ${DEFAULT-VALUE}).")
  List<String> blockSizes;

  @Option(names = "--seconds", paramLabel = "S", defaultValue = "0.2",
      description = "Measured seconds per cell, split over the slices (default: ${DEFAULT-VALUE}).")
  double seconds;

  @Option(names = "--slices", paramLabel = "N", defaultValue = "2",
      description = "Interleaved slices per cell (default: ${DEFAULT-VALUE}).")
  int slices;

  @Option(names = "--warmup", paramLabel = "S", defaultValue = "0.05",
      description = "Unmeasured seconds before each slice (default: ${DEFAULT-VALUE}).")
  double warmup;

  @Option(names = "--image-size", paramLabel = "SIZE", defaultValue = "auto",
      description = "Size of each target's image in bytes, or with a k/m/g suffix (default: auto, 256 MiB per second of each slice's warmup "
          + "and window, at least 128 MiB: the defaults' 128 MiB, the full run's 640 MiB).")
  String imageSize;

  @Option(names = "--work", paramLabel = "DIR", defaultValue = "ext4j-bench-work",
      description = "Where images, mount points and host files are made; must not exist (default: ${DEFAULT-VALUE}).")
  Path work;

  @Option(names = "--out", paramLabel = "DIR", defaultValue = "bench-report",
      description = "Where the report goes: results.csv, results.json, charts/, index.html (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--keep", description = "Keep the work directory afterwards.")
  boolean keep;

  @Option(names = "--json", description = "Print the results as one JSON object instead of tables.")
  boolean json;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  private static long size(String option, String text) throws CliException {
    try {
      return io.ext4j.fs.ByteSize.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CliException(option + " " + e.getMessage());
    }
  }

  /** The run the options ask for (with none given: {@link SuiteOptions#defaults()}, which a test holds them to). */
  SuiteOptions options() throws CliException {
    if (seconds <= 0 || warmup < 0 || !Double.isFinite(seconds) || !Double.isFinite(warmup) || slices < 1) {
      throw new CliException("--seconds must be positive, --warmup not negative and --slices at least 1");
    }
    Duration perCell = Duration.ofMillis(Math.round(seconds * 1000));
    Duration warm = Duration.ofMillis(Math.round(warmup * 1000));
    long size = imageSize.equals("auto") ? SuiteOptions.imageSizeFor(perCell.dividedBy(slices), warm) : size("--image-size", imageSize);
    List<Integer> sizes = new java.util.ArrayList<>();
    for (String b : blockSizes) {
      long v = size("--block-sizes", b);
      if (v > Integer.MAX_VALUE) {
        throw new CliException("--block-sizes " + b + ": too large");
      }
      sizes.add((int) v);
    }
    return new SuiteOptions(scenarios == null || scenarios.isEmpty() ? SuiteOptions.SCENARIOS : scenarios, threads,
        sizes, perCell, slices, warm, size, work, out, keep, io.ext4j.bench.suite.JournalScenarioOptions.defaults());
  }

  @Override
  public Integer call() throws Exception {
    SuiteOptions o = options();
    PrintWriter stdout = spec.commandLine().getOut();
    PrintStream log = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true,
        java.nio.charset.StandardCharsets.UTF_8);
    SuiteResult r = BenchSuite.run(o, log, Progress.onTerminal() ? new Bar() : BenchSuite.Listener.silent());
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

  /** me.tongfei's progress bar on standard error, one step per slice. */
  static final class Bar implements BenchSuite.Listener {
    private ProgressBar bar; // the coordinating thread's

    @Override
    public void started(int slices) {
      if (bar == null) {
        bar = new ProgressBarBuilder().setTaskName("bench").setInitialMax(slices).setStyle(ProgressBarStyle.ASCII)
            .setUpdateIntervalMillis(200).continuousUpdate().build();
      } else {
        bar.maxHint(bar.getMax() + slices);
      }
    }

    @Override
    public void slice(String cell) {
      bar.setExtraMessage(" " + cell);
      bar.step();
    }

    @Override
    public void finished() {
      if (bar != null) {
        bar.close();
      }
    }
  }
}
