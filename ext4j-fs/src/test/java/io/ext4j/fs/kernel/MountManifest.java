package io.ext4j.fs.kernel;

import io.ext4j.testkit.FsManifest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel's view of a mounted tree as a {@link FsManifest}: the Java twin of
 * {@code scripts/fs-manifest.py} (same fields, same rules), walking with {@link Libc} so that names
 * and xattrs stay bytes. The mount should be read-only, or reading would move atimes.
 */
final class MountManifest {
  private MountManifest() {}

  static FsManifest of(Path mountPoint) throws IOException {
    byte[] root = mountPoint.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8);
    FsManifest.Builder b = FsManifest.builder();
    Libc.StatVfs v = Libc.statvfs(root);
    Map<String, String> sf = new LinkedHashMap<>();
    sf.put("bsize", Long.toString(v.bsize()));
    sf.put("blocks", Long.toString(v.blocks()));
    sf.put("bfree", Long.toString(v.bfree()));
    sf.put("bavail", Long.toString(v.bavail()));
    sf.put("files", Long.toString(v.files()));
    sf.put("ffree", Long.toString(v.ffree()));
    b.statfs(sf);
    walk(root, "/", b, new java.util.HashMap<>());
    return b.build();
  }

  private static void walk(byte[] full, String path, FsManifest.Builder b, Map<Long, String> contents)
      throws IOException {
    Libc.Stat st = Libc.lstat(full);
    b.add(path, facts(full, st, contents).fields());
    if (st.type() == 0x4000) {
      for (byte[] name : Libc.list(full)) {
        byte[] child = new byte[full.length + 1 + name.length];
        System.arraycopy(full, 0, child, 0, full.length);
        child[full.length] = '/';
        System.arraycopy(name, 0, child, full.length + 1, name.length);
        walk(child, FsManifest.child(path, name), b, contents);
      }
    }
  }

  private static Facts facts(byte[] full, Libc.Stat st, Map<Long, String> contents) throws IOException {
    byte[] target = st.type() == 0xA000 ? Libc.readlink(full) : null;
    String content = null;
    if (st.type() == 0x8000) {
      content = contents.get(st.ino()); // hard links: read once
      if (content == null) {
        content = content(full, st.size());
        contents.put(st.ino(), content);
      }
    }
    var x = Facts.xattrMap();
    for (byte[] name : Libc.listxattr(full)) {
      x.put(FsManifest.escape(name), Libc.getxattr(full, name));
    }
    return new Facts(st.mode(), st.uid(), st.gid(), st.size(), st.nlink(), st.ino(), st.blocks(), instant(st.atime()),
        instant(st.mtime()), instant(st.ctime()), st.rdevMajor(), st.rdevMinor(), target, content, x);
  }

  private static Instant instant(Libc.Time t) {
    return Instant.ofEpochSecond(t.sec(), t.nsec());
  }

  /** {@code sha256=...} of the whole file, or {@code data=...} of its SEEK_DATA segments when it is big. */
  private static String content(byte[] full, long size) throws IOException {
    try (Libc.ReadOnlyFile f = new Libc.ReadOnlyFile(full)) {
      if (size <= FsManifest.BIG) {
        return "sha256=" + hash(f, 0, size);
      }
      List<FsManifest.Segment> segs = new ArrayList<>();
      long off = 0;
      while (off < size) {
        long start = f.seek(off, Libc.SEEK_DATA);
        if (start < 0) {
          break;
        }
        long end = f.seek(start, Libc.SEEK_HOLE);
        segs.add(new FsManifest.Segment(start, end - start, hash(f, start, end - start)));
        off = end;
      }
      return "data=" + FsManifest.segments(segs);
    }
  }

  private static String hash(Libc.ReadOnlyFile f, long from, long length) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    long at = from;
    long end = from + length;
    while (at < end) {
      buf.clear().limit((int) Math.min(buf.capacity(), end - at));
      int n = f.read(at, buf);
      if (n == 0) {
        throw new IOException("short read at byte " + at + " of a " + end + "-byte range");
      }
      md.update(buf.flip());
      at += n;
    }
    return HexFormat.of().formatHex(md.digest());
  }
}
