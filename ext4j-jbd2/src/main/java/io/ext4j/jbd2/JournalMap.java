package io.ext4j.jbd2;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a journal lives on its device: a map from journal (logical) block numbers
 * {@code 0..length()-1} to device blocks. One engine serves the internal journal of an ext4 image
 * (inode 8, mapped through its extents) and a standalone region through this map.
 */
public final class JournalMap {
  /** A run of journal blocks stored contiguously on the device. */
  public record Extent(long journalBlock, long deviceBlock, long length) {
    public Extent {
      if (journalBlock < 0 || deviceBlock < 0 || length <= 0) {
        throw new IllegalArgumentException("bad extent " + journalBlock + "->" + deviceBlock + " x" + length);
      }
    }
  }

  private final List<Extent> extents; // sorted, gap-free from journal block 0
  private final long length;

  private JournalMap(List<Extent> extents) {
    this.extents = List.copyOf(extents);
    long next = 0;
    for (Extent e : this.extents) {
      if (e.journalBlock() != next) {
        throw new IllegalArgumentException("journal map has a hole or overlap at journal block " + next + ": " + e);
      }
      next += e.length();
    }
    if (next == 0) {
      throw new IllegalArgumentException("empty journal map");
    }
    this.length = next;
  }

  /** A journal occupying device blocks {@code [start, start + length)}. */
  public static JournalMap contiguous(long start, long length) {
    return new JournalMap(List.of(new Extent(0, start, length)));
  }

  /** A journal mapped by extents that cover journal blocks {@code 0..n-1} without holes (any order). */
  public static JournalMap ofExtents(List<Extent> extents) {
    List<Extent> sorted = new ArrayList<>(extents);
    sorted.sort(java.util.Comparator.comparingLong(Extent::journalBlock));
    return new JournalMap(sorted);
  }

  /** Journal blocks in the map. */
  public long length() {
    return length;
  }

  public List<Extent> extents() {
    return extents;
  }

  /** The device block holding journal block {@code journalBlock}. */
  public long deviceBlock(long journalBlock) {
    return extentOf(journalBlock).map(journalBlock);
  }

  /**
   * How many journal blocks from {@code journalBlock} on (at most {@code max}) sit contiguously on
   * the device, so one device transfer can cover them.
   */
  public long contiguousRun(long journalBlock, long max) {
    Extent e = extentOf(journalBlock).extent;
    return Math.min(max, e.journalBlock() + e.length() - journalBlock);
  }

  private record Hit(Extent extent) {
    long map(long jb) {
      return extent.deviceBlock() + (jb - extent.journalBlock());
    }
  }

  private Hit extentOf(long journalBlock) {
    if (journalBlock < 0 || journalBlock >= length) {
      throw new IllegalArgumentException("journal block " + journalBlock + " outside the journal of " + length + " blocks");
    }
    int lo = 0;
    int hi = extents.size() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (extents.get(mid).journalBlock() <= journalBlock) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return new Hit(extents.get(lo));
  }

  @Override
  public String toString() {
    return "JournalMap" + extents;
  }
}
