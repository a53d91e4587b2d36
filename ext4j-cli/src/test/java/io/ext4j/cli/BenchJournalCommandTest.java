package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.bench.Json;
import io.ext4j.bench.suite.JournalScenarioOptions;
import io.ext4j.bench.suite.SuiteOptions;
import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.CommitWakeup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ext4j bench journal}: its options become the suite's {@code journal} scenario with the
 * journal benchmark's defaults, bad ones are refused with what is wrong, and a short run prints the
 * suite's JSON and leaves no files behind.
 */
@Tag("fast")
class BenchJournalCommandTest {
  @TempDir
  Path dir;

  @Test
  void noOptions_isTheJournalScenarioAlone_withTheJournalBenchmarksDefaults() {
    BenchJournalCommand cmd = new BenchJournalCommand();
    new CommandLine(cmd).parseArgs();
    SuiteOptions o = cmd.options();
    assertThat(o.scenarios()).containsExactly("journal");
    assertThat(o.threads()).containsExactly(1, 2, 4, 8, 16, 32, 64);
    assertThat(o.perCell()).isEqualTo(Duration.ofSeconds(2));
    assertThat(o.slices()).isEqualTo(3);
    assertThat(o.warmup()).isEqualTo(Duration.ofMillis(500));
    assertThat(o.journal()).isEqualTo(JournalScenarioOptions.defaults());
    assertThat(o.journal().jitWarmup()).isEqualTo(Duration.ofSeconds(2));
    assertThat(o.journal().journalOptions().asyncCommit()).isTrue();
    assertThat(o.work()).isEqualTo(Path.of(".", "ext4j-bench-work"));
    assertThat(o.out()).isEqualTo(Path.of("bench-report-journal"));
    assertThat(o.keep()).isFalse();
  }

  @Test
  void everyOption_isTakenAsGiven() {
    BenchJournalCommand cmd = new BenchJournalCommand();
    new CommandLine(cmd).parseArgs("--policy", "all", "--commit-wakeup", "all", "--ceiling", "--no-baseline", "--blocks", "2",
        "--sync-commit", "--min-batch-us", "100", "--max-batch-us", "2000", "--threads", "1,4", "--seconds", "4", "--rounds", "4",
        "--warmup", "0.3", "--jvm-warmup", "0", "--keep", "--dir", dir.toString(), "--out", dir.resolve("out").toString());
    SuiteOptions o = cmd.options();
    JournalScenarioOptions j = o.journal();
    assertThat(j.policies()).isEqualTo(BatchingPolicies.all());
    assertThat(j.wakeups()).containsExactly(CommitWakeup.values());
    assertThat(j.ceiling()).isTrue();
    assertThat(j.baseline()).isFalse();
    assertThat(j.blocksPerOp()).isEqualTo(2);
    assertThat(j.journalOptions().asyncCommit()).isFalse();
    assertThat(j.journalOptions().minBatchTime()).isEqualTo(Duration.ofNanos(100_000));
    assertThat(j.journalOptions().maxBatchTime()).isEqualTo(Duration.ofMillis(2));
    assertThat(j.jitWarmup()).isZero();
    assertThat(o.threads()).containsExactly(1, 4);
    assertThat(o.window()).isEqualTo(Duration.ofSeconds(1));
    assertThat(o.warmup()).isEqualTo(Duration.ofMillis(300));
    assertThat(o.work()).isEqualTo(dir.resolve("ext4j-bench-work"));
    assertThat(o.keep()).isTrue();
  }

  @Test
  void badOptions_areRefusedWithWhatIsWrong() {
    assertThat(Cli.run("bench", "journal", "--blocks", "3")).satisfies(c -> {
      assertThat(c.exitCode()).isEqualTo(1);
      assertThat(c.err()).contains("blocksPerOp must be 1 or 2: 3");
    });
    assertThat(Cli.run("bench", "journal", "--commit-wakeup", "futex").err())
        .contains("unknown commit wake-up futex (known: futex-broadcast, unpark-each)");
    assertThat(Cli.run("bench", "journal", "--threads", "0").err()).contains("thread counts must be 1..1024");
    assertThat(Cli.run("bench", "journal", "--rounds", "0").err()).contains("--rounds must be in [1, 100]: 0");
    assertThat(Cli.run("bench", "journal", "--seconds", "0").err()).contains("--seconds must be positive");
  }

  @Test
  @SuppressWarnings("unchecked")
  void aShortRun_printsTheSuitesJson_andRemovesItsFiles() {
    Cli cli = Cli.run("bench", "journal", "--threads", "1", "--seconds", "0.1", "--rounds", "1", "--warmup", "0.02",
        "--jvm-warmup", "0", "--dir", dir.toString(), "--out", dir.resolve("out").toString(), "--json");

    assertThat(cli.exitCode()).as(cli.err()).isZero();
    Map<String, Object> json = (Map<String, Object>) Json.read(cli.out());
    List<Map<String, Object>> rows = (List<Map<String, Object>>) json.get("rows");
    assertThat(rows).extracting(r -> r.get("target")).containsExactly("fdatasync-baseline", "ext4j");
    assertThat(rows).allSatisfy(r -> assertThat(((Number) r.get("opsPerSec")).doubleValue()).isPositive());
    assertThat((List<String>) json.get("verdicts")).anySatisfy(v -> assertThat(v).startsWith("journal: "));
    assertThat(dir.resolve("ext4j-bench-work")).doesNotExist();
    assertThat(dir.resolve("out").resolve("results.json")).isNotEmptyFile();
  }
}
