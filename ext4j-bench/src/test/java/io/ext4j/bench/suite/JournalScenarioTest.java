package io.ext4j.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.ext4j.bench.Json;
import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.CommitWakeup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code journal} scenario through {@link BenchSuite#run}, in short slices: its rows, their
 * figures and their rendering, and its files gone afterwards. It asserts no speed: benchmarks are
 * not timed tests.
 */
@Tag("fast")
class JournalScenarioTest {
  private static final List<String> JOURNAL_ROW_KEYS = List.of("handlesPerTransaction", "flushesPerSec", "deviceFlushesPerSec",
      "commitWakeup");

  @TempDir
  Path dir;

  /** Two 50 ms slices per cell after 20 ms of warmup each, {@code journal} options as given. */
  private SuiteResult run(List<Integer> threads, JournalScenarioOptions journal, boolean keep) throws Exception {
    SuiteOptions o = new SuiteOptions(List.of(JournalScenario.NAME), threads, List.of(4096), Duration.ofMillis(100), 2,
        Duration.ofMillis(20), 128L << 20, dir.resolve("work"), dir.resolve("out"), keep, journal);
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    return BenchSuite.run(o, new PrintStream(log, true, StandardCharsets.UTF_8), BenchSuite.Listener.silent());
  }

  private static JournalScenarioOptions.Builder shortWarmup() {
    return JournalScenarioOptions.builder().jitWarmup(Duration.ofMillis(100));
  }

  @Test
  void run_givesOneRowPerPolicyAndThreadCountPlusBaselines_andRemovesItsFiles() throws Exception {
    SuiteResult r = run(List.of(1, 2), shortWarmup().policies(List.of(BatchingPolicies.NONE, BatchingPolicies.defaultPolicy())).build(),
        false);

    assertThat(r.rows()).extracting(CellResult::target, CellResult::threads).containsExactly(
        tuple(JournalScenario.BASELINE, 1), tuple("ext4j/none", 1), tuple(Target.EXT4J, 1),
        tuple(JournalScenario.BASELINE, 2), tuple("ext4j/none", 2), tuple(Target.EXT4J, 2));
    assertThat(r.rows()).allSatisfy(row -> {
      assertThat(row.failure()).isNull();
      assertThat(row.scenario()).isEqualTo(JournalScenario.NAME);
      assertThat(row.seconds()).isCloseTo(0.1, org.assertj.core.api.Assertions.within(0.001)); // both slices' windows
      assertThat(row.opsPerSec()).isPositive();
      assertThat(row.p50Micros()).isPositive().isLessThanOrEqualTo(row.p99Micros());
      assertThat(row.flushesPerSec()).isPositive();
      assertThat(Double.isNaN(row.handlesPerTransaction())).isEqualTo(row.target().equals(JournalScenario.BASELINE));
      assertThat(row.isDefault()).isEqualTo(row.target().equals(Target.EXT4J));
    });
    assertThat(r.rows()).filteredOn(row -> !JournalScenario.isReference(row.target())).allSatisfy(row -> {
      assertThat(row.handlesPerTransaction()).isGreaterThanOrEqualTo(1.0);
      assertThat(row.commitsPerSec()).isPositive();
      assertThat(row.commitWakeup()).isEqualTo("futex-broadcast");
      assertThat(row.journalStats().transactions()).isPositive();
    });
    assertThat(r.rows()).filteredOn(row -> row.target().equals(JournalScenario.BASELINE))
        .allSatisfy(row -> assertThat(row.flushesPerSec()).isCloseTo(row.opsPerSec(), Percentage.withPercentage(0.01)));
    assertThat(r.peakHeapBytes().get(JournalScenario.NAME)).isPositive();
    assertThat(r.engineMemory()).as("no memory probe: no engine").isEmpty();
    assertThat(dir.resolve("work")).as("image and baseline files are removed").doesNotExist();

    SuiteReport report = new SuiteReport(r);
    assertThat(report.defaultJournalStats()).hasValueSatisfying(row -> assertThat(row.threads()).isEqualTo(2));
    assertThat(report.text()).contains("journal / sync-handles", "| fdatasync-baseline | 1 |", "| none | 2 |", "| adaptive * | 2 |",
        "Journal statistics, default policy, last slice at 2 threads", "handles per transaction", "peak heap")
        .doesNotContain("÷ group-commit-ceiling");
    assertThat(Verdicts.of(report)).extracting(Verdict::target).containsExactly(
        "journal: the default policy's p50 latency at 1 thread within 1.3× fdatasync-baseline's",
        "journal: the default policy ≥ 2× fdatasync-baseline at 16+ threads",
        "journal: the default policy within 5% of the best at every thread count",
        "journal: peak heap under 256 MiB (the sum of the heap pools' peaks while it ran)");
  }

  @Test
  void commitWakeups_eachMeasuredWithThePolicy_onlyTheFutexRowIsTheDefault() throws Exception {
    SuiteResult r = run(List.of(2), shortWarmup().jitWarmup(Duration.ZERO).wakeups(List.of(CommitWakeup.values())).build(), false);

    assertThat(r.rows()).extracting(CellResult::target, CellResult::setting).containsExactly(tuple(JournalScenario.BASELINE, null),
        tuple(Target.EXT4J, "adaptive"), tuple("ext4j/adaptive/unpark-each", "adaptive/unpark-each"));
    assertThat(r.rows()).filteredOn(CellResult::isDefault).extracting(CellResult::setting).containsExactly("adaptive");
    assertThat(r.rows()).filteredOn(row -> "adaptive/unpark-each".equals(row.setting())).extracting(CellResult::commitWakeup)
        .containsExactly("unpark-each");
    assertThat(new SuiteReport(r).text()).contains("| adaptive/unpark-each | 2 |");
  }

  @Test
  @SuppressWarnings("unchecked")
  void ceiling_isOneRowPerThreadCount_withNHandlesPerFlush_andTheJournalRowsGetItsRatio() throws Exception {
    SuiteResult r = run(List.of(1, 3), shortWarmup().ceiling(true).build(), false);

    assertThat(r.rows()).extracting(CellResult::target, CellResult::threads).containsExactly(
        tuple(JournalScenario.BASELINE, 1), tuple(JournalScenario.CEILING, 1), tuple(Target.EXT4J, 1),
        tuple(JournalScenario.BASELINE, 3), tuple(JournalScenario.CEILING, 3), tuple(Target.EXT4J, 3));
    assertThat(r.rows()).filteredOn(row -> row.target().equals(JournalScenario.CEILING)).allSatisfy(row -> {
      assertThat(row.isDefault()).isFalse();
      assertThat(row.setting()).isNull();
      assertThat(row.handlesPerTransaction()).isEqualTo(row.threads());
      assertThat(row.flushesPerSec()).isPositive();
      assertThat(row.opsPerSec()).isCloseTo(row.threads() * row.flushesPerSec(), Percentage.withPercentage(0.01));
      assertThat(row.commitWakeup()).isNull();
    });
    SuiteReport report = new SuiteReport(r);
    SuiteReport.Table t = report.table(JournalScenario.NAME, JournalScenario.VARIANT);
    assertThat(t.columns()).endsWith("÷ fdatasync-baseline", "p50 ÷ baseline", "÷ group-commit-ceiling");
    assertThat(t.rows().get(5).getLast()).as("the journal row at 3 threads against the ceiling").matches("\\d+\\.\\d\\d");
    assertThat(t.rows().get(4).getLast()).as("the ceiling against itself").isEqualTo("—");
    assertThat(report.text()).contains("group-commit-ceiling = one writer committing N handles' blocks per fdatasync");

    Map<String, Object> json = (Map<String, Object>) Json.read(report.json());
    List<Map<String, Object>> rows = (List<Map<String, Object>>) json.get("rows");
    assertThat(rows).filteredOn(row -> row.get("target").equals(JournalScenario.CEILING)).hasSize(2).allSatisfy(row -> {
      assertThat(row.keySet()).containsAll(JOURNAL_ROW_KEYS);
      assertThat(row.get("commitWakeup")).isNull();
      assertThat(((Number) row.get("handlesPerTransaction")).doubleValue()).isEqualTo(((Number) row.get("threads")).doubleValue());
    });
    assertThat(dir.resolve("work")).as("image, baseline and ceiling files are removed").doesNotExist();
  }

  @Test
  @SuppressWarnings("unchecked")
  void json_hasTheJournalsOptions_rowFigures_andTheDefaultPolicysStatistics() throws Exception {
    SuiteResult r = run(List.of(1), shortWarmup().build(), false);

    Map<String, Object> json = (Map<String, Object>) Json.read(new SuiteReport(r).json());
    Map<String, Object> journal = (Map<String, Object>) ((Map<String, Object>) json.get("options")).get("journal");
    assertThat(journal).containsEntry("policies", List.of("adaptive")).containsEntry("commitWakeups", List.of("futex-broadcast"))
        .containsEntry("blocksPerOp", 1L).containsEntry("baseline", true).containsEntry("ceiling", false)
        .containsEntry("asyncCommit", true);
    List<Map<String, Object>> rows = (List<Map<String, Object>>) json.get("rows");
    assertThat(rows).hasSize(2).allSatisfy(row -> {
      assertThat(row.keySet()).containsAll(JOURNAL_ROW_KEYS);
      assertThat(((Number) row.get("opsPerSec")).doubleValue()).isPositive();
      assertThat(((Number) row.get("p50Micros")).doubleValue()).isPositive();
      assertThat(((Number) row.get("p99Micros")).doubleValue()).isPositive();
      assertThat(((Number) row.get("flushesPerSec")).doubleValue()).isPositive();
    });
    assertThat(rows).filteredOn(row -> row.get("target").equals(JournalScenario.BASELINE)).singleElement().satisfies(row -> {
      assertThat(row.get("default")).isEqualTo(false);
      assertThat(row.get("handlesPerTransaction")).isNull();
    });
    assertThat(rows).filteredOn(row -> row.get("default").equals(true)).extracting(row -> row.get("setting")).containsExactly("adaptive");
    assertThat((Map<String, Object>) json.get("defaultPolicyStats")).containsEntry("threads", 1L)
        .containsKeys("transactions", "deviceFlushes", "handlesPerTransaction");
    assertThat((Map<String, Object>) json.get("peakHeapBytes")).containsKey(JournalScenario.NAME);
  }

  @Test
  void keep_leavesTheImageAndTheBaselineFiles() throws Exception {
    run(List.of(2), shortWarmup().jitWarmup(Duration.ZERO).build(), true);

    Path scenario = dir.resolve("work").resolve(JournalScenario.NAME);
    try (Stream<Path> left = Files.list(scenario)) {
      assertThat(left.map(p -> p.getFileName().toString())).contains(JournalWorkload.IMAGE, "ext4j-bench-baseline-0.dat",
          "ext4j-bench-baseline-1.dat");
    }
  }

  @Test
  void badOptions_areRefusedWithWhatIsWrong() {
    assertThatThrownBy(() -> JournalScenarioOptions.builder().policies(List.of()).baseline(false).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("nothing to run: no policy, no baseline and no ceiling");
    assertThatThrownBy(() -> JournalScenarioOptions.builder().blocksPerOp(3).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("blocksPerOp must be 1 or 2: 3");
    assertThatThrownBy(() -> JournalScenarioOptions.builder().wakeups(List.of()).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage("at least one commit wake-up");
    assertThatThrownBy(() -> JournalScenarioOptions.builder().jitWarmup(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("jitWarmup must not be negative");
    assertThatThrownBy(() -> JournalScenarioOptions.wakeup("futex"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("unknown commit wake-up futex (known: futex-broadcast, unpark-each)");
    assertThatThrownBy(() -> new SuiteOptions(List.of(JournalScenario.NAME), List.of(0), List.of(4096), Duration.ofMillis(100), 2,
        Duration.ZERO, 128L << 20, dir.resolve("work"), dir.resolve("out"), false, JournalScenarioOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("thread counts must be 1..1024");
  }
}
