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
 * A smoke run of every implemented scenario (a fraction of a second per cell, 64 MiB images), so the
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
    SuiteOptions o = new SuiteOptions(SuiteOptions.IMPLEMENTED, List.of(1, 2), Duration.ofMillis(100), 2, Duration.ofMillis(20),
        64L << 20, work, out, false);
    ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    SuiteResult r = BenchSuite.run(o, new PrintStream(logBytes, true, StandardCharsets.UTF_8), BenchSuite.Listener.silent());
    String log = logBytes.toString(StandardCharsets.UTF_8);

    assertThat(work).as("work directory removed").doesNotExist();
    if (Host.isRoot()) {
      assertThat(r.targets()).as(log).containsKeys(Target.LOOP, Target.FUSE);
      if (Host.has("fuse2fs")) {
        assertThat(r.targets()).as(log).containsKey(Target.FUSE2FS);
      }
    } else {
      assertThat(r.skipped()).containsKeys(Target.LOOP, Target.FUSE, Target.FUSE2FS);
    }
    assertThat(r.targets()).containsKeys(Target.EXT4J, Target.HOST);
    for (BatchingPolicy p : BatchingPolicies.all()) {
      String name = p == BatchingPolicies.defaultPolicy() ? Target.EXT4J : Target.EXT4J + "/" + p.name();
      assertThat(r.targets()).containsKey(name);
    }

    SuiteReport report = new SuiteReport(r);
    for (String variant : FsyncScenario.VARIANTS) {
      List<CellResult> rows = report.rowsOf(FsyncScenario.NAME, variant);
      for (String t : r.targets().keySet()) {
        boolean expected = !t.startsWith(Target.EXT4J + "/") || variant.equals("fsync");
        for (int threads : o.threads()) {
          assertThat(SuiteReport.rate(rows, t, threads)).as(variant + " " + t + " " + threads).matches(v -> v.isPresent() == expected);
        }
      }
      assertThat(rows).allSatisfy(row -> {
        assertThat(row.operations()).as(row.toString()).isPositive();
        assertThat(row.seconds()).as(row.toString()).isCloseTo(0.1, org.assertj.core.api.Assertions.within(0.001)); // both slices
      });
    }
    if (Host.has("fio")) {
      assertThat(SuiteReport.targetsOf(report.rowsOf(FsyncScenario.NAME, "fdatasync"))).contains(FioBound.TARGET);
    }

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
    assertThat(files.stream().filter(f -> f.toString().endsWith(".svg"))).hasSize(2 * FsyncScenario.VARIANTS.size());
    assertThat(report.text()).contains("fsync / fdatasync").contains("targets:");
  }
}
