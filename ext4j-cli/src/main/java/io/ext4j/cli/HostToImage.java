package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.SetAttributes;
import io.ext4j.fs.populate.HostFs;
import io.ext4j.fs.populate.Populator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * put's copy of a host tree into the image, with {@code cp -a}'s semantics: regular files (streamed
 * in 1 MiB chunks; holes of the source — its SEEK_DATA/SEEK_HOLE regions, and any all-zero block —
 * stay holes), directories (recursively, entries in name order), symbolic links as links, fifos,
 * sockets and devices (mknod with the host's rdev), hard links within the copied tree (one inode,
 * more links), permission bits, the host file's uid and gid, atime and mtime to the nanosecond (set
 * last, after contents and attributes; a directory's after its children), and extended attributes
 * ({@link HostFs#copiedXattr}). An existing non-directory at a destination name is replaced; an
 * existing directory is merged into. An entry that cannot be copied (a host file that cannot be read,
 * a name the image refuses) is reported and skipped, as {@code cp -a} does, and the command then
 * exits 1; a failure of the whole image (full, read-only, I/O error) ends the copy. Either way the
 * image stays consistent: each engine operation is atomic, and the caller closes it cleanly.
 */
final class HostToImage {
  static final int CHUNK = 1 << 20;

  private final Ext4FileSystem fs;
  private final ImageTarget target;
  private final boolean root;
  private final Warnings warnings;
  private final Progress progress;
  private final int blockSize;
  private final byte[] zeros;
  private final ByteBuffer buf = ByteBuffer.allocate(CHUNK);
  private final Map<List<Object>, Long> linked = new HashMap<>(); // (dev, ino) of a multiply-linked host file → its image inode

  HostToImage(Ext4FileSystem fs, ImageTarget target, boolean root, Warnings warnings, Progress progress) {
    this.fs = fs;
    this.target = target;
    this.root = root;
    this.warnings = warnings;
    this.progress = progress;
    this.blockSize = fs.superblock().blockSize();
    this.zeros = new byte[blockSize];
  }

  /** Host attributes, as read once per file (never following a symbolic link). */
  record HostAttrs(int mode, long dev, long ino, long rdev, int nlink, int uid, int gid, long size, FileTime atime,
      FileTime mtime) {
    static HostAttrs of(Path p) throws IOException {
      Map<String, Object> u = Files.readAttributes(p, HostFs.STAT_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
      return new HostAttrs((Integer) u.get("mode"), (Long) u.get("dev"), (Long) u.get("ino"), (Long) u.get("rdev"),
          (Integer) u.get("nlink"), (Integer) u.get("uid"), (Integer) u.get("gid"), (Long) u.get("size"),
          (FileTime) u.get("lastAccessTime"), (FileTime) u.get("lastModifiedTime"));
    }

    int type() {
      return mode & Attributes.S_IFMT;
    }

    boolean isDirectory() {
      return type() == Formats.S_IFDIR;
    }
  }

  /** Copies {@code host} (attributes {@code h}) to entry {@code name} of image directory {@code dir}. */
  void copy(Path host, HostAttrs h, long dir, byte[] name, String imgPath) throws IOException {
    Attributes existing = existing(dir, name, imgPath);
    if (existing != null) {
      if (h.isDirectory() && existing.isDirectory()) {
        copyChildren(host, existing.ino(), imgPath);
        finish(host, h, existing.ino(), imgPath);
        return;
      }
      if (h.isDirectory()) {
        throw new CliException(imgPath + ": cannot overwrite a non-directory with directory " + host + " (" + target.name() + ")");
      }
      if (existing.isDirectory()) {
        throw new CliException(imgPath + ": cannot overwrite a directory with non-directory " + host + " (" + target.name() + ")");
      }
      act(imgPath, () -> fs.unlink(dir, name));
    }
    progress.entry();
    Caller who = new Caller(h.uid(), h.gid());
    if (!h.isDirectory() && h.nlink() > 1) {
      Long first = linked.get(List.of(h.dev(), h.ino()));
      if (first != null) {
        act(imgPath, () -> fs.link(first, dir, name));
        return;
      }
    }
    long ino;
    switch (h.type()) {
      case Formats.S_IFDIR -> {
        ino = call(imgPath, () -> fs.mkdir(dir, name, 0700, who)).ino();
        copyChildren(host, ino, imgPath);
      }
      case Formats.S_IFREG -> {
        ino = call(imgPath, () -> fs.create(dir, name, 0600, who)).ino();
        writeContents(host, h.size(), ino, imgPath);
      }
      case Formats.S_IFLNK -> {
        byte[] t = Files.readSymbolicLink(host).toString().getBytes(StandardCharsets.UTF_8);
        ino = call(imgPath, () -> fs.symlink(dir, name, t, who)).ino();
      }
      case Formats.S_IFIFO, Formats.S_IFSOCK, Formats.S_IFCHR, Formats.S_IFBLK -> {
        long rdev = h.type() == Formats.S_IFCHR || h.type() == Formats.S_IFBLK ? h.rdev() : 0;
        if (rdev >>> 32 != 0) {
          throw new CliException(host + ": device number 0x" + Long.toHexString(rdev) + " does not fit ext4's 32 bits");
        }
        ino = call(imgPath, () -> fs.mknod(dir, name, h.type() | (h.mode() & 07777), rdev, who)).ino();
      }
      default -> throw new CliException(host + ": unknown file type 0" + Integer.toOctalString(h.type()));
    }
    if (!h.isDirectory() && h.nlink() > 1) {
      linked.put(List.of(h.dev(), h.ino()), ino);
    }
    finish(host, h, ino, imgPath);
  }

  private Attributes existing(long dir, byte[] name, String imgPath) throws IOException {
    try {
      return fs.lookup(dir, name);
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOENT) {
        return null;
      }
      throw target.failure(imgPath, e);
    }
  }

  private void copyChildren(Path host, long dir, String imgPath) throws IOException {
    List<Path> children = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(host)) {
      ds.forEach(children::add);
    }
    children.sort((a, b) -> Arrays.compareUnsigned(bytes(a.getFileName()), bytes(b.getFileName())));
    for (Path c : children) {
      String n = c.getFileName().toString();
      try {
        copy(c, HostAttrs.of(c), dir, n.getBytes(StandardCharsets.UTF_8), DirListing.join(imgPath, n));
      } catch (IOException e) {
        warnings.skipOrThrow(e, c);
      }
    }
  }

  private static byte[] bytes(Path name) {
    return name.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Extended attributes, then owner, permission bits and times in one setattr (times last of all). */
  private void finish(Path host, HostAttrs h, long ino, String imgPath) throws IOException {
    copyXattrs(host, h, ino, imgPath);
    Integer perms = h.type() == Formats.S_IFLNK ? null : h.mode() & 07777;
    SetAttributes s = new SetAttributes(perms, (long) h.uid(), (long) h.gid(), null, h.atime().toInstant(),
        h.mtime().toInstant(), null, null);
    act(imgPath, () -> fs.setattr(ino, s));
  }

  private void copyXattrs(Path host, HostAttrs h, long ino, String imgPath) throws IOException {
    Map<String, byte[]> values = new java.util.LinkedHashMap<>();
    if (HostFs.available()) {
      List<String> names;
      try {
        names = HostFs.listXattrs(host);
      } catch (HostFs.HostCallException e) {
        warnings.once("list " + e.errno(), host + ": cannot list extended attributes (" + e.getReason() + "); not copied");
        return;
      }
      for (String n : names) {
        if (HostFs.copiedXattr(n, root)) {
          values.put(n, HostFs.getXattr(host, n));
        }
      }
    } else if (h.type() != Formats.S_IFLNK) {
      warnings.once("nio xattrs", "native host calls unavailable: copying user.* extended attributes only");
      UserDefinedFileAttributeView v = Files.getFileAttributeView(host, UserDefinedFileAttributeView.class);
      if (v != null) {
        for (String n : v.list()) {
          ByteBuffer b = ByteBuffer.allocate(v.size(n));
          v.read(n, b);
          values.put("user." + n, Arrays.copyOf(b.array(), b.position()));
        }
      }
    }
    if (h.type() != Formats.S_IFLNK) { // what it inherited from the image directory's default ACL but the source lacks
      call(imgPath, () -> Populator.removeAclsNotIn(fs, ino, values.keySet()));
    }
    for (Map.Entry<String, byte[]> e : values.entrySet()) {
      try {
        fs.setxattr(ino, e.getKey(), e.getValue(), 0);
      } catch (Ext4Exception x) {
        if (x.errno() != Errno.EOPNOTSUPP) {
          throw target.failure(imgPath, x);
        }
        warnings.once("ns " + e.getKey().substring(0, e.getKey().indexOf('.') + 1),
            imgPath + ": the image does not take extended attribute " + e.getKey() + "; such attributes not copied");
      }
    }
  }

  /**
   * Streams the host file into image inode {@code ino}: only the host's data regions are read, and
   * of them only blocks that are not all zeros are written; the size is set at the end, so what was
   * not written stays a hole.
   */
  private void writeContents(Path host, long size, long ino, String imgPath) throws IOException {
    List<long[]> regions = size == 0 ? List.of() : HostFs.available() ? HostFs.dataRegions(host, size) : List.of(new long[] {0, size});
    try (FileChannel in = FileChannel.open(host, StandardOpenOption.READ);
        OpenFile out = call(imgPath, () -> fs.open(ino, EnumSet.of(OpenFlag.WRITE)))) {
      long read = 0;
      for (long[] r : regions) {
        long pos = r[0] - r[0] % blockSize;
        while (pos < r[1]) {
          buf.clear().limit((int) Math.min(CHUNK, roundUp(r[1]) - pos));
          int n = readFully(in, pos);
          if (n <= 0) {
            break; // the file shrank while we read it
          }
          writeNonZero(out, pos, n, imgPath);
          progress.bytes(n);
          read += n;
          pos += n;
        }
      }
      progress.bytes(Math.max(0, size - read)); // the holes
      long end = size;
      call(imgPath, () -> {
        if (out.size() != end) {
          out.truncate(end);
        }
        return null;
      });
    }
  }

  private long roundUp(long v) {
    return Math.ceilDiv(v, blockSize) * (long) blockSize;
  }

  private int readFully(FileChannel in, long pos) throws IOException {
    int total = 0;
    while (buf.hasRemaining()) {
      int n = in.read(buf, pos + total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }

  /** Writes the runs of blocks of buf[0, n) that hold a non-zero byte, at {@code pos}. */
  private void writeNonZero(OpenFile out, long pos, int n, String imgPath) throws IOException {
    byte[] a = buf.array();
    int run = -1;
    for (int off = 0; ; off += blockSize) {
      boolean data = off < n && Arrays.mismatch(a, off, Math.min(off + blockSize, n), zeros, 0, Math.min(blockSize, n - off)) >= 0;
      if (data && run < 0) {
        run = off;
      } else if (!data && run >= 0) {
        write(out, pos + run, a, run, Math.min(off, n) - run, imgPath);
        run = -1;
      }
      if (off >= n) {
        break;
      }
    }
  }

  private void write(OpenFile out, long at, byte[] a, int off, int len, String imgPath) throws IOException {
    ByteBuffer src = ByteBuffer.wrap(a, off, len);
    while (src.hasRemaining()) {
      long before = src.remaining();
      long n = call(imgPath, () -> out.write(at + (len - src.remaining()), src));
      if (n <= 0 || src.remaining() == before) {
        throw target.failure(imgPath, new Ext4Exception(Errno.ENOSPC, out.ino(), null, "short write"));
      }
    }
  }

  /** An engine call whose failure is worded with the image path. */
  @FunctionalInterface
  interface EngineCall<T> {
    T run() throws IOException;
  }

  @FunctionalInterface
  interface EngineAction {
    void run() throws IOException;
  }

  private <T> T call(String imgPath, EngineCall<T> c) throws IOException {
    try {
      return c.run();
    } catch (Ext4Exception e) {
      throw target.failure(imgPath, e);
    }
  }

  private void act(String imgPath, EngineAction c) throws IOException {
    call(imgPath, () -> {
      c.run();
      return null;
    });
  }
}
