package io.ext4j.tools.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Images for the checker tests: mkfs.ext4 with the upstream default features (the Debian
 * configuration file lacks metadata_csum_seed and orphan_file; tests name what they want), populated
 * through debugfs with one of each structure the checker knows — nested directories, a hard link,
 * small and large files, a sparse file of 13 extents (a depth-1 tree), fast and slow symlinks, a
 * FIFO and two devices, in-inode and block xattrs, and a directory of 400 names indexed by
 * {@code e2fsck -fyD}.
 */
final class Fixture {
  static final Path DIR = Path.of("target", "test-images", "checker");

  /** Inode-independent names of the populated structures. */
  static final String HTREE_DIR = "/hdir";
  static final int HTREE_NAMES = 400;

  private Fixture() {}

  static Path mkfs(String name, int mib, String... options) throws IOException, InterruptedException {
    return E2fsprogs.mkfs(DIR.resolve(name + ".img"), mib, options);
  }

  /** Populates {@code image} (made by {@link #mkfs}) deterministically from {@code seed}. */
  static void populate(Path image, long seed, boolean extents) throws IOException, InterruptedException {
    populate(image, seed, extents, false);
  }

  /**
   * As {@link #populate(Path, long, boolean)}; {@code compressible} fills the files with a seeded
   * repeating pattern instead of random bytes, so that copies of the image (the fuzzer's regression
   * images) compress to a few KiB.
   */
  static void populate(Path image, long seed, boolean extents, boolean compressible) throws IOException, InterruptedException {
    SplittableRandom r = new SplittableRandom(seed);
    Path small = hostFile("small", 5000, r, compressible);
    Path big = hostFile("big", 300_000, r, compressible);
    Path value = hostFile("value", 700, r, compressible);
    Path empty = hostFile("empty", 0, r, compressible);
    Path sparse = DIR.resolve("host-sparse");
    try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
      f.setLength(0);
      byte[] chunk = new byte[5000];
      for (int i = 0; i < 13; i++) {
        fill(chunk, r, compressible);
        f.seek(i * 40_960L);
        f.write(chunk);
      }
    }
    List<String> c = new ArrayList<>(List.of(
        "mkdir dir", "mkdir dir/sub", "mkdir dir/sub/deeper",
        "write " + small + " dir/a", "write " + big + " big", "write " + sparse + " sparse",
        "ln dir/a dir/a-link", "sif dir/a links_count 2",
        "ea_set dir/a user.small hello", "ea_set -f " + value + " big user.big",
        "symlink fast /short/target", "symlink slow /" + "long-target-".repeat(10),
        "cd dir", "mknod fifo p", "mknod chr c 4 5", "mknod blk b 300 7", "cd /",
        "mkdir " + HTREE_DIR.substring(1), "cd " + HTREE_DIR.substring(1)));
    for (int i = 0; i < HTREE_NAMES; i++) {
      c.add("write " + empty + " name-long-enough-to-need-several-blocks-" + i);
    }
    E2fsprogs.debugfs(image, true, c);
    E2fsprogs.Result index = E2fsprogs.run("e2fsck", "-fyD", image.toString());
    assertThat(index.exit()).as("e2fsck -fyD: %s", index.describe()).isLessThan(4);
  }

  private static void fill(byte[] b, SplittableRandom r, boolean compressible) {
    if (!compressible) {
      r.nextBytes(b);
      return;
    }
    int step = 1 + r.nextInt(250);
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (i % 509 * step);
    }
  }

  private static Path hostFile(String name, int size, SplittableRandom r, boolean compressible) throws IOException {
    Files.createDirectories(DIR);
    byte[] b = new byte[size];
    fill(b, r, compressible);
    Path p = DIR.resolve("host-" + name);
    Files.write(p, b);
    return p;
  }
}
