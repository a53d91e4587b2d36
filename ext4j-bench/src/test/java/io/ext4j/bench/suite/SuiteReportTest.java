package io.ext4j.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

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
    return new CellResult("fsync", variant, target, policy, dflt, threads, 4096, rate, 120, 100, 200, 300, (long) rate, 1.0, null);
  }

  private static SuiteReport report(List<CellResult> rows, Map<String, String> skipped) {
    SuiteOptions o = new SuiteOptions(List.of("fsync"), List.of(1, 16), List.of(4096), Duration.ofSeconds(1), 1, Duration.ZERO, 64L << 20,
        Path.of("w"), Path.of("o"), false);
    return new SuiteReport(new SuiteResult(o, new Machine(Map.of("cpu", "test")), Map.of("fsync", Map.of()), skipped, rows,
        Map.of("fsync", 1L << 20), 64L << 20, Instant.EPOCH, Duration.ofSeconds(3), "0 0 0"));
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
        "fsync: the default policy within 5% of the best at every thread count: not met (1: 0.80 of tick, 16: 1.00)");
    assertThat(r.csv().lines().count()).isEqualTo(rows.size() + 1);
    assertThat(r.json()).contains("\"skipped\":{\"kernel-loop\":\"needs root\"}").contains("\"opsPerSec\":800.000");
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
  void anUnknownScenario_isRefusedByName() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new SuiteOptions(List.of("fsnyc"), List.of(1), List.of(4096), Duration.ofSeconds(1),
        1, Duration.ZERO, 64L << 20, Path.of("w"), Path.of("o"), false)).hasMessageContaining("unknown scenario 'fsnyc'");
  }
}
