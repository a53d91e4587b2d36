package io.ext4j.fs.alloc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Bit operations on ext4 bitmaps: bit {@code i} is bit {@code i % 8} (least significant first) of
 * byte {@code i / 8}, which is bit {@code i % 64} of the little-endian long at byte {@code 8 * (i / 64)}.
 * Pure.
 */
public final class Bitmaps {
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private Bitmaps() {}

  public static boolean test(byte[] bits, int i) {
    return (bits[i >>> 3] & (1 << (i & 7))) != 0;
  }

  public static void set(byte[] bits, int i) {
    bits[i >>> 3] |= (byte) (1 << (i & 7));
  }

  public static void clear(byte[] bits, int i) {
    bits[i >>> 3] &= (byte) ~(1 << (i & 7));
  }

  /** Sets bits [from, to). */
  public static void setRange(byte[] bits, int from, int to) {
    for (int i = from; i < to; i++) {
      set(bits, i);
    }
  }

  /** Whether every bit of [from, to) is set. */
  public static boolean allSet(byte[] bits, int from, int to) {
    return nextClear(bits, from, to) >= to;
  }

  /** Whether every bit of [from, to) is clear. */
  public static boolean allClear(byte[] bits, int from, int to) {
    return nextSet(bits, from, to) >= to;
  }

  /** The first clear bit in [from, limit), or {@code limit}. */
  public static int nextClear(byte[] bits, int from, int limit) {
    return next(bits, from, limit, true);
  }

  /** The first set bit in [from, limit), or {@code limit}. */
  public static int nextSet(byte[] bits, int from, int limit) {
    return next(bits, from, limit, false);
  }

  private static int next(byte[] bits, int from, int limit, boolean findClear) {
    int i = from;
    while (i < limit) {
      if ((i & 63) == 0 && i + 64 <= limit && (i >>> 3) + 8 <= bits.length) {
        long w = (long) LONG.get(bits, i >>> 3);
        if (findClear) {
          w = ~w;
        }
        if (w == 0) {
          i += 64;
          continue;
        }
        return i + Long.numberOfTrailingZeros(w);
      }
      if (test(bits, i) != findClear) {
        return i;
      }
      i++;
    }
    return limit;
  }

  /** Number of set bits in [from, to). */
  public static int countSetRange(byte[] bits, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      if (test(bits, i)) {
        n++;
      }
    }
    return n;
  }

  /** Number of set bits in [0, count). */
  public static int countSet(byte[] bits, int count) {
    int n = 0;
    int i = 0;
    for (; i + 64 <= count; i += 64) {
      n += Long.bitCount((long) LONG.get(bits, i >>> 3));
    }
    for (; i < count; i++) {
      if (test(bits, i)) {
        n++;
      }
    }
    return n;
  }
}
