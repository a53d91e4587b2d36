package io.ext4j.fs.format;

/**
 * A mapping of {@code len} logical blocks from {@code lblk} to physical blocks from {@code pblk};
 * an unwritten extent reads as zeros. Lengths are at most {@link #MAX_WRITTEN} (32768) blocks, or
 * {@link #MAX_UNWRITTEN} (32767) unwritten, as the on-disk length field allows.
 */
public record Extent(long lblk, long pblk, int len, boolean unwritten) {
  public static final int MAX_WRITTEN = 32768;
  public static final int MAX_UNWRITTEN = 32767;

  public Extent {
    if (len <= 0 || len > (unwritten ? MAX_UNWRITTEN : MAX_WRITTEN) || lblk < 0 || lblk + len > 1L << 32) {
      throw new IllegalArgumentException("bad extent " + lblk + "+" + len + " -> " + pblk + (unwritten ? " (unwritten)" : ""));
    }
  }

  /** One past the last logical block. */
  public long end() {
    return lblk + len;
  }

  public boolean contains(long l) {
    return l >= lblk && l < end();
  }

  /** The physical block of logical block {@code l} (which this extent contains). */
  public long physical(long l) {
    return pblk + (l - lblk);
  }

  /** The part of this extent in {@code [from, to)} (which must overlap it). */
  public Extent slice(long from, long to) {
    long a = Math.max(from, lblk);
    long b = Math.min(to, end());
    return new Extent(a, pblk + (a - lblk), (int) (b - a), unwritten);
  }

  /** Whether {@code next} continues this extent logically and physically in the same state, within the length limit. */
  public boolean mergesWith(Extent next) {
    return end() == next.lblk && pblk + len == next.pblk && unwritten == next.unwritten
        && len + next.len <= (unwritten ? MAX_UNWRITTEN : MAX_WRITTEN);
  }

  public Extent merge(Extent next) {
    return new Extent(lblk, pblk, len + next.len, unwritten);
  }

  public Extent asWritten() {
    return new Extent(lblk, pblk, len, false);
  }
}
