package io.ext4j.fuse;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/** The calls the JDK has no API for, which the POSIX comparison needs: renameat2 and lseek's SEEK_DATA/SEEK_HOLE. */
final class Syscalls {
  private static final Linker LINKER = Linker.nativeLinker();
  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final MethodHandle RENAMEAT2 = downcall("renameat2",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle OPEN = downcall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
  private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle LSEEK = downcall("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
  private static final int AT_FDCWD = -100;
  static final int RENAME_NOREPLACE = 1;
  static final int RENAME_EXCHANGE = 2;
  static final int SEEK_DATA = 3;
  static final int SEEK_HOLE = 4;

  private Syscalls() {}

  @SuppressWarnings("restricted") // tests run with --enable-native-access=ALL-UNNAMED
  private static MethodHandle downcall(String name, FunctionDescriptor fd) {
    return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, Linker.Option.captureCallState("errno"));
  }

  /** renameat2(2): 0, or -errno. */
  static int renameat2(Path from, Path to, int flags) throws Throwable {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      int r = (int) RENAMEAT2.invokeExact(st, AT_FDCWD, a.allocateFrom(from.toString()), AT_FDCWD,
          a.allocateFrom(to.toString()), flags);
      return r < 0 ? -(int) ERRNO.get(st, 0L) : r;
    }
  }

  /** lseek(2) on {@code file} opened read-only: the offset, or -errno. */
  static long lseek(Path file, long offset, int whence) throws Throwable {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      int fd = (int) OPEN.invokeExact(st, a.allocateFrom(file.toString()), 0, 0);
      if (fd < 0) {
        return -(int) ERRNO.get(st, 0L);
      }
      try {
        long r = (long) LSEEK.invokeExact(st, fd, offset, whence);
        return r < 0 ? -(int) ERRNO.get(st, 0L) : r;
      } finally {
        int ignored = (int) CLOSE.invokeExact(st, fd);
      }
    }
  }
}
