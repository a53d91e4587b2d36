package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An image opened with {@code directDevice} (O_DIRECT on the image file): buffered and direct
 * writes, a truncate and an fsync read back the same after a reopen without it, and the image is
 * e2fsck-clean.
 */
@Tag("oracle")
class DirectDeviceOracleTest {
  @Test
  void anImageOpenedODirect_readsBackWhatWasWritten_andStaysClean() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "direct"));
    Path img = dir.resolve("direct.img");
    Oracle.mkfs(img, 32L << 20, 4096);
    long seed = new Random().nextLong();
    System.out.println("ext4j.seed=" + seed);
    byte[] data = new byte[3 * 65536 + 123];
    new Random(seed).nextBytes(data);
    long ino;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().directDevice(true).build())) {
      ino = fs.create(Ext4FileSystem.ROOT, "f".getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE))) {
        f.write(0, ByteBuffer.wrap(data)); // buffered
        f.fsync(false);
      }
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE, OpenFlag.DIRECT))) {
        f.write(65536, ByteBuffer.wrap(data, 0, 65536)); // direct, aligned: over the second 64 KiB
        ByteBuffer back = ByteBuffer.allocate(65536);
        f.read(65536, back);
        assertThat(back.array()).isEqualTo(java.util.Arrays.copyOf(data, 65536));
        f.fsync(true);
      }
    }
    System.arraycopy(data, 0, data, 65536, 65536);
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      Attributes a = fs.getattr(ino);
      assertThat(a.size()).isEqualTo(data.length);
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ))) {
        ByteBuffer all = ByteBuffer.allocate(data.length);
        while (all.hasRemaining() && f.read(all.position(), all) > 0) {
          // read on
        }
        assertThat(all.array()).isEqualTo(data);
      }
    }
    LargeStructuresOracleTest.assertClean(img);
  }
}
