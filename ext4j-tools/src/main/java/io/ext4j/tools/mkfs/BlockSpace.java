package io.ext4j.tools.mkfs;

import java.util.Map;
import java.util.TreeMap;

/**
 * The block bitmap mke2fs works on while it lays a filesystem out, kept as merged used intervals, with
 * each group's free-block count. Package-private working state of {@link Geometry#of}: mutable,
 * confined to the one computation that made it.
 *
 * <h2>Searches (the three ways e2fsprogs' allocator looks for space)</h2>
 * <ul>
 *   <li>{@link #findFree(long, long, long)}: candidate starts are tried in order from {@code start}
 *       (0 means the first data block) up to, not including, {@code finish} (0 means "= start", a whole
 *       lap); a run of {@code num} blocks must fit before the end of the filesystem. Reaching the end
 *       fails when {@code finish > start}, else the scan wraps to the first data block. This is the
 *       table allocator's search ({@code ext2fs_get_free_blocks2}); note that {@code finish} bounds
 *       where a run may start, not where it ends.
 *   <li>{@link #newBlock(long)}: the first free block at or after the goal, wrapping once; a goal
 *       outside the filesystem means the first data block.
 *   <li>{@link #newRange(long, long)}: the first free block at or after the goal (wrapping), extended
 *       over the free blocks that follow it, up to a maximum length.
 * </ul>
 */
final class BlockSpace {
  private final long firstDataBlock;
  private final long blocksCount;
  private final int blocksPerGroup;
  private final TreeMap<Long, Long> used = new TreeMap<>(); // start -> end (exclusive), merged, disjoint
  private final int[] free; // per group

  BlockSpace(long firstDataBlock, long blocksCount, int blocksPerGroup, long groups) {
    this.firstDataBlock = firstDataBlock;
    this.blocksCount = blocksCount;
    this.blocksPerGroup = blocksPerGroup;
    this.free = new int[Math.toIntExact(groups)];
    for (int g = 0; g < free.length; g++) {
      free[g] = (int) (groupLast(g) - groupFirst(g) + 1);
    }
  }

  long groupFirst(long g) {
    return firstDataBlock + g * blocksPerGroup;
  }

  long groupLast(long g) {
    return Math.min(groupFirst(g) + blocksPerGroup, blocksCount) - 1;
  }

  int groupOf(long block) {
    return (int) ((block - firstDataBlock) / blocksPerGroup);
  }

  long blocksCount() {
    return blocksCount;
  }

  int freeInGroup(long g) {
    return free[(int) g];
  }

  /** Whether {@code [start, start + len)} lies inside the filesystem and is entirely free. */
  boolean isFree(long start, long len) {
    if (start < firstDataBlock || start + len > blocksCount) {
      return false;
    }
    Map.Entry<Long, Long> e = used.lowerEntry(start + len);
    return e == null || e.getValue() <= start;
  }

  /**
   * Marks {@code [start, start + len)} used, charging each block to its group's free count.
   *
   * @throws IllegalStateException if any of it is already used or outside the filesystem
   */
  void markUsed(long start, long len) {
    if (len <= 0) {
      return;
    }
    if (!isFree(start, len)) {
      throw new IllegalStateException("blocks " + start + "+" + len + " are not free");
    }
    long end = start + len;
    for (long b = start; b < end; ) {
      int g = groupOf(b);
      long stop = Math.min(end, groupLast(g) + 1);
      free[g] -= (int) (stop - b);
      b = stop;
    }
    Map.Entry<Long, Long> before = used.lowerEntry(start);
    if (before != null && before.getValue() == start) {
      start = before.getKey();
    }
    Long after = used.remove(end);
    if (after != null) {
      end = after;
    }
    used.put(start, end);
  }

  /** The end (exclusive) of the first used interval that meets {@code [x, x + num)}, or −1 if none does. */
  private long firstObstacleEnd(long x, long num) {
    Map.Entry<Long, Long> e = used.floorEntry(x);
    if (e != null && e.getValue() > x) {
      return e.getValue();
    }
    Map.Entry<Long, Long> next = used.ceilingEntry(x);
    if (next != null && next.getKey() < x + num) {
      return next.getValue();
    }
    return -1;
  }

  /** The lowest start in {@code [from, until)} of a free, in-filesystem run of {@code num}; −1 if none. */
  private long firstFit(long from, long until, long num) {
    long x = Math.max(from, firstDataBlock);
    while (x < until && x + num <= blocksCount) {
      long obstacle = firstObstacleEnd(x, num);
      if (obstacle < 0) {
        return x;
      }
      x = obstacle;
    }
    return -1;
  }

  /** The table allocator's search; see the class doc. Returns −1 when nothing fits. */
  long findFree(long start, long finish, long num) {
    long b = start == 0 ? firstDataBlock : start;
    long stop = finish == 0 ? start : finish;
    if (stop > start) {
      return firstFit(b, stop, num);
    }
    long hit = firstFit(b, Long.MAX_VALUE, num);
    if (hit >= 0) {
      return hit;
    }
    return firstFit(firstDataBlock, stop, num);
  }

  /** The first free block at or after {@code goal}, wrapping once; −1 if the filesystem is full. */
  long newBlock(long goal) {
    if (goal < firstDataBlock || goal >= blocksCount) {
      goal = firstDataBlock;
    }
    long hit = firstFit(goal, blocksCount, 1);
    return hit >= 0 ? hit : firstFit(firstDataBlock, goal, 1);
  }

  /**
   * The free run that starts at the first free block at or after {@code goal} (wrapping), at most
   * {@code maxLen} long; null if the filesystem is full. Nothing is marked.
   */
  BlockRun newRange(long goal, long maxLen) {
    long start = newBlock(goal);
    if (start < 0) {
      return null;
    }
    Map.Entry<Long, Long> next = used.higherEntry(start);
    long end = Math.min(next == null ? blocksCount : next.getKey(), blocksCount);
    return new BlockRun(start, Math.min(maxLen, end - start));
  }
}
