package io.ext4j.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The report's arithmetic on made-up figures: tables, ratios, the best setting and the verdicts. */
@Tag("fast")
class SuiteReportTest {
  private static CellResult row(String variant, String target, String policy, boolean dflt, int threads, double rate) {
    return new CellResult("fsync", variant, target, policy, dflt, threads, 4096, rate, 120, 100, 200, 300, (long) rate, 1.0, null, Double.NaN,
        Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null, null);
  }

  private static SuiteReport report(List<CellResult> rows, Map<String, String> skipped) {
    SuiteOptions o = new SuiteOptions(List.of("fsync"), List.of(1, 16), List.of(4096), Duration.ofSeconds(1), 1, Duration.ZERO, 64L << 20,
        Path.of("w"), Path.of("o"), false, JournalScenarioOptions.defaults());
    return new SuiteReport(new SuiteResult(o, new Machine(Map.of("cpu", "test")), Map.of("fsync", Map.of()), skipped, rows,
        Map.of("fsync", 1L << 20), Map.of(), Map.of("fsync", new MemoryProbe.Result(100L << 20, 300L << 20, null)), 64L << 20, Instant.EPOCH, Duration.ofSeconds(3), "0 0 0"));
  }

  @Test
  void tableHasTheRatiosAndTheBestPolicy_andTheVerdictsFollowTheFigures() {
    List<CellResult> rows = new ArrayList<>();
    rows.add(row("fsync", "ext4j", "adaptive", true, 1, 800));
    rows.add(row("fsync", "ext4j/tick", "tick", false, 1, 1000));
    rows.add(row("fsync", "kernel-host", null, false, 1, 1000));
    rows.add(row("fsync", "ext4j", "adaptive", true, 16, 30000));
    rows.add(row("fsync", "ext4j/tick", "tick", false, 16, 29000));
    rows.add(row("fsync", "kernel-host", null, false, 16, 20000));
    rows.add(row("dirsync", "ext4j", "adaptive", true, 1, 500));
    rows.add(row("dirsync", "ext4j/jbd2", "jbd2", false, 1, 520));
    SuiteReport r = report(rows, Map.of("kernel-loop", "needs root"));

    SuiteReport.Table t = r.table("fsync", "fsync");
    assertThat(t.columns()).containsExactly("threads", "ext4j (default)", "ext4j/tick", "kernel-host", "ext4j ÷ kernel-host",
        "best setting", "default ÷ best");
    assertThat(t.rows().get(0)).containsExactly("1", "800", "1,000", "1,000", "0.80", "tick", "0.80");
    assertThat(t.rows().get(1)).containsExactly("16", "30,000", "29,000", "20,000", "1.50", "adaptive", "1.00");

    assertThat(r.verdicts()).containsExactly(
        "fsync: ext4j ≥ kernel-host at 16+ threads: met (16: 1.50)",
        "fsync: ext4j ≥ 2× kernel-loop at every thread count: not measured (kernel-loop skipped: needs root)",
        "fsync: ext4j ≥ 0.7 of kernel-host at 1 thread: met (1: 0.80)",
        "fsync: the default policy within 5% of the best at every thread count: not met (fsync 1: 0.80 of tick, fsync 16: 1.00, "
            + "dirsync 1: 0.96 of jbd2; at 1 thread, where none, tick-skip-same, jbd2 and the default run one code path, the slowest"
            + " of those rows ÷ the fastest: dirsync 0.96 (2 rows): gaps of that size are this run's noise)",
        "memory: the engine within its cache + 128 MiB (192 MiB; peak RSS it adds to a JVM running the same workload on kernel-host):"
            + " not met (fsync 200 MiB)");
    assertThat(r.csv().lines().count()).isEqualTo(rows.size() + 1);
    assertThat(r.json()).contains("\"skipped\":{\"kernel-loop\":\"needs root\"}").contains("\"opsPerSec\":800.000")
        .contains("\"engineMemory\":{\"fsync\":{\"baselineBytes\":104857600,\"withEngineBytes\":314572800,\"engineBytes\":209715200}}");
  }

  private static CellResult metadata(String target, int threads, double rate, double commitsPerSec, double busy) {
    return new CellResult("metadata", "fserver-mix", target, null, false, threads, 4096, rate, 50, 40, 90, 300, (long) rate, 1.0, null,
        commitsPerSec, busy, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null, null);
  }

  @Test
  void aMissedMetadataScaling_namesTheJournaledKernelsScaling_andHowBusyTheCommitsWere() {
    List<CellResult> rows = new ArrayList<>();
    rows.add(metadata("ext4j", 1, 30000, 600, 0.5));
    rows.add(metadata("ext4j", 2, 36000, 720, 0.93));
    rows.add(metadata("kernel-host", 1, 20000, Double.NaN, Double.NaN));
    rows.add(metadata("kernel-host", 2, 34000, Double.NaN, Double.NaN));
    rows.add(metadata("kernel-loop", 1, 24000, Double.NaN, Double.NaN));
    rows.add(metadata("kernel-loop", 2, 36000, Double.NaN, Double.NaN));
    SuiteReport r = report(rows, Map.of());
    assertThat(r.verdicts()).contains("metadata: ext4j's scaling from 1 to 2 threads at least the kernel's: not met (ext4j ×1.20,"
        + " kernel-host ×1.70; kernel-loop, journaled as ext4j is, ×1.50; ext4j at 2 threads committed 720 transactions/s,"
        + " one per 50 operations, a commit running 93 % of the time)");
    assertThat(r.json()).contains("\"commitsPerSec\":720.000,\"commitBusy\":0.930,\"processCores\":null");
  }

  @Test
  void aMissedFsyncTarget_namesHowBusyTheCommitsWereAtTheMostThreads() {
    List<CellResult> rows = new ArrayList<>();
    rows.add(new CellResult("fsync", "fsync", "ext4j", "adaptive", true, 16, 4096, 15000, 1000, 900, 2000, 3000, 15000, 1.0, null, 1000,
        0.91, 1.5, Double.NaN, Double.NaN, Double.NaN, null, null));
    rows.add(new CellResult("fsync", "fsync", "ext4j", "adaptive", true, 64, 4096, 22000, 2900, 2800, 5000, 6000, 22000, 1.0, null, 1100,
        0.97, 1.93, Double.NaN, Double.NaN, Double.NaN, null, null));
    rows.add(row("fsync", "kernel-host", null, false, 16, 16000));
    rows.add(row("fsync", "kernel-host", null, false, 64, 20000));
    rows.add(row("fsync", "kernel-loop", null, false, 16, 10000));
    rows.add(row("fsync", "kernel-loop", null, false, 64, 12000));
    assertThat(report(rows, Map.of()).verdicts()).contains(
        "fsync: ext4j ≥ kernel-host at 16+ threads: not met (16: 0.94, 64: 1.10; ext4j at 64 threads committed 1,100 transactions/s,"
            + " one per 20 operations, a commit running 97 % of the time, the process keeping 1.93 processors busy)",
        "fsync: ext4j ≥ 2× kernel-loop at every thread count: not met (16: 1.50, 64: 1.83; ext4j at 64 threads committed 1,100"
            + " transactions/s, one per 20 operations, a commit running 97 % of the time, the process keeping 1.93 processors busy)");
  }

  @Test
  void eachSliceRotatesTheRowsComparedSideBySide_andKeepsEveryCellOnce() {
    Cell.Body notRun = (w, d) -> {
      throw new AssertionError("not run");
    };
    List<Cell> cells = new ArrayList<>();
    for (int threads : List.of(1, 16)) {
      for (String target : List.of("ext4j", "ext4j/none", "kernel-host")) {
        cells.add(new Cell("fsync", "fsync", target, null, false, threads, 4096, notRun));
      }
    }
    cells.add(new Cell("fsync", "fdatasync", "ext4j", null, false, 1, 4096, notRun));
    java.util.function.Function<List<Cell>, List<String>> names = l -> l.stream().map(c -> c.variant + "/" + c.threads + "/" + c.target).toList();
    assertThat(names.apply(BenchSuite.sliceOrder(cells, 0))).isEqualTo(names.apply(cells));
    assertThat(names.apply(BenchSuite.sliceOrder(cells, 1))).containsExactly("fsync/1/ext4j/none", "fsync/1/kernel-host",
        "fsync/1/ext4j", "fsync/16/ext4j/none", "fsync/16/kernel-host", "fsync/16/ext4j", "fdatasync/1/ext4j");
    assertThat(names.apply(BenchSuite.sliceOrder(cells, 2)).subList(0, 3)).containsExactly("fsync/1/kernel-host", "fsync/1/ext4j",
        "fsync/1/ext4j/none");
  }

  /** fsync rows at 1 thread: ext4j at {@code ext4j} ops/s, kernel-host at 5,000, kernel-loop at 2,000 (a list to add to). */
  private static List<CellResult> loneWriterRows(double ext4j) {
    return new ArrayList<>(List.of(row("fsync", "ext4j", "adaptive", true, 1, ext4j), row("fsync", "kernel-host", null, false, 1, 5000),
        row("fsync", "kernel-loop", null, false, 1, 2000)));
  }

  @Test
  void aMissedLoneWriterTarget_namesTheTwoFlushBound() {
    List<CellResult> rows = loneWriterRows(3000);
    rows.add(row("fdatasync", "device", null, false, 1, 7000));
    assertThat(report(rows, Map.of()).verdicts()).contains(
        "fsync: ext4j ≥ 0.7 of kernel-host at 1 thread: not met (1: 0.60; of kernel-host, two device flushes of one block each"
            + " at 0.70 (fio's 1-job write + fdatasync ÷ 2))",
        "fsync: ext4j ≥ 2× kernel-loop at every thread count: not met (1: 1.50; at 1 thread, of kernel-loop, two device flushes"
            + " of one block each at 1.75 (fio's 1-job write + fdatasync ÷ 2))");
  }

  @Test
  void aMissedLoneWriterTarget_namesTheCommitIoBound_andTheTableSetsExt4jAgainstIt() {
    List<CellResult> rows = loneWriterRows(3000);
    rows.add(row("fsync", CommitIoBound.TARGET, null, false, 1, 3600));
    rows.add(row("fsync", "ext4j", "adaptive", true, 16, 20000));
    rows.add(row("fsync", "kernel-loop", null, false, 16, 9000));
    SuiteReport report = report(rows, Map.of());
    String io = "a journaled append's own I/O with no file system bounds ext4j at ";
    String how = " (commit-io: the data block and " + CommitIoBound.LOG_BLOCKS + " log blocks, a flush, the commit block, a flush)";
    assertThat(report.verdicts()).contains(
        "fsync: ext4j ≥ 0.7 of kernel-host at 1 thread: not met (1: 0.60; of kernel-host, " + io + "0.72" + how + ")",
        "fsync: ext4j ≥ 2× kernel-loop at every thread count: not met (1: 1.50, 16: 2.22; at 1 thread, of kernel-loop, " + io
            + "1.80" + how + ")");
    SuiteReport.Table t = report.table("fsync", "fsync");
    int col = t.columns().indexOf("ext4j ÷ " + CommitIoBound.TARGET);
    assertThat(col).isPositive();
    assertThat(t.rows().get(0).get(col)).isEqualTo("0.83");
    assertThat(t.rows().get(1).get(col)).isEqualTo("—");
  }

  @Test
  void aMetLoneWriterTarget_isNotAmended() {
    List<CellResult> rows = loneWriterRows(4100);
    rows.add(row("fsync", CommitIoBound.TARGET, null, false, 1, 4500));
    assertThat(report(rows, Map.of()).verdicts()).contains("fsync: ext4j ≥ 0.7 of kernel-host at 1 thread: met (1: 0.82)",
        "fsync: ext4j ≥ 2× kernel-loop at every thread count: met (1: 2.05)");
  }

  private static CellResult io(String scenario, String variant, String target, int block, double rate) {
    return new CellResult(scenario, variant, target, null, false, 10, block, rate, 100, 90, 200, 300, (long) rate, 1.0, null, Double.NaN,
        Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null, null);
  }

  @Test
  void theCommittedCheckIsJudgedWhereItRuns_andTheReadsWhereNeitherRunsItShowTheNoise() {
    List<CellResult> rows = new ArrayList<>();
    for (String[] op : new String[][] {{"overwrite", "920", "1000"}, {"randoverwrite", "1190", "1000"}, {"read", "1360", "1000"},
        {"randread", "720", "1000"}}) {
      rows.add(io("committed-check", op[0], "ext4j", 4096, Double.parseDouble(op[1])));
      rows.add(io("committed-check", op[0], "ext4j/state-lock", 4096, Double.parseDouble(op[2])));
    }
    assertThat(report(rows, Map.of()).verdicts()).contains(
        "committed-check: the lock-free check never slower than the locked one (within 5 %): not met (lock-free ÷ locked where"
            + " the check runs, overwrite: 0.92, randoverwrite: 1.19; the reads, which ask no check under either setting, read: 1.36,"
            + " randread: 0.72: two rows of the same code that far apart are this run's noise)");
    rows.set(0, io("committed-check", "overwrite", "ext4j", 4096, 990));
    assertThat(report(rows, Map.of()).verdicts()).anySatisfy(v -> assertThat(v).startsWith("committed-check: the lock-free check never"
        + " slower than the locked one (within 5 %): met (lock-free ÷ locked where the check runs, overwrite: 0.99,"));
  }

  @Test
  void anUnserializedExclusiveLock_isSetAgainstTheDevicesRateThere() {
    List<CellResult> rows = new ArrayList<>();
    for (String variant : List.of("randwrite", "write")) {
      rows.add(io("dio", variant, "ext4j", 4096, 50000));
      rows.add(io("dio", variant, "ext4j/always-exclusive", 4096, 10000));
      rows.add(io("dio", variant, "device", 4096, 48000));
      rows.add(io("dio", variant, "ext4j", 1 << 20, 1500));
      rows.add(io("dio", variant, "ext4j/always-exclusive", 1 << 20, 1500));
      rows.add(io("dio", variant, "device", 1 << 20, 1600));
    }
    assertThat(report(rows, Map.of()).verdicts()).contains(
        "dio: always-exclusive visibly serialized (≤ 0.8 of the shared lock's overwrites): not met (randwrite 4k: 0.20, randwrite 1m:"
            + " 1.00, write 4k: 0.20, write 1m: 1.00; where it is not, always-exclusive ÷ fio's 10-job rate: randwrite 1m: 0.94,"
            + " write 1m: 0.94: the device, not the lock, is the bound there)");
    rows.set(5, io("dio", "randwrite", "device", 1 << 20, 3000));
    assertThat(report(rows, Map.of()).verdicts()).anySatisfy(v -> assertThat(v).startsWith("dio: always-exclusive")
        .endsWith("; where it is not, always-exclusive ÷ fio's 10-job rate: randwrite 1m: 0.50, write 1m: 0.94)"));
  }

  @Test
  void cellsThatAllFailed_leaveTheirTableAndNoChart(@org.junit.jupiter.api.io.TempDir Path out) throws Exception {
    List<CellResult> rows = new ArrayList<>();
    rows.add(row("fsync", "ext4j", "adaptive", true, 1, 800));
    rows.add(row("fsync", "kernel-host", null, false, 1, 1000));
    rows.add(new CellResult("fsync", "fsync", "kernel-loop", null, false, 1, 4096, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0,
        0, "No space left on device", Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null, null));
    rows.add(new CellResult("fsync", "osync", "ext4j", "adaptive", true, 1, 4096, 0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0,
        0, "ENOSPC", Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, null, null));
    List<Path> files = ReportFiles.write(report(rows, Map.of()), out);
    assertThat(files).contains(out.resolve("charts/fsync-fsync.svg")).doesNotContain(out.resolve("charts/fsync-osync.svg"));
    assertThat(out.resolve("charts/fsync-osync.png")).doesNotExist();
    assertThat(Files.readString(out.resolve("index.html"))).contains("fsync / osync").contains("charts/fsync-fsync.svg")
        .doesNotContain("charts/fsync-osync");
  }

  @Test
  void fiosTerseLine_givesItsIopsAndMeanLatency() throws Exception {
    StringBuilder line = new StringBuilder("3;fio-3.33;bound");
    for (int i = 4; i <= 130; i++) {
      line.append(';').append(i == 49 ? "2912" : i); // field i holds i, but write IOPS
    }
    assertThat(FioBound.figures("some warning\n" + line + "\n", false)).containsExactly(2912.0, 81.0);
    assertThat(FioBound.figures(line.toString(), true)).containsExactly(8.0, 40.0);
  }

  @Test
  void theMemoryProbeJvm_takesTheHeapAndCollectorOptions_notAgentsOrCaches() {
    assertThat(MemoryProbe.jvmOptions(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:AOTCache=/x/ext4j.aot", "-javaagent:j.jar",
        "-Xss1m", "-ea", "--enable-native-access=ALL-UNNAMED", "-XX:-UseG1GC", "-Dfoo=bar")))
        .containsExactly("-Xmx256m", "-XX:+UseSerialGC", "-Xss1m", "--enable-native-access=ALL-UNNAMED", "-XX:-UseG1GC");
  }

  @Test
  void anUnknownScenario_isRefusedByName() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SuiteOptions(List.of("fsnyc"), List.of(1), List.of(4096), Duration.ofSeconds(1),
        1, Duration.ZERO, 64L << 20, Path.of("w"), Path.of("o"), false, JournalScenarioOptions.defaults())).hasMessageContaining("unknown scenario 'fsnyc'");
  }
}
