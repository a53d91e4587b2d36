package io.ext4j.fs.populate;

import io.ext4j.fs.format.PosixAcl;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The host calls that copying trees in and out of images needs and java.nio lacks, through the FFM API: extended attributes of
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
  private static final int SEEK_DATA = 3;
  private static final int SEEK_HOLE = 4;
  private static final int ENXIO = 6;
  private static final int ERANGE = 34;
  /** errno of an xattr call on a filesystem without xattrs (EOPNOTSUPP on Linux). */
  public static final int ENOTSUP = 95;
  private static final int AT_FDCWD = -100;
  private static final int AT_SYMLINK_NOFOLLOW = 0x100;

  private static final Calls CALLS = Calls.bind();

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
    return CALLS != null;
  }

  /** The bound functions and the errno capture layout; null when binding failed. */
  private record Calls(MethodHandle llistxattr, MethodHandle lgetxattr, MethodHandle lsetxattr, MethodHandle mknod,
      MethodHandle open, MethodHandle lseek, MethodHandle close, MethodHandle utimensat, MethodHandle strerror, StructLayout state,
      VarHandle errno) {
    static Calls bind() {
      try {
        Linker linker = Linker.nativeLinker();
        SymbolLookup libc = linker.defaultLookup();
        StructLayout state = Linker.Option.captureStateLayout();
        VarHandle errno = state.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
        Linker.Option capture = Linker.Option.captureCallState("errno");
        ValueLayout addr = ValueLayout.ADDRESS;
        ValueLayout.OfLong sz = ValueLayout.JAVA_LONG;
        ValueLayout.OfInt i32 = ValueLayout.JAVA_INT;
        MethodHandle list = linker.downcallHandle(libc.findOrThrow("llistxattr"), FunctionDescriptor.of(sz, addr, addr, sz), capture);
        MethodHandle get = linker.downcallHandle(libc.findOrThrow("lgetxattr"), FunctionDescriptor.of(sz, addr, addr, addr, sz), capture);
        MethodHandle set = linker.downcallHandle(libc.findOrThrow("lsetxattr"),
            FunctionDescriptor.of(i32, addr, addr, addr, sz, i32), capture);
        MethodHandle mknod = linker.downcallHandle(libc.findOrThrow("mknod"), FunctionDescriptor.of(i32, addr, i32, sz), capture);
        MethodHandle open = linker.downcallHandle(libc.findOrThrow("open"), FunctionDescriptor.of(i32, addr, i32), capture);
        MethodHandle lseek = linker.downcallHandle(libc.findOrThrow("lseek"), FunctionDescriptor.of(sz, i32, sz, i32), capture);
        MethodHandle close = linker.downcallHandle(libc.findOrThrow("close"), FunctionDescriptor.of(i32, i32));
        MethodHandle utimensat = linker.downcallHandle(libc.findOrThrow("utimensat"), FunctionDescriptor.of(i32, i32, addr, addr, i32),
            capture);
        MethodHandle strerror = linker.downcallHandle(libc.findOrThrow("strerror"), FunctionDescriptor.of(addr, i32));
        return new Calls(list, get, set, mknod, open, lseek, close, utimensat, strerror, state, errno);
      } catch (RuntimeException | LinkageError e) { // not Linux/glibc, or native access denied
        return null;
      }
    }
  }

  private static Calls calls() throws IOException {
    if (CALLS == null) {
      throw new IOException("native host calls are not available (needs Linux and --enable-native-access)");
    }
    return CALLS;
  }

  /** The names of {@code p}'s extended attributes (of a symbolic link itself). */
  public static List<String> listXattrs(Path p) throws IOException {
    Calls c = calls();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment path = cPath(a, p);
      MemorySegment st = a.allocate(c.state());
      for (int attempt = 0; attempt < 8; attempt++) {
        long n = (long) c.llistxattr().invokeExact(st, path, MemorySegment.NULL, 0L);
        check(c, st, n, p, "llistxattr");
        if (n == 0) {
          return List.of();
        }
        MemorySegment buf = a.allocate(n);
        long got = (long) c.llistxattr().invokeExact(st, path, buf, n);
        if (got < 0 && errno(c, st) == ERANGE) {
          continue; // grew between the two calls
        }
        check(c, st, got, p, "llistxattr");
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
      throw new FileSystemException(p.toString(), null, "llistxattr: the attribute list keeps changing");
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** The value of attribute {@code name} of {@code p} (a symbolic link itself). */
  public static byte[] getXattr(Path p, String name) throws IOException {
    Calls c = calls();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment path = cPath(a, p);
      MemorySegment n = a.allocateFrom(name, StandardCharsets.UTF_8);
      MemorySegment st = a.allocate(c.state());
      for (int attempt = 0; attempt < 8; attempt++) {
        long size = (long) c.lgetxattr().invokeExact(st, path, n, MemorySegment.NULL, 0L);
        check(c, st, size, p, "lgetxattr " + name);
        MemorySegment buf = a.allocate(Math.max(1, size));
        long got = (long) c.lgetxattr().invokeExact(st, path, n, buf, Math.max(1, size));
        if (got < 0 && errno(c, st) == ERANGE) {
          continue;
        }
        check(c, st, got, p, "lgetxattr " + name);
        return buf.asSlice(0, got).toArray(ValueLayout.JAVA_BYTE);
      }
      throw new FileSystemException(p.toString(), null, "lgetxattr " + name + ": the value keeps changing");
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** Sets attribute {@code name} of {@code p} (a symbolic link itself). */
  public static void setXattr(Path p, String name, byte[] value) throws IOException {
    Calls c = calls();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(Math.max(1, value.length));
      MemorySegment.copy(value, 0, v, ValueLayout.JAVA_BYTE, 0, value.length);
      MemorySegment st = a.allocate(c.state());
      int r = (int) c.lsetxattr().invokeExact(st, cPath(a, p), a.allocateFrom(name, StandardCharsets.UTF_8), v,
          (long) value.length, 0);
      check(c, st, r, p, "lsetxattr " + name);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** mknod(2): {@code mode} with the file type; {@code dev} in glibc's dev_t encoding (unix:rdev). */
  public static void mknod(Path p, int mode, long dev) throws IOException {
    Calls c = calls();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(c.state());
      int r = (int) c.mknod().invokeExact(st, cPath(a, p), mode, dev);
      check(c, st, r, p, "mknod");
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * Sets atime and mtime to the nanosecond without following a symbolic link and without opening
   * the file (java.nio opens it, which blocks on a fifo): utimensat(AT_FDCWD, path, times,
   * AT_SYMLINK_NOFOLLOW).
   */
  public static void setTimes(Path p, java.time.Instant atime, java.time.Instant mtime) throws IOException {
    Calls c = calls();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment ts = a.allocate(ValueLayout.JAVA_LONG, 4); // struct timespec[2]: {tv_sec, tv_nsec} × 2
      ts.setAtIndex(ValueLayout.JAVA_LONG, 0, atime.getEpochSecond());
      ts.setAtIndex(ValueLayout.JAVA_LONG, 1, atime.getNano());
      ts.setAtIndex(ValueLayout.JAVA_LONG, 2, mtime.getEpochSecond());
      ts.setAtIndex(ValueLayout.JAVA_LONG, 3, mtime.getNano());
      MemorySegment st = a.allocate(c.state());
      int r = (int) c.utimensat().invokeExact(st, AT_FDCWD, cPath(a, p), ts, AT_SYMLINK_NOFOLLOW);
      check(c, st, r, p, "utimensat");
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * The data regions of the file at {@code p} of {@code size} bytes, as {start, end} pairs, from
   * lseek's SEEK_DATA and SEEK_HOLE; the whole file as one region where the filesystem does not
   * report holes.
   */
  public static List<long[]> dataRegions(Path p, long size) throws IOException {
    Calls c = calls();
    List<long[]> out = new ArrayList<>();
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(c.state());
      int fd = (int) c.open().invokeExact(st, cPath(a, p), 0); // O_RDONLY
      check(c, st, fd, p, "open");
      try {
        long pos = 0;
        while (pos < size) {
          long data = (long) c.lseek().invokeExact(st, fd, pos, SEEK_DATA);
          if (data < 0) {
            if (errno(c, st) == ENXIO) {
              break; // only a hole is left
            }
            check(c, st, data, p, "lseek SEEK_DATA");
          }
          long hole = (long) c.lseek().invokeExact(st, fd, data, SEEK_HOLE);
          check(c, st, hole, p, "lseek SEEK_HOLE");
          long end = Math.min(hole, size);
          if (end > data) {
            out.add(new long[] {data, end});
          }
          pos = Math.max(end, data + 1);
        }
      } finally {
        int ignored = (int) c.close().invokeExact(fd);
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
    return out;
  }

  private static MemorySegment cPath(Arena a, Path p) {
    return a.allocateFrom(p.toString(), StandardCharsets.UTF_8);
  }

  private static int errno(Calls c, MemorySegment state) {
    return (int) c.errno().get(state, 0L);
  }

  /** Throws for a negative result, with the errno's text (a FileSystemException names the path). */
  private static void check(Calls c, MemorySegment state, long result, Path p, String call) throws IOException {
    if (result >= 0) {
      return;
    }
    int e = errno(c, state);
    throw new HostCallException(p.toString(), call, e, describe(c, e));
  }

  private static String describe(Calls c, int errno) {
    try {
      MemorySegment s = (MemorySegment) c.strerror().invokeExact(errno);
      return s.reinterpret(256).getString(0, StandardCharsets.UTF_8).toLowerCase(java.util.Locale.ROOT);
    } catch (Throwable t) {
      return "errno " + errno;
    }
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
