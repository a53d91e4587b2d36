package io.ext4j.fs.format;

/**
 * A run of a file's blocks: file blocks {@code [logical, logical + length)} live in filesystem blocks
 * {@code [physical, physical + length)}. {@code uninitialized} marks an extent allocated but never
 * written (reads as zeros).
 */
public record MappedRange(long logical, long physical, long length, boolean uninitialized) {
  public MappedRange {
    if (logical < 0 || physical < 0 || length <= 0) {
      throw new IllegalArgumentException("bad range " + logical + "->" + physical + " x" + length);
    }
  }

  /** True when {@code next} continues this range both logically and physically, with the same state. */
  boolean isContinuedBy(MappedRange next) {
    return logical + length == next.logical && physical + length == next.physical && uninitialized == next.uninitialized;
  }
}
