package io.ext4j.tools.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.testkit.KernelFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The kernel's power-cut images (journals with committed transactions, revokes, wrap-around, v1
 * checksums): checked with the journal replayed into an overlay, the verdict is e2fsck -fn's on a
 * copy replayed by {@code debugfs journal_run} — typically clean but for the stale free totals, which
 * both report as a message without failing; checked without replay, e2fsck -fn's on the image as it
 * is. The device is never written.
 */
@Tag("oracle")
class CheckerKernelFixtureOracleTest {
  static List<String> fixtures() {
    return KernelFixtures.names();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void kernelPowerCutImages_replayedInAnOverlay_areJudgedAsAfterAReplay(String name) throws Exception {
    Path dir = Fixture.DIR.resolve("kernel");
    Path img = KernelFixtures.extract(name, dir);
    Path replayed = dir.resolve("replayed-" + name);
    Files.copy(img, replayed, StandardCopyOption.REPLACE_EXISTING);
    E2fsprogs.runOk("debugfs", "-w", "-R", "journal_run", replayed.toString());

    byte[] before = Files.readAllBytes(img);
    MemoryBlockDevice dev = MemoryBlockDevice.of(name, KernelFixtures.blockSize(name), before.clone());
    CheckReport overlay = Checker.check(dev, CheckOptions.defaults());
    assertThat(overlay.journalReplayed()).as(overlay.toText()).isTrue();
    compare(overlay, E2fsprogs.e2fsck(replayed), name + " replayed");
    assertThat(overlay.notes()).as("stale free totals after a replay, as the kernel leaves them")
        .anyMatch(p -> p.structure().equals(Problem.FREE_TOTALS));
    assertThat(Checker.check(dev, CheckOptions.defaults().withStrict(true)).exitCode())
        .as("strict: totals a clean unmount would have fixed").isEqualTo(4);

    CheckReport raw = Checker.check(dev, CheckOptions.defaults().withReplayJournal(false));
    compare(raw, E2fsprogs.e2fsck(img), name + " as it is");
    java.nio.ByteBuffer after = java.nio.ByteBuffer.allocate(before.length);
    dev.read(0, after);
    assertThat(after.array()).as("the checker wrote nothing to the device").isEqualTo(before);
  }

  static void compare(CheckReport r, E2fsprogs.Result e, String what) {
    String both = String.format("%s; checker:%n%se2fsck:%n%s", what, r.toText(), e.describe());
    assertThat(r.clean()).as("clean; %s", both).isEqualTo(e.exit() == 0);
    assertThat(r.silent()).as("silent; %s", both).isEqualTo(e.silent());
    if (e.exit() == 12) {
      assertThat(r.exitCode()).as("exit code; %s", both).isIn(4, 8);
    } else {
      assertThat(r.exitCode()).as("exit code; %s", both).isEqualTo(e.exit());
    }
  }
}
