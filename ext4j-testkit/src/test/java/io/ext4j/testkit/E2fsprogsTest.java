package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** How {@link E2fsprogs#run} runs a command: streams apart, stdin closed, output drained, timeouts enforced. */
@Tag("fast")
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class E2fsprogsTest {

  @Test
  void run_returnsTheExitCode_andStdoutAndStderrApart() {
    E2fsprogs.Result r = E2fsprogs.run(Duration.ofSeconds(20), "sh", "-c", "echo out; echo err >&2; exit 3");
    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(r.stdout()).isEqualTo("out\n");
    assertThat(r.stderr()).isEqualTo("err\n");
  }

  @Test
  void run_givesTheCommandAnEmptyStdin_soAToolWaitingForInputEndsAtOnce() {
    E2fsprogs.Result r = E2fsprogs.run(Duration.ofSeconds(20), "cat");
    assertThat(r.exitCode()).isZero();
    assertThat(r.stdout()).isEmpty();
  }

  @Test
  void run_ofACommandPrintingMoreThanAPipeHolds_drainsItWhileWaiting() {
    E2fsprogs.Result r = E2fsprogs.run(Duration.ofSeconds(20), "sh", "-c", "head -c 4000000 /dev/zero; head -c 3000000 /dev/zero >&2");
    assertThat(r.exitCode()).isZero();
    assertThat(r.stdout()).hasSize(4_000_000);
    assertThat(r.stderr()).hasSize(3_000_000);
  }

  @Test
  void run_pastItsTimeout_killsTheCommand_andFailsWithItAndItsPartialOutput() {
    long start = System.nanoTime();
    assertThatThrownBy(() -> E2fsprogs.run(Duration.ofMillis(500), "sh", "-c", "echo started; exec sleep 30"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("did not finish within")
        .hasMessageContaining("sleep 30")
        .hasMessageContaining("started");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("killed, not waited for").isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void run_ofACommandThatCannotStart_failsNamingIt() {
    assertThatThrownBy(() -> E2fsprogs.run(Duration.ofSeconds(5), "/no/such/tool", "x"))
        .isInstanceOf(AssertionError.class).hasMessageContaining("/no/such/tool");
  }

  @Test
  void requireInstalled_ofAMissingTool_failsNamingItAndHowToInstallE2fsprogs() {
    assertThatThrownBy(() -> E2fsprogs.requireInstalled("no-such-e2fs-tool"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("no-such-e2fs-tool")
        .hasMessageContaining("apt-get install e2fsprogs");
    E2fsprogs.requireInstalled("sh");
  }
}
