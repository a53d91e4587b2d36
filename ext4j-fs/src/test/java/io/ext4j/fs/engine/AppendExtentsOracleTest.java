package io.ext4j.fs.engine;

import io.ext4j.fs.format.Extent;
import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Appends grow a file's extent tree through every case of the append path: into the root, into the
 * rightmost leaf (a new extent, or the last one lengthened), and past a full leaf and a full root
 * (a new leaf, a new level). Two files take turns, each writing two contiguous blocks and skipping
 * one, so each holds at least {@value #RUNS} extents — more than a depth-1 tree's 4 × 340 — and
 * the result is compared with that model, read back, and checked by e2fsck -fn.
 */
@Tag("oracle")
class AppendExtentsOracleTest {
  private static final int RUNS = 1500;
  private static final int BLOCK = 4096;

  @TempDir
  Path tmp;

  @Test
  void interleavedAppends_buildTheTreeTheModelSays_andE2fsckFindsItClean() throws Exception {
    Path img = tmp.resolve("append.img");
    Oracle.mkfs(img, 128L << 20, BLOCK);
    long[] inos = new long[2];
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      OpenFile[] files = new OpenFile[2];
      for (int f = 0; f < 2; f++) {
        inos[f] = fs.create(Ext4FileSystem.ROOT, ("f" + f).getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
        files[f] = fs.open(inos[f], EnumSet.of(OpenFlag.WRITE));
      }
      ByteBuffer buf = ByteBuffer.allocate(BLOCK);
      for (int i = 0; i < RUNS; i++) {
        for (int f = 0; f < 2; f++) {
          for (int k = 0; k < 2; k++) {
            long lblk = 3L * i + k;
            buf.clear();
            buf.putLong(0, f * 1_000_000L + lblk);
            files[f].write(lblk * BLOCK, buf);
          }
        }
      }
      for (int f = 0; f < 2; f++) {
        List<Extent> ext = fs.extents(inos[f]);
        // two blocks mapped, one hole, RUNS times over; a run is two extents where its blocks are not
        // physically contiguous (another file's blocks, or group metadata, between them)
        assertThat(ext.size()).as("file %d's extents", f).isBetween(RUNS, 2 * RUNS);
        java.util.BitSet mapped = new java.util.BitSet();
        long next = 0;
        for (Extent e : ext) {
          assertThat(e.lblk()).as("file %d: extents in order, apart", f).isGreaterThanOrEqualTo(next);
          mapped.set((int) e.lblk(), (int) (e.lblk() + e.len()));
          next = e.lblk() + e.len();
        }
        java.util.BitSet model = new java.util.BitSet();
        for (int i = 0; i < RUNS; i++) {
          model.set(3 * i, 3 * i + 2);
        }
        assertThat(mapped).as("file %d's mapped blocks", f).isEqualTo(model);
        files[f].close();
      }
    }
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().readOnly(true).build());
        OpenFile in = fs.open(fs.lookup(Ext4FileSystem.ROOT, "f1".getBytes(StandardCharsets.UTF_8)).ino(), EnumSet.of(OpenFlag.READ))) {
      ByteBuffer b = ByteBuffer.allocate(BLOCK);
      for (long lblk : new long[] {0, 1, 3L * 700 + 1, 3L * (RUNS - 1)}) {
        b.clear();
        in.read(lblk * BLOCK, b);
        assertThat(b.getLong(0)).as("block %d", lblk).isEqualTo(1_000_000L + lblk);
      }
      b.clear();
      in.read(2L * BLOCK, b);
      assertThat(b.getLong(0)).as("the hole at block 2").isZero();
    }
    assertThat(Files.size(img)).isEqualTo(128L << 20);
    Oracle.assertClean(img);
  }
}
