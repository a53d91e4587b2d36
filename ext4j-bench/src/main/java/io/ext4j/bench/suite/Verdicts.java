package io.ext4j.bench.suite;

import static io.ext4j.bench.suite.SuiteReport.fixed2;
import static io.ext4j.bench.suite.Verdict.Comparison.AT_LEAST;
import static io.ext4j.bench.suite.Verdict.Comparison.AT_MOST;

import io.ext4j.bench.suite.Verdict.Comparison;
import io.ext4j.bench.suite.Verdict.Outcome;
import io.ext4j.fs.DioLocking;
import io.ext4j.jbd2.CommittedCheck;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The suite's targets, each judged on a report's rows as a {@link Verdict}, in the report's order:
 * fsync against the kernel (at many threads, at every thread count against the loop mount, the lone
 * writer) and the default batching policy against the best; dio's overwrites against fio, the
 * exclusive lock's cost and the reads; metadata's lone writer and its scaling; the lock-free committed
 * check; populate against mke2fs; the journal's group commit against the same run's fdatasync (the
 * lone writer's latency, the rate at many threads, the default policy against the best, the
 * heap); the engine's memory. Each threshold is a named constant the
 * target's words are made from. A scenario that did not run gives no verdict; a missing peer, thread
 * count or row gives one not measured, with the reason. A missed target names, where the run measured
 * it, what bounds it (the device, the commits, the host) or how noisy the run was.
 */
public final class Verdicts {
  /** fsync: ext4j's rate at {@value #FSYNC_MANY_THREADS} threads and more, at least this share of kernel-host's. */
  static final double FSYNC_MANY_OF_HOST = 1.0;
  static final int FSYNC_MANY_THREADS = 16;
  /** fsync: ext4j's rate at every thread count, at least this multiple of kernel-loop's. */
  static final double FSYNC_OF_LOOP = 2.0;
  /** fsync: ext4j's rate at 1 thread, at least this share of kernel-host's. */
  static final double FSYNC_LONE_OF_HOST = 0.7;
  /** fsync and dirsync: the default batching policy's rate at every thread count, at least this share of the best policy's. */
  static final double POLICY_OF_BEST = 0.95;
  /**
   * dio: ext4j's aligned overwrites (the shared lock), at least this share of fio's O_DIRECT rate; an
   * exclusive lock this close to fio's rate is bound by the device, not by the lock.
   */
  static final double DIO_OVERWRITE_OF_FIO = 0.8;
  /** dio: always-exclusive's overwrites, at most this share of the shared lock's (visibly serialized). */
  static final double DIO_EXCLUSIVE_OF_SHARED = 0.8;
  /** dio: ext4j's reads, at least this share of fio's. */
  static final double DIO_READS_OF_FIO = 0.8;
  /** metadata: ext4j's rate at 1 thread, at least this share of kernel-host's. */
  static final double METADATA_LONE_OF_HOST = 0.5;
  /** metadata: ext4j's scaling from 1 thread to the next count that ran, at least this share of kernel-host's ("at least the kernel's"). */
  static final double METADATA_SCALING_OF_KERNEL = 1.0;
  /** committed-check: the lock-free check's rate where it runs, at least this share of the locked check's. */
  static final double COMMITTED_CHECK_OF_LOCKED = 0.95;
  /** populate: ext4j mkfs -d's rate, at least this share of mke2fs -d's ("no slower than"). */
  static final double POPULATE_OF_MKE2FS = 1.0;
  /** memory: the engine's resident memory within its configured cache plus this much. */
  static final int ENGINE_SLACK_MIB = 128;
  /** journal: the default policy's median latency at 1 thread, at most this multiple of one pwrite + fdatasync's. */
  static final double JOURNAL_LONE_P50_OF_BASELINE = 1.3;
  /** journal: the default policy's rate at {@value #JOURNAL_MANY_THREADS} threads and more, at least this multiple of the baseline's. */
  static final double JOURNAL_MANY_OF_BASELINE = 2.0;
  static final int JOURNAL_MANY_THREADS = 16;
  /** journal: the default policy's rate at every thread count, at least this share of the best policy's. */
  static final double JOURNAL_POLICY_OF_BEST = 0.95;
  /** journal: the process's peak heap while the scenario ran, at most this many MiB. */
  static final int JOURNAL_HEAP_MIB = 256;

  private final SuiteReport report;
  private final SuiteResult result;

  private Verdicts(SuiteReport report) {
    this.report = report;
    this.result = report.result();
  }

  /** The verdicts on {@code report}'s figures, in the report's order. */
  public static List<Verdict> of(SuiteReport report) {
    Verdicts v = new Verdicts(report);
    List<Verdict> out = new ArrayList<>();
    v.fsync(out);
    v.dio(out);
    v.metadata(out);
    v.committedCheck(out);
    v.populate(out);
    v.journal(out);
    v.memory(out);
    return out;
  }

  private void fsync(List<Verdict> out) {
    List<CellResult> fsync = report.rowsOf(FsyncScenario.NAME, "fsync");
    if (fsync.isEmpty()) {
      return;
    }
    List<Integer> threads = SuiteReport.threadsOf(fsync);
    List<Integer> many = threads.stream().filter(t -> t >= FSYNC_MANY_THREADS).toList();
    out.add(withCommitBound(ratios("fsync: ext4j ≥ " + of(FSYNC_MANY_OF_HOST, Target.HOST) + " at " + FSYNC_MANY_THREADS + "+ threads",
        fsync, Target.EXT4J, Target.HOST, many, FSYNC_MANY_OF_HOST), fsync, many));
    Verdict loop = withCommitBound(ratios("fsync: ext4j ≥ " + of(FSYNC_OF_LOOP, Target.LOOP) + " at every thread count", fsync,
        Target.EXT4J, Target.LOOP, threads, FSYNC_OF_LOOP), fsync, threads);
    List<String> loopBounds = loneWriterBounds(fsync, Target.LOOP);
    if (SuiteReport.ratio(fsync, Target.EXT4J, Target.LOOP, 1).filter(q -> q < FSYNC_OF_LOOP).isPresent() && !loopBounds.isEmpty()) {
      loop = loop.withNote("at 1 thread, of " + Target.LOOP + ", " + String.join(", ", loopBounds));
    }
    out.add(loop);
    Verdict lone = ratios("fsync: ext4j ≥ " + of(FSYNC_LONE_OF_HOST, Target.HOST) + " at 1 thread", fsync, Target.EXT4J, Target.HOST,
        threads.contains(1) ? List.of(1) : List.of(), FSYNC_LONE_OF_HOST);
    List<String> hostBounds = loneWriterBounds(fsync, Target.HOST);
    if (lone.outcome() == Outcome.NOT_MET && !hostBounds.isEmpty()) {
      // an append's fsync on kernel-host may wait for one flush (a host file system without a journal, as here)
      lone = lone.withNote("of " + Target.HOST + ", " + String.join(", ", hostBounds));
    }
    out.add(lone);
    out.add(policy());
  }

  /** The default batching policy against the best at each thread count of fsync and dirsync, where other policies ran. */
  private Verdict policy() {
    Map<String, Double> figures = new LinkedHashMap<>();
    List<String> worded = new ArrayList<>();
    for (String variant : List.of("fsync", FsyncScenario.DIRSYNC)) {
      List<CellResult> rows = report.rowsOf(FsyncScenario.NAME, variant);
      if (rows.stream().noneMatch(r -> r.setting() != null && !r.isDefault())) {
        continue;
      }
      for (int th : SuiteReport.threadsOf(rows)) {
        Optional<CellResult> best = SuiteReport.bestPolicy(rows, th);
        Optional<Double> d = SuiteReport.rate(rows, Target.EXT4J, th);
        if (best.isPresent() && d.isPresent()) {
          double q = d.get() / best.get().opsPerSec();
          figures.put(variant + " " + th, q);
          worded.add(variant + " " + th + ": " + fixed2(q) + (q < 1 ? " of " + best.get().setting() : ""));
        }
      }
    }
    String target = "fsync: the default policy within " + percentBelow(POLICY_OF_BEST) + "% of the best";
    if (figures.isEmpty()) {
      return Verdict.notMeasured(target, AT_LEAST, POLICY_OF_BEST, "one policy ran");
    }
    Verdict v = judged(target + " at every thread count", AT_LEAST, POLICY_OF_BEST, figures, String.join(", ", worded));
    List<String> noise = new ArrayList<>();
    for (String variant : List.of("fsync", FsyncScenario.DIRSYNC)) {
      List<Double> same = report.rowsOf(FsyncScenario.NAME, variant).stream().filter(r -> r.threads() == 1 && r.failure() == null
          && r.setting() != null && FsyncScenario.LONE_WRITER_AS_NONE.contains(r.setting())).map(CellResult::opsPerSec).toList();
      if (same.size() > 1 && Collections.max(same) > 0) {
        noise.add(variant + " " + fixed2(Collections.min(same) / Collections.max(same)) + " (" + same.size() + " rows)");
      }
    }
    if (!v.met() && !noise.isEmpty()) {
      v = v.withNote("at 1 thread, where none, tick-skip-same, jbd2 and the default run one code path, the slowest of those rows ÷ the"
          + " fastest: " + String.join(", ", noise) + ": gaps of that size are this run's noise");
    }
    return v;
  }

  /**
   * What the device allows ext4j at 1 thread, as shares of {@code target}'s 1-thread fsync rate, each
   * with how it was measured: a journaled append's own writes and two flushes with no file system
   * ({@link CommitIoBound}), and two flushes of one block each (fio's 1-job write + fdatasync ÷ 2; a
   * journaled commit waits for two: its blocks, then its commit block). Empty where neither bound or
   * the target ran.
   */
  private List<String> loneWriterBounds(List<CellResult> fsync, String target) {
    Optional<Double> peer = SuiteReport.rate(fsync, target, 1).filter(v -> v > 0);
    if (peer.isEmpty()) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    SuiteReport.rate(fsync, CommitIoBound.TARGET, 1).ifPresent(b -> out.add("a journaled append's own I/O with no file system bounds"
        + " ext4j at " + fixed2(b / peer.get()) + " (commit-io: the data block and " + CommitIoBound.LOG_BLOCKS
        + " log blocks, a flush, the commit block, a flush)"));
    SuiteReport.rate(report.rowsOf(FsyncScenario.NAME, "fdatasync"), FioBound.TARGET, 1).ifPresent(d -> out.add("two device flushes"
        + " of one block each at " + fixed2(d / 2 / peer.get()) + " (fio's 1-job write + fdatasync ÷ 2)"));
    return out;
  }

  private void dio(List<Verdict> out) {
    if (report.rowsOf(DioScenario.NAME, "randwrite").isEmpty()) {
      return;
    }
    List<String> writes = List.of("randwrite", "write");
    String exclusive = Target.EXT4J + "/" + Scenario.optionName(DioLocking.ALWAYS_EXCLUSIVE);
    out.add(against("dio: shared-lock aligned overwrite at " + DioScenario.THREADS + " threads ≥ "
        + of(DIO_OVERWRITE_OF_FIO, "fio's O_DIRECT rate"), writes, Target.EXT4J, FioBound.TARGET, AT_LEAST, DIO_OVERWRITE_OF_FIO));
    Verdict serialized = against("dio: always-exclusive visibly serialized (≤ " + of(DIO_EXCLUSIVE_OF_SHARED, "the shared lock's overwrites")
        + ")", writes, exclusive, Target.EXT4J, AT_MOST, DIO_EXCLUSIVE_OF_SHARED);
    Map<String, Double> unserialized = new LinkedHashMap<>(serialized.figures());
    unserialized.values().removeIf(q -> AT_MOST.holds(q, DIO_EXCLUSIVE_OF_SHARED));
    Map<String, Double> atDevice = new LinkedHashMap<>(dioRatios(writes, exclusive, FioBound.TARGET));
    atDevice.keySet().retainAll(unserialized.keySet());
    if (!unserialized.isEmpty() && !atDevice.isEmpty()) {
      // one writer at a time costs nothing where one writer already keeps the device busy
      serialized = serialized.withNote("where it is not, always-exclusive ÷ fio's " + DioScenario.THREADS + "-job rate: " + worded(atDevice)
          + (atDevice.values().stream().allMatch(q -> q >= DIO_OVERWRITE_OF_FIO) ? ": the device, not the lock, is the bound there" : ""));
    }
    out.add(serialized);
    out.add(against("dio: reads ≥ " + of(DIO_READS_OF_FIO, "fio's"), List.of("randread", "read"), Target.EXT4J, FioBound.TARGET, AT_LEAST,
        DIO_READS_OF_FIO));
  }

  /**
   * {@code num} ÷ {@code den} per dio operation and block size, each held to {@code bound}. A missed
   * bound against fio's rate also gives what bounds it: the same threads and calls on kernel-host
   * (the host's own file, no engine) ÷ fio.
   */
  private Verdict against(String target, List<String> variants, String num, String den, Comparison comparison, double bound) {
    Map<String, Double> q = dioRatios(variants, num, den);
    if (q.isEmpty()) {
      return Verdict.notMeasured(target, comparison, bound, missing(den));
    }
    Verdict v = judged(target, comparison, bound, q, worded(q));
    if (!v.met() && den.equals(FioBound.TARGET)) {
      Map<String, Double> host = dioRatios(variants, Target.HOST, den);
      if (!host.isEmpty()) {
        v = v.withNote("the same threads on kernel-host ÷ fio: " + worded(host));
      }
    }
    return v;
  }

  /** {@code num} ÷ {@code den} per dio operation and block size where both measured: "randwrite 4k" → ratio. */
  private Map<String, Double> dioRatios(List<String> variants, String num, String den) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String v : variants) {
      List<CellResult> rows = report.rowsOf(DioScenario.NAME, v);
      for (int bs : rows.stream().map(CellResult::bytesPerOp).distinct().toList()) {
        Optional<Double> n = SuiteReport.rateAt(rows, num, bs);
        Optional<Double> d = SuiteReport.rateAt(rows, den, bs).filter(x -> x > 0);
        if (n.isPresent() && d.isPresent()) {
          out.put(v + " " + SuiteReport.size(bs), n.get() / d.get());
        }
      }
    }
    return out;
  }

  private void metadata(List<Verdict> out) {
    List<CellResult> m = report.rowsOf(MetadataScenario.NAME, MetadataScenario.VARIANT);
    if (m.isEmpty()) {
      return;
    }
    List<Integer> threads = SuiteReport.threadsOf(m);
    out.add(ratios("metadata: ext4j ≥ " + of(METADATA_LONE_OF_HOST, Target.HOST) + " at 1 thread", m, Target.EXT4J, Target.HOST,
        threads.contains(1) ? List.of(1) : List.of(), METADATA_LONE_OF_HOST));
    Optional<Integer> next = threads.stream().filter(t -> t > 1).sorted().findFirst();
    String target = "metadata: ext4j's scaling from 1 to " + next.map(String::valueOf).orElse("2") + " threads at least the kernel's";
    Optional<Double> e = next.flatMap(n -> scaling(m, Target.EXT4J, n, 1));
    Optional<Double> k = next.flatMap(n -> scaling(m, Target.HOST, n, 1));
    if (e.isEmpty() || k.isEmpty()) {
      out.add(Verdict.notMeasured(target, AT_LEAST, METADATA_SCALING_OF_KERNEL,
          "needs rows at 1 and more threads for ext4j and kernel-host"));
      return;
    }
    boolean met = e.get() >= METADATA_SCALING_OF_KERNEL * k.get();
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put(Target.EXT4J, e.get());
    figures.put(Target.HOST, k.get());
    Verdict v = new Verdict(target, AT_LEAST, METADATA_SCALING_OF_KERNEL, figures, met ? Outcome.MET : Outcome.NOT_MET,
        "ext4j ×" + fixed2(e.get()) + ", kernel-host ×" + fixed2(k.get()), List.of());
    if (!met) {
      // What bounds it: the kernel with a journal (kernel-loop), and how busy ext4j's one-at-a-time commits were.
      Optional<Double> loop = scaling(m, Target.LOOP, next.get(), 1);
      if (loop.isPresent()) {
        v = v.withNote("kernel-loop, journaled as ext4j is, ×" + fixed2(loop.get()));
      }
      Optional<String> commits = commitBound(m, List.of(next.get()));
      if (commits.isPresent()) {
        v = v.withNote(commits.get());
      }
    }
    if (next.get() != 2) {
      v = v.withNote("no 2-thread row in this run");
    }
    out.add(v);
  }

  private void committedCheck(List<Verdict> out) {
    String locked = Target.EXT4J + "/" + Scenario.optionName(CommittedCheck.STATE_LOCK);
    Map<String, Double> figures = new LinkedHashMap<>();
    List<String> noise = new ArrayList<>(); // the reads: neither setting runs the check, so the two rows are the same code
    for (String op : CommittedCheckScenario.OPS) {
      List<CellResult> rows = report.rowsOf(CommittedCheckScenario.NAME, op);
      Optional<Double> q = SuiteReport.ratio(rows, Target.EXT4J, locked, CommittedCheckScenario.THREADS);
      if (q.isEmpty()) {
        continue;
      }
      if (CommittedCheckScenario.asksCheck(op)) {
        figures.put(op, q.get());
      } else {
        noise.add(op + ": " + fixed2(q.get()));
      }
    }
    if (figures.isEmpty()) {
      return;
    }
    Verdict v = judged("committed-check: the lock-free check never slower than the locked one (within "
        + percentBelow(COMMITTED_CHECK_OF_LOCKED) + " %)", AT_LEAST, COMMITTED_CHECK_OF_LOCKED, figures,
        "lock-free ÷ locked where the check runs, " + worded(figures));
    if (!noise.isEmpty()) {
      v = v.withNote("the reads, which ask no check under either setting, " + String.join(", ", noise)
          + ": two rows of the same code that far apart are this run's noise");
    }
    out.add(v);
  }

  private void populate(List<Verdict> out) {
    List<CellResult> pop = report.rowsOf(PopulateScenario.NAME, PopulateScenario.VARIANT);
    if (!pop.isEmpty()) {
      out.add(ratios("populate: ext4j mkfs -d no slower than mke2fs -d", pop, Target.EXT4J, PopulateScenario.MKE2FS, List.of(1),
          POPULATE_OF_MKE2FS));
    }
  }

  /**
   * The journal scenario's targets, each on the default policy's rows (the default
   * wake-up): its median latency at 1 thread within {@value #JOURNAL_LONE_P50_OF_BASELINE}× the
   * baseline's, its rate at {@value #JOURNAL_MANY_THREADS}+ threads at least {@value
   * #JOURNAL_MANY_OF_BASELINE}× the baseline's (with, when missed, the share of the same run's
   * group-commit ceiling it reached and the ceiling's own ratio), within 5 % of the best policy, and
   * the peak heap under {@value #JOURNAL_HEAP_MIB} MiB.
   */
  private void journal(List<Verdict> out) {
    List<CellResult> rows = report.rowsOf(JournalScenario.NAME, JournalScenario.VARIANT);
    if (rows.isEmpty()) {
      return;
    }
    String base = JournalScenario.BASELINE;
    String lone = "journal: the default policy's p50 latency at 1 thread within " + BigDecimal.valueOf(JOURNAL_LONE_P50_OF_BASELINE)
        .stripTrailingZeros().toPlainString() + "× " + base + "'s";
    Optional<CellResult> d1 = defaultJournal(rows, 1);
    Optional<CellResult> b1 = SuiteReport.reference(rows, base, 1).filter(b -> b.p50Micros() > 0);
    if (d1.isEmpty() || b1.isEmpty()) {
      out.add(Verdict.notMeasured(lone, AT_MOST, JOURNAL_LONE_P50_OF_BASELINE, journalMissing(rows, 1)));
    } else {
      Map<String, Double> figures = Map.of("1", d1.get().p50Micros() / b1.get().p50Micros());
      out.add(judged(lone, AT_MOST, JOURNAL_LONE_P50_OF_BASELINE, figures, "1: " + fixed2(figures.get("1")) + " ("
          + Math.round(d1.get().p50Micros()) + " µs against " + Math.round(b1.get().p50Micros()) + " µs)"));
    }

    String many = "journal: the default policy ≥ " + of(JOURNAL_MANY_OF_BASELINE, base) + " at " + JOURNAL_MANY_THREADS + "+ threads";
    List<Integer> manyThreads = SuiteReport.threadsOf(rows).stream().filter(t -> t >= JOURNAL_MANY_THREADS).toList();
    Map<String, Double> ratios = new LinkedHashMap<>();
    List<String> ceilings = new ArrayList<>();
    for (int th : manyThreads) {
      Optional<CellResult> d = defaultJournal(rows, th);
      Optional<CellResult> b = SuiteReport.reference(rows, base, th).filter(x -> x.opsPerSec() > 0);
      if (d.isPresent() && b.isPresent()) {
        ratios.put(Integer.toString(th), d.get().opsPerSec() / b.get().opsPerSec());
        SuiteReport.reference(rows, JournalScenario.CEILING, th).filter(c -> c.opsPerSec() > 0).ifPresent(c -> ceilings.add(th + ": "
            + fixed2(d.get().opsPerSec() / c.opsPerSec()) + " of the ceiling, itself " + fixed2(c.opsPerSec() / b.get().opsPerSec())
            + "× the baseline"));
      }
    }
    if (ratios.isEmpty()) {
      out.add(Verdict.notMeasured(many, AT_LEAST, JOURNAL_MANY_OF_BASELINE, manyThreads.isEmpty()
          ? "no such thread count in this run" : journalMissing(rows, manyThreads.getFirst())));
    } else {
      Verdict v = judged(many, AT_LEAST, JOURNAL_MANY_OF_BASELINE, ratios, worded(ratios));
      if (!v.met() && !ceilings.isEmpty()) {
        v = v.withNote("the same run's " + JournalScenario.CEILING + " (one writer committing N handles' blocks per fdatasync back"
            + " to back, which no journal beats): " + String.join(", ", ceilings));
      }
      out.add(v);
    }

    String policy = "journal: the default policy within " + percentBelow(JOURNAL_POLICY_OF_BEST) + "% of the best";
    Map<String, Double> shares = new LinkedHashMap<>();
    List<String> worded = new ArrayList<>();
    for (int th : SuiteReport.threadsOf(rows)) {
      Optional<CellResult> d = defaultJournal(rows, th);
      // the policies with the default wake-up: another wake-up is a comparison of its own
      Optional<CellResult> best = rows.stream().filter(r -> r.threads() == th && r.failure() == null && r.setting() != null
          && !r.setting().contains("/")).max(Comparator.comparingDouble(CellResult::opsPerSec));
      if (d.isPresent() && best.isPresent() && best.get() != d.get()) {
        double q = d.get().opsPerSec() / best.get().opsPerSec();
        shares.put(Integer.toString(th), q);
        worded.add(th + ": " + fixed2(q) + " of " + best.get().setting());
      } else if (d.isPresent() && best.isPresent()) {
        shares.put(Integer.toString(th), 1.0);
        worded.add(th + ": the best");
      }
    }
    long policies = rows.stream().map(CellResult::setting).filter(x -> x != null && !x.contains("/")).distinct().count();
    if (policies < 2 || shares.isEmpty()) {
      out.add(Verdict.notMeasured(policy, AT_LEAST, JOURNAL_POLICY_OF_BEST, policies < 2 ? "one policy ran"
          : "the default policy did not run"));
    } else {
      out.add(judged(policy + " at every thread count", AT_LEAST, JOURNAL_POLICY_OF_BEST, shares, String.join(", ", worded)));
    }

    long limit = (long) JOURNAL_HEAP_MIB << 20;
    String heap = "journal: peak heap under " + JOURNAL_HEAP_MIB + " MiB (the sum of the heap pools' peaks while it ran)";
    Long peak = result.peakHeapBytes().get(JournalScenario.NAME);
    if (peak == null || peak <= 0) {
      out.add(Verdict.notMeasured(heap, AT_MOST, (double) limit, "no heap figure"));
    } else {
      out.add(new Verdict(heap, AT_MOST, (double) limit, Map.of(JournalScenario.NAME, (double) peak), peak < limit ? Outcome.MET
          : Outcome.NOT_MET, SuiteReport.mib(peak), List.of()));
    }
  }

  /** The default policy's journal row (default wake-up) at {@code threads}, if it ran without failing. */
  private static Optional<CellResult> defaultJournal(List<CellResult> rows, int threads) {
    return rows.stream().filter(r -> r.isDefault() && r.threads() == threads && r.failure() == null).findFirst();
  }

  /** Why a journal verdict at {@code threads} has no figure: the default policy or the baseline did not run there. */
  private static String journalMissing(List<CellResult> rows, int threads) {
    if (rows.stream().noneMatch(CellResult::isDefault)) {
      return "the default policy did not run";
    }
    if (SuiteReport.reference(rows, JournalScenario.BASELINE, threads).isEmpty()) {
      return JournalScenario.BASELINE + " did not run at " + threads + (threads == 1 ? " thread" : " threads");
    }
    return "the default policy did not run at " + threads + (threads == 1 ? " thread" : " threads");
  }

  /** The engine's resident memory (its probe's) within its configured cache plus {@value #ENGINE_SLACK_MIB} MiB, per scenario. */
  private void memory(List<Verdict> out) {
    if (result.engineMemory().isEmpty()) {
      return;
    }
    long limit = result.cacheBytes() + ((long) ENGINE_SLACK_MIB << 20);
    boolean met = true;
    Map<String, Double> figures = new LinkedHashMap<>();
    List<String> worded = new ArrayList<>();
    for (Map.Entry<String, MemoryProbe.Result> e : result.engineMemory().entrySet()) {
      MemoryProbe.Result m = e.getValue();
      if (m.failure() != null) {
        worded.add(e.getKey() + ": not measured, " + m.failure());
        continue;
      }
      met &= m.engineBytes() <= limit; // in bytes, exactly
      figures.put(e.getKey(), (double) m.engineBytes());
      worded.add(e.getKey() + " " + SuiteReport.mib(m.engineBytes()));
    }
    out.add(new Verdict("memory: the engine within its cache + " + ENGINE_SLACK_MIB + " MiB (" + SuiteReport.mib(limit) + "; peak RSS it"
        + " adds to a JVM running the same workload on kernel-host)", AT_MOST, limit, figures,
        figures.isEmpty() ? Outcome.NOT_MEASURED : met ? Outcome.MET : Outcome.NOT_MET, String.join(", ", worded), List.of()));
  }

  /**
   * {@code num}'s rate ÷ {@code den}'s at each of {@code threads}, each at least {@code atLeast}; not
   * measured where no such thread count ran or {@code den} did not.
   */
  private Verdict ratios(String target, List<CellResult> rows, String num, String den, List<Integer> threads, double atLeast) {
    if (threads.isEmpty()) {
      return Verdict.notMeasured(target, AT_LEAST, atLeast, "no such thread count in this run");
    }
    if (SuiteReport.targetsOf(rows).stream().noneMatch(den::equals)) {
      return Verdict.notMeasured(target, AT_LEAST, atLeast, missing(den));
    }
    Map<String, Double> figures = new LinkedHashMap<>();
    for (int th : threads) {
      SuiteReport.ratio(rows, num, den, th).ifPresent(q -> figures.put(Integer.toString(th), q));
    }
    return judged(target, AT_LEAST, atLeast, figures, worded(figures));
  }

  /** Why a peer has no rows: the reason it was skipped, or that it did not run. */
  private String missing(String peer) {
    String why = result.skipped().get(peer);
    return peer + (why != null ? " skipped: " + why : " did not run");
  }

  /** A verdict met when every figure holds against {@code threshold} (so also when there is none). */
  private static Verdict judged(String target, Comparison comparison, double threshold, Map<String, Double> figures, String evidence) {
    boolean met = figures.values().stream().allMatch(q -> comparison.holds(q, threshold));
    return new Verdict(target, comparison, threshold, figures, met ? Outcome.MET : Outcome.NOT_MET, evidence, List.of());
  }

  /** {@code verdict} with, when it is not met, the commit bound at those thread counts. */
  private static Verdict withCommitBound(Verdict verdict, List<CellResult> rows, List<Integer> threads) {
    if (verdict.outcome() != Outcome.NOT_MET) {
      return verdict;
    }
    return commitBound(rows, threads).map(verdict::withNote).orElse(verdict);
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
        .max(Comparator.comparingInt(CellResult::threads))
        .map(r -> "ext4j at " + r.threads() + (r.threads() == 1 ? " thread" : " threads") + " committed "
            + SuiteReport.count(r.commitsPerSec()) + " transactions/s, one per "
            + SuiteReport.count(r.opsPerSec() / r.commitsPerSec()) + " operations, a commit running " + Math.round(r.commitBusy() * 100)
            + " % of the time" + (Double.isNaN(r.processCores()) ? "" : ", the process keeping " + fixed2(r.processCores())
                + " processors busy"));
  }

  /** {@code target}'s rate at {@code a} threads over its rate at {@code b}. */
  private static Optional<Double> scaling(List<CellResult> rows, String target, int a, int b) {
    Optional<Double> x = SuiteReport.rate(rows, target, a);
    Optional<Double> y = SuiteReport.rate(rows, target, b).filter(v -> v > 0);
    return x.isPresent() && y.isPresent() ? Optional.of(x.get() / y.get()) : Optional.empty();
  }

  /** Named figures as the report words them: "16: 1.50, 64: 1.10". */
  private static String worded(Map<String, Double> figures) {
    List<String> parts = new ArrayList<>();
    figures.forEach((k, v) -> parts.add(k + ": " + fixed2(v)));
    return String.join(", ", parts);
  }

  /** {@code peer} scaled by {@code share} as a target words it: "kernel-host", "2× kernel-loop", "0.7 of kernel-host". */
  private static String of(double share, String peer) {
    String n = BigDecimal.valueOf(share).stripTrailingZeros().toPlainString();
    return share == 1 ? peer : share > 1 ? n + "× " + peer : n + " of " + peer;
  }

  /** How far below 1 a share is, in whole per cent: 0.95 → 5. */
  private static long percentBelow(double share) {
    return Math.round((1 - share) * 100);
  }
}
