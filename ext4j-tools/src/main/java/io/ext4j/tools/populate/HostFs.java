package io.ext4j.tools.populate;

import io.ext4j.block.os.Libc;
import io.ext4j.fs.format.PosixAcl;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The host calls that copying trees in and out of images needs and java.nio lacks, through ext4j's
 * libc binding ({@link Libc}): extended attributes of
 * any namespace without following symbolic links ({@code llistxattr}, {@code lgetxattr},
 * {@code lsetxattr}), {@code mknod} for fifos, sockets and devices, and the data regions of a sparse
 * file ({@code lseek} with SEEK_DATA and SEEK_HOLE). Paths go to the kernel as their UTF-8 bytes.
 *
 * <p>{@link #available()} is false where the C library's symbols cannot be bound (another OS, or
 * native access denied); callers then fall back (user.* attributes through
 * {@link java.nio.file.attribute.UserDefinedFileAttributeView}, zero-block detection, no special
 * files) and say so. Every failing call throws a {@link FileSystemException} naming the path and the
 * errno's text.
 */
public final class HostFs {
  /** errno of an xattr call on a filesystem without xattrs (EOPNOTSUPP on Linux). */
  public static final int ENOTSUP = Libc.EOPNOTSUPP;

  private HostFs() {}

  /**
   * Which extended attributes a copy keeps, as cp -a does: user.* and the POSIX ACLs always,
   * trusted.* and security.* only as root (others cannot read or set them).
   */
  public static boolean copiedXattr(String name, boolean root) {
    if (name.startsWith("user.") || name.equals(PosixAcl.ACCESS_NAME) || name.equals(PosixAcl.DEFAULT_NAME)) {
      return true;
    }
    return root && (name.startsWith("trusted.") || name.startsWith("security."));
  }

  /**
   * The {@code unix:} attributes a copy needs, by name: {@code unix:*} would also look the owner and
   * group names up (reading /etc/passwd and /etc/group for every file).
   */
  public static final String STAT_ATTRIBUTES = "unix:mode,uid,gid,size,nlink,dev,ino,rdev,lastAccessTime,lastModifiedTime,ctime";

  /** The process's effective uid (the owner of /proc/self), -1 where it cannot be read. */
  public static int effectiveUid() {
    try {
      return (Integer) java.nio.file.Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return -1;
    }
  }

  /** Whether the native calls are bound. */
  public static boolean available() {
    return Libc.available();
  }

  private static void requireAvailable() throws IOException {
    if (!Libc.available()) {
      throw new IOException("native host calls are not available (needs Linux and --enable-native-access)");
    }
  }

  /** The names of {@code p}'s extended attributes (of a symbolic link itself). */
  public static List<String> listXattrs(Path p) throws IOException {
    requireAvailable();
    String path = p.toString();
    try (Arena a = Arena.ofConfined()) {
      for (int attempt = 0; attempt < 8; attempt++) {
        long n = Libc.llistxattr(path, MemorySegment.NULL);
        check(n, p, "llistxattr");
        if (n == 0) {
          return List.of();
        }
        MemorySegment buf = a.allocate(n);
        long got = Libc.llistxattr(path, buf);
        if (got == -Libc.ERANGE) {
          continue; // grew between the two calls
        }
        check(got, p, "llistxattr");
        byte[] bytes = buf.asSlice(0, got).toArray(ValueLayout.JAVA_BYTE);
        List<String> names = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < bytes.length; i++) {
          if (bytes[i] == 0) {
            if (i > start) {
              names.add(new String(bytes, start, i - start, StandardCharsets.UTF_8));
            }
            start = i + 1;
          }
        }
        return names;
      }
      throw new FileSystemException(path, null, "llistxattr: the attribute list keeps changing");
    }
  }

  /** The value of attribute {@code name} of {@code p} (a symbolic link itself). */
  public static byte[] getXattr(Path p, String name) throws IOException {
    requireAvailable();
    String path = p.toString();
    try (Arena a = Arena.ofConfined()) {
      for (int attempt = 0; attempt < 8; attempt++) {
        long size = Libc.lgetxattr(path, name, MemorySegment.NULL);
        check(size, p, "lgetxattr " + name);
        MemorySegment buf = a.allocate(Math.max(1, size));
        long got = Libc.lgetxattr(path, name, buf);
        if (got == -Libc.ERANGE) {
          continue;
        }
        check(got, p, "lgetxattr " + name);
        return buf.asSlice(0, got).toArray(ValueLayout.JAVA_BYTE);
      }
      throw new FileSystemException(path, null, "lgetxattr " + name + ": the value keeps changing");
    }
  }

  /** Sets attribute {@code name} of {@code p} (a symbolic link itself). */
  public static void setXattr(Path p, String name, byte[] value) throws IOException {
    requireAvailable();
    check(Libc.lsetxattr(p.toString(), name, value, 0), p, "lsetxattr " + name);
  }

  /** mknod(2): {@code mode} with the file type; {@code dev} in glibc's dev_t encoding (unix:rdev). */
  public static void mknod(Path p, int mode, long dev) throws IOException {
    requireAvailable();
    check(Libc.mknod(p.toString(), mode, dev), p, "mknod");
  }

  /**
   * Sets atime and mtime to the nanosecond without following a symbolic link and without opening
   * the file (java.nio opens it, which blocks on a fifo): utimensat(AT_FDCWD, path, times,
   * AT_SYMLINK_NOFOLLOW).
   */
  public static void setTimes(Path p, java.time.Instant atime, java.time.Instant mtime) throws IOException {
    requireAvailable();
    check(Libc.utimensat(Libc.AT_FDCWD, p.toString(), atime, mtime, Libc.AT_SYMLINK_NOFOLLOW), p, "utimensat");
  }

  /**
   * The data regions of the file at {@code p} of {@code size} bytes, as {start, end} pairs, from
   * lseek's SEEK_DATA and SEEK_HOLE; the whole file as one region where the filesystem does not
   * report holes.
   */
  public static List<long[]> dataRegions(Path p, long size) throws IOException {
    requireAvailable();
    List<long[]> out = new ArrayList<>();
    int fd = Libc.open(p.toString(), Libc.O_RDONLY, 0);
    check(fd, p, "open");
    try {
      long pos = 0;
      while (pos < size) {
        long data = Libc.lseek(fd, pos, Libc.SEEK_DATA);
        if (data == -Libc.ENXIO) {
          break; // only a hole is left
        }
        check(data, p, "lseek SEEK_DATA");
        long hole = Libc.lseek(fd, data, Libc.SEEK_HOLE);
        check(hole, p, "lseek SEEK_HOLE");
        long end = Math.min(hole, size);
        if (end > data) {
          out.add(new long[] {data, end});
        }
        pos = Math.max(end, data + 1);
      }
    } finally {
      int ignored = Libc.close(fd);
    }
    return out;
  }

  /** Throws for a negative result (-errno), with the errno's text (a FileSystemException names the path). */
  private static void check(long result, Path p, String call) throws IOException {
    if (result >= 0) {
      return;
    }
    int e = (int) -result;
    throw new HostCallException(p.toString(), call, e, Libc.strerror(e).toLowerCase(java.util.Locale.ROOT));
  }

  /** A host call failed: the path, the call and its errno. */
  public static final class HostCallException extends FileSystemException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    HostCallException(String path, String call, int errno, String text) {
      super(path, null, call + ": " + text);
      this.errno = errno;
    }

    public int errno() {
      return errno;
    }
  }
}
