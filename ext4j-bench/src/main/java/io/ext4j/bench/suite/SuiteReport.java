package io.ext4j.bench.suite;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ext4j.bench.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A run's figures arranged as the report shows them: one table per scenario and variant (a row per
 * thread count, a column per target, then the ratios the issue asks for), and the verdict on each
 * target figure. Pure: reads a {@link SuiteResult}, writes nothing.
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

  /** The memory target: the engine within its configured cache plus this much. */
  static final int ENGINE_SLACK_MIB = 128;

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

  /** The table of one variant: {@code dio}'s has a row per block size and target, every other a row per thread count. */
  public Table table(String scenario, String variant) {
    return scenario.equals(DioScenario.NAME) ? dioTable(variant) : threadTable(scenario, variant);
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

  private static Optional<CellResult> bestPolicy(List<CellResult> rows, int threads) {
    return rows.stream().filter(r -> r.setting() != null && r.threads() == threads && r.failure() == null)
        .max(java.util.Comparator.comparingDouble(CellResult::opsPerSec));
  }

  /**
   * The figures for each scenario that ran, each "met" or "not met" with the measurement that
   * decides it (or "not measured" with the reason).
   */
  public List<String> verdicts() {
    List<String> out = new ArrayList<>();
    fsyncVerdicts(out);
    dioVerdicts(out);
    metadataVerdicts(out);
    committedVerdict(out);
    List<CellResult> pop = rowsOf(PopulateScenario.NAME, PopulateScenario.VARIANT);
    if (!pop.isEmpty()) {
      out.add(verdict("populate: ext4j mkfs -d no slower than mke2fs -d", pop, Target.EXT4J, PopulateScenario.MKE2FS, List.of(1),
          1.0));
    }
    memoryVerdict(out);
    return out;
  }

  /** The engine's resident memory (its probe's) within its configured cache plus {@value #ENGINE_SLACK_MIB} MiB, per scenario. */
  private void memoryVerdict(List<String> out) {
    if (result.engineMemory().isEmpty()) {
      return;
    }
    long limit = result.cacheBytes() + ((long) ENGINE_SLACK_MIB << 20);
    boolean met = true;
    boolean measured = false;
    List<String> figures = new ArrayList<>();
    for (Map.Entry<String, MemoryProbe.Result> e : result.engineMemory().entrySet()) {
      MemoryProbe.Result m = e.getValue();
      if (m.failure() != null) {
        figures.add(e.getKey() + ": not measured, " + m.failure());
        continue;
      }
      measured = true;
      met &= m.engineBytes() <= limit;
      figures.add(e.getKey() + " " + mib(m.engineBytes()));
    }
    out.add("memory: the engine within its cache + " + ENGINE_SLACK_MIB + " MiB (" + mib(limit) + "; peak RSS it adds to a JVM "
        + "running the same workload on kernel-host): " + (!measured ? "not measured" : met ? "met" : "not met") + " ("
        + String.join(", ", figures) + ")");
  }

  private static String mib(long bytes) {
    return (bytes >> 20) + " MiB";
  }

  private void fsyncVerdicts(List<String> out) {
    List<CellResult> fsync = rowsOf(FsyncScenario.NAME, "fsync");
    if (fsync.isEmpty()) {
      return;
    }
    List<Integer> threads = threadsOf(fsync);
    List<Integer> big = threads.stream().filter(t -> t >= 16).toList();
    out.add(withCommitBound(verdict("fsync: ext4j ≥ kernel-host at 16+ threads", fsync, Target.EXT4J, Target.HOST, big, 1.0),
        fsync, big));
    String loop = withCommitBound(verdict("fsync: ext4j ≥ 2× kernel-loop at every thread count", fsync, Target.EXT4J, Target.LOOP,
        threads, 2.0), fsync, threads);
    List<String> loopBounds = loneWriterBounds(fsync, Target.LOOP);
    if (ratio(fsync, Target.EXT4J, Target.LOOP, 1).filter(q -> q < 2.0).isPresent() && !loopBounds.isEmpty()) {
      loop = amended(loop, "at 1 thread, of kernel-loop, " + String.join(", ", loopBounds));
    }
    out.add(loop);
    String lone = verdict("fsync: ext4j ≥ 0.7 of kernel-host at 1 thread", fsync, Target.EXT4J, Target.HOST,
        threads.contains(1) ? List.of(1) : List.of(), 0.7);
    List<String> hostBounds = loneWriterBounds(fsync, Target.HOST);
    if (lone.contains("not met") && !hostBounds.isEmpty()) {
      // an append's fsync on kernel-host may wait for one flush (a host file system without a journal, as here)
      lone = amended(lone, "of kernel-host, " + String.join(", ", hostBounds));
    }
    out.add(lone);
    List<String> worst = new ArrayList<>();
    boolean met = true;
    for (String variant : List.of("fsync", FsyncScenario.DIRSYNC)) {
      List<CellResult> rows = rowsOf(FsyncScenario.NAME, variant);
      if (rows.stream().noneMatch(r -> r.setting() != null && !r.isDefault())) {
        continue;
      }
      for (int th : threadsOf(rows)) {
        Optional<CellResult> best = bestPolicy(rows, th);
        Optional<Double> d = rate(rows, Target.EXT4J, th);
        if (best.isPresent() && d.isPresent()) {
          double q = d.get() / best.get().opsPerSec();
          met &= q >= 0.95;
          worst.add(variant + " " + th + ": " + fixed2(q) + (q < 1 ? " of " + best.get().setting() : ""));
        }
      }
    }
    if (worst.isEmpty()) {
      out.add("fsync: the default policy within 5% of the best: not measured (one policy ran)");
      return;
    }
    String policy = "fsync: the default policy within 5% of the best at every thread count: " + (met ? "met" : "not met") + " ("
        + String.join(", ", worst) + ")";
    List<String> noise = new ArrayList<>();
    for (String variant : List.of("fsync", FsyncScenario.DIRSYNC)) {
      List<Double> same = rowsOf(FsyncScenario.NAME, variant).stream().filter(r -> r.threads() == 1 && r.failure() == null
          && r.setting() != null && FsyncScenario.LONE_WRITER_AS_NONE.contains(r.setting())).map(CellResult::opsPerSec).toList();
      if (same.size() > 1 && Collections.max(same) > 0) {
        noise.add(variant + " " + fixed2(Collections.min(same) / Collections.max(same)) + " (" + same.size() + " rows)");
      }
    }
    if (!met && !noise.isEmpty()) {
      policy = amended(policy, "at 1 thread, where none, tick-skip-same, jbd2 and the default run one code path, the slowest of"
          + " those rows ÷ the fastest: " + String.join(", ", noise) + ": gaps of that size are this run's noise");
    }
    out.add(policy);
  }

  /**
   * What the device allows ext4j at 1 thread, as shares of {@code target}'s 1-thread fsync rate, each
   * with how it was measured: a journaled append's own writes and two flushes with no file system
   * ({@link CommitIoBound}), and two flushes of one block each (fio's 1-job write + fdatasync ÷ 2; a
   * journaled commit waits for two: its blocks, then its commit block). Empty where neither bound or
   * the target ran.
   */
  private List<String> loneWriterBounds(List<CellResult> fsync, String target) {
    Optional<Double> peer = rate(fsync, target, 1).filter(v -> v > 0);
    if (peer.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    rate(fsync, CommitIoBound.TARGET, 1).ifPresent(b -> out.add("a journaled append's own I/O with no file system bounds ext4j at "
        + fixed2(b / peer.get()) + " (commit-io: the data block and " + CommitIoBound.LOG_BLOCKS
        + " log blocks, a flush, the commit block, a flush)"));
    rate(rowsOf(FsyncScenario.NAME, "fdatasync"), FioBound.TARGET, 1).ifPresent(d -> out.add("two device flushes of one block each at "
        + fixed2(d / 2 / peer.get()) + " (fio's 1-job write + fdatasync ÷ 2)"));
    return out;
  }

  private void committedVerdict(List<String> out) {
    String locked = Target.EXT4J + "/" + Scenario.optionName(io.ext4j.jbd2.CommittedCheck.STATE_LOCK);
    List<String> figures = new ArrayList<>();
    List<String> noise = new ArrayList<>(); // the reads: neither setting runs the check, so the two rows are the same code
    boolean met = true;
    for (String v : CommittedCheckScenario.OPS) {
      List<CellResult> rows = rowsOf(CommittedCheckScenario.NAME, v);
      Optional<Double> q = ratio(rows, Target.EXT4J, locked, CommittedCheckScenario.THREADS);
      if (q.isEmpty()) {
        continue;
      }
      if (CommittedCheckScenario.asksCheck(v)) {
        met &= q.get() >= 0.95;
        figures.add(v + ": " + fixed2(q.get()));
      } else {
        noise.add(v + ": " + fixed2(q.get()));
      }
    }
    if (figures.isEmpty()) {
      return;
    }
    String v = "committed-check: the lock-free check never slower than the locked one (within 5 %): " + (met ? "met" : "not met")
        + " (lock-free ÷ locked where the check runs, " + String.join(", ", figures) + ")";
    if (!noise.isEmpty()) {
      v = amended(v, "the reads, which ask no check under either setting, " + String.join(", ", noise)
          + ": two rows of the same code that far apart are this run's noise");
    }
    out.add(v);
  }

  private void metadataVerdicts(List<String> out) {
    List<CellResult> m = rowsOf(MetadataScenario.NAME, MetadataScenario.VARIANT);
    if (m.isEmpty()) {
      return;
    }
    List<Integer> threads = threadsOf(m);
    out.add(verdict("metadata: ext4j ≥ 0.5 of kernel-host at 1 thread", m, Target.EXT4J, Target.HOST,
        threads.contains(1) ? List.of(1) : List.of(), 0.5));
    Optional<Integer> next = threads.stream().filter(t -> t > 1).sorted().findFirst();
    String what = "metadata: ext4j's scaling from 1 to " + next.map(String::valueOf).orElse("2") + " threads at least the kernel's";
    Optional<Double> e = next.flatMap(n -> ratioOf(m, Target.EXT4J, n, 1));
    Optional<Double> k = next.flatMap(n -> ratioOf(m, Target.HOST, n, 1));
    if (e.isEmpty() || k.isEmpty()) {
      out.add(what + ": not measured (needs rows at 1 and more threads for ext4j and kernel-host)");
    } else {
      boolean met = e.get() >= k.get();
      String bound = "";
      if (!met) {
        // What bounds it: the kernel with a journal (kernel-loop), and how busy ext4j's one-at-a-time commits were.
        bound = ratioOf(m, Target.LOOP, next.get(), 1).map(l -> "; kernel-loop, journaled as ext4j is, ×" + fixed2(l)).orElse("")
            + commitBound(m, List.of(next.get())).map(b -> "; " + b).orElse("");
      }
      out.add(what + ": " + (met ? "met" : "not met") + " (ext4j ×" + fixed2(e.get()) + ", kernel-host ×"
          + fixed2(k.get()) + bound + (next.get() != 2 ? "; no 2-thread row in this run" : "") + ")");
    }
  }

  /**
   * How busy ext4j's commits and the processors were at the most threads of {@code threads} its
   * default row counted them (its commits run one at a time, so a commit running nearly all the
   * time is the bound; with commits idle, processors busy nearly all the time are), or empty where
   * no such row counted them.
   */
  private static Optional<String> commitBound(List<CellResult> rows, List<Integer> threads) {
    return rows.stream().filter(r -> r.target().equals(Target.EXT4J) && threads.contains(r.threads()) && !Double.isNaN(r.commitBusy())
            && r.commitsPerSec() > 0)
        .max(java.util.Comparator.comparingInt(CellResult::threads))
        .map(r -> "ext4j at " + r.threads() + (r.threads() == 1 ? " thread" : " threads") + " committed "
            + count(r.commitsPerSec()) + " transactions/s, one per "
            + count(r.opsPerSec() / r.commitsPerSec()) + " operations, a commit running " + Math.round(r.commitBusy() * 100)
            + " % of the time" + (Double.isNaN(r.processCores()) ? "" : ", the process keeping " + fixed2(r.processCores())
                + " processors busy"));
  }

  /** {@code verdict} with, when it is not met, the commit bound at those thread counts. */
  private static String withCommitBound(String verdict, List<CellResult> rows, List<Integer> threads) {
    if (!verdict.contains(": not met (")) {
      return verdict;
    }
    return commitBound(rows, threads).map(b -> amended(verdict, b)).orElse(verdict);
  }

  /** {@code verdict}, whose figures end it in parentheses, with {@code more} added to them. */
  private static String amended(String verdict, String more) {
    return verdict.substring(0, verdict.length() - 1) + "; " + more + ")";
  }

  /** {@code target}'s rate at {@code a} threads over its rate at {@code b}. */
  private static Optional<Double> ratioOf(List<CellResult> rows, String target, int a, int b) {
    Optional<Double> x = rate(rows, target, a);
    Optional<Double> y = rate(rows, target, b).filter(v -> v > 0);
    return x.isPresent() && y.isPresent() ? Optional.of(x.get() / y.get()) : Optional.empty();
  }

  private void dioVerdicts(List<String> out) {
    if (rowsOf(DioScenario.NAME, "randwrite").isEmpty()) {
      return;
    }
    String exclusive = Target.EXT4J + "/" + Scenario.optionName(io.ext4j.fs.DioLocking.ALWAYS_EXCLUSIVE);
    out.add(against("dio: shared-lock aligned overwrite at 10 threads ≥ 0.8 of fio's O_DIRECT rate", List.of("randwrite", "write"),
        Target.EXT4J, FioBound.TARGET, 0.8, true));
    String serialized = against("dio: always-exclusive visibly serialized (≤ 0.8 of the shared lock's overwrites)",
        List.of("randwrite", "write"), exclusive, Target.EXT4J, 0.8, false);
    Map<String, Double> unserialized = new LinkedHashMap<>(dioRatios(List.of("randwrite", "write"), exclusive, Target.EXT4J));
    unserialized.values().removeIf(q -> q <= 0.8);
    Map<String, Double> atDevice = new LinkedHashMap<>(dioRatios(List.of("randwrite", "write"), exclusive, FioBound.TARGET));
    atDevice.keySet().retainAll(unserialized.keySet());
    if (!unserialized.isEmpty() && !atDevice.isEmpty()) {
      // one writer at a time costs nothing where one writer already keeps the device busy
      serialized = amended(serialized, "where it is not, always-exclusive ÷ fio's 10-job rate: " + figures(atDevice)
          + (atDevice.values().stream().allMatch(q -> q >= 0.8) ? ": the device, not the lock, is the bound there" : ""));
    }
    out.add(serialized);
    out.add(against("dio: reads ≥ 0.8 of fio's", List.of("randread", "read"), Target.EXT4J, FioBound.TARGET, 0.8, true));
  }

  /**
   * {@code num} ÷ {@code den} per operation and block size; met when every ratio is ≥ (or with
   * {@code atLeast} false ≤) {@code bound}. A missed bound against fio's rate also gives what
   * bounds it: the same threads and calls on kernel-host (the host's own file, no engine) ÷ fio.
   */
  private String against(String what, List<String> variants, String num, String den, double bound, boolean atLeast) {
    Map<String, Double> q = dioRatios(variants, num, den);
    if (q.isEmpty()) {
      String why = result.skipped().get(den);
      return what + ": not measured (" + den + (why != null ? " skipped: " + why : " did not run") + ")";
    }
    boolean met = q.values().stream().allMatch(v -> atLeast ? v >= bound : v <= bound);
    String figures = figures(q);
    if (!met && den.equals(FioBound.TARGET)) {
      Map<String, Double> host = dioRatios(variants, Target.HOST, den);
      if (!host.isEmpty()) {
        figures += "; the same threads on kernel-host ÷ fio: " + figures(host);
      }
    }
    return what + ": " + (met ? "met" : "not met") + " (" + figures + ")";
  }

  /** {@code num} ÷ {@code den} per dio operation and block size where both measured: "randwrite 4k" → ratio. */
  private Map<String, Double> dioRatios(List<String> variants, String num, String den) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String v : variants) {
      List<CellResult> rows = rowsOf(DioScenario.NAME, v);
      for (int bs : rows.stream().map(CellResult::bytesPerOp).distinct().toList()) {
        Optional<Double> n = rateAt(rows, num, bs);
        Optional<Double> d = rateAt(rows, den, bs).filter(x -> x > 0);
        if (n.isPresent() && d.isPresent()) {
          out.put(v + " " + size(bs), n.get() / d.get());
        }
      }
    }
    return out;
  }

  private static String figures(Map<String, Double> ratios) {
    List<String> parts = new ArrayList<>();
    ratios.forEach((k, v) -> parts.add(k + ": " + fixed2(v)));
    return String.join(", ", parts);
  }

  private String verdict(String what, List<CellResult> rows, String num, String den, List<Integer> threads, double atLeast) {
    if (threads.isEmpty()) {
      return what + ": not measured (no such thread count in this run)";
    }
    if (targetsOf(rows).stream().noneMatch(den::equals)) {
      String why = result.skipped().get(den);
      return what + ": not measured (" + den + " " + (why != null ? "skipped: " + why : "did not run") + ")";
    }
    boolean met = true;
    List<String> figures = new ArrayList<>();
    for (int th : threads) {
      Optional<Double> q = ratio(rows, num, den, th);
      if (q.isPresent()) {
        met &= q.get() >= atLeast;
        figures.add(th + ": " + fixed2(q.get()));
      }
    }
    return what + ": " + (met ? "met" : "not met") + " (" + String.join(", ", figures) + ")";
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
    s.append(String.join(", ", peaks)).append(" (engine cache ").append(result.cacheBytes() >> 20)
        .append(" MiB per image the engine has open: ");
    List<String> open = new ArrayList<>();
    result.targets().forEach((sc, m) -> open.add(sc + " " + m.keySet().stream().filter(t -> t.startsWith(Target.EXT4J)).count()));
    s.append(String.join(", ", open)).append(")\n");
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

  /** What a reader of a variant's table should know beyond its caption, or null. */
  static String note(String scenario, String variant) {
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
    if (scenario.equals(PopulateScenario.NAME)) {
      return "entries/s; a new image filled from a " + (PopulateScenario.DIRS * (PopulateScenario.FILES_PER_DIR + 1)
          + PopulateScenario.BIG) + "-entry host tree: ext4j mkfs -d, mke2fs -d, and cp -a into a loop mount (with its unmount)";
    }
    return "operations/s; " + switch (variant) {
      case "fsync" -> "4 KiB append + fsync per thread, own file";
      case "fdatasync" -> "4 KiB append + fdatasync per thread, own file";
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
        "scenario,variant,target,setting,default,threads,bytes_per_op,ops_per_sec,kib_per_sec,mean_us,p50_us,p99_us,p999_us,operations,seconds,failure\n");
    for (CellResult r : result.rows()) {
      s.append(String.join(",", r.scenario(), r.variant(), r.target(), r.setting() == null ? "" : r.setting(),
          Boolean.toString(r.isDefault()), Integer.toString(r.threads()), Integer.toString(r.bytesPerOp()), num(r.opsPerSec()),
          num(r.kibPerSec()), num(r.meanMicros()), num(r.p50Micros()), num(r.p99Micros()), num(r.p999Micros()),
          Long.toString(r.operations()), num(r.seconds()), r.failure() == null ? "" : csvText(r.failure()))).append('\n');
    }
    return s.toString();
  }

  /** A CSV field: quoted, with quotes doubled. */
  private static String csvText(String v) {
    return "\"" + v.replace("\"", "\"\"").replace('\n', ' ') + "\"";
  }

  /**
   * One JSON object: {@code {"started", "seconds", "options":{…}, "machine":{…}, "targets":{scenario:{name:how}},
   * "skipped":{name:why}, "peakRssBytes":{scenario:bytes},
   * "engineMemory":{scenario:{baselineBytes, withEngineBytes, engineBytes} or {failure}}, "cacheBytes", "loadAfter", "verdicts":[…],
   * "rows":[{scenario, variant, target, setting, default, threads, bytesPerOp, opsPerSec, meanMicros, p50Micros,
   * p99Micros, p999Micros, operations, seconds, failure, commitsPerSec, commitBusy, processCores}]}}; NaN figures and absent values are null.
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
    ObjectNode machine = root.putObject("machine");
    result.machine().facts().forEach(machine::put);
    ObjectNode targets = root.putObject("targets");
    result.targets().forEach((scenario, how) -> how.forEach(targets.putObject(scenario)::put));
    ObjectNode skipped = root.putObject("skipped");
    result.skipped().forEach(skipped::put);
    ObjectNode rss = root.putObject("peakRssBytes");
    result.peakRssBytes().forEach((scenario, bytes) -> rss.put(scenario, bytes < 0 ? null : bytes));
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
