package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.tools.populate.HostFs;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * get's copy of an image tree to the host, with {@code cp -a}'s semantics: regular files (only the
 * written extents are read, and all-zero blocks are not written, so holes stay holes; the size is
 * set at the end), directories level by level (a directory met again below itself, in a corrupted
 * image, is reported as a filesystem loop and skipped), symbolic links as links, hard links within the copied
 * tree (one host inode, more links), fifos and sockets, devices only as root (otherwise one warning
 * and they are skipped), extended attributes ({@link HostFs#copiedXattr}; one warning per kind the
 * host refuses), owners only as root, permission bits, and atime and mtime to the nanosecond, set
 * last (a directory's after its children). An existing host non-directory at a destination is
 * replaced; an existing directory is merged into. An entry that cannot be copied (the host refuses
 * its name, a host directory that cannot be written) is reported and skipped, as {@code cp -a} does,
 * and the command then exits 1; a failure of the whole image or host filesystem (corrupted, I/O error,
 * full) ends the copy.
 */
final class ImageToHost {
  static final int CHUNK = 1 << 20;
  private static final byte[] DOT = {'.'};

  private final Vfs vfs;
  private final Credentials who = ImageTarget.credentials();
  private final ImageTarget target;
  private final boolean root;
  private final Warnings warnings;
  private final Progress progress;
  private final int blockSize;
  private final byte[] zeros;
  private final ByteBuffer buf = ByteBuffer.allocate(CHUNK);
  private final Map<Long, Path> linked = new HashMap<>(); // image inode with several links → its first host path
  private final List<String> skippedDevices = new ArrayList<>();

  ImageToHost(Ext4FileSystem fs, ImageTarget target, boolean root, Warnings warnings, Progress progress) {
    this.vfs = fs.vfs();
    this.target = target;
    this.root = root;
    this.warnings = warnings;
    this.progress = progress;
    this.blockSize = fs.superblock().blockSize();
    this.zeros = new byte[blockSize];
  }

  /** A directory being copied, held open: its entries still to copy, and the directory it is in (for loops). */
  private record Frame(Attributes dir, OpenFile fd, String imgPath, Path host, java.util.Iterator<DirEntry> entries, Frame up) {
    /** The path of the ancestor (this frame or above) that is inode {@code ino}, or null. */
    String ancestor(long ino) {
      for (Frame f = this; f != null; f = f.up) {
        if (f.dir.ino() == ino) {
          return f.imgPath;
        }
      }
      return null;
    }
  }

  /**
   * Copies what {@code imgPath} names (attributes {@code a}; a final symbolic link itself) to
   * {@code host}: iteratively, one open directory per level (memory grows with the tree's depth, not
   * its size); a directory met again below itself is reported and skipped.
   */
  void copy(Attributes a, String imgPath, Path host) throws IOException {
    java.util.ArrayDeque<Frame> stack = new java.util.ArrayDeque<>();
    try {
      Frame top = copyOne(a, null, ImageTarget.bytes(imgPath), imgPath, host, null);
      if (top != null) {
        stack.push(top);
      }
      while (!stack.isEmpty()) {
        Frame f = stack.peek();
        if (!f.entries().hasNext()) {
          stack.pop();
          try (OpenFile done = f.fd()) {
            finish(f.dir(), done, DOT, f.host());
          }
          continue;
        }
        DirEntry e = f.entries().next();
        String name = e.nameString();
        String child = DirListing.join(f.imgPath(), name);
        try {
          Attributes c = engine(child, () -> vfs.statat(f.fd(), e.name(), false, who));
          String seen = c.isDirectory() ? f.ancestor(c.ino()) : null;
          if (seen != null) {
            warnings.loop(child, seen);
            continue;
          }
          Frame sub = copyOne(c, f.fd(), e.name(), child, f.host().resolve(name), f);
          if (sub != null) {
            stack.push(sub);
          }
        } catch (IOException x) {
          warnings.skipOrThrow(x, f.host().resolve(name));
        }
      }
    } finally {
      for (Frame f : stack) {
        f.fd().close();
      }
    }
  }

  /**
   * Copies entry {@code name} of the open directory {@code dir} (null: {@code name} is a path from the
   * root); for a directory, makes it (or merges into it) and returns its frame, whose entries the caller copies.
   */
  private Frame copyOne(Attributes a, OpenFile dir, byte[] name, String imgPath, Path host, Frame up) throws IOException {
    boolean exists = Files.exists(host, LinkOption.NOFOLLOW_LINKS);
    if (exists) {
      boolean hostDir = Files.isDirectory(host, LinkOption.NOFOLLOW_LINKS);
      if (a.isDirectory() && hostDir) {
        return frame(a, dir, name, imgPath, host, up);
      }
      if (a.isDirectory()) {
        throw new CliException(host + ": cannot overwrite a non-directory with directory " + imgPath + " (" + target.name() + ")");
      }
      if (hostDir) {
        throw new CliException(host + ": cannot overwrite a directory with non-directory " + imgPath + " (" + target.name() + ")");
      }
      Files.delete(host);
    }
    progress.entry();
    if (!a.isDirectory() && a.nlink() > 1) {
      Path first = linked.get(a.ino());
      if (first != null) {
        Files.createLink(host, first);
        return null;
      }
    }
    int perms = a.permissions();
    switch (a.fileType()) {
      case Attributes.S_IFDIR -> {
        Files.createDirectory(host);
        return frame(a, dir, name, imgPath, host, up);
      }
      case Attributes.S_IFREG -> writeContents(a, dir, name, imgPath, host);
      case Attributes.S_IFLNK -> {
        String t = new String(engine(imgPath, () -> vfs.readlinkat(dir, name, who)), StandardCharsets.UTF_8);
        Files.createSymbolicLink(host, Path.of(t));
      }
      case Attributes.S_IFIFO, Attributes.S_IFSOCK -> mknod(host, a.fileType() | perms, 0);
      case Attributes.S_IFCHR, Attributes.S_IFBLK -> {
        if (!root || !HostFs.available()) {
          skippedDevices.add(imgPath);
          return null;
        }
        mknod(host, a.fileType() | perms, glibcDev(Attributes.major(a.rdev()), Attributes.minor(a.rdev())));
      }
      default -> throw new CliException(imgPath + ": unknown file type 0" + Integer.toOctalString(a.fileType()) + " ("
          + target.name() + ")");
    }
    if (a.nlink() > 1) {
      linked.put(a.ino(), host);
    }
    finish(a, dir, name, host);
    return null;
  }

  private Frame frame(Attributes a, OpenFile dir, byte[] name, String imgPath, Path host, Frame up) throws IOException {
    OpenFile fd = engine(imgPath, () -> DirListing.open(vfs, dir, name));
    try {
      List<DirEntry> entries = engine(imgPath, () -> DirListing.sorted(vfs, fd, false));
      return new Frame(a, fd, imgPath, host, entries.iterator(), up);
    } catch (IOException | RuntimeException e) {
      fd.close();
      throw e;
    }
  }

  /** The image paths of devices not created (not root). */
  List<String> skippedDevices() {
    return skippedDevices;
  }

  private void mknod(Path host, int mode, long dev) throws IOException {
    if (!HostFs.available()) {
      warnings.once("mknod", "native host calls unavailable: fifos, sockets and devices not copied");
      return;
    }
    HostFs.mknod(host, mode, dev);
  }

  /** glibc's makedev. */
  static long glibcDev(long major, long minor) {
    return (major & 0xFFF) << 8 | (major & ~0xFFFL) << 32 | (minor & 0xFF) | (minor & ~0xFFL) << 12;
  }

  /** Extended attributes, owners (as root), permission bits, then the times. */
  private void finish(Attributes a, OpenFile dir, byte[] name, Path host) throws IOException {
    copyXattrs(a, dir, name, host);
    if (root) {
      Files.setAttribute(host, "unix:uid", (int) a.uid(), LinkOption.NOFOLLOW_LINKS);
      Files.setAttribute(host, "unix:gid", (int) a.gid(), LinkOption.NOFOLLOW_LINKS);
    }
    if (!a.isSymlink()) {
      Files.setAttribute(host, "unix:mode", a.permissions()); // chmod(2); with NOFOLLOW java.nio opens the file
    }
    if (HostFs.available()) {
      HostFs.setTimes(host, a.atime(), a.mtime());
    } else if (a.isRegularFile() || a.isDirectory() || a.isSymlink()) {
      Files.getFileAttributeView(host, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
          .setTimes(FileTime.from(a.mtime()), FileTime.from(a.atime()), null);
    }
  }

  private void copyXattrs(Attributes a, OpenFile dir, byte[] name, Path host) throws IOException {
    List<String> names = engine(host.toString(), () -> vfs.listxattrat(dir, name, false, who));
    for (String n : names) {
      if (!HostFs.copiedXattr(n, root) || (a.isSymlink() && n.startsWith("user."))) {
        continue; // Linux allows user.* only on regular files and directories
      }
      byte[] v = engine(host.toString(), () -> vfs.getxattrat(dir, name, false, n, who));
      if (HostFs.available()) {
        try {
          HostFs.setXattr(host, n, v);
        } catch (HostFs.HostCallException e) {
          String ns = n.substring(0, n.indexOf('.') + 1);
          warnings.once("set " + ns + e.errno(), host + ": " + e.getReason() + "; " + ns + "* attributes not copied");
        }
      } else if (n.startsWith("user.")) {
        UserDefinedFileAttributeView view = Files.getFileAttributeView(host, UserDefinedFileAttributeView.class);
        view.write(n.substring(5), ByteBuffer.wrap(v));
      } else {
        warnings.once("nio xattrs", "native host calls unavailable: copying user.* extended attributes only");
      }
    }
  }

  /**
   * Reads the file's data regions (SEEK_DATA / SEEK_HOLE: unwritten extents and holes are skipped)
   * and writes the blocks that are not all zeros at the same offsets; sets the size last.
   */
  private void writeContents(Attributes a, OpenFile dir, byte[] name, String imgPath, Path host) throws IOException {
    long size = a.size();
    Files.createFile(host);
    long read = 0;
    try (RandomAccessFile raf = new RandomAccessFile(host.toFile(), "rw");
        OpenFile in = engine(imgPath, () -> vfs.openat(dir, name, EnumSet.of(OpenFlag.READ, OpenFlag.NOFOLLOW), 0, who))) {
      FileChannel out = raf.getChannel();
      for (long[] r : dataRegions(in, size, imgPath)) {
        long pos = r[0];
        while (pos < r[1]) {
          buf.clear().limit((int) Math.min(CHUNK, r[1] - pos));
          int n = readFully(in, pos, imgPath);
          if (n <= 0) {
            break;
          }
          writeNonZero(out, pos, n);
          progress.bytes(n);
          read += n;
          pos += n;
        }
      }
      raf.setLength(size);
    }
    progress.bytes(Math.max(0, size - read));
  }

  /** The [start, end) ranges of the open file below {@code size} that hold data. */
  private List<long[]> dataRegions(OpenFile in, long size, String imgPath) throws IOException {
    List<long[]> regions = new ArrayList<>();
    long pos = 0;
    while (pos < size) {
      long data;
      try {
        data = in.seekData(pos);
      } catch (Ext4Exception e) {
        if (e.errno() == Errno.ENXIO) {
          break; // only a hole is left
        }
        throw target.failure(imgPath, e);
      }
      long from = data;
      long end = Math.min(engine(imgPath, () -> in.seekHole(from)), size);
      if (end > data) {
        regions.add(new long[] {data, end});
      }
      pos = Math.max(end, data + 1);
    }
    return regions;
  }

  private int readFully(OpenFile in, long pos, String imgPath) throws IOException {
    int total = 0;
    while (buf.hasRemaining()) {
      long at = pos + total;
      int n = engine(imgPath, () -> in.read(at, buf));
      if (n <= 0) {
        break;
      }
      total += n;
    }
    return total;
  }

  private void writeNonZero(FileChannel out, long pos, int n) throws IOException {
    byte[] arr = buf.array();
    int run = -1;
    for (int off = 0; ; off += blockSize) {
      boolean data = off < n && Arrays.mismatch(arr, off, Math.min(off + blockSize, n), zeros, 0, Math.min(blockSize, n - off)) >= 0;
      if (data && run < 0) {
        run = off;
      } else if (!data && run >= 0) {
        ByteBuffer src = ByteBuffer.wrap(arr, run, Math.min(off, n) - run);
        long at = pos + run;
        while (src.hasRemaining()) {
          at += out.write(src, at);
        }
        run = -1;
      }
      if (off >= n) {
        break;
      }
    }
  }

  @FunctionalInterface
  interface EngineCall<T> {
    T run() throws IOException;
  }

  /** An engine call whose failure is worded with the image path. */
  private <T> T engine(String imgPath, EngineCall<T> c) throws IOException {
    try {
      return c.run();
    } catch (Ext4Exception e) {
      throw target.failure(imgPath, e);
    }
  }
}
