package io.ext4j.fs.engine;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;

/**
 * What a filesystem tree holds, as the crash oracle compares it: for every path (root first,
 * "lost+found" excluded), its inode, type, link count, size, a digest of its contents or its link
 * target, and its xattr names. Timestamps are left out: a crash may keep or lose them independently
 * of the operation they belong to.
 */
record FsSnapshot(TreeMap<String, String> entries) {

  static FsSnapshot of(Ext4FileSystem fs) throws IOException {
    TreeMap<String, String> out = new TreeMap<>();
    walk(fs, Ext4FileSystem.ROOT, "", out, 0);
    return new FsSnapshot(out);
  }

  /** The tree under directory {@code dir}, whose path is {@code path} (entries keep the full path). */
  static FsSnapshot ofDir(Ext4FileSystem fs, long dir, String path) throws IOException {
    TreeMap<String, String> out = new TreeMap<>();
    walk(fs, dir, path, out, 1);
    return new FsSnapshot(out);
  }

  private static void walk(Ext4FileSystem fs, long dir, String path, TreeMap<String, String> out, int depth) throws IOException {
    if (depth > 64) {
      throw new IllegalStateException("directory tree deeper than 64 at " + path);
    }
    long cookie = 0;
    List<DirEntry> all = new ArrayList<>();
    while (true) {
      List<DirEntry> page = fs.readdir(dir, cookie, 256);
      if (page.isEmpty()) {
        break;
      }
      all.addAll(page);
      cookie = page.getLast().cookie();
    }
    for (DirEntry e : all) {
      if (e.isDot() || (depth == 0 && e.nameString().equals("lost+found"))) {
        continue;
      }
      String p = path + "/" + e.nameString();
      Attributes a = fs.getattr(e.ino());
      StringBuilder s = new StringBuilder();
      s.append("ino=").append(a.ino()).append(" mode=").append(Integer.toOctalString(a.mode())).append(" links=")
          .append(a.nlink());
      if (a.isRegularFile()) {
        s.append(" size=").append(a.size()).append(" sha=").append(digest(fs, a));
      } else if (a.isSymlink()) {
        s.append(" target=").append(new String(fs.readlink(a.ino()), StandardCharsets.UTF_8));
      }
      List<String> x = new ArrayList<>(fs.listxattr(a.ino()));
      java.util.Collections.sort(x);
      if (!x.isEmpty()) {
        s.append(" xattrs=").append(x);
      }
      out.put(p, s.toString());
      if (a.isDirectory()) {
        walk(fs, a.ino(), p, out, depth + 1);
      }
    }
  }

  private static String digest(Ext4FileSystem fs, Attributes a) throws IOException {
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    try (OpenFile f = fs.open(a.ino(), EnumSet.of(OpenFlag.READ))) {
      ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
      long pos = 0;
      while (true) {
        buf.clear();
        int n = f.read(pos, buf);
        if (n <= 0) {
          break;
        }
        md.update(buf.array(), 0, n);
        pos += n;
      }
      if (pos != a.size()) {
        throw new IllegalStateException("read " + pos + " bytes of inode " + a.ino() + " of size " + a.size());
      }
    }
    return HexFormat.of().formatHex(md.digest(), 0, 8);
  }

  /** The entries strictly under {@code prefix} (one thread's directory), with the prefix kept. */
  FsSnapshot under(String prefix) {
    TreeMap<String, String> out = new TreeMap<>();
    entries.forEach((k, v) -> {
      if (k.startsWith(prefix + "/")) {
        out.put(k, v);
      }
    });
    return new FsSnapshot(out);
  }

  /** A short description of how {@code other} differs, for failure messages. */
  String diff(FsSnapshot other) {
    StringBuilder s = new StringBuilder();
    for (var e : entries.entrySet()) {
      String o = other.entries.get(e.getKey());
      if (o == null) {
        s.append("\n  missing ").append(e.getKey()).append(' ').append(e.getValue());
      } else if (!o.equals(e.getValue())) {
        s.append("\n  ").append(e.getKey()).append(": expected ").append(e.getValue()).append(", found ").append(o);
      }
    }
    for (var e : other.entries.entrySet()) {
      if (!entries.containsKey(e.getKey())) {
        s.append("\n  unexpected ").append(e.getKey()).append(' ').append(e.getValue());
      }
    }
    return s.toString();
  }
}
