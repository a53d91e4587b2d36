package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.testkit.KernelFsFixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Engine bugs the kernel-parity tests found, each kept as the smallest test that failed because of
 * it: closing a read-only open, a zero range across one block boundary, ENOSPC while only blocks
 * freed since the last commit are free (the kernel commits and retries), and statfs's f_bavail.
 */
@Tag("oracle")
class KernelParityRegressionTest {

  @Test
  void close_ofAFileSystemOnAReadOnlyDevice_succeeds() throws Exception {
    Path img = KernelFsFixtures.extract("1k-tree", KernelImages.dir("bug-read-only-close"));
    Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().readOnly(true).build());
    assertThat(fs.isReadOnly()).isTrue();
    assertThatCode(fs::close).doesNotThrowAnyException();
  }

  @Test
  void zeroRange_acrossOneBlockBoundary_zeroesTheHeadOfTheSecondBlockToo() throws Exception {
    Path img = KernelFsFixtures.extract("1k-tree", KernelImages.dir("bug-zero-range"));
    byte[] data = new byte[39393];
    new java.util.Random(1).nextBytes(data);
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long ino = fs.create(Ext4FileSystem.ROOT, "z".getBytes(StandardCharsets.UTF_8), 0644, io.ext4j.fs.Caller.ROOT).ino();
      try (io.ext4j.fs.OpenFile f = fs.open(ino, java.util.EnumSet.of(io.ext4j.fs.OpenFlag.READ, io.ext4j.fs.OpenFlag.WRITE))) {
        f.write(0, java.nio.ByteBuffer.wrap(data));
        f.fallocate(0x10 | 0x01, 5147, 1173); // FALLOC_FL_ZERO_RANGE | KEEP_SIZE: bytes 5147..6319
        java.util.Arrays.fill(data, 5147, 5147 + 1173, (byte) 0);
        java.nio.ByteBuffer got = java.nio.ByteBuffer.allocate(data.length);
        while (got.hasRemaining() && f.read(got.position(), got) > 0) {
          // read on
        }
        StringBuilder ranges = new StringBuilder();
        for (int i = 0; i < data.length; i++) {
          if (got.get(i) != data[i]) {
            int j = i;
            boolean zeros = true;
            while (j < data.length && got.get(j) != data[j]) {
              zeros &= got.get(j) == 0;
              j++;
            }
            ranges.append(" [").append(i).append(", ").append(j).append(zeros ? ") reads zeros" : ") reads other bytes");
            i = j;
          }
        }
        assertThat(ranges.toString()).as("ranges that differ").isEmpty();
      }
    }
  }

  @Test
  void write_whenOnlyBlocksFreedSinceTheLastCommitAreFree_commitsAndRetries() throws Exception {
    Path img = KernelFsFixtures.extract("1k-tree", KernelImages.dir("bug-pending-frees"));
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long free = fs.statfs().freeBlocks() - fs.superblock().reservedBlocksCount();
      int bs = fs.statfs().blockSize();
      long ino = fs.create(Ext4FileSystem.ROOT, "filler".getBytes(StandardCharsets.UTF_8), 0644, io.ext4j.fs.Caller.ROOT).ino();
      byte[] chunk = new byte[1 << 20];
      long want = (free - 600) * bs; // all but 600 blocks (room for the tree blocks)
      try (io.ext4j.fs.OpenFile f = fs.open(ino, java.util.EnumSet.of(io.ext4j.fs.OpenFlag.WRITE))) {
        for (long at = 0; at < want; at += chunk.length) {
          f.write(at, java.nio.ByteBuffer.wrap(chunk, 0, (int) Math.min(chunk.length, want - at)));
        }
      }
      fs.syncfs();
      fs.setattr(ino, io.ext4j.fs.SetAttributes.none().withSize(0)); // frees them, in the running transaction
      long second = fs.create(Ext4FileSystem.ROOT, "second".getBytes(StandardCharsets.UTF_8), 0644, io.ext4j.fs.Caller.ROOT).ino();
      long len = 4L << 20;
      assertThat(fs.statfs().freeBlocks() * bs).as("statfs free bytes").isGreaterThan(len);
      long wrote = 0;
      try (io.ext4j.fs.OpenFile f = fs.open(second, java.util.EnumSet.of(io.ext4j.fs.OpenFlag.WRITE))) {
        for (long at = 0; at < len; at += chunk.length) {
          wrote += f.write(at, java.nio.ByteBuffer.wrap(chunk));
        }
      }
      assertThat(wrote).as("bytes written with %d blocks free per statfs", fs.statfs().freeBlocks()).isEqualTo(len);
    }
  }

  @Test
  void statfs_availableBlocks_isTheKernels() throws Exception {
    Path img = KernelFsFixtures.extract("4k-tree", KernelImages.dir("bug-statfs-bavail"));
    String kernel = KernelFsFixtures.manifest("4k-tree").statfs().get("bavail");
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      assertThat(fs.statfs().availableBlocks()).as("f_bavail").isEqualTo(Long.parseLong(kernel));
    }
  }
}
