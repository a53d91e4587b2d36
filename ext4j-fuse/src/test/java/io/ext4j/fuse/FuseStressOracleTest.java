package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * stress-ng's filesystem stressors, all at once for 60 s, on the mount: every stressor runs to the
 * end without a failure (binderfs, which needs a kernel module and no filesystem, is left out;
 * fiemap and verity skip themselves, as FUSE has neither), then the image is {@code e2fsck -fn}
 * clean after unmount. The byte counts keep the stressors inside a 4 GiB image.
 */
@Tag("oracle")
@Tag("root")
class FuseStressOracleTest {
  @TempDir
  Path tmp;

  @Test
  void stressNgFilesystemClass_for60s_runsCleanly() throws Exception {
    try (MountedImage m = MountedImage.create(tmp, 4L << 30, FuseOptions.defaults())) {
      E2fsprogs.Result r = E2fsprogs.run(Duration.ofMinutes(4), "stress-ng", "--class", "filesystem", "--all", "1",
          "--exclude", "binderfs", "-t", "60s", "--temp-path", m.dir.toString(), "--hdd-bytes", "256M", "--iomix-bytes", "256M",
          "--fallocate-bytes", "256M", "--sync-file-bytes", "256M", "--metrics-brief");
      String out = r.output();
      System.out.println(out.lines().filter(l -> !l.contains("metrc:")).reduce("", (a, b) -> a + b + "\n"));
      assertThat(out.lines().filter(l -> l.contains(" fail:") || l.contains(" error:"))).as("stress-ng failures:\n%s", out).isEmpty();
      assertThat(r.exitCode()).as("stress-ng's exit code:\n%s", out).isZero();
      assertThat(out).contains("successful run completed");
    }
  }
}
