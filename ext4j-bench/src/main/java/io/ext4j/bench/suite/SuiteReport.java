package io.ext4j.bench.suite;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ext4j.bench.Json;
import io.ext4j.jbd2.JournalStats;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A run's figures arranged as the report shows them: one table per scenario and variant (a row per
 * thread count, a column per target, then the ratios the targets are judged by), and the verdict on each
 * target figure ({@link Verdicts} judges, this words them). Pure: reads a {@link SuiteResult}, writes
 * nothing.
 */
public final class SuiteReport {
  /** A table: its title, column names and cells (already formatted). */
  public record Table(String scenario, String variant, List<String> columns, List<List<String>> rows) {}

  /** A ratio column: {@code numerator ÷ denominator}. */
  private record Ratio(String numerator, String denominator) {
    String title() {
      return numerator + " ÷ " + denominator;
    }
  }

  private static final List<Ratio> RATIOS = List.of(new Ratio(Target.EXT4J, Target.HOST), new Ratio(Target.EXT4J, Target.LOOP),
      new Ratio(Target.EXT4J, FioBound.TARGET), new Ratio(Target.EXT4J, CommitIoBound.TARGET), new Ratio(Target.EXT4J, Target.FUSE2FS),
      new Ratio(Target.FUSE, Target.LOOP), new Ratio(Target.FUSE, Target.FUSE2FS), new Ratio(Target.EXT4J, PopulateScenario.MKE2FS),
      new Ratio(Target.EXT4J, DentryCacheKnob.TARGET));

  private final SuiteResult result;

  public SuiteReport(SuiteResult result) {
    this.result = result;
  }

  public SuiteResult result() {
    return result;
  }

  /** The (scenario, variant) pairs in run order. */
  public List<String[]> variants() {
    Set<String> seen = new LinkedHashSet<>();
    List<String[]> out = new ArrayList<>();
    for (CellResult r : result.rows()) {
      if (seen.add(r.scenario() + "\0" + r.variant())) {
        out.add(new String[] {r.scenario(), r.variant()});
      }
    }
    return out;
  }

  /** The rows of one variant. */
  public List<CellResult> rowsOf(String scenario, String variant) {
    return result.rows().stream().filter(r -> r.scenario().equals(scenario) && r.variant().equals(variant)).toList();
  }

  /** Target names of a variant's rows, in run order. */
  public static List<String> targetsOf(List<CellResult> rows) {
    return List.copyOf(new LinkedHashSet<>(rows.stream().map(CellResult::target).toList()));
  }

  /** Thread counts of a variant's rows, in run order. */
  public static List<Integer> threadsOf(List<CellResult> rows) {
    return List.copyOf(new LinkedHashSet<>(rows.stream().map(CellResult::threads).toList()));
  }

  /** Operations per second of {@code target} at {@code threads}, if it ran without failing. */
  public static Optional<Double> rate(List<CellResult> rows, String target, int threads) {
    return rows.stream().filter(r -> r.target().equals(target) && r.threads() == threads && r.failure() == null)
        .map(CellResult::opsPerSec).findFirst();
  }

  /**
   * The table of one variant: {@code dio}'s has a row per block size and target, {@code journal}'s a
   * row per thread count and row kind, every other a row per thread count.
   */
  public Table table(String scenario, String variant) {
    return scenario.equals(DioScenario.NAME) ? dioTable(variant)
        : scenario.equals(JournalScenario.NAME) ? journalTable(variant) : threadTable(scenario, variant);
  }

  /**
   * The {@code journal} scenario: per thread count, the baseline, the ceiling and each policy ×
   * wake-up (the default marked {@code *}), with its rate, latencies, commits, handles per commit,
   * flushes (the journal's, and the disk's where counted), and its rate and median latency against
   * the same run's baseline at that thread count, and its rate against the ceiling's where measured.
   */
  private Table journalTable(String variant) {
    List<CellResult> rows = rowsOf(JournalScenario.NAME, variant);
    boolean ceilings = rows.stream().anyMatch(r -> r.target().equals(JournalScenario.CEILING));
    List<String> columns = new ArrayList<>(List.of("policy", "threads", "ops/s", "p50 µs", "p99 µs", "tx/s", "handles/tx",
        "flushes/s", "flush/tx", "disk fl/s", "ops/dfl", "÷ " + JournalScenario.BASELINE, "p50 ÷ baseline"));
    if (ceilings) {
      columns.add("÷ " + JournalScenario.CEILING);
    }
    List<List<String>> cells = new ArrayList<>();
    for (CellResult r : rows) {
      List<String> row = new ArrayList<>(List.of(journalLabel(r), Integer.toString(r.threads())));
      if (r.failure() != null) {
        row.add("failed");
        while (row.size() < columns.size()) {
          row.add("—");
        }
        cells.add(row);
        continue;
      }
      boolean baseline = r.target().equals(JournalScenario.BASELINE);
      Optional<CellResult> base = baseline ? Optional.empty() : reference(rows, JournalScenario.BASELINE, r.threads());
      Optional<CellResult> ceiling = JournalScenario.isReference(r.target()) ? Optional.empty()
          : reference(rows, JournalScenario.CEILING, r.threads());
      row.addAll(List.of(count(r.opsPerSec()), micros(r.p50Micros()), micros(r.p99Micros()),
          baseline ? "—" : figure(r.commitsPerSec(), "%,.0f"), figure(r.handlesPerTransaction(), "%.2f"),
          figure(r.flushesPerSec(), "%,.0f"), baseline ? "—" : figure(r.flushesPerTransaction(), "%.2f"),
          figure(r.diskFlushesPerSec(), "%,.0f"), figure(r.opsPerDiskFlush(), "%.2f"),
          base.filter(b -> b.opsPerSec() > 0).map(b -> fixed2(r.opsPerSec() / b.opsPerSec())).orElse("—"),
          base.filter(b -> b.p50Micros() > 0).map(b -> fixed2(r.p50Micros() / b.p50Micros())).orElse("—")));
      if (ceilings) {
        row.add(ceiling.filter(c -> c.opsPerSec() > 0).map(c -> fixed2(r.opsPerSec() / c.opsPerSec())).orElse("—"));
      }
      cells.add(row);
    }
    return new Table(JournalScenario.NAME, variant, columns, cells);
  }

  /** A journal row's name: its policy (and wake-up) with {@code *} for the default, or the reference's. */
  static String journalLabel(CellResult r) {
    return r.setting() == null ? r.target() : r.setting() + (r.isDefault() ? " *" : "");
  }

  /** The reference row {@code target} ({@link JournalScenario#BASELINE} or {@link JournalScenario#CEILING}) at {@code threads}, if it ran. */
  static Optional<CellResult> reference(List<CellResult> rows, String target, int threads) {
    return rows.stream().filter(r -> r.target().equals(target) && r.threads() == threads && r.failure() == null).findFirst();
  }

  private static String micros(double v) {
    return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.0f", v);
  }

  private static String figure(double v, String format) {
    return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, format, v);
  }

  /**
   * The {@code journal} scenario's default row whose journal statistics the report shows: the one at
   * the most threads that has them (its last slice's), if the default policy ran.
   */
  public Optional<CellResult> defaultJournalStats() {
    return result.rows().stream().filter(r -> r.scenario().equals(JournalScenario.NAME) && r.isDefault() && r.journalStats() != null)
        .max(java.util.Comparator.comparingInt(CellResult::threads));
  }

  /**
   * A {@code dio} operation: per block size and target, KiB/s, IOPS and mean latency (the seed's
   * shape), with the rate against fio's on the host file, against the same threads on the host's
   * own file system, and against the kernel's loop mount.
   */
  private Table dioTable(String variant) {
    List<CellResult> rows = rowsOf(DioScenario.NAME, variant);
    List<String> against = List.of(FioBound.TARGET, Target.HOST, Target.LOOP);
    List<String> columns = new ArrayList<>(List.of("block", "target", "KiB/s", "IOPS", "mean µs"));
    against.forEach(d -> columns.add("÷ " + d));
    List<List<String>> cells = new ArrayList<>();
    for (int bs : rows.stream().map(CellResult::bytesPerOp).distinct().toList()) {
      List<CellResult> at = rows.stream().filter(r -> r.bytesPerOp() == bs).toList();
      for (CellResult r : at) {
        List<String> row = new ArrayList<>(List.of(size(bs), r.target() + (r.isDefault() ? " (default)" : "")));
        if (r.failure() != null) {
          row.add("failed");
          while (row.size() < columns.size()) {
            row.add("—");
          }
          cells.add(row);
          continue;
        }
        row.addAll(List.of(count(r.kibPerSec()), count(r.opsPerSec()),
            Double.isNaN(r.meanMicros()) ? "—" : String.format(Locale.ROOT, "%.0f", r.meanMicros())));
        for (String d : against) {
          row.add(r.target().equals(d) ? "—" : rateAt(at, d, bs).filter(v -> v > 0).map(v -> fixed2(r.opsPerSec() / v)).orElse("—"));
        }
        cells.add(row);
      }
    }
    return new Table(DioScenario.NAME, variant, columns, cells);
  }

  /** A block size as 4k, 1m. */
  static String size(int bytes) {
    return bytes % (1 << 20) == 0 ? (bytes >> 20) + "m" : (bytes >> 10) + "k";
  }

  /** Operations per second of {@code target} at block size {@code bs} in {@code rows}, if it ran without failing. */
  public static Optional<Double> rateAt(List<CellResult> rows, String target, int bs) {
    return rows.stream().filter(r -> r.target().equals(target) && r.bytesPerOp() == bs && r.failure() == null)
        .map(CellResult::opsPerSec).findFirst();
  }

  private Table threadTable(String scenario, String variant) {
    List<CellResult> rows = rowsOf(scenario, variant);
    List<String> targets = targetsOf(rows);
    List<Ratio> ratios = RATIOS.stream().filter(q -> targets.contains(q.numerator()) && targets.contains(q.denominator())).toList();
    boolean policies = rows.stream().anyMatch(r -> r.setting() != null && !r.isDefault());
    List<String> columns = new ArrayList<>();
    columns.add("threads");
    for (String t : targets) {
      columns.add(t.equals(Target.EXT4J) && policies ? t + " (default)" : t);
    }
    ratios.forEach(q -> columns.add(q.title()));
    if (policies) {
      columns.add("best setting");
      columns.add("default ÷ best");
    }
    List<List<String>> cells = new ArrayList<>();
    for (int th : threadsOf(rows)) {
      List<String> line = new ArrayList<>();
      line.add(Integer.toString(th));
      for (String t : targets) {
        line.add(rate(rows, t, th).map(SuiteReport::count).orElse("—"));
      }
      for (Ratio q : ratios) {
        line.add(ratio(rows, q.numerator(), q.denominator(), th).map(SuiteReport::fixed2).orElse("—"));
      }
      if (policies) {
        Optional<CellResult> best = bestPolicy(rows, th);
        line.add(best.map(CellResult::setting).orElse("—"));
        line.add(best.flatMap(b -> rate(rows, Target.EXT4J, th).map(d -> d / b.opsPerSec())).map(SuiteReport::fixed2).orElse("—"));
      }
      cells.add(line);
    }
    return new Table(scenario, variant, columns, cells);
  }

  /** {@code numerator}'s rate over {@code denominator}'s at {@code threads}, where both ran and the denominator is not 0. */
  public static Optional<Double> ratio(List<CellResult> rows, String numerator, String denominator, int threads) {
    Optional<Double> n = rate(rows, numerator, threads);
    Optional<Double> d = rate(rows, denominator, threads).filter(v -> v > 0);
    return n.isPresent() && d.isPresent() ? Optional.of(n.get() / d.get()) : Optional.empty();
  }

  /** The fastest row at {@code threads} of those that ran with a setting (the default's among them). */
  static Optional<CellResult> bestPolicy(List<CellResult> rows, int threads) {
    return rows.stream().filter(r -> r.setting() != null && r.threads() == threads && r.failure() == null)
        .max(java.util.Comparator.comparingDouble(CellResult::opsPerSec));
  }

  /**
   * The target figures of each scenario that ran ({@link Verdicts}), each "met" or "not met" with the
   * measurement that decides it (or "not measured" with the reason), as every output words them.
   */
  public List<String> verdicts() {
    return Verdicts.of(this).stream().map(SuiteReport::render).toList();
  }

  /** A verdict as the report words it: {@code target: met (evidence; note; …)}. */
  public static String render(Verdict v) {
    StringBuilder s = new StringBuilder(v.target()).append(": ").append(switch (v.outcome()) {
      case MET -> "met";
      case NOT_MET -> "not met";
      case NOT_MEASURED -> "not measured";
    }).append(" (").append(v.evidence());
    v.notes().forEach(n -> s.append("; ").append(n));
    return s.append(')').toString();
  }

  static String mib(long bytes) {
    return (bytes >> 20) + " MiB";
  }

  /** Every table as Markdown, the verdicts, and what was skipped: what the terminal shows. */
  public String text() {
    StringBuilder s = new StringBuilder();
    for (String[] v : variants()) {
      Table t = table(v[0], v[1]);
      s.append("\n").append(v[0]).append(" / ").append(v[1]).append(" (").append(describe(v[0], v[1])).append(")\n\n");
      String note = note(v[0], v[1]);
      if (note != null) {
        s.append(note).append("\n\n");
      }
      s.append(markdown(t));
      if (v[0].equals(JournalScenario.NAME)) {
        defaultJournalStats().ifPresent(r -> s.append('\n').append(journalStatsCaption(r)).append(":\n")
            .append(r.journalStats().format()));
      }
    }
    List<CellResult> failed = result.rows().stream().filter(r -> r.failure() != null).toList();
    if (!failed.isEmpty()) {
      s.append("\nfailed cells:\n");
      failed.forEach(r -> s.append("  ").append(r.scenario()).append('/').append(r.variant()).append(' ')
          .append(size(r.bytesPerOp())).append(" on ").append(r.target()).append(" at ").append(r.threads()).append(": ")
          .append(r.failure()).append('\n'));
    }
    if (!result.skipped().isEmpty()) {
      s.append("\nskipped:\n");
      result.skipped().forEach((k, why) -> s.append("  ").append(k).append(": ").append(why).append('\n'));
    }
    List<String> verdicts = verdicts();
    if (!verdicts.isEmpty()) {
      s.append("\ntargets:\n");
      verdicts.forEach(x -> s.append("  ").append(x).append('\n'));
    }
    s.append("\nmemory: peak RSS of this process ");
    List<String> peaks = new ArrayList<>();
    result.peakRssBytes().forEach((k, v) -> peaks.add(k + " " + (v < 0 ? "unknown" : (v >> 20) + " MiB")));
    s.append(String.join(", ", peaks)).append("; peak heap ");
    List<String> heaps = new ArrayList<>();
    result.peakHeapBytes().forEach((k, v) -> heaps.add(k + " " + (v >> 20) + " MiB"));
    s.append(String.join(", ", heaps));
    List<String> open = new ArrayList<>();
    result.targets().forEach((sc, m) -> {
      long engines = m.keySet().stream().filter(t -> t.startsWith(Target.EXT4J)).count();
      if (engines > 0) { // the journal scenario opens no image
        open.add(sc + " " + engines);
      }
    });
    if (!open.isEmpty()) {
      s.append(" (engine cache ").append(result.cacheBytes() >> 20).append(" MiB per image the engine has open: ")
          .append(String.join(", ", open)).append(')');
    }
    s.append('\n');
    if (!result.engineMemory().isEmpty()) {
      s.append("memory probe (one engine in a JVM of its own, one slice of every variant at ").append(result.options().threads().stream()
          .mapToInt(Integer::intValue).max().orElse(0)).append(" threads (dio, committed-check: ").append(DioScenario.THREADS)
          .append(") and ").append(size(result.options().blockSizes().stream().mapToInt(Integer::intValue).max().orElse(0)))
          .append(" blocks): peak RSS on kernel-host → with the engine too\n");
      result.engineMemory().forEach((k, m) -> s.append("  ").append(k).append(": ").append(m.failure() != null ? m.failure()
          : mib(m.baselineBytes()) + " → " + mib(m.withEngineBytes()) + ", engine " + mib(m.engineBytes())).append('\n'));
    }
    return s.toString();
  }

  /** What the journal statistics below the {@code journal} table are. */
  static String journalStatsCaption(CellResult r) {
    return "Journal statistics, default policy, last slice at " + r.threads() + (r.threads() == 1 ? " thread" : " threads")
        + " (the whole slice, its warmup included)";
  }

  /** What a reader of a variant's table should know beyond its caption, or null. */
  String note(String scenario, String variant) {
    if (scenario.equals(JournalScenario.NAME)) {
      return journalNote(variant);
    }
    return staticNote(scenario, variant);
  }

  /** The {@code journal} table's legend and the run's settings, as the journal benchmark's footer gave them. */
  private String journalNote(String variant) {
    SuiteOptions o = result.options();
    JournalScenarioOptions j = o.journal();
    List<CellResult> rows = rowsOf(JournalScenario.NAME, variant);
    boolean ceilings = rows.stream().anyMatch(r -> r.target().equals(JournalScenario.CEILING));
    String wakeups = String.join(", ", rows.stream().map(CellResult::commitWakeup).filter(java.util.Objects::nonNull).distinct().toList());
    Long heap = result.peakHeapBytes().get(JournalScenario.NAME);
    return String.format(Locale.ROOT, "* = default policy; %.1f s measured per row in %d interleaved slices, each after %.1f s "
        + "warmup; %d block(s) per handle; async commit %s; ratios against the same run's %s row at the same thread count; "
        + "tx/s = journal commits per second, flushes/s = the journal's device flushes (commits, checkpoints, superblock "
        + "updates; the baseline's: its fdatasync calls); disk fl/s = flushes the disk completed (all processes; — where the "
        + "kernel does not count them), ops/dfl = operations per such flush; %sJIT warmup %.1f s before the first slice; commit "
        + "wake-up %s; peak heap %s.", o.perCell().toNanos() / 1e9, o.slices(), o.warmup().toNanos() / 1e9, j.blocksPerOp(),
        j.journalOptions().asyncCommit() ? "on" : "off", JournalScenario.BASELINE,
        ceilings ? JournalScenario.CEILING + " = one writer committing N handles' blocks per fdatasync back to back, which no "
            + "journal beats; ÷ " + JournalScenario.CEILING + " = the share of it reached; " : "",
        j.jitWarmup().toNanos() / 1e9, wakeups.isEmpty() ? "—" : wakeups, heap == null ? "unknown" : mib(heap));
  }

  /** {@link #note} of the scenarios whose note depends on nothing but the variant. */
  private static String staticNote(String scenario, String variant) {
    if (scenario.equals(FsyncScenario.NAME) && variant.equals("fsync")) {
      return "Beside the default only " + FsyncScenario.FSYNC_PEER + ": every other policy acts in a synchronous handle's "
          + "stop (jbd2's h_sync), which fsync does not take (as ext4's, it completes the transaction), so here each would "
          + "run " + FsyncScenario.FSYNC_PEER + "'s path; they run in the " + FsyncScenario.DIRSYNC + " table. The default "
          + "acts at commit, waiting for the threads that were writing lately. " + CommitIoBound.TARGET + " (1 thread): a "
          + "journaled append's own I/O with no file system, on a written-through file in the host directory: the data "
          + "block, then " + CommitIoBound.LOG_BLOCKS + " log blocks, fdatasync, the commit block, fdatasync — what no "
          + "journal writing what jbd2 writes can beat on this disk.";
    }
    if (scenario.equals(FsyncScenario.NAME) && variant.equals(FsyncScenario.DIRSYNC)) {
      return "Every create and unlink stops a synchronous handle (jbd2's h_sync, as ext3's O_SYNC writes once did), where "
          + "yield, tick, tick-skip-same and jbd2 wait for more handles to join; kernel-host and kernel-loop run the "
          + "kernel's jbd2 rule. The seed's lone writer is the 1-thread row: tick sleeps a tick per operation, "
          + "tick-skip-same (the 2005 fix) does not. Where the host's file system has no journal (as on the machine of "
          + "docs/BENCHMARKS.md), kernel-host's dirsync writes each change through with no cache flush, which a power cut "
          + "may lose: its rows are then no like-for-like bound, and kernel-loop is the kernel's journaled peer. fuse2fs "
          + "has no journal and no dirsync, and sits this one out.";
    }
    return null;
  }

  /** What a variant's operation is, for the table's caption. */
  static String describe(String scenario, String variant) {
    if (scenario.equals(DioScenario.NAME)) {
      return DioScenario.THREADS + " threads of direct " + (variant.contains("write") ? "writes" : "reads") + ", "
          + (variant.startsWith("rand") ? "random" : "sequential") + ", on one " + DioScenario.FILE_MIB + " MiB file"
          + (variant.endsWith("holes") ? " that is all holes at each slice's start" : " written through once");
    }
    if (scenario.equals(CommittedCheckScenario.NAME)) {
      return "operations/s; " + CommittedCheckScenario.THREADS + " threads of 4 KiB direct "
          + (variant.endsWith("read") ? "reads" : "O_DSYNC overwrites") + ", " + (variant.startsWith("rand") ? "random" : "sequential")
          + ", on one " + DioScenario.FILE_MIB + " MiB file";
    }
    if (scenario.equals(MetadataScenario.NAME)) {
      return "operations/s; a reaim-fserver-like mix of create, append, read, stat, readdir, rename, unlink and fsync, "
          + "each thread in a directory of its own";
    }
    if (scenario.equals(PathStatScenario.NAME)) {
      return "operations/s; a stat (Files.readAttributes) of a file " + PathStatScenario.DEPTH + " directories deep, "
          + (variant.equals(PathStatScenario.SHARED) ? "every thread the same one" : "each thread its own chain");
    }
    if (scenario.equals(JournalScenario.NAME)) {
      return "operations/s; synchronous jbd2 handles (start, write access to one of the thread's own 4 KiB blocks, dirty, "
          + "setSync, stop) on a journal in an image file, beside the same run's N threads of 4 KiB pwrite + fdatasync on "
          + "files of their own";
    }
    if (scenario.equals(PopulateScenario.NAME)) {
      return "entries/s; a new image filled from a " + (PopulateScenario.DIRS * (PopulateScenario.FILES_PER_DIR + 1)
          + PopulateScenario.BIG) + "-entry host tree: ext4j mkfs -d, mke2fs -d, and cp -a into a loop mount (with its unmount)";
    }
    return "operations/s; " + switch (variant) {
      case "fsync" -> "4 KiB append + fsync per thread, own file";
      case "fdatasync" -> "4 KiB append + fdatasync per thread, own file";
      case FsyncScenario.OVERWRITE -> "4 KiB overwrite + fdatasync per thread, cycling through " + FsyncScenario.OVERWRITE_BLOCKS
          + " written blocks of its own file (no metadata change)";
      case "osync" -> "4 KiB append to a file opened O_SYNC";
      case "odsync" -> "4 KiB append to a file opened O_DSYNC";
      case "many-files" -> "4 KiB append + fsync to " + FsyncScenario.MANY + " files per thread in turn";
      case FsyncScenario.DIRSYNC -> "create + unlink of a file, each thread in a dirsync directory of its own, each durable on return";
      default -> variant;
    };
  }

  static String markdown(Table t) {
    StringBuilder s = new StringBuilder();
    s.append("| ").append(String.join(" | ", t.columns())).append(" |\n");
    s.append("|").append("---|".repeat(t.columns().size())).append('\n');
    for (List<String> r : t.rows()) {
      s.append("| ").append(String.join(" | ", r)).append(" |\n");
    }
    return s.toString();
  }

  /** The rows as CSV, one line per cell. */
  public String csv() {
    StringBuilder s = new StringBuilder(
        "scenario,variant,target,setting,default,threads,bytes_per_op,ops_per_sec,kib_per_sec,mean_us,p50_us,p99_us,p999_us,operations,seconds,failure,"
            + "commits_per_sec,handles_per_tx,flushes_per_sec,disk_flushes_per_sec,commit_wakeup\n");
    for (CellResult r : result.rows()) {
      s.append(String.join(",", r.scenario(), r.variant(), r.target(), r.setting() == null ? "" : r.setting(),
          Boolean.toString(r.isDefault()), Integer.toString(r.threads()), Integer.toString(r.bytesPerOp()), num(r.opsPerSec()),
          num(r.kibPerSec()), num(r.meanMicros()), num(r.p50Micros()), num(r.p99Micros()), num(r.p999Micros()),
          Long.toString(r.operations()), num(r.seconds()), r.failure() == null ? "" : csvText(r.failure()), num(r.commitsPerSec()),
          num(r.handlesPerTransaction()), num(r.flushesPerSec()), num(r.diskFlushesPerSec()),
          r.commitWakeup() == null ? "" : r.commitWakeup())).append('\n');
    }
    return s.toString();
  }

  /** A CSV field: quoted, with quotes doubled. */
  private static String csvText(String v) {
    return "\"" + v.replace("\"", "\"\"").replace('\n', ' ') + "\"";
  }

  /**
   * One JSON object: {@code {"started", "seconds", "options":{…}, "machine":{…}, "targets":{scenario:{name:how}},
   * "skipped":{name:why}, "peakRssBytes":{scenario:bytes}, "peakHeapBytes":{scenario:bytes},
   * "engineMemory":{scenario:{baselineBytes, withEngineBytes, engineBytes} or {failure}}, "cacheBytes", "loadAfter", "verdicts":[…],
   * "rows":[{scenario, variant, target, setting, default, threads, bytesPerOp, opsPerSec, meanMicros, p50Micros,
   * p99Micros, p999Micros, operations, seconds, failure, commitsPerSec, commitBusy, processCores, handlesPerTransaction,
   * flushesPerSec, deviceFlushesPerSec, commitWakeup}], "defaultPolicyStats":{threads, JournalStats' components…}|null}};
   * the options have {@code "journal":{policies, commitWakeups, blocksPerOp, baseline, ceiling, asyncCommit, jitWarmupSeconds}}
   * when the {@code journal} scenario ran. NaN figures and absent values are null.
   */
  public String json() {
    SuiteOptions o = result.options();
    ObjectNode root = Json.object();
    root.put("started", result.started().toString());
    root.put("seconds", Json.figure(result.took().toMillis() / 1000.0));
    ObjectNode options = root.putObject("options");
    o.scenarios().forEach(options.putArray("scenarios")::add);
    o.threads().forEach(options.putArray("threads")::add);
    o.blockSizes().forEach(options.putArray("blockSizes")::add);
    options.put("secondsPerCell", Json.figure(o.perCell().toMillis() / 1000.0));
    options.put("slices", o.slices());
    options.put("warmupSeconds", Json.figure(o.warmup().toMillis() / 1000.0));
    options.put("imageBytes", o.imageSize());
    if (o.scenarios().contains(JournalScenario.NAME)) {
      ObjectNode j = options.putObject("journal");
      ArrayNode policies = j.putArray("policies");
      o.journal().policies().forEach(p -> policies.add(p.name()));
      ArrayNode wakeups = j.putArray("commitWakeups");
      o.journal().wakeups().forEach(w -> wakeups.add(JournalScenarioOptions.wakeupName(w)));
      j.put("blocksPerOp", o.journal().blocksPerOp());
      j.put("baseline", o.journal().baseline());
      j.put("ceiling", o.journal().ceiling());
      j.put("asyncCommit", o.journal().journalOptions().asyncCommit());
      j.put("jitWarmupSeconds", Json.figure(o.journal().jitWarmup().toMillis() / 1000.0));
    }
    ObjectNode machine = root.putObject("machine");
    result.machine().facts().forEach(machine::put);
    ObjectNode targets = root.putObject("targets");
    result.targets().forEach((scenario, how) -> how.forEach(targets.putObject(scenario)::put));
    ObjectNode skipped = root.putObject("skipped");
    result.skipped().forEach(skipped::put);
    ObjectNode rss = root.putObject("peakRssBytes");
    result.peakRssBytes().forEach((scenario, bytes) -> rss.put(scenario, bytes < 0 ? null : bytes));
    ObjectNode heap = root.putObject("peakHeapBytes");
    result.peakHeapBytes().forEach(heap::put);
    ObjectNode engineMemory = root.putObject("engineMemory");
    result.engineMemory().forEach((scenario, m) -> {
      ObjectNode e = engineMemory.putObject(scenario);
      if (m.failure() != null) {
        e.put("failure", m.failure());
      } else {
        e.put("baselineBytes", m.baselineBytes());
        e.put("withEngineBytes", m.withEngineBytes());
        e.put("engineBytes", m.engineBytes());
      }
    });
    root.put("cacheBytes", result.cacheBytes());
    root.put("loadAfter", result.loadAfter());
    verdicts().forEach(root.putArray("verdicts")::add);
    ArrayNode rows = root.putArray("rows");
    for (CellResult r : result.rows()) {
      ObjectNode row = rows.addObject();
      row.put("scenario", r.scenario());
      row.put("variant", r.variant());
      row.put("target", r.target());
      row.put("setting", r.setting());
      row.put("default", r.isDefault());
      row.put("threads", r.threads());
      row.put("bytesPerOp", r.bytesPerOp());
      row.put("opsPerSec", Json.figure(r.opsPerSec()));
      row.put("meanMicros", Json.figure(r.meanMicros()));
      row.put("p50Micros", Json.figure(r.p50Micros()));
      row.put("p99Micros", Json.figure(r.p99Micros()));
      row.put("p999Micros", Json.figure(r.p999Micros()));
      row.put("operations", r.operations());
      row.put("seconds", Json.figure(r.seconds()));
      row.put("failure", r.failure());
      row.put("commitsPerSec", Json.figure(r.commitsPerSec()));
      row.put("commitBusy", Json.figure(r.commitBusy()));
      row.put("processCores", Json.figure(r.processCores()));
      row.put("handlesPerTransaction", Json.figure(r.handlesPerTransaction()));
      row.put("flushesPerSec", Json.figure(r.flushesPerSec()));
      row.put("deviceFlushesPerSec", Json.figure(r.diskFlushesPerSec()));
      row.put("commitWakeup", r.commitWakeup());
    }
    Optional<CellResult> stats = defaultJournalStats();
    if (stats.isPresent()) {
      ObjectNode st = root.putObject("defaultPolicyStats");
      st.put("threads", stats.get().threads());
      JournalStats js = stats.get().journalStats();
      for (RecordComponent c : JournalStats.class.getRecordComponents()) {
        Object v;
        try {
          v = c.getAccessor().invoke(js);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
        if (v instanceof Double d) {
          st.put(c.getName(), Json.figure(d));
        } else {
          st.set(c.getName(), Json.MAPPER.valueToTree(v));
        }
      }
    } else {
      root.putNull("defaultPolicyStats");
    }
    return Json.write(root) + "\n";
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
  }

  static String count(double v) {
    return String.format(Locale.ROOT, "%,.0f", v);
  }

  static String fixed2(double v) {
    return String.format(Locale.ROOT, "%.2f", v);
  }
}
