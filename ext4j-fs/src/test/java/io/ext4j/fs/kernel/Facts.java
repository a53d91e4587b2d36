package io.ext4j.fs.kernel;

import io.ext4j.testkit.FsManifest;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one name shows, from whichever side (the kernel through a mount, ext4j through its engine),
 * turned into a manifest line in one place so that both sides format alike.
 *
 * @param mode S_IFMT and permission bits
 * @param rdevMajor the device's major number (c and b only)
 * @param rdevMinor the device's minor number
 * @param target a symlink's target, else null
 * @param content {@code sha256=HEX} or {@code data=...} for a regular file (the key with its value)
 * @param xattrs name bytes (escaped) to value
 */
record Facts(int mode, long uid, long gid, long size, long nlink, long ino, long blocks, Instant atime, Instant mtime,
    Instant ctime, int rdevMajor, int rdevMinor, byte[] target, String content, TreeMap<String, byte[]> xattrs) {

  static final int S_IFMT = 0xF000;

  /** The manifest's type letter of a mode. */
  static char type(int mode) {
    return switch (mode & S_IFMT) {
      case 0x8000 -> 'f';
      case 0x4000 -> 'd';
      case 0xA000 -> 'l';
      case 0x1000 -> 'p';
      case 0xC000 -> 's';
      case 0x2000 -> 'c';
      case 0x6000 -> 'b';
      default -> throw new IllegalArgumentException("mode 0" + Integer.toOctalString(mode) + " has no file type");
    };
  }

  /** The directory-entry file_type byte (filetype feature) of a mode. */
  static int direntType(int mode) {
    return switch (mode & S_IFMT) {
      case 0x8000 -> 1;
      case 0x4000 -> 2;
      case 0x2000 -> 3;
      case 0x6000 -> 4;
      case 0x1000 -> 5;
      case 0xC000 -> 6;
      case 0xA000 -> 7;
      default -> 0;
    };
  }

  Map<String, String> fields() {
    Map<String, String> f = new LinkedHashMap<>();
    char t = type(mode);
    f.put("type", String.valueOf(t));
    f.put("mode", String.format("%04o", mode & 07777));
    f.put("uid", Long.toString(uid));
    f.put("gid", Long.toString(gid));
    f.put("size", Long.toString(size));
    f.put("nlink", Long.toString(nlink));
    f.put("ino", Long.toString(ino));
    f.put("blocks", Long.toString(blocks));
    f.put("atime", FsManifest.time(atime));
    f.put("mtime", FsManifest.time(mtime));
    f.put("ctime", FsManifest.time(ctime));
    if (t == 'c' || t == 'b') {
      f.put("rdev", rdevMajor + ":" + rdevMinor);
    }
    if (t == 'l') {
      f.put("target", FsManifest.escape(target));
    }
    if (t == 'f') {
      int eq = content.indexOf('=');
      f.put(content.substring(0, eq), content.substring(eq + 1));
    }
    xattrs.forEach((n, v) -> f.put("xattr." + n, FsManifest.hex(v)));
    return f;
  }

  /** A comparator on escaped xattr names by their bytes, as the manifest orders them. */
  static TreeMap<String, byte[]> xattrMap() {
    return new TreeMap<>((a, b) -> Arrays.compareUnsigned(FsManifest.unescape(a), FsManifest.unescape(b)));
  }
}
