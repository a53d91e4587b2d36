package io.ext4j.fs.engine;

import io.ext4j.fs.format.Extent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.ext4j.fs.Caller;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Structures at scale, each checked by e2fsck -fn and debugfs: a directory grown to 200,000 entries
 * and shrunk again, an extent tree of depth 2 and more, and a large file written sequentially.
 */
@Tag("oracle")
class LargeStructuresOracleTest {
  static final Path DIR = Path.of("target", "test-images", "large");

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void directoryOf200000Entries_growsAndShrinks_indexedAndClean() throws Exception {
    long seed = Seeds.seed();
    Files.createDirectories(DIR);
    Path img = DIR.resolve("bigdir.img");
    Oracle.mkfs(img, 256L << 20, 4096, "-N", "250000", "-O", "metadata_csum_seed,orphan_file");
    int n = 200_000;
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      names.add("entry-" + i + "-" + Long.toHexString(i * 0x9E3779B97F4A7C15L));
    }
    Collections.shuffle(names, new java.util.Random(seed));
    long dir;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      dir = fs.mkdir(Ext4FileSystem.ROOT, b("big"), 0755, Caller.ROOT).ino();
      for (String name : names) {
        fs.create(dir, b(name), 0644, Caller.ROOT);
      }
      Set<String> listed = new HashSet<>();
      long cookie = 0;
      while (true) {
        List<DirEntry> page = fs.readdir(dir, cookie, 1000);
        if (page.isEmpty()) {
          break;
        }
        for (DirEntry e : page) {
          if (!e.isDot()) {
            assertThat(listed.add(e.nameString())).as("%s listed twice (seed %d)", e.nameString(), seed).isTrue();
          }
        }
        cookie = page.getLast().cookie();
      }
      assertThat(listed).hasSize(n);
      for (int i = 0; i < n; i += 997) {
        assertThat(fs.lookup(dir, b(names.get(i))).ino()).isPositive();
      }
    }
    assertClean(img);
    E2fsprogs.Result htree = E2fsprogs.debugfs(img, "htree /big");
    assertThat(htree.stdout()).as("the index: %s", htree.stderr()).contains("Indirect levels: 1").doesNotContain("Bad");
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      for (int i = 0; i < n; i++) {
        if (i % 10 != 0) {
          fs.unlink(dir, b(names.get(i)));
        }
      }
      for (int i = 0; i < n; i += 10) {
        assertThat(fs.lookup(dir, b(names.get(i))).ino()).isPositive();
      }
    }
    assertClean(img);
  }

  /**
   * With large_dir an htree may have two levels of index nodes under its root (three in all). Long
   * names in 1 KiB blocks (three entries a leaf) reach that depth within 30,000 entries; without
   * large_dir the same directory stops with ENOSPC naming the feature, which the second half checks.
   */
  @Test
  void largeDir_growsAThirdIndexLevel_thatE2fsckAndDebugfsAccept() throws Exception {
    long seed = Seeds.seed();
    Files.createDirectories(DIR);
    Path img = DIR.resolve("largedir.img");
    Oracle.mkfs(img, 192L << 20, 1024, "-N", "40000", "-O", "large_dir");
    int n = 30_000;
    List<String> names = new ArrayList<>();
    String pad = "p".repeat(230);
    for (int i = 0; i < n; i++) {
      names.add(pad + "-" + i + "-" + Long.toHexString(i * 0x9E3779B97F4A7C15L));
    }
    Collections.shuffle(names, new java.util.Random(seed));
    long dir;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      dir = fs.mkdir(Ext4FileSystem.ROOT, b("deep"), 0755, Caller.ROOT).ino();
      for (String name : names) {
        fs.create(dir, b(name), 0644, Caller.ROOT);
      }
      for (int i = 0; i < n; i += 101) {
        assertThat(fs.lookup(dir, b(names.get(i))).ino()).as("seed %d: %s", seed, names.get(i)).isPositive();
      }
    }
    assertClean(img);
    E2fsprogs.Result htree = E2fsprogs.debugfs(img, "htree /deep");
    assertThat(htree.stdout()).as("the index: %s", htree.stderr()).contains("Indirect levels: 2").doesNotContain("Bad");
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      for (int i = 0; i < n; i++) {
        if (i % 3 != 0) {
          fs.unlink(dir, b(names.get(i)));
        }
      }
      for (int i = 0; i < n; i++) {
        String name = names.get(i);
        if (i % 3 == 0) {
          assertThat(fs.lookup(dir, b(name)).ino()).as("seed %d: kept %s", seed, name).isPositive();
        } else if (i % 97 == 1) {
          Ext4Exception gone = catchThrowableOfType(Ext4Exception.class, () -> fs.lookup(dir, b(name)));
          assertThat(gone).as("seed %d: removed %s", seed, name).isNotNull();
          assertThat(gone.errno()).isEqualTo(Errno.ENOENT);
        }
      }
    }
    assertClean(img);
  }

  @Test
  void withoutLargeDir_theTwoLevelLimit_givesEnospcNamingTheFeature_andStaysClean() throws Exception {
    Files.createDirectories(DIR);
    Path img = DIR.resolve("nolargedir.img");
    Oracle.mkfs(img, 192L << 20, 1024, "-N", "40000");
    String pad = "q".repeat(230);
    Ext4Exception hit = null;
    int made = 0;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long dir = fs.mkdir(Ext4FileSystem.ROOT, b("full"), 0755, Caller.ROOT).ino();
      for (int i = 0; i < 39_000 && hit == null; i++) {
        try {
          fs.create(dir, b(pad + "-" + i + "-" + Long.toHexString(i * 0x9E3779B97F4A7C15L)), 0644, Caller.ROOT);
          made++;
        } catch (Ext4Exception e) {
          hit = e;
        }
      }
    }
    assertThat(hit).as("after %d entries", made).isNotNull();
    assertThat(hit.errno()).isEqualTo(Errno.ENOSPC);
    assertThat(hit.getMessage()).contains("large_dir");
    assertThat(made).isGreaterThan(10_000);
    assertClean(img);
  }

  static void assertClean(Path img) throws Exception {
    E2fsprogs.assertE2fsckClean(img, "");
  }

  @Test
  void extentTreeOfDepthTwoAndMore_fromEveryOtherBlock_thenPunchedAndTruncated_staysClean() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    Files.createDirectories(DIR);
    Path img = DIR.resolve("deep.img");
    Oracle.mkfs(img, 64L << 20, 1024, "-O", "metadata_csum_seed,orphan_file");
    long ino;
    byte[] model = new byte[12_000 * 1024];
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      ino = fs.create(Ext4FileSystem.ROOT, b("deep"), 0644, Caller.ROOT).ino();
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE))) {
        for (int blk = 0; blk < 12_000; blk += 2) { // every other block: one extent each
          byte[] d = new byte[1024];
          r.nextBytes(d);
          f.write(blk * 1024L, ByteBuffer.wrap(d));
          System.arraycopy(d, 0, model, blk * 1024, 1024);
        }
        assertThat(fs.extents(ino)).hasSizeGreaterThan(5000);
        f.fsync(false);
      }
    }
    assertClean(img);
    E2fsprogs.Result ex = E2fsprogs.debugfs(img, "ex /deep");
    assertThat(ex.stdout()).as(ex.output()).contains(" 2/ 2 ");
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE))) {
        for (int i = 0; i < 300; i++) {
          long off = r.nextInt(model.length);
          long len = 1L + r.nextInt(200_000);
          f.fallocate(0x3, off, len);
          for (long x = off; x < Math.min(model.length, off + len); x++) {
            model[(int) x] = 0;
          }
        }
        byte[] back = new byte[model.length];
        f.read(0, ByteBuffer.wrap(back));
        assertThat(back).as("contents after punching (seed %d)", seed).isEqualTo(model);
        f.truncate(3_000_000);
      }
    }
    assertClean(img);
  }

  @Test
  void oneGibibyteWrittenSequentially_endsInAtMostEightExtents() throws Exception {
    Files.createDirectories(DIR);
    Path img = DIR.resolve("gib.img");
    Oracle.mkfs(img, 4L << 30, 4096, "-O", "metadata_csum_seed,orphan_file");
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long ino = fs.create(Ext4FileSystem.ROOT, b("gib"), 0644, Caller.ROOT).ino();
      ByteBuffer chunk = ByteBuffer.allocate(1 << 20);
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
        for (long pos = 0; pos < 1L << 30; pos += chunk.capacity()) {
          chunk.clear();
          chunk.putLong(0, pos);
          f.write(pos, chunk);
        }
      }
      List<Extent> ext = fs.extents(ino);
      // Counted as filefrag counts them: physically contiguous extents merge (one on-disk extent holds
      // at most 32,768 blocks, so 1 GiB is never fewer than eight entries). The kernel's own layout of
      // the same write on the same image is five such runs in nine entries (docs/BENCHMARKS.md).
      int runs = 0;
      for (int k = 0; k < ext.size(); k++) {
        Extent e = ext.get(k);
        if (k == 0 || ext.get(k - 1).pblk() + ext.get(k - 1).len() != e.pblk() || ext.get(k - 1).lblk() + ext.get(k - 1).len() != e.lblk()) {
          runs++;
        }
      }
      System.out.printf("1 GiB sequential: %d extents in %d on-disk entries%n", runs, ext.size());
      assertThat(runs).as("contiguous extents of a sequentially written 1 GiB file: %s",
          ext.stream().map(e -> e.lblk() + "+" + e.len() + "@" + e.pblk()).toList()).isLessThanOrEqualTo(8);
      assertThat(ext).as("on-disk extent entries").hasSizeLessThanOrEqualTo(12);
    }
    assertClean(img);
  }
}
