package io.ext4j.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link FileBlockDevice}'s package-private parts: dev_t decoding and the pooled bounce buffer of
 * direct I/O. The device's contract is tested in ext4j-testkit (which this module cannot depend on).
 * Images live under {@code target/}: a disk filesystem, where O_DIRECT works, unlike a tmpfs.
 */
@Tag("fast")
class FileBlockDeviceInternalsTest {
  @Test
  void devNumber_decodesLinuxMajorAndMinor() {
    for (long[] mm : new long[][] {{254, 0}, {8, 17}, {259, 3}, {0x1234, 0x56789}, {0xfffff, 0xfffff}}) {
      long dev = makedev(mm[0], mm[1]);
      assertThat(FileBlockDevice.major(dev)).as("major of %x", dev).isEqualTo(mm[0]);
      assertThat(FileBlockDevice.minor(dev)).as("minor of %x", dev).isEqualTo(mm[1]);
    }
  }

  /** glibc's encoding of a dev_t. */
  private static long makedev(long major, long minor) {
    return ((major & 0xfffL) << 8) | ((major & ~0xfffL) << 32) | (minor & 0xffL) | ((minor & ~0xffL) << 12);
  }

  @Test
  void direct_heapTransfers_reuseOneBounceBuffer_andTransfersLongerThanItGoInPieces() throws IOException {
    int blocks = 2 * FileBlockDevice.BOUNCE_BYTES / 4096 + 3;
    Path dir = Files.createDirectories(Path.of("target", "file-block-device-tests").toAbsolutePath());
    Path image = dir.resolve("bounce.img");
    Files.deleteIfExists(image);
    try (FileBlockDevice d = FileBlockDevice.open(image, 4096, FileBlockDevice.Options.defaults().withDirect(true).create(blocks))) {
      assertThat(d.alignment()).isGreaterThan(1);
      for (int i = 0; i < 5; i++) {
        d.write(i, pattern(1, 100 + i));
        assertThat(readBlock(d, i)).isEqualTo(pattern(1, 100 + i));
        d.write(i, pattern(1, 200 + i), pattern(1, 300 + i));
      }
      assertThat(d.idleBounceBuffers()).as("one thread's transfers share one pooled bounce buffer").isOne();

      ByteBuffer big = ByteBuffer.allocate(blocks * 4096);
      for (int i = 0; i < big.capacity(); i++) {
        big.put(i, (byte) (i * 7 + i / 4096));
      }
      d.write(0, big.duplicate());
      ByteBuffer back = ByteBuffer.allocate(blocks * 4096);
      d.read(0, back);
      assertThat(back.flip()).isEqualTo(big);
      assertThat(d.idleBounceBuffers()).isOne();
    } finally {
      Files.deleteIfExists(image);
    }
  }

  /** {@code blocks} 4 KiB blocks, every byte derived from {@code seed} and its position. */
  private static ByteBuffer pattern(int blocks, int seed) {
    ByteBuffer b = ByteBuffer.allocate(blocks * 4096);
    for (int i = 0; i < b.capacity(); i++) {
      b.put(i, (byte) (seed * 31 + i));
    }
    return b;
  }

  private static ByteBuffer readBlock(FileBlockDevice d, long block) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(4096);
    d.read(block, b);
    return b.flip();
  }
}
