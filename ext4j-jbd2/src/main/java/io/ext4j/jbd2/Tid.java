package io.ext4j.jbd2;

/**
 * Transaction ids: unsigned 32-bit counters compared modulo 2^32, as jbd2 does. Two tids compare
 * correctly while they are less than 2^31 apart.
 */
public final class Tid {
  private Tid() {}

  /** {@code a} is after {@code b}. */
  public static boolean gt(int a, int b) {
    return a - b > 0;
  }

  /** {@code a} is {@code b} or after it. */
  public static boolean geq(int a, int b) {
    return a - b >= 0;
  }

  /** Printable unsigned form. */
  public static String toString(int tid) {
    return Integer.toUnsignedString(tid);
  }
}
