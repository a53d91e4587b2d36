package io.ext4j.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A smoke run of every scenario (a fraction of a second per cell, 128 MiB images), so the
 * suite never rots: every cell measured something on every target this host can make, the report's
 * files are all there and well-formed, and the work directory is gone afterwards. As root (CI) the
 * kernel's loop mount and the FUSE mount must have run, not been skipped.
 */
@Tag("oracle")
class BenchSuiteSmokeTest {
  @Test
  void everyScenario_runsOnEveryTarget_andWritesTheWholeReport() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "bench-smoke"));
    Path work = dir.resolve("work-" + System.nanoTime());
    Path out = dir.resolve("out");
    SuiteOptions o = new SuiteOptions(SuiteOptions.SCENARIOS, List.of(1, 2), List.of(4096, 65536), Duration.ofMillis(100), 2,
        Duration.ofMillis(20), 128L << 20, work, out, false, JournalScenarioOptions.defaults());
    ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    SuiteResult r = BenchSuite.run(o, new PrintStream(logBytes, true, StandardCharsets.UTF_8), BenchSuite.Listener.silent());
    String log = logBytes.toString(StandardCharsets.UTF_8);

    assertThat(work).as("work directory removed").doesNotExist();
    assertThat(r.targets()).containsOnlyKeys(SuiteOptions.SCENARIOS);
    assertThat(r.targets().get(PopulateScenario.NAME)).as("populate runs its own tools").isEmpty();
    for (var made : List.of(r.targets().get(FsyncScenario.NAME), r.targets().get(DioScenario.NAME),
        r.targets().get(CommittedCheckScenario.NAME), r.targets().get(MetadataScenario.NAME), r.targets().get(PathStatScenario.NAME))) {
      if (Host.isRoot()) {
        assertThat(made).as(log).containsKeys(Target.LOOP, Target.FUSE);
        if (Host.has("fuse2fs")) {
          assertThat(made).as(log).containsKey(Target.FUSE2FS);
        }
      } else {
        assertThat(r.skipped()).containsKeys(Target.LOOP, Target.FUSE, Target.FUSE2FS);
      }
      assertThat(made).containsKeys(Target.EXT4J, Target.HOST);
    }
    for (BatchingPolicy p : BatchingPolicies.all()) {
      String name = p == BatchingPolicies.defaultPolicy() ? Target.EXT4J : Target.EXT4J + "/" + p.name();
      assertThat(r.targets().get(FsyncScenario.NAME)).containsKey(name);
    }

    SuiteReport report = new SuiteReport(r);
    List<String> policies = new FsyncScenario().knobs().get(FsyncScenario.KNOB);
    List<String> lockings = new DioScenario().knobs().get(DioScenario.KNOB);
    assertThat(r.targets().get(DioScenario.NAME)).containsKeys(lockings.stream().map(v -> Target.EXT4J + "/" + v).toArray(String[]::new));
    for (String variant : FsyncScenario.VARIANTS) {
      List<CellResult> rows = report.rowsOf(FsyncScenario.NAME, variant);
      for (String t : r.targets().get(FsyncScenario.NAME).keySet()) {
        boolean expected = t.startsWith(Target.EXT4J + "/")
            ? policies.contains(t.substring(6)) && (variant.equals("dirsync") || (variant.equals("fsync") && t.equals("ext4j/none")))
            : !(t.equals(Target.FUSE2FS) && variant.equals(FsyncScenario.DIRSYNC));
        for (int threads : o.threads()) {
          assertThat(SuiteReport.rate(rows, t, threads)).as(variant + " " + t + " " + threads).matches(v -> v.isPresent() == expected);
        }
      }
      assertThat(rows).allSatisfy(BenchSuiteSmokeTest::measured);
    }
    for (String op : DioScenario.OPS) {
      List<CellResult> rows = report.rowsOf(DioScenario.NAME, op);
      for (String t : r.targets().get(DioScenario.NAME).keySet()) {
        boolean expected = !t.startsWith(Target.EXT4J + "/") || lockings.contains(t.substring(6));
        boolean mayFail = t.equals(Target.FUSE2FS); // a peer's own limits are reported, not ours to fix
        for (int bs : o.blockSizes()) {
          if (!mayFail) {
            int size = bs;
            String why = rows.stream().filter(x -> x.target().equals(t) && x.bytesPerOp() == size).map(CellResult::failure)
                .filter(java.util.Objects::nonNull).findFirst().orElse("");
            assertThat(SuiteReport.rateAt(rows, t, bs)).as(op + " " + t + " " + bs + " " + why).matches(v -> v.isPresent() == expected);
          }
        }
      }
      assertThat(rows.stream().filter(x -> !x.target().equals(Target.FUSE2FS))).allSatisfy(BenchSuiteSmokeTest::measured);
    }
    for (String op : CommittedCheckScenario.OPS) {
      List<CellResult> rows = report.rowsOf(CommittedCheckScenario.NAME, op);
      assertThat(SuiteReport.targetsOf(rows)).containsAll(r.targets().get(CommittedCheckScenario.NAME).keySet())
          .contains(Target.EXT4J + "/" + Scenario.optionName(io.ext4j.jbd2.CommittedCheck.STATE_LOCK));
      assertThat(rows.stream().filter(x -> !x.target().equals(Target.FUSE2FS))).allSatisfy(BenchSuiteSmokeTest::measured);
    }
    List<CellResult> meta = report.rowsOf(MetadataScenario.NAME, MetadataScenario.VARIANT);
    assertThat(SuiteReport.targetsOf(meta)).containsAll(r.targets().get(MetadataScenario.NAME).keySet())
        .contains(Target.EXT4J + "/" + Scenario.optionName(io.ext4j.jbd2.WriteAccessPath.ALWAYS_LOCKED), DentryCacheKnob.TARGET);
    assertThat(meta).allSatisfy(BenchSuiteSmokeTest::measured);
    for (String variant : PathStatScenario.VARIANTS) {
      List<CellResult> rows = report.rowsOf(PathStatScenario.NAME, variant);
      assertThat(SuiteReport.targetsOf(rows)).containsAll(r.targets().get(PathStatScenario.NAME).keySet()).contains(DentryCacheKnob.TARGET);
      assertThat(rows.stream().filter(x -> !x.target().equals(Target.FUSE2FS))).allSatisfy(BenchSuiteSmokeTest::measured);
    }
    List<CellResult> pop = report.rowsOf(PopulateScenario.NAME, PopulateScenario.VARIANT);
    assertThat(SuiteReport.targetsOf(pop)).contains(Target.EXT4J, PopulateScenario.MKE2FS); // e2fsprogs: an oracle everywhere tests run
    if (Host.isRoot()) {
      assertThat(SuiteReport.targetsOf(pop)).contains(Target.LOOP);
    }
    assertThat(pop).allSatisfy(row -> {
      assertThat(row.failure()).as(row.toString()).isNull();
      assertThat(row.operations()).isEqualTo(2L * (PopulateScenario.DIRS * (PopulateScenario.FILES_PER_DIR + 1L) + PopulateScenario.BIG));
    });
    assertThat(SuiteReport.rate(report.rowsOf(FsyncScenario.NAME, "fsync"), CommitIoBound.TARGET, 1)).as("the lone append's device bound")
        .isPresent();
    assertThat(SuiteReport.rate(report.rowsOf(FsyncScenario.NAME, "fsync"), CommitIoBound.TARGET, 2)).isEmpty();
    if (Host.has("fio")) {
      assertThat(SuiteReport.targetsOf(report.rowsOf(FsyncScenario.NAME, "fdatasync"))).contains(FioBound.TARGET);
      assertThat(SuiteReport.rateAt(report.rowsOf(DioScenario.NAME, "randread"), FioBound.TARGET, 4096)).isPresent();
    }

    assertThat(r.engineMemory()).as("every scenario's memory probe but the journal's (no engine)")
        .containsOnlyKeys(SuiteOptions.SCENARIOS.stream().filter(x -> !x.equals(JournalScenario.NAME)).toList());
    List<CellResult> journal = report.rowsOf(JournalScenario.NAME, JournalScenario.VARIANT);
    assertThat(SuiteReport.targetsOf(journal)).containsExactly(JournalScenario.BASELINE, Target.EXT4J);
    assertThat(journal).allSatisfy(BenchSuiteSmokeTest::measured);
    assertThat(r.peakHeapBytes()).containsOnlyKeys(SuiteOptions.SCENARIOS);
    assertThat(report.verdicts()).anySatisfy(v -> assertThat(v).startsWith("journal: peak heap under 256 MiB").doesNotContain("not measured"));
    r.engineMemory().forEach((scenario, m) -> {
      assertThat(m.failure()).as(scenario + " memory probe; " + log).isNull();
      assertThat(m.baselineBytes()).as(scenario).isPositive();
      assertThat(m.withEngineBytes()).as(scenario).isGreaterThanOrEqualTo(m.baselineBytes());
    });
    assertThat(report.verdicts()).anySatisfy(v -> assertThat(v).startsWith("memory: the engine within its cache").doesNotContain("not measured"));

    List<Path> files = ReportFiles.write(report, out);
    assertThat(Files.readAllLines(out.resolve("results.csv"))).hasSize(r.rows().size() + 1);
    String json = Files.readString(out.resolve("results.json"));
    assertThat(json).startsWith("{\"started\":").contains("\"rows\":[{").endsWith("}\n");
    String html = Files.readString(out.resolve("index.html"));
    for (Path f : files) {
      String name = f.getFileName().toString();
      assertThat(f).isNotEmptyFile();
      if (name.endsWith(".png")) {
        assertThat(Files.readAllBytes(f)).startsWith(0x89, 'P', 'N', 'G');
      } else if (name.endsWith(".svg")) {
        assertThat(Files.readString(f)).contains("<svg");
        assertThat(html).contains("charts/" + name);
      }
    }
    for (String[] v : report.variants()) {
      assertThat(out.resolve("charts").resolve(v[0] + "-" + v[1] + ".svg")).isNotEmptyFile();
    }
    assertThat(report.variants()).hasSize(FsyncScenario.VARIANTS.size() + DioScenario.OPS.size() + CommittedCheckScenario.OPS.size()
        + PathStatScenario.VARIANTS.size() + 3);
    assertThat(report.text()).contains("fsync / fdatasync").contains("dio / randwrite").contains("metadata / fserver-mix")
        .contains("stat-depth / own-chain")
        .contains("populate / mkfs-d").contains("journal / sync-handles").contains("targets:");
  }

  private static void measured(CellResult row) {
    assertThat(row.failure()).as(row.toString()).isNull();
    assertThat(row.operations()).as(row.toString()).isPositive();
    assertThat(row.seconds()).as(row.toString()).isCloseTo(0.1, org.assertj.core.api.Assertions.within(0.001)); // both slices
  }
}
