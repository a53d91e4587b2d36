package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link E2fsprogs#assertE2fsckClean} against the real e2fsck: a fresh image passes, a wrong count fails, named. */
@Tag("oracle")
class E2fsckCleanOracleTest {
  @Test
  void assertClean_passesMkfsImage_failsOnceACountIsWrong(@TempDir Path dir) throws Exception {
    Path img = E2fsprogs.mkfsSparse(dir.resolve("count.img"), 16, "-O", "^metadata_csum");
    E2fsprogs.assertE2fsckClean(img, "fresh");
    try (FileChannel ch = FileChannel.open(img, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(b, 1024 + 16); // s_free_inodes_count
      int free = b.getInt(0);
      b.clear().putInt(0, free - 3);
      ch.write(b, 1024 + 16);
    }
    assertThatThrownBy(() -> E2fsprogs.assertE2fsckClean(img, "a free-inode count three short"))
        .isInstanceOf(AssertionError.class).hasMessageContaining("count.img").hasMessageContaining("three short")
        .hasMessageContaining("Free inodes count wrong");
  }
}
