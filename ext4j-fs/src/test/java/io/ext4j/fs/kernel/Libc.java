package io.ext4j.fs.kernel;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The system calls the kernel-side tests need, through libc with the FFM API, on paths given as
 * bytes: the JDK's file API decodes names with the platform charset and reaches only {@code user.}
 * xattrs, and neither may stand between a test and the bytes the kernel stores. Linux only, 64-bit
 * (statx and statvfs have the same layout on every 64-bit Linux; dirent64 is glibc's).
 *
 * <p>Every failure throws {@link IOException} with the call, the path and errno.
 */
final class Libc {
  private static final Linker LINKER = Linker.nativeLinker();
  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

  private static final MethodHandle OPENDIR = downcall("opendir", FunctionDescriptor.of(ADDRESS, ADDRESS));
  private static final MethodHandle READDIR = downcall("readdir64", FunctionDescriptor.of(ADDRESS, ADDRESS));
  private static final MethodHandle CLOSEDIR = downcall("closedir", FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle STATX = downcall("statx",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
  private static final MethodHandle STATVFS = downcall("statvfs", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle READLINK = downcall("readlink",
      FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
  private static final MethodHandle LLISTXATTR = downcall("llistxattr",
      FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
  private static final MethodHandle LGETXATTR = downcall("lgetxattr",
      FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
  private static final MethodHandle LSETXATTR = downcall("lsetxattr",
      FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
  private static final MethodHandle LREMOVEXATTR = downcall("lremovexattr",
      FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
  private static final MethodHandle OPEN = downcall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
  private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle PREAD = downcall("pread",
      FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
  private static final MethodHandle LSEEK = downcall("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));

  static final int AT_FDCWD = -100;
  static final int AT_SYMLINK_NOFOLLOW = 0x100;
  static final int STATX_BASIC_STATS = 0x7FF;
  static final int O_RDONLY = 0;
  static final int O_NOFOLLOW = 0x20000;
  static final int O_CLOEXEC = 0x80000;
  static final int SEEK_DATA = 3;
  static final int SEEK_HOLE = 4;
  static final int ENXIO = 6;
  static final int ENODATA = 61;

  private Libc() {}

  /** A timespec: seconds (signed) and nanoseconds. */
  record Time(long sec, int nsec) {}

  /** What statx reports (the basic stats). */
  record Stat(int mode, long nlink, long uid, long gid, long ino, long size, long blocks, Time atime, Time mtime,
      Time ctime, int rdevMajor, int rdevMinor) {
    int type() {
      return mode & 0xF000;
    }
  }

  /** statvfs's numbers. */
  record StatVfs(long bsize, long blocks, long bfree, long bavail, long files, long ffree) {}

  /** The names in a directory, without "." and "..". */
  @SuppressWarnings("restricted") // tests run with --enable-native-access=ALL-UNNAMED
  static List<byte[]> list(byte[] dir) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment d = (MemorySegment) OPENDIR.invokeExact(st, path(a, dir));
      if (d.address() == 0) {
        throw fail("opendir", dir, st);
      }
      List<byte[]> out = new ArrayList<>();
      try {
        while (true) {
          ERRNO.set(st, 0L, 0);
          MemorySegment e = (MemorySegment) READDIR.invokeExact(st, d);
          if (e.address() == 0) {
            break;
          }
          // struct dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name[] at 19
          MemorySegment ent = e.reinterpret(19 + 256);
          byte[] name = ent.asSlice(19).getString(0, java.nio.charset.StandardCharsets.ISO_8859_1)
              .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
          if (!(Arrays.equals(name, DOT) || Arrays.equals(name, DOTDOT))) {
            out.add(name);
          }
        }
      } finally {
        int ignored = (int) CLOSEDIR.invokeExact(st, d);
      }
      return out;
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  private static final byte[] DOT = {'.'};
  private static final byte[] DOTDOT = {'.', '.'};

  /** statx of {@code path}, not following a final symlink. */
  static Stat lstat(byte[] path) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment buf = a.allocate(256, 8);
      int rc = (int) STATX.invokeExact(st, AT_FDCWD, path(a, path), AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, buf);
      if (rc != 0) {
        throw fail("statx", path, st);
      }
      return new Stat(
          Short.toUnsignedInt(buf.get(JAVA_SHORT, 28)),
          Integer.toUnsignedLong(buf.get(JAVA_INT, 16)),
          Integer.toUnsignedLong(buf.get(JAVA_INT, 20)),
          Integer.toUnsignedLong(buf.get(JAVA_INT, 24)),
          buf.get(JAVA_LONG, 32),
          buf.get(JAVA_LONG, 40),
          buf.get(JAVA_LONG, 48),
          time(buf, 64),
          time(buf, 112),
          time(buf, 96),
          buf.get(JAVA_INT, 128),
          buf.get(JAVA_INT, 132));
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  private static Time time(MemorySegment buf, long off) {
    return new Time(buf.get(JAVA_LONG, off), buf.get(JAVA_INT, off + 8));
  }

  static StatVfs statvfs(byte[] path) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment buf = a.allocate(112, 8);
      int rc = (int) STATVFS.invokeExact(st, path(a, path), buf);
      if (rc != 0) {
        throw fail("statvfs", path, st);
      }
      // f_bsize, f_frsize, f_blocks, f_bfree, f_bavail, f_files, f_ffree: unsigned longs
      return new StatVfs(buf.get(JAVA_LONG, 0), buf.get(JAVA_LONG, 16), buf.get(JAVA_LONG, 24), buf.get(JAVA_LONG, 32),
          buf.get(JAVA_LONG, 40), buf.get(JAVA_LONG, 48));
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  static byte[] readlink(byte[] path) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment buf = a.allocate(8192);
      long n = (long) READLINK.invokeExact(st, path(a, path), buf, 8192L);
      if (n < 0) {
        throw fail("readlink", path, st);
      }
      return buf.asSlice(0, n).toArray(JAVA_BYTE);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** The xattr names of {@code path} (not following a final symlink), as bytes. */
  static List<byte[]> listxattr(byte[] path) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment buf = a.allocate(65536);
      long n = (long) LLISTXATTR.invokeExact(st, path(a, path), buf, 65536L);
      if (n < 0) {
        throw fail("llistxattr", path, st);
      }
      byte[] all = buf.asSlice(0, n).toArray(JAVA_BYTE);
      List<byte[]> out = new ArrayList<>();
      int from = 0;
      for (int i = 0; i < all.length; i++) {
        if (all[i] == 0) {
          out.add(Arrays.copyOfRange(all, from, i));
          from = i + 1;
        }
      }
      return out;
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  static byte[] getxattr(byte[] path, byte[] name) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment buf = a.allocate(65536);
      long n = (long) LGETXATTR.invokeExact(st, path(a, path), path(a, name), buf, 65536L);
      if (n < 0) {
        throw fail("lgetxattr " + new String(name, java.nio.charset.StandardCharsets.ISO_8859_1), path, st);
      }
      return buf.asSlice(0, n).toArray(JAVA_BYTE);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  static void setxattr(byte[] path, String name, byte[] value) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment v = a.allocate(Math.max(1, value.length));
      MemorySegment.copy(value, 0, v, JAVA_BYTE, 0, value.length);
      int rc = (int) LSETXATTR.invokeExact(st, path(a, path), a.allocateFrom(name), v, (long) value.length, 0);
      if (rc != 0) {
        throw fail("lsetxattr " + name, path, st);
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  static void removexattr(byte[] path, String name) throws IOException {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      int rc = (int) LREMOVEXATTR.invokeExact(st, path(a, path), a.allocateFrom(name));
      if (rc != 0) {
        throw fail("lremovexattr " + name, path, st);
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** A file opened read-only through the kernel, read with pread; closes its descriptor. */
  static final class ReadOnlyFile implements AutoCloseable {
    private final byte[] path;
    private final int fd;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment buf = arena.allocate(1 << 20);
    private final MemorySegment state = arena.allocate(CALL_STATE);

    ReadOnlyFile(byte[] path) throws IOException {
      this.path = path;
      int f;
      try {
        f = (int) OPEN.invokeExact(state, path(arena, path), O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
      } catch (Throwable t) {
        arena.close();
        throw new AssertionError(t);
      }
      if (f < 0) {
        IOException e = fail("open", path, state);
        arena.close();
        throw e;
      }
      fd = f;
    }

    /** Reads up to {@code dst.remaining()} bytes (at most 1 MiB) at {@code pos}; 0 at end of file. */
    int read(long pos, ByteBuffer dst) throws IOException {
      long want = Math.min(dst.remaining(), buf.byteSize());
      long n;
      try {
        n = (long) PREAD.invokeExact(state, fd, buf, want, pos);
      } catch (Throwable t) {
        throw new AssertionError(t);
      }
      if (n < 0) {
        throw fail("pread at " + pos, path, state);
      }
      dst.put(buf.asSlice(0, n).asByteBuffer());
      return (int) n;
    }

    /** lseek with SEEK_DATA or SEEK_HOLE; -1 for ENXIO (no data at or past {@code off}). */
    long seek(long off, int whence) throws IOException {
      long r;
      try {
        r = (long) LSEEK.invokeExact(state, fd, off, whence);
      } catch (Throwable t) {
        throw new AssertionError(t);
      }
      if (r < 0) {
        if ((int) ERRNO.get(state, 0L) == ENXIO) {
          return -1;
        }
        throw fail("lseek " + whence + " at " + off, path, state);
      }
      return r;
    }

    @Override
    public void close() {
      try {
        int ignored = (int) CLOSE.invokeExact(state, fd);
      } catch (Throwable t) {
        throw new AssertionError(t);
      } finally {
        arena.close();
      }
    }
  }

  private static MemorySegment path(Arena a, byte[] p) {
    MemorySegment s = a.allocate(p.length + 1);
    MemorySegment.copy(p, 0, s, JAVA_BYTE, 0, p.length);
    s.set(JAVA_BYTE, p.length, (byte) 0);
    return s;
  }

  private static IOException fail(String call, byte[] path, MemorySegment state) {
    return new IOException(call + "(" + new String(path, java.nio.charset.StandardCharsets.UTF_8) + "): errno "
        + (int) ERRNO.get(state, 0L));
  }

  @SuppressWarnings("restricted") // tests run with --enable-native-access=ALL-UNNAMED
  private static MethodHandle downcall(String function, FunctionDescriptor fd) {
    return LINKER.downcallHandle(LINKER.defaultLookup().find(function).orElseThrow(
        () -> new AssertionError("libc has no " + function)), fd, Linker.Option.captureCallState("errno"));
  }
}
