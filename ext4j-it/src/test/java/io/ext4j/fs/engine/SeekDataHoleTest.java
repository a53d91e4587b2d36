package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link OpenFile#seekData} and {@link OpenFile#seekHole} against a model of each block's state
 * (hole, unwritten, written) after random writes, fallocates, punches, zero ranges and truncates:
 * every offset's answer is the model's, with ENXIO where lseek(2) gives it. (Kernel agreement is
 * checked by the kernel-mount manifests, whose ext4j side lists data regions with these calls.)
 */
@Tag("fast")
class SeekDataHoleTest {
  static final int BS = 1024;
  static final int BLOCKS = 96;

  enum State { HOLE, UNWRITTEN, WRITTEN }

  @Test
  void seekDataAndSeekHole_agreeWithABlockModel_afterRandomChanges() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    State[] model = new State[BLOCKS * 2];
    java.util.Arrays.fill(model, State.HOLE);
    long size = 0;
    try (Ext4FileSystem fs = Ext4FileSystem.open(MemoryImages.format(8 << 20, BS, "", seed), Ext4Options.defaults(), false)) {
      long ino = fs.create(Ext4FileSystem.ROOT, "f".getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE))) {
        for (int step = 0; step < 300; step++) {
          int first = r.nextInt(BLOCKS);
          int n = 1 + r.nextInt(8);
          long off = (long) first * BS;
          long len = (long) n * BS;
          switch (r.nextInt(5)) {
            case 0, 1 -> { // whole blocks of nonzero data
              byte[] d = new byte[(int) len];
              java.util.Arrays.fill(d, (byte) (1 + step % 250));
              f.write(off, ByteBuffer.wrap(d));
              mark(model, first, n, State.WRITTEN);
              size = Math.max(size, off + len);
            }
            case 2 -> { // allocate, keeping the size: unwritten over holes only
              f.fallocate(OpenFile.FALLOC_KEEP_SIZE, off, len);
              for (int b = first; b < first + n; b++) {
                if (model[b] == State.HOLE) {
                  model[b] = State.UNWRITTEN;
                }
              }
            }
            case 3 -> { // punch
              f.fallocate(OpenFile.FALLOC_PUNCH_HOLE | OpenFile.FALLOC_KEEP_SIZE, off, len);
              mark(model, first, n, State.HOLE);
            }
            default -> { // truncate to a block boundary, down or up
              long to = (long) r.nextInt(BLOCKS + 1) * BS;
              f.truncate(to);
              if (to < size) {
                mark(model, (int) (to / BS), model.length - (int) (to / BS), State.HOLE);
              }
              size = to;
            }
          }
          for (long pos = 0; pos < size + 2 * BS; pos += BS / 2 + r.nextInt(BS)) {
            check(f, model, size, pos, seed, step);
          }
        }
      }
    }
  }

  static void mark(State[] model, int first, int n, State s) {
    java.util.Arrays.fill(model, first, Math.min(model.length, first + n), s);
  }

  static void check(OpenFile f, State[] model, long size, long pos, long seed, int step) throws Exception {
    String at = "seed " + seed + " step " + step + " size " + size + " offset " + pos;
    if (pos >= size) {
      assertThat(catchThrowableOfType(Ext4Exception.class, () -> f.seekData(pos)).errno()).as(at).isEqualTo(Errno.ENXIO);
      assertThat(catchThrowableOfType(Ext4Exception.class, () -> f.seekHole(pos)).errno()).as(at).isEqualTo(Errno.ENXIO);
      return;
    }
    long data = -1;
    long hole = size;
    for (long b = pos / BS; b * BS < size; b++) {
      boolean written = model[(int) b] == State.WRITTEN;
      if (written && data < 0) {
        data = Math.max(pos, b * BS);
      }
      if (!written && hole == size) {
        hole = Math.max(pos, b * BS);
      }
    }
    if (data < 0) {
      assertThat(catchThrowableOfType(Ext4Exception.class, () -> f.seekData(pos))).as(at).isNotNull()
          .extracting(Ext4Exception::errno).isEqualTo(Errno.ENXIO);
    } else {
      assertThat(f.seekData(pos)).as("SEEK_DATA, %s", at).isEqualTo(data);
    }
    assertThat(f.seekHole(pos)).as("SEEK_HOLE, %s", at).isEqualTo(hole);
  }
}
