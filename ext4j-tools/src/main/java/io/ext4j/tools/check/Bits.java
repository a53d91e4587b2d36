package io.ext4j.tools.check;

/**
 * A fixed-size bit set in {@code long} words, bit {@code i} at bit {@code i & 63} of word
 * {@code i >>> 6} (the on-disk bitmaps' order when read as little-endian words). Not thread-safe.
 */
final class Bits {
  private final long[] words;
  private final long size;

  /** @throws IllegalArgumentException if {@code size} needs more words than an array holds */
  Bits(long size) {
    long n = (size + 63) >>> 6;
    if (size < 0 || n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a bit set of " + size + " bits is too large");
    }
    this.words = new long[(int) n];
    this.size = size;
  }

  long size() {
    return size;
  }

  boolean get(long i) {
    return i >= 0 && i < size && (words[(int) (i >>> 6)] & 1L << i) != 0;
  }

  void set(long i) {
    words[(int) (i >>> 6)] |= 1L << i;
  }

  /** Sets bits {@code [from, from + n)} (inside the set) and returns how many of them were already set. */
  long setRange(long from, long n) {
    long already = 0;
    long i = from;
    long end = from + n;
    while (i < end) {
      int w = (int) (i >>> 6);
      int lo = (int) (i & 63);
      int hi = (int) Math.min(64, lo + (end - i));
      long mask = hi == 64 ? -1L << lo : ((1L << hi) - 1) & (-1L << lo);
      already += Long.bitCount(words[w] & mask);
      words[w] |= mask;
      i += hi - lo;
    }
    return already;
  }

  /** The first set bit in {@code [from, to)}, or −1. */
  long firstSetIn(long from, long to) {
    for (long i = from; i < to; ) {
      int w = (int) (i >>> 6);
      long word = words[w] & (-1L << (i & 63));
      if (word != 0) {
        long bit = ((long) w << 6) + Long.numberOfTrailingZeros(word);
        return bit < to ? bit : -1;
      }
      i = ((long) w + 1) << 6;
    }
    return -1;
  }

  /** The 64 bits starting at bit {@code from} (bits past the end read as 0). */
  long word64(long from) {
    int w = (int) (from >>> 6);
    int shift = (int) (from & 63);
    long lo = w < words.length ? words[w] : 0;
    if (shift == 0) {
      return lo;
    }
    long hi = w + 1 < words.length ? words[w + 1] : 0;
    return lo >>> shift | hi << (64 - shift);
  }

  /** Set bits in {@code [from, to)}. */
  long count(long from, long to) {
    long n = 0;
    long i = from;
    while (i < to) {
      long word = word64(i);
      long take = Math.min(64, to - i);
      if (take < 64) {
        word &= (1L << take) - 1;
      }
      n += Long.bitCount(word);
      i += take;
    }
    return n;
  }
}
