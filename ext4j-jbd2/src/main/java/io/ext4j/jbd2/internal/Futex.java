package io.ext4j.jbd2.internal;

import io.ext4j.block.os.Libc;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * Linux {@code futex(2)} wait and wake on a 4-byte word in native memory, called through ext4j's
 * libc binding ({@link Libc#futex}). Used by {@link io.ext4j.jbd2.CommitWakeup#FUTEX_BROADCAST}.
 *
 * <p>Available on Linux x86-64 (system call 202) and AArch64 (98) when the module holding the
 * binding has native access enabled ({@code io.ext4j.block} on the module path, {@code ALL-UNNAMED}
 * on the class path); {@link #unavailableReason()} says why not otherwise. Native access is checked
 * before anything is linked, so a JVM without it falls back without the JDK's warning. Only private
 * futexes are used (the word is never shared with another process).
 */
final class Futex {
  private static final int FUTEX_WAIT_PRIVATE = 0 | 128;
  private static final int FUTEX_WAKE_PRIVATE = 1 | 128;

  private static final String UNAVAILABLE = unavailable(); // null when available

  private Futex() {}

  private static String unavailable() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    if (!os.startsWith("linux")) {
      return "not Linux (" + os + ")";
    }
    if (!Libc.nativeAccessEnabled()) {
      return "native access is not enabled for " + Libc.class.getModule()
          + " (--enable-native-access=ALL-UNNAMED, or the module name)";
    }
    return Libc.futexUnavailableReason(); // links syscall() alone: native access is enabled, so without a warning
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
   * result: 0, or -errno (-EAGAIN, -EINTR).
   */
  static long await(MemorySegment word, int expected) {
    return Libc.futex(word, FUTEX_WAIT_PRIVATE, expected);
  }

  /** Wakes every thread sleeping on the word. */
  static void wakeAll(MemorySegment word) {
    long ignored = Libc.futex(word, FUTEX_WAKE_PRIVATE, Integer.MAX_VALUE);
  }
}
