package io.ext4j.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * ext4 images made by {@code mkfs.ext4} and populated by the Linux kernel through a loop mount, each
 * with the {@link FsManifest} of what the kernel shows in it. Made by
 * {@code scripts/make-kernel-fs-fixtures.sh}; the resources' {@code fixtures/fs/README.md} says what
 * each holds.
 *
 * <ul>
 *   <li><b>tree</b> fixtures ({@code 4k-tree}, {@code 1k-tree}, {@code 1k-debian-tree}) were
 *       unmounted cleanly: htree directories of thousands of names with two index levels, extent
 *       trees of depth 2, holes and unwritten extents, xattrs in the inode and in (shared) blocks,
 *       ACLs, every file type, nanosecond and far-off times.
 *   <li><b>orphans</b> fixtures ({@code 1k-orphans}, {@code 4k-debian-orphans}) were copied while
 *       mounted after a syncfs: they need journal recovery, then orphan processing (files open
 *       after their last unlink, a truncate caught half way). Their manifest is the kernel's view
 *       after it recovered a copy.
 * </ul>
 *
 * <p>Stored gzip-compressed as {@code fixtures/fs/<name>.img.gz} and {@code <name>.manifest.gz}
 * next to this class.
 */
public final class KernelFsFixtures {
  private static final List<String> TREES = List.of("4k-tree", "1k-tree", "1k-debian-tree");
  private static final List<String> ORPHANS = List.of("1k-orphans", "4k-debian-orphans");
  private static final List<String> NAMES = List.of("4k-tree", "1k-tree", "1k-debian-tree", "1k-orphans",
      "4k-debian-orphans");

  private KernelFsFixtures() {}

  /** Every fixture's name. */
  public static List<String> names() {
    return NAMES;
  }

  /** The cleanly unmounted fixtures. */
  public static List<String> trees() {
    return TREES;
  }

  /** The power-cut fixtures that need journal recovery and orphan processing. */
  public static List<String> orphans() {
    return ORPHANS;
  }

  /** The filesystem block size: 1024 for {@code 1k-*}, 4096 for {@code 4k-*}. */
  public static int blockSize(String name) {
    checkName(name);
    return name.startsWith("1k-") ? 1024 : 4096;
  }

  /** Whether the fixture was made with Debian's mke2fs.conf (no metadata_csum_seed, no orphan_file). */
  public static boolean debianDefaults(String name) {
    checkName(name);
    return name.contains("-debian-");
  }

  /**
   * Decompresses fixture {@code name}'s image to {@code dir/<name>.img} (replacing any file there)
   * and returns that path: a fresh copy each call, so tests may write to it. The file is sparse:
   * runs of 4 KiB of zeros are skipped, not written.
   *
   * @throws IllegalArgumentException for an unknown name
   * @throws IOException if the resource is missing or the file cannot be written
   */
  public static Path extract(String name, Path dir) throws IOException {
    checkName(name);
    try (InputStream in = open(name + ".img.gz")) {
      Files.createDirectories(dir);
      Path out = dir.resolve(name + ".img");
      Files.deleteIfExists(out);
      try (FileChannel ch = FileChannel.open(out, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        byte[] chunk = new byte[4096];
        long at = 0;
        while (true) {
          int n = in.readNBytes(chunk, 0, chunk.length);
          if (n == 0) {
            break;
          }
          if (!zero(chunk, n)) {
            ch.write(ByteBuffer.wrap(chunk, 0, n), at);
          }
          at += n;
        }
        if (ch.size() < at) {
          ch.write(ByteBuffer.allocate(1), at - 1); // the size, where the image ends in zeros
        }
      }
      return out;
    }
  }

  private static boolean zero(byte[] b, int n) {
    for (int i = 0; i < n; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /** The fixture's manifest: what the kernel showed in the image. */
  public static FsManifest manifest(String name) throws IOException {
    checkName(name);
    try (InputStream in = open(name + ".manifest.gz")) {
      return FsManifest.read(in);
    }
  }

  private static InputStream open(String file) throws IOException {
    String resource = "fixtures/fs/" + file;
    InputStream raw = KernelFsFixtures.class.getResourceAsStream(resource);
    if (raw == null) {
      throw new IOException("kernel fixture resource io/ext4j/testkit/" + resource + " is missing from the class path");
    }
    return new GZIPInputStream(raw, 1 << 16);
  }

  private static void checkName(String name) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("no kernel filesystem fixture named '" + name + "'; known: " + NAMES);
    }
  }
}
