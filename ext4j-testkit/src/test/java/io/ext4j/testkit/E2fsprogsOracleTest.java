package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The e2fsprogs helpers against the real tools (which must be installed). */
@Tag("oracle")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class E2fsprogsOracleTest {
  @TempDir
  Path dir;

  @Test
  void mkfs_thenE2fsckAndDebugfs_seeACleanExt4Image() throws Exception {
    Path img = dir.resolve("oracle.img");
    try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
      f.setLength(4L << 20);
    }
    E2fsprogs.mkfs(img, "-b", "1024");
    E2fsprogs.Result fsck = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(fsck.exitCode()).as("e2fsck -fn; output:%n%s", fsck.output()).isZero();
    E2fsprogs.Result stats = E2fsprogs.debugfs(img, "stats");
    assertThat(stats.stdout()).contains("Filesystem magic number:").contains("Block size:               1024");
  }

  @Test
  void mkfs_thatFails_throwsWithTheToolsOutput() throws Exception {
    Path img = dir.resolve("tiny.img");
    Files.write(img, new byte[4096]); // far too small for a file system
    assertThatThrownBy(() -> E2fsprogs.mkfs(img, "-b", "1024")).isInstanceOf(AssertionError.class)
        .hasMessageContaining("mkfs.ext4").hasMessageContaining("exited");
  }
}
