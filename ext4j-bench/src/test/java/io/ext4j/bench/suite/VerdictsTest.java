package io.ext4j.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.bench.suite.Verdict.Comparison;
import io.ext4j.bench.suite.Verdict.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The targets as records: each verdict's threshold, figures and outcome, and the words the report gives it. */
@Tag("fast")
class VerdictsTest {
  private static CellResult row(String scenario, String variant, String target, int threads, int block, double rate) {
    return new CellResult(scenario, variant, target, null, false, threads, block, rate, 100, 90, 200, 300, (long) rate, 1.0, null,
        Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null, null);
  }

  private static CellResult fsync(String target, int threads, double rate) {
    return row("fsync", "fsync", target, threads, 4096, rate);
  }

  private static CellResult dio(String variant, String target, double rate) {
    return row("dio", variant, target, 10, 4096, rate);
  }

  /** A report of {@code rows}, with a 64 MiB cache and the engine's memory as {@code engineMib} per scenario. */
  private static SuiteReport report(List<CellResult> rows, Map<String, String> skipped, Map<String, Long> engineMib) {
    SuiteOptions o = new SuiteOptions(List.of("fsync"), List.of(1, 16), List.of(4096), Duration.ofSeconds(1), 1, Duration.ZERO, 64L << 20,
        Path.of("w"), Path.of("o"), false, JournalScenarioOptions.defaults());
    Map<String, MemoryProbe.Result> memory = new java.util.LinkedHashMap<>();
    engineMib.forEach((scenario, mib) -> memory.put(scenario, new MemoryProbe.Result(100L << 20, (100L + mib) << 20, null)));
    return new SuiteReport(new SuiteResult(o, new Machine(Map.of("cpu", "test")), Map.of(), skipped, rows, Map.of(), Map.of(), memory, 64L << 20,
        Instant.EPOCH, Duration.ofSeconds(3), "0 0 0"));
  }

  @Test
  void fsyncTargets_carryTheirThresholdAndFigures_andAreWordedFromThem() {
    SuiteReport report = report(List.of(fsync("ext4j", 1, 4000), fsync("kernel-host", 1, 5000), fsync("kernel-loop", 1, 2500),
        fsync("ext4j", 16, 15000), fsync("kernel-host", 16, 20000), fsync("kernel-loop", 16, 6000)), Map.of(), Map.of());
    List<Verdict> verdicts = Verdicts.of(report);
    assertThat(verdicts).hasSize(4);

    Verdict many = verdicts.get(0);
    assertThat(many.target()).isEqualTo("fsync: ext4j ≥ kernel-host at 16+ threads");
    assertThat(many.comparison()).isEqualTo(Comparison.AT_LEAST);
    assertThat(many.threshold()).isEqualTo(Verdicts.FSYNC_MANY_OF_HOST).isEqualTo(1.0);
    assertThat(many.figures()).containsExactly(Map.entry("16", 0.75));
    assertThat(many.outcome()).isEqualTo(Outcome.NOT_MET);
    assertThat(many.met()).isFalse();

    Verdict loop = verdicts.get(1);
    assertThat(loop.threshold()).isEqualTo(Verdicts.FSYNC_OF_LOOP).isEqualTo(2.0);
    assertThat(loop.figures()).containsExactly(Map.entry("1", 1.6), Map.entry("16", 2.5));
    assertThat(loop.outcome()).isEqualTo(Outcome.NOT_MET); // 2.5 at 16 threads, but 1.6 at 1

    Verdict lone = verdicts.get(2);
    assertThat(lone.threshold()).isEqualTo(Verdicts.FSYNC_LONE_OF_HOST).isEqualTo(0.7);
    assertThat(lone.figures()).containsExactly(Map.entry("1", 0.8));
    assertThat(lone.outcome()).isEqualTo(Outcome.MET);
    assertThat(lone.notes()).isEmpty();

    Verdict policy = verdicts.get(3);
    assertThat(policy.threshold()).isEqualTo(Verdicts.POLICY_OF_BEST);
    assertThat(policy.figures()).isEmpty();
    assertThat(policy.outcome()).isEqualTo(Outcome.NOT_MEASURED);

    assertThat(report.verdicts()).containsExactly(
        "fsync: ext4j ≥ kernel-host at 16+ threads: not met (16: 0.75)",
        "fsync: ext4j ≥ 2× kernel-loop at every thread count: not met (1: 1.60, 16: 2.50)",
        "fsync: ext4j ≥ 0.7 of kernel-host at 1 thread: met (1: 0.80)",
        "fsync: the default policy within 5% of the best: not measured (one policy ran)");
  }

  @Test
  void aBoundIsMetAtTheThreshold_aMissedOneNamesWhatBoundsIt_andAMissingPeerIsNotMeasured() {
    SuiteReport report = report(List.of(dio("randwrite", "ext4j", 40000), dio("randwrite", "device", 50000), dio("randread", "ext4j", 30000),
        dio("randread", "device", 50000), dio("randread", "kernel-host", 45000), row("populate", "mkfs-d", "ext4j", 1, 4096, 900)),
        Map.of("mke2fs", "no e2fsprogs"), Map.of("dio", 300L));
    List<Verdict> verdicts = Verdicts.of(report);
    assertThat(verdicts).extracting(Verdict::outcome).containsExactly(Outcome.MET, Outcome.NOT_MEASURED, Outcome.NOT_MET,
        Outcome.NOT_MEASURED, Outcome.NOT_MET);

    Verdict overwrite = verdicts.get(0);
    assertThat(overwrite.threshold()).isEqualTo(Verdicts.DIO_OVERWRITE_OF_FIO).isEqualTo(0.8);
    assertThat(overwrite.figures()).containsExactly(Map.entry("randwrite 4k", 0.8)); // exactly at the threshold: met

    Verdict serialized = verdicts.get(1);
    assertThat(serialized.comparison()).isEqualTo(Comparison.AT_MOST);
    assertThat(serialized.threshold()).isEqualTo(Verdicts.DIO_EXCLUSIVE_OF_SHARED);
    assertThat(serialized.figures()).isEmpty();

    Verdict reads = verdicts.get(2);
    assertThat(reads.threshold()).isEqualTo(Verdicts.DIO_READS_OF_FIO);
    assertThat(reads.figures()).containsExactly(Map.entry("randread 4k", 0.6));
    assertThat(reads.notes()).containsExactly("the same threads on kernel-host ÷ fio: randread 4k: 0.90");

    Verdict populate = verdicts.get(3);
    assertThat(populate.threshold()).isEqualTo(Verdicts.POPULATE_OF_MKE2FS);
    assertThat(populate.figures()).isEmpty();
    assertThat(populate.evidence()).isEqualTo("mke2fs skipped: no e2fsprogs");

    Verdict memory = verdicts.get(4);
    assertThat(memory.comparison()).isEqualTo(Comparison.AT_MOST);
    assertThat(memory.threshold()).isEqualTo((double) ((64L + Verdicts.ENGINE_SLACK_MIB) << 20));
    assertThat(memory.figures()).containsExactly(Map.entry("dio", (double) (300L << 20)));
    assertThat(memory.outcome()).isEqualTo(Outcome.NOT_MET);

    assertThat(report.verdicts()).containsExactly(
        "dio: shared-lock aligned overwrite at 10 threads ≥ 0.8 of fio's O_DIRECT rate: met (randwrite 4k: 0.80)",
        "dio: always-exclusive visibly serialized (≤ 0.8 of the shared lock's overwrites): not measured (ext4j did not run)",
        "dio: reads ≥ 0.8 of fio's: not met (randread 4k: 0.60; the same threads on kernel-host ÷ fio: randread 4k: 0.90)",
        "populate: ext4j mkfs -d no slower than mke2fs -d: not measured (mke2fs skipped: no e2fsprogs)",
        "memory: the engine within its cache + 128 MiB (192 MiB; peak RSS it adds to a JVM running the same workload on kernel-host):"
            + " not met (dio 300 MiB)");
  }

  @Test
  void aVerdictIsWordedAsItsTargetOutcomeEvidenceAndNotes() {
    Verdict v = new Verdict("x: a ≥ b", Comparison.AT_LEAST, 1.0, Map.of("1", 0.5), Outcome.NOT_MET, "1: 0.50", List.of())
        .withNote("why").withNote("and noise");
    assertThat(SuiteReport.render(v)).isEqualTo("x: a ≥ b: not met (1: 0.50; why; and noise)");
    assertThat(SuiteReport.render(Verdict.notMeasured("x: a ≥ b", Comparison.AT_LEAST, 1.0, "b did not run")))
        .isEqualTo("x: a ≥ b: not measured (b did not run)");
  }

  private static CellResult journal(String target, String setting, boolean dflt, int threads, double rate, double p50) {
    return new CellResult("journal", "sync-handles", target, setting, dflt, threads, 4096, rate, p50, p50, 2 * p50, 3 * p50, (long) rate,
        1.0, null, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null, null);
  }

  @Test
  void journalTargets_areIssue2s_judgedOnTheDefaultPolicyAgainstTheSameRunsBaseline() {
    List<CellResult> rows = List.of(
        journal("fdatasync-baseline", null, false, 1, 3000, 300), journal("ext4j", "adaptive", true, 1, 2700, 360),
        journal("ext4j/none", "none", false, 1, 2800, 350),
        journal("fdatasync-baseline", null, false, 16, 10000, 1400), journal("group-commit-ceiling", null, false, 16, 40000, 400),
        journal("ext4j", "adaptive", true, 16, 19000, 800), journal("ext4j/none", "none", false, 16, 18000, 850),
        journal("ext4j/adaptive/unpark-each", "adaptive/unpark-each", false, 16, 25000, 700));
    SuiteReport report = new SuiteReport(new SuiteResult(new SuiteOptions(List.of("journal"), List.of(1, 16), List.of(4096),
        Duration.ofSeconds(1), 1, Duration.ZERO, 64L << 20, Path.of("w"), Path.of("o"), false, JournalScenarioOptions.defaults()),
        new Machine(Map.of("cpu", "test")), Map.of(), Map.of(), rows, Map.of(), Map.of("journal", 100L << 20), Map.of(), 64L << 20,
        Instant.EPOCH, Duration.ofSeconds(3), "0 0 0"));
    List<Verdict> verdicts = Verdicts.of(report);

    assertThat(verdicts).extracting(Verdict::threshold).containsExactly(1.3, 2.0, 0.95, (double) (256L << 20));
    assertThat(verdicts.get(0).comparison()).isEqualTo(Comparison.AT_MOST);
    assertThat(verdicts.get(0).figures()).containsExactly(Map.entry("1", 1.2));
    assertThat(verdicts.get(1).figures()).containsExactly(Map.entry("16", 1.9));
    assertThat(verdicts.get(2).figures()).as("the other wake-up is no policy of its own").containsExactly(Map.entry("1", 2700.0 / 2800),
        Map.entry("16", 1.0));
    assertThat(verdicts.get(3).figures()).containsExactly(Map.entry("journal", (double) (100L << 20)));
    assertThat(report.verdicts()).containsExactly(
        "journal: the default policy's p50 latency at 1 thread within 1.3× fdatasync-baseline's: met (1: 1.20 (360 µs against 300 µs))",
        "journal: the default policy ≥ 2× fdatasync-baseline at 16+ threads: not met (16: 1.90; the same run's group-commit-ceiling"
            + " (one writer committing N handles' blocks per fdatasync back to back, which no journal beats): 16: 0.48 of the"
            + " ceiling, itself 4.00× the baseline)",
        "journal: the default policy within 5% of the best at every thread count: met (1: 0.96 of none, 16: the best)",
        "journal: peak heap under 256 MiB (the sum of the heap pools' peaks while it ran): met (100 MiB)");
  }
}
