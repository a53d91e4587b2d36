package io.ext4j.tools.mkfs;

import java.util.BitSet;

/**
 * Places every group's block bitmap, inode bitmap and inode table (§2 step 7; mke2fs 1.47.0's
 * {@code ext2fs_allocate_tables}) in a {@link BlockSpace} that already holds the superblock, descriptor
 * and reserved-GDT copies. Groups are placed in order, each its block bitmap, inode bitmap, then
 * table, using {@link BlockSpace#findFree} (whose {@code finish} bounds the start of a run).
 *
 * <h2>Without flex_bg</h2>
 * Each item takes the first free run inside its own group: so the bitmaps and table follow the
 * group's backup superblock, descriptors and reserved GDT blocks.
 *
 * <h2>With flex_bg (F = 2^log groups per flex group)</h2>
 * A flex group is F consecutive groups starting at a multiple of F; "last" is the flex group's last
 * group (or the filesystem's), and the items of group g may go anywhere from the flex group's start up
 * to the end of group last. The three kinds are laid out as separate arrays:
 * <ul>
 *   <li>Each item first asks for a <em>hint</em> from a previous position p: for a group that is not
 *       the first of its flex group, p is just after the same item of group g − 1; for the first one,
 *       p = 0 for the block bitmap, its block bitmap + offset for the inode bitmap, its inode bitmap
 *       + offset for the table. offset = F, except in the flex group that holds the filesystem's last
 *       group, where it is that flex group's group count (F again when that count is 1): so a partial
 *       last flex group keeps its arrays back to back.
 *   <li>The hint, with n = min(remaining groups of the flex group (g … last) × item size, bpg / 4):
 *       when p ≠ 0 and inside the filesystem, the first start in [p, p + n) of a free run of one item;
 *       else the first start of a free run of n blocks from the flex group's first block (starts up to
 *       its last block), else of one item there, else of one item from the first data block; else 0.
 *   <li>A bitmap then takes the first free block from the hint (start before the end of group last),
 *       falling back to one from its own group's first block; a table takes the first free run of
 *       its size from the hint.
 *   <li>Every group that receives a flex-placed block loses BLOCK_UNINIT ({@link #hosts()}).
 * </ul>
 * So usually: the first group of each flex group holds F block bitmaps, then F inode bitmaps, then F
 * tables back to back; arrays that do not fit run on into the next groups, skipping their backups.
 */
final class GroupTables {
  private final long[] blockBitmap;
  private final long[] inodeBitmap;
  private final long[] inodeTable;
  private final BitSet hosts = new BitSet();

  private GroupTables(int groups) {
    blockBitmap = new long[groups];
    inodeBitmap = new long[groups];
    inodeTable = new long[groups];
  }

  long blockBitmap(long g) {
    return blockBitmap[(int) g];
  }

  long inodeBitmap(long g) {
    return inodeBitmap[(int) g];
  }

  long inodeTable(long g) {
    return inodeTable[(int) g];
  }

  /** Groups that received a flex-placed bitmap or table block (they lose BLOCK_UNINIT). */
  BitSet hosts() {
    return (BitSet) hosts.clone();
  }

  /**
   * Places all groups' tables.
   *
   * @param logFlex log2 of the flex group size, 0 without flex_bg (or with a flex size of 1)
   * @throws IllegalArgumentException if some table finds no room
   */
  static GroupTables place(BlockSpace space, long groups, int blocksPerGroup, int tableBlocks, int logFlex) {
    GroupTables t = new GroupTables(Math.toIntExact(groups));
    for (long g = 0; g < groups; g++) {
      if (logFlex == 0) {
        t.placeInOwnGroup(space, g, tableBlocks);
      } else {
        t.placeFlex(space, g, groups, blocksPerGroup, tableBlocks, 1L << logFlex);
      }
    }
    return t;
  }

  private void placeInOwnGroup(BlockSpace space, long g, int tableBlocks) {
    long first = space.groupFirst(g);
    long last = space.groupLast(g);
    blockBitmap[(int) g] = take(space, space.findFree(first, last, 1), 1, g, "block bitmap", false);
    inodeBitmap[(int) g] = take(space, space.findFree(first, last, 1), 1, g, "inode bitmap", false);
    inodeTable[(int) g] = take(space, space.findFree(first, last, tableBlocks), tableBlocks, g, "inode table", false);
  }

  private void placeFlex(BlockSpace space, long g, long groups, int bpg, int tableBlocks, long flex) {
    int i = (int) g;
    long lastGroup = Math.min(g | (flex - 1), groups - 1);
    long remaining = lastGroup - g + 1;
    long limit = space.groupLast(lastGroup);
    boolean firstOfFlex = g % flex == 0;
    long offset = flex;
    if (firstOfFlex && lastGroup == groups - 1) {
      long inLast = lastGroup & (flex - 1);
      offset = inLast == 0 ? flex : inLast + 1;
    }

    long prev = firstOfFlex ? 0 : blockBitmap[i - 1] + 1;
    long start = hint(space, g, prev, remaining, 1, bpg, flex, groups);
    long at = space.findFree(start, limit, 1);
    if (at < 0) {
      at = space.findFree(space.groupFirst(g), limit, 1);
    }
    blockBitmap[i] = take(space, at, 1, g, "block bitmap", true);

    prev = firstOfFlex ? blockBitmap[i] + offset : inodeBitmap[i - 1] + 1;
    start = hint(space, g, prev, remaining, 1, bpg, flex, groups);
    at = space.findFree(start, limit, 1);
    if (at < 0) {
      at = space.findFree(space.groupFirst(g), limit, 1);
    }
    inodeBitmap[i] = take(space, at, 1, g, "inode bitmap", true);

    prev = firstOfFlex ? inodeBitmap[i] + offset : inodeTable[i - 1] + tableBlocks;
    start = hint(space, g, prev, remaining, tableBlocks, bpg, flex, groups);
    inodeTable[i] = take(space, space.findFree(start, limit, tableBlocks), tableBlocks, g, "inode table", true);
  }

  /** The flex-group search start for an item of {@code size} blocks (see the class doc). */
  private static long hint(BlockSpace space, long g, long prev, long remaining, int size, int bpg, long flex, long groups) {
    long n = Math.min(remaining * size, bpg / 4);
    if (prev != 0 && prev < space.blocksCount()) {
      long at = space.findFree(prev, prev + n, size);
      if (at >= 0) {
        return at;
      }
    }
    long flexFirst = space.groupFirst(g - g % flex);
    long flexLast = space.groupLast(Math.min(g | (flex - 1), groups - 1));
    long at = space.findFree(flexFirst, flexLast, n);
    if (at < 0) {
      at = space.findFree(flexFirst, flexLast, size);
    }
    if (at < 0) {
      at = space.findFree(0, flexLast, size);
    }
    return Math.max(at, 0);
  }

  private long take(BlockSpace space, long at, int len, long g, String what, boolean flexPlaced) {
    if (at < 0) {
      throw new IllegalArgumentException("no room for the " + what + " of group " + g + " (" + len + " blocks)");
    }
    space.markUsed(at, len);
    if (flexPlaced) {
      hosts.set(space.groupOf(at), space.groupOf(at + len - 1) + 1);
    }
    return at;
  }
}
