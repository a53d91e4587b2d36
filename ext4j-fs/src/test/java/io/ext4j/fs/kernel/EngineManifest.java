package io.ext4j.fs.kernel;

import io.ext4j.fs.format.Extent;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.StatFs;
import io.ext4j.testkit.FsManifest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * ext4j's view of a tree as a {@link FsManifest}, walked through the engine API the way a FUSE
 * adapter would: readdir by pages (each directory listed with the walk's page size and, when
 * {@code relist} is on, again with small pages, which must give the same entries), lookup of every
 * name (same inode and file type as readdir said), getattr, readlink, listxattr and getxattr, and
 * every regular file read through to its end, with random range reads checked against the whole.
 * The checks fail with assertions naming the path; the fields follow {@code scripts/fs-manifest.py}.
 *
 * <p>A file of at most {@link FsManifest#BIG} bytes gets its SHA-256; a larger one its data
 * segments, which for ext4j are its written extents, logically adjacent ones merged, clipped to the
 * size (lseek's SEEK_DATA on ext4 reports unwritten extents as holes) — so the kernel's and ext4j's
 * agree only if ext4j maps the file as the kernel does.
 */
final class EngineManifest {
  private final Ext4FileSystem fs;
  private final int page;
  private final boolean relist;
  private final SplittableRandom random;
  private final Map<Long, String> content = new HashMap<>(); // per inode, computed once
  private final Map<Long, Facts> seen = new HashMap<>(); // non-directories, for hard links

  private EngineManifest(Ext4FileSystem fs, int page, boolean relist, long seed) {
    this.fs = fs;
    this.page = page;
    this.relist = relist;
    this.random = new SplittableRandom(seed);
  }

  /** Walks {@code fs} from the root, listing with pages of {@code page} entries. */
  static FsManifest of(Ext4FileSystem fs, int page, boolean relist, long seed) throws IOException {
    return new EngineManifest(fs, page, relist, seed).walk();
  }

  private FsManifest walk() throws IOException {
    FsManifest.Builder b = FsManifest.builder();
    StatFs s = fs.statfs();
    Map<String, String> sf = new LinkedHashMap<>();
    sf.put("bsize", Long.toString(s.blockSize()));
    sf.put("blocks", Long.toString(s.blocks()));
    sf.put("bfree", Long.toString(s.freeBlocks()));
    sf.put("bavail", Long.toString(s.availableBlocks()));
    sf.put("files", Long.toString(s.inodes()));
    sf.put("ffree", Long.toString(s.freeInodes()));
    b.statfs(sf);
    Attributes root = fs.getattr(Ext4FileSystem.ROOT);
    b.add("/", facts("/", root).fields());
    dir("/", Ext4FileSystem.ROOT, Ext4FileSystem.ROOT, b);
    return b.build();
  }

  private void dir(String path, long ino, long parent, FsManifest.Builder b) throws IOException {
    List<DirEntry> entries = list(ino, page, path);
    if (relist) {
      int small = entries.size() <= 600 ? 1 : 7;
      assertThat(keys(list(ino, small, path))).as("%s listed %d at a time", path, small)
          .containsExactlyInAnyOrderElementsOf(keys(entries));
    }
    boolean dot = false;
    boolean dotdot = false;
    for (DirEntry e : entries) {
      if (e.isDot()) {
        if (e.name().length == 1) {
          assertThat(e.ino()).as("'.' of %s", path).isEqualTo(ino);
          dot = true;
        } else {
          assertThat(e.ino()).as("'..' of %s", path).isEqualTo(parent);
          dotdot = true;
        }
        continue;
      }
      String child = FsManifest.child(path, e.name());
      Attributes a = fs.lookup(ino, e.name());
      assertThat(a.ino()).as("lookup of %s gives the inode readdir gave", child).isEqualTo(e.ino());
      assertThat(e.type()).as("readdir's file type of %s (mode 0%s)", child, Integer.toOctalString(a.mode()))
          .isEqualTo(Facts.direntType(a.mode()));
      b.add(child, facts(child, a).fields());
      if (a.isDirectory()) {
        dir(child, a.ino(), ino, b);
      }
    }
    assertThat(dot && dotdot).as("%s lists '.' and '..'", path).isTrue();
  }

  private static Set<String> keys(List<DirEntry> entries) {
    Set<String> out = new HashSet<>();
    for (DirEntry e : entries) {
      assertThat(out.add(FsManifest.escape(e.name()) + " " + e.ino() + " " + e.type()))
          .as("entry %s listed once", e.nameString()).isTrue();
    }
    return out;
  }

  /** Every entry of a directory, {@code n} per readdir call. */
  private List<DirEntry> list(long ino, int n, String path) throws IOException {
    List<DirEntry> out = new ArrayList<>();
    long cookie = 0;
    for (int calls = 0; ; calls++) {
      List<DirEntry> got = fs.readdir(ino, cookie, n);
      assertThat(got.size()).as("readdir of %s returns at most %d", path, n).isLessThanOrEqualTo(n);
      if (got.isEmpty()) {
        return out;
      }
      out.addAll(got);
      cookie = got.getLast().cookie();
      assertThat(calls).as("readdir of %s ends", path).isLessThan(10_000_000);
    }
  }

  private Facts facts(String path, Attributes a) throws IOException {
    Facts known = seen.get(a.ino());
    if (known != null) {
      return new Facts(a.mode(), a.uid(), a.gid(), a.size(), a.nlink(), a.ino(), a.blocks(), a.atime(), a.mtime(),
          a.ctime(), known.rdevMajor(), known.rdevMinor(), known.target(), known.content(), known.xattrs());
    }
    byte[] target = a.isSymlink() ? fs.readlink(a.ino()) : null;
    if (target != null) {
      assertThat((long) target.length).as("size of symlink %s is its target's length", path).isEqualTo(a.size());
    }
    String c = a.isRegularFile() ? content(path, a) : null;
    var x = Facts.xattrMap();
    List<String> names = fs.listxattr(a.ino());
    assertThat(new HashSet<>(names)).as("xattr names of %s listed once each", path).hasSize(names.size());
    for (String n : names) {
      x.put(FsManifest.escape(n.getBytes(StandardCharsets.UTF_8)), fs.getxattr(a.ino(), n));
    }
    boolean dev = a.isDevice();
    Facts f = new Facts(a.mode(), a.uid(), a.gid(), a.size(), a.nlink(), a.ino(), a.blocks(), a.atime(), a.mtime(),
        a.ctime(), dev ? Attributes.major(a.rdev()) : 0, dev ? Attributes.minor(a.rdev()) : 0, target, c, x);
    if (!a.isDirectory()) {
      seen.put(a.ino(), f);
    }
    return f;
  }

  private String content(String path, Attributes a) throws IOException {
    String known = content.get(a.ino());
    if (known != null) {
      return known;
    }
    String c;
    try (OpenFile of = fs.open(a.ino(), EnumSet.of(OpenFlag.READ))) {
      if (a.size() <= FsManifest.BIG) {
        byte[] all = readAll(of, path, a.size());
        rangeReads(of, path, all);
        c = "sha256=" + FsManifest.sha256(all);
      } else {
        c = "data=" + FsManifest.segments(segments(of, path, a));
      }
    }
    content.put(a.ino(), c);
    return c;
  }

  /** Reads the whole file with reads of varying sizes; it must end exactly at its size. */
  private byte[] readAll(OpenFile of, String path, long size) throws IOException {
    byte[] all = new byte[(int) size];
    int at = 0;
    while (at < size) {
      int want = (int) Math.min(size - at, random.nextBoolean() ? 1 << 20 : 1 + random.nextInt(70_000));
      ByteBuffer buf = ByteBuffer.wrap(all, at, want);
      int n = of.read(at, buf);
      assertThat(n).as("read of %s at %d (size %d)", path, at, size).isPositive();
      at += n;
    }
    assertThat(of.read(size, ByteBuffer.allocate(16))).as("read of %s at its end", path).isEqualTo(-1);
    return all;
  }

  private void rangeReads(OpenFile of, String path, byte[] all) throws IOException {
    for (int i = 0; i < 6 && all.length > 0; i++) {
      int pos = random.nextInt(all.length);
      int len = 1 + random.nextInt(Math.min(all.length - pos, 3 * 4096 + 7));
      ByteBuffer buf = ByteBuffer.allocate(len);
      int got = 0;
      while (got < len) {
        int n = of.read(pos + got, buf);
        assertThat(n).as("range read of %s at %d", path, pos + got).isPositive();
        got += n;
      }
      if (!Arrays.equals(buf.array(), 0, len, all, pos, pos + len)) {
        throw new AssertionError("range read of " + path + " at " + pos + " (" + len + " bytes) differs from the whole read");
      }
    }
  }

  /**
   * The data segments of a big file, found as the kernel's manifest finds them: SEEK_DATA, then
   * SEEK_HOLE from there, to the end of file (the engine's {@link OpenFile#seekData}/{@link
   * OpenFile#seekHole}); each hashed by a read, and checked against the written extents.
   */
  private List<FsManifest.Segment> segments(OpenFile of, String path, Attributes a) throws IOException {
    int bs = a.blockSize();
    List<long[]> ranges = new ArrayList<>(); // {start, end} bytes
    long off = 0;
    while (off < a.size()) {
      long start;
      try {
        start = of.seekData(off);
      } catch (io.ext4j.fs.Ext4Exception e) {
        assertThat(e.errno()).as("SEEK_DATA of %s at %d", path, off).isEqualTo(io.ext4j.fs.Errno.ENXIO);
        break;
      }
      long end = of.seekHole(start);
      assertThat(end).as("SEEK_HOLE of %s after data at %d", path, start).isGreaterThan(start).isLessThanOrEqualTo(a.size());
      ranges.add(new long[] {start, end});
      off = end;
    }
    List<long[]> written = new ArrayList<>(); // the same from the extents: written ones, merged, clipped
    for (Extent e : fs.extents(a.ino())) {
      long start = e.lblk() * bs;
      long end = Math.min((e.lblk() + e.len()) * bs, a.size());
      if (e.unwritten() || start >= end) {
        continue;
      }
      if (!written.isEmpty() && written.getLast()[1] == start) {
        written.getLast()[1] = end;
      } else {
        written.add(new long[] {start, end});
      }
    }
    if ((a.flags() & io.ext4j.fs.format.RawInode.FL_EXTENTS) != 0) { // a block-mapped file has no extents to compare with
      assertThat(ranges).as("%s: SEEK_DATA/SEEK_HOLE regions against the written extents", path)
          .usingElementComparator(java.util.Arrays::compare).isEqualTo(written);
    }
    List<FsManifest.Segment> out = new ArrayList<>();
    for (long[] r : ranges) {
      assertThat(r[1] - r[0]).as("a data segment of %s small enough to check in memory", path).isLessThan(FsManifest.BIG);
      byte[] seg = new byte[(int) (r[1] - r[0])];
      int at = 0;
      while (at < seg.length) {
        int n = of.read(r[0] + at, ByteBuffer.wrap(seg, at, seg.length - at));
        assertThat(n).as("read of %s at %d", path, r[0] + at).isPositive();
        at += n;
      }
      out.add(new FsManifest.Segment(r[0], seg.length, FsManifest.sha256(seg)));
    }
    // Holes read as zeros: just before and after every segment, and at random offsets.
    List<Long> probes = new ArrayList<>();
    for (long[] r : ranges) {
      probes.add(r[0] - 4096);
      probes.add(r[1]);
    }
    for (int i = 0; i < 8; i++) {
      probes.add(random.nextLong(a.size()));
    }
    for (long p : probes) {
      if (p < 0 || p >= a.size() || inside(ranges, p)) {
        continue;
      }
      int len = (int) Math.min(4096, a.size() - p);
      for (long[] r : ranges) {
        if (r[0] > p && r[0] < p + len) {
          len = (int) (r[0] - p);
        }
      }
      ByteBuffer buf = ByteBuffer.allocate(len);
      int n = of.read(p, buf);
      assertThat(n).as("read of a hole of %s at %d", path, p).isPositive();
      for (int i = 0; i < n; i++) {
        if (buf.get(i) != 0) {
          throw new AssertionError("hole of " + path + " at byte " + (p + i) + " reads " + buf.get(i));
        }
      }
    }
    assertThat(of.read(a.size(), ByteBuffer.allocate(16))).as("read of %s at its end", path).isEqualTo(-1);
    return out;
  }

  private static boolean inside(List<long[]> ranges, long p) {
    for (long[] r : ranges) {
      if (p >= r[0] && p < r[1]) {
        return true;
      }
    }
    return false;
  }
}
