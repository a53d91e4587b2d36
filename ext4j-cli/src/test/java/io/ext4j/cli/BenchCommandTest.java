package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.bench.suite.SuiteOptions;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code ext4j bench}'s options, without running the suite: the defaults are the suite's, the sizes parse. */
@Tag("fast")
class BenchCommandTest {
  @Test
  void noOptions_isTheSuitesDefaultRun() throws Exception {
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs();
    assertThat(cmd.options()).isEqualTo(SuiteOptions.defaults());
  }

  @Test
  void theFullRunsOptions_areTakenAsGiven() throws Exception {
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs("dio", "fsync", "--threads", "1,2,4,8,16,32,64", "--block-sizes", "4k,16k,64k,512k,1m",
        "--seconds", "4", "--slices", "2", "--warmup", "0.5");
    SuiteOptions o = cmd.options();
    assertThat(o.scenarios()).containsExactly("dio", "fsync");
    assertThat(o.threads()).containsExactly(1, 2, 4, 8, 16, 32, 64);
    assertThat(o.blockSizes()).containsExactly(4096, 16384, 65536, 524288, 1048576);
    assertThat(o.perCell()).isEqualTo(Duration.ofSeconds(4));
    assertThat(o.window()).isEqualTo(Duration.ofSeconds(2));
    assertThat(o.warmup()).isEqualTo(Duration.ofMillis(500));
    assertThat(o.imageSize()).as("auto: 256 MiB per second of warmup + window").isEqualTo(640L << 20);
    assertThat(o.keep()).isFalse();
  }

  @Test
  void aGivenImageSize_isTaken() throws Exception {
    BenchCommand cmd = new BenchCommand();
    new CommandLine(cmd).parseArgs("--seconds", "6", "--image-size", "1g");
    assertThat(cmd.options().imageSize()).isEqualTo(1L << 30);
  }
}
