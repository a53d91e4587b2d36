package io.ext4j.jbd2.internal;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Linux {@code futex(2)} wait and wake on a 4-byte word in native memory, called through the
 * Foreign Function & Memory API (no native library of ext4j's own). Used by
 * {@link io.ext4j.jbd2.CommitWakeup#FUTEX_BROADCAST}.
 *
 * <p>Available on Linux x86-64 (system call 202) and AArch64 (98) when the module holding this class
 * has native access enabled ({@code io.ext4j.jbd2} on the module path, {@code ALL-UNNAMED} on the class
 * path); {@link #unavailableReason()} says why not otherwise. Only private
 * futexes are used (the word is never shared with another process).
 */
final class Futex {
  private static final int FUTEX_WAIT_PRIVATE = 0 | 128;
  private static final int FUTEX_WAKE_PRIVATE = 1 | 128;

  private static final MethodHandle SYSCALL; // long syscall(long nr, void* uaddr, int op, int val, void* timeout, void* uaddr2, int val3)
  private static final long SYS_FUTEX;
  private static final String UNAVAILABLE; // null when available

  static {
    MethodHandle handle = null;
    long nr = -1;
    String why = null;
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    if (!os.startsWith("linux")) {
      why = "not Linux (" + os + ")";
    } else if (arch.equals("amd64") || arch.equals("x86_64")) {
      nr = 202;
    } else if (arch.equals("aarch64")) {
      nr = 98;
    } else {
      why = "no futex system call number for " + arch;
    }
    if (why == null && !Futex.class.getModule().isNativeAccessEnabled()) {
      why = "native access is not enabled for " + Futex.class.getModule()
          + " (--enable-native-access=ALL-UNNAMED, or the module name)";
    }
    if (why == null) {
      try {
        handle = linkSyscall();
      } catch (RuntimeException | LinkageError e) {
        why = "cannot link syscall(): " + e;
        handle = null;
      }
    }
    SYSCALL = handle;
    SYS_FUTEX = nr;
    UNAVAILABLE = why;
  }

  private Futex() {}

  /** A downcall handle for libc's variadic {@code syscall()}; called only once native access is known enabled. */
  @SuppressWarnings("restricted") // the one restricted call: the native access check above guards it
  private static MethodHandle linkSyscall() {
    Linker linker = Linker.nativeLinker();
    MemorySegment syscall = linker.defaultLookup().find("syscall")
        .orElseThrow(() -> new IllegalStateException("libc has no syscall()"));
    return linker.downcallHandle(syscall,
        FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
        Linker.Option.firstVariadicArg(1));
  }

  static boolean available() {
    return UNAVAILABLE == null;
  }

  /** Why {@link #available()} is false; null when it is true. */
  static String unavailableReason() {
    return UNAVAILABLE;
  }

  /**
   * Sleeps while the word still holds {@code expected}: returns when woken, at once if the word
   * differs (the kernel compares and sleeps atomically, so a wake after the change is never lost),
   * or early on a signal. Callers re-check their condition in a loop. Returns the system call's
   * result (0, or -1 for EAGAIN/EINTR).
   */
  static long await(MemorySegment word, int expected) {
    try {
      return (long) SYSCALL.invokeExact(SYS_FUTEX, word, FUTEX_WAIT_PRIVATE, expected, MemorySegment.NULL,
          MemorySegment.NULL, 0);
    } catch (Throwable t) {
      throw new IllegalStateException("futex wait failed", t);
    }
  }

  /** Wakes every thread sleeping on the word. */
  static void wakeAll(MemorySegment word) {
    try {
      long ignored = (long) SYSCALL.invokeExact(SYS_FUTEX, word, FUTEX_WAKE_PRIVATE, Integer.MAX_VALUE,
          MemorySegment.NULL, MemorySegment.NULL, 0);
    } catch (Throwable t) {
      throw new IllegalStateException("futex wake failed", t);
    }
  }
}
