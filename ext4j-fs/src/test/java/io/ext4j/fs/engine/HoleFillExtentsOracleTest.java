package io.ext4j.fs.engine;

import io.ext4j.fs.format.Extent;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes into the holes of a file whose extent tree has several leaves, in random order, through
 * direct I/O (an unwritten extent inserted into a full or a part-full leaf, then converted to
 * written) and buffered writes, and by eight direct writers at once: the mapping, with nothing left
 * unwritten, and the contents are what the model says, and e2fsck -fn finds the image clean.
 */
@Tag("oracle")
class HoleFillExtentsOracleTest {
  private static final int BLOCK = 4096;
  private static final int BLOCKS = 3000; // every other block written first: 1,500 extents, 5 leaves

  @TempDir
  Path tmp;

  @Test
  void randomFillsOfHoles_mapWhatTheModelSays_andE2fsckFindsItClean() throws Exception {
    long seed = Seeds.seed();
    Path img = newImage("holes.img");
    long ino;
    BitSet model = new BitSet();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      ino = newFile(fs);
      ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK);
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
        for (int l = 0; l < BLOCKS; l += 2) {
          write(f, buf, l);
          model.set(l);
        }
        f.truncate((long) (BLOCKS + 40) * BLOCK); // holes past the last block too
      }
      assertThat(fs.extents(ino).size()).as("extents before the fills (seed %d)", seed).isGreaterThan(4 * 340);
      List<Integer> holes = new ArrayList<>();
      for (int l = 1; l < BLOCKS + 40; l += l < BLOCKS ? 2 : 1) {
        holes.add(l);
      }
      Collections.shuffle(holes, new java.util.Random(seed));
      SplittableRandom r = new SplittableRandom(seed);
      try (OpenFile direct = fs.open(ino, EnumSet.of(OpenFlag.WRITE, OpenFlag.DIRECT));
          OpenFile buffered = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
        for (int k = 0; k < holes.size() * 2 / 3; k++) {
          int l = holes.get(k);
          write(r.nextInt(4) == 0 ? buffered : direct, buf, l);
          model.set(l);
        }
      }
      assertMapped(fs, ino, model, seed);
    }
    assertContents(img, ino, BLOCKS + 40, model, seed);
  }

  /**
   * Eight threads fill the holes of one sparse file through direct I/O at once (the default
   * strategy allocates under the shared inode lock), a quarter of the blocks written by all eight
   * in the same order so that they race for them, each writing the block's own pattern: every
   * block is mapped once, written, and holds its pattern; e2fsck -fn (bitmaps, i_blocks, blocks
   * claimed twice) finds the image clean.
   */
  @Test
  void concurrentDirectFillsOfHoles_mapEachBlockOnce_andE2fsckFindsItClean() throws Exception {
    long seed = Seeds.seed();
    int threads = 8;
    int blocks = 6000;
    Path img = newImage("concurrent.img");
    long ino;
    BitSet model = new BitSet();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      ino = newFile(fs);
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
        f.truncate((long) blocks * BLOCK);
      }
      SplittableRandom r = new SplittableRandom(seed);
      List<List<Integer>> own = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        own.add(new ArrayList<>());
      }
      List<Integer> common = new ArrayList<>(); // written by every thread, in the same order: they collide
      for (int l = 0; l < blocks; l++) {
        if (r.nextInt(5) == 0) {
          continue; // stays a hole
        }
        model.set(l);
        if (r.nextInt(4) == 0) {
          common.add(l);
        } else {
          own.get(r.nextInt(threads)).add(l);
        }
      }
      Collections.shuffle(common, new java.util.Random(seed));
      List<List<Integer>> work = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        Collections.shuffle(own.get(t), new java.util.Random(seed + t));
        List<Integer> mine = new ArrayList<>();
        for (int i = 0; i < Math.max(own.get(t).size(), common.size()); i++) {
          if (i < common.size()) {
            mine.add(common.get(i));
          }
          if (i < own.get(t).size()) {
            mine.add(own.get(t).get(i));
          }
        }
        work.add(mine);
      }
      List<OpenFile> files = new ArrayList<>();
      var pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
      try {
        List<java.util.concurrent.Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE, OpenFlag.DIRECT));
          files.add(f);
          List<Integer> mine = work.get(t);
          done.add(pool.submit(() -> {
            ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK);
            for (int l : mine) {
              write(f, buf, l);
            }
            return null;
          }));
        }
        for (var d : done) {
          d.get(); // a writer's failure fails the test here
        }
      } finally {
        pool.shutdown();
        for (OpenFile f : files) {
          f.close();
        }
      }
      assertMapped(fs, ino, model, seed);
    }
    assertContents(img, ino, blocks, model, seed);
  }

  /** A fresh 128 MiB image of 4 KiB blocks (mkfs.ext4) in the test's directory. */
  private Path newImage(String name) throws Exception {
    Path img = tmp.resolve(name);
    Oracle.mkfs(img, 128L << 20, BLOCK);
    return img;
  }

  /** Creates the test's file, /f, and returns its inode number. */
  private static long newFile(Ext4FileSystem fs) throws Exception {
    return fs.create(Ext4FileSystem.ROOT, "f".getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
  }

  /** The file's extents: in order, none unwritten, mapping exactly the model's blocks. */
  private static void assertMapped(Ext4FileSystem fs, long ino, BitSet model, long seed) throws Exception {
    BitSet mapped = new BitSet();
    long next = 0;
    for (Extent e : fs.extents(ino)) {
      assertThat(e.lblk()).as("extents in order, apart (seed %d)", seed).isGreaterThanOrEqualTo(next);
      assertThat(e.unwritten()).as("extent at %d left unwritten (seed %d)", e.lblk(), seed).isFalse();
      mapped.set((int) e.lblk(), (int) (e.lblk() + e.len()));
      next = e.lblk() + e.len();
    }
    assertThat(mapped).as("mapped blocks (seed %d)", seed).isEqualTo(model);
  }

  /** After a reopen, each of the first {@code blocks} blocks holds its pattern if the model wrote it, else zeros; then e2fsck -fn. */
  private static void assertContents(Path img, long ino, int blocks, BitSet model, long seed) throws Exception {
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().readOnly(true).build());
        OpenFile in = fs.open(ino, EnumSet.of(OpenFlag.READ))) {
      ByteBuffer b = ByteBuffer.allocate(BLOCK);
      for (int l = 0; l < blocks; l++) {
        b.clear();
        in.read((long) l * BLOCK, b);
        assertThat(b.getLong(0)).as("block %d (seed %d)", l, seed).isEqualTo(model.get(l) ? 1_000_000L + l : 0);
      }
    }
    Oracle.assertClean(img);
  }

  private static void write(OpenFile f, ByteBuffer buf, int lblk) throws Exception {
    buf.clear();
    for (int i = 0; i < BLOCK; i += 8) {
      buf.putLong(i, 1_000_000L + lblk);
    }
    f.write((long) lblk * BLOCK, buf);
  }
}
