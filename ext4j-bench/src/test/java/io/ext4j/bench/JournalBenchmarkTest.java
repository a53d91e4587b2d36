package io.ext4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.jbd2.BatchingPolicies;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A smoke test of the benchmark's shape. It asserts no speed: benchmarks are not timed tests. */
@Tag("fast")
class JournalBenchmarkTest {
  private static final List<String> ROW_KEYS = List.of("policy", "threads", "opsPerSec", "p50Micros", "p99Micros",
      "handlesPerTransaction", "flushesPerSec", "default", "deviceFlushesPerSec", "commitWakeup");

  @TempDir
  Path dir;

  private BenchReport runShort() throws Exception {
    JournalBenchmark.Options options = JournalBenchmark.Options.builder()
        .directory(dir)
        .policies(List.of(BatchingPolicies.NONE, BatchingPolicies.defaultPolicy()))
        .threads(List.of(1, 2))
        .duration(Duration.ofMillis(300))
        .warmup(Duration.ofMillis(50))
        .jvmWarmup(Duration.ofMillis(100))
        .build();
    List<String> progress = new ArrayList<>();
    BenchReport report = JournalBenchmark.run(options, progress::add);
    assertThat(progress).hasSize(report.rows().size());
    return report;
  }

  @Test
  void run_givesOneRowPerPolicyAndThreadCountPlusBaselines_andRemovesItsFiles() throws Exception {
    BenchReport report = runShort();

    assertThat(report.rows()).extracting(BenchRow::policy, BenchRow::threads).containsExactly(
        org.assertj.core.groups.Tuple.tuple(BenchRow.BASELINE, 1), org.assertj.core.groups.Tuple.tuple("none", 1),
        org.assertj.core.groups.Tuple.tuple("adaptive", 1), org.assertj.core.groups.Tuple.tuple(BenchRow.BASELINE, 2),
        org.assertj.core.groups.Tuple.tuple("none", 2), org.assertj.core.groups.Tuple.tuple("adaptive", 2));
    assertThat(report.rows()).allSatisfy(r -> {
      assertThat(r.opsPerSec()).isPositive();
      assertThat(r.p50Micros()).isPositive().isLessThanOrEqualTo(r.p99Micros());
      assertThat(r.handlesPerTransaction().isPresent()).isEqualTo(!r.isBaseline());
      assertThat(r.isDefault()).isEqualTo(r.policy().equals("adaptive"));
    });
    assertThat(report.rows()).filteredOn(r -> !r.isBaseline())
        .allSatisfy(r -> assertThat(r.handlesPerTransaction().getAsDouble()).isGreaterThanOrEqualTo(1.0));
    assertThat(report.defaultPolicyStats()).hasValueSatisfying(s -> assertThat(s.transactions()).isPositive());
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).as("image and baseline files are removed").isEmpty();
    }
  }

  @Test
  void commitWakeups_eachMeasuredWithThePolicy_onlyTheFutexRowIsTheDefault() throws Exception {
    JournalBenchmark.Options options = JournalBenchmark.Options.builder()
        .directory(dir)
        .policies(List.of(BatchingPolicies.defaultPolicy()))
        .wakeups(List.of(io.ext4j.jbd2.CommitWakeup.values()))
        .threads(List.of(2))
        .duration(Duration.ofMillis(300))
        .warmup(Duration.ofMillis(50))
        .jvmWarmup(Duration.ZERO)
        .build();
    BenchReport report = JournalBenchmark.run(options, line -> {});

    assertThat(report.rows()).extracting(BenchRow::policy)
        .containsExactly(BenchRow.BASELINE, "adaptive", "adaptive/unpark-each");
    assertThat(report.rows()).filteredOn(BenchRow::isDefault).extracting(BenchRow::policy).containsExactly("adaptive");
    assertThat(report.rows()).filteredOn(r -> r.policy().equals("adaptive/unpark-each"))
        .extracting(BenchRow::commitWakeup).containsExactly("unpark-each");
    assertThat(report.formatTable()).contains("adaptive/unpark-each");
  }

  @Test
  @SuppressWarnings("unchecked")
  void ceiling_isOneRowPerThreadCount_withNHandlesPerFlush_andTheJournalRowsGetItsRatio() throws Exception {
    JournalBenchmark.Options options = JournalBenchmark.Options.builder()
        .directory(dir)
        .policies(List.of(BatchingPolicies.defaultPolicy()))
        .threads(List.of(1, 3))
        .ceiling(true)
        .duration(Duration.ofMillis(300))
        .warmup(Duration.ofMillis(50))
        .jvmWarmup(Duration.ZERO)
        .build();
    BenchReport report = JournalBenchmark.run(options, line -> {});

    assertThat(report.rows()).extracting(BenchRow::policy, BenchRow::threads).containsExactly(
        org.assertj.core.groups.Tuple.tuple(BenchRow.BASELINE, 1), org.assertj.core.groups.Tuple.tuple(BenchRow.CEILING, 1),
        org.assertj.core.groups.Tuple.tuple("adaptive", 1), org.assertj.core.groups.Tuple.tuple(BenchRow.BASELINE, 3),
        org.assertj.core.groups.Tuple.tuple(BenchRow.CEILING, 3), org.assertj.core.groups.Tuple.tuple("adaptive", 3));
    assertThat(report.rows()).filteredOn(r -> r.policy().equals(BenchRow.CEILING)).allSatisfy(r -> {
      assertThat(r.isReference()).isTrue();
      assertThat(r.isDefault()).isFalse();
      assertThat(r.handlesPerTransaction()).hasValue(r.threads());
      assertThat(r.flushesPerSec()).isPositive();
      assertThat(r.opsPerSec()).isCloseTo(r.threads() * r.flushesPerSec(), org.assertj.core.data.Percentage.withPercentage(0.01));
    });
    BenchRow adaptive3 = report.rows().get(5);
    assertThat(report.ceilingOf(adaptive3)).containsSame(report.rows().get(4));
    assertThat(report.ceilingOf(report.rows().get(3))).isEmpty(); // the baseline is measured before it
    assertThat(report.formatTable()).contains("ops/ceil", "group-commit-ceiling");
    List<Map<String, Object>> rows =
        (List<Map<String, Object>>) ((Map<String, Object>) io.ext4j.bench.Json.read(report.toJson())).get("rows");
    assertThat(rows).filteredOn(r -> r.get("policy").equals(BenchRow.CEILING)).hasSize(2).allSatisfy(r -> {
      assertThat(r.keySet()).containsExactlyElementsOf(ROW_KEYS);
      assertThat(r.get("commitWakeup")).isNull();
    });
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).as("image, baseline and ceiling files are removed").isEmpty();
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void toJson_hasOneObjectWithRowsOfExactlyTheIssuesKeys() throws Exception {
    BenchReport report = runShort();

    Map<String, Object> json = (Map<String, Object>) io.ext4j.bench.Json.read(report.toJson());
    List<Map<String, Object>> rows = (List<Map<String, Object>>) json.get("rows");
    assertThat(rows).hasSize(report.rows().size());
    assertThat(rows).allSatisfy(row -> {
      assertThat(row.keySet()).containsExactlyElementsOf(ROW_KEYS);
      assertThat(((Number) row.get("opsPerSec")).doubleValue()).isPositive();
      assertThat(((Number) row.get("p50Micros")).doubleValue()).isPositive();
      assertThat(((Number) row.get("p99Micros")).doubleValue()).isPositive();
      assertThat(((Number) row.get("flushesPerSec")).doubleValue()).isPositive();
    });
    assertThat(rows).filteredOn(r -> r.get("policy").equals(BenchRow.BASELINE)).hasSize(2)
        .allSatisfy(r -> {
          assertThat(r.get("default")).isEqualTo(false);
          assertThat(r.get("handlesPerTransaction")).isNull();
        });
    assertThat(rows).filteredOn(r -> r.get("default").equals(true)).extracting(r -> r.get("policy"))
        .containsOnly("adaptive").hasSize(2);
    assertThat((Map<String, Object>) json.get("defaultPolicyStats")).containsKeys("transactions", "deviceFlushes",
        "handlesPerTransaction");
    assertThat(report.formatTable()).contains("fdatasync-baseline", "adaptive *", "handles per transaction");
  }
}
