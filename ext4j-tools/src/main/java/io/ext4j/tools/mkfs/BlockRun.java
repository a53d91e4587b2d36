package io.ext4j.tools.mkfs;

/** {@code count} consecutive filesystem blocks from {@code start}. */
public record BlockRun(long start, long count) {
  public BlockRun {
    if (start < 0 || count < 1) {
      throw new IllegalArgumentException("block run " + start + "+" + count + " is empty or negative");
    }
  }

  /** One past the last block. */
  public long end() {
    return start + count;
  }

  public boolean contains(long block) {
    return block >= start && block < end();
  }

  @Override
  public String toString() {
    return count == 1 ? Long.toString(start) : start + "-" + (end() - 1);
  }
}
