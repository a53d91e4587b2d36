package io.ext4j.tools.mkfs;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Places the blocks of the files mke2fs 1.47.0 creates, in its order, after the group tables: the
 * root directory, lost+found, the resize inode's DIND block, the journal, the orphan file. Every group
 * that receives one of these blocks loses BLOCK_UNINIT ({@link #touched()}).
 *
 * <h2>Two ways of growing a file</h2>
 * <ul>
 *   <li><em>Block by block</em> (directories, the orphan file): each block is the first free block at
 *       or after a goal ({@link BlockSpace#newBlock}) — the first from the file's goal, each next one
 *       from just after the previous. A block that continues the last extent (and keeps it within
 *       32768 blocks) extends it; any other starts a new extent.
 *   <li><em>Preallocated</em> (the journal): pieces, each the free run at the first free block at or
 *       after the goal (wrapping), at most 32768 blocks and at most what remains; the next goal is the
 *       piece's end. Each piece is one extent.
 * </ul>
 * Either way the extent tree grows the same: the inode holds four extents. Adding a fifth moves them
 * to a new leaf block, allocated — after the block or piece that needed it — at the first free block
 * at or after the first extent's start − 1 ("before the first extent"). A full leaf
 * ((bs − 12) / 12 extents) that must take one more is split likewise: a new leaf from the first free
 * block at or after the full leaf's first extent's start − 1; the full leaf's last extent moves to
 * it, then the new one joins it (so every full leaf ends one short). The inode indexes at most four
 * leaves; a deeper tree is not modelled (UnsupportedOperationException).
 *
 * <h2>Goals</h2>
 * <ul>
 *   <li>root (inode 2): one block from its inode goal — the first block of its group (group of
 *       (ino − 1) / ipg) or, with flex_bg, of its flex group's first group.
 *   <li>lost+found (inode 11): block by block from its inode goal, {@link #lostFoundBlocks(int)} blocks.
 *   <li>resize inode (7, with resize_inode): its DIND block from first data block + descriptor blocks
 *       + reserved GDT blocks + 2 + table blocks (where the non-flex layout of group 0 ends).
 *   <li>journal (8): preallocated from the first block of the group chosen by {@link #journalGroup}.
 *   <li>orphan file (12): block by block from the first data block — not from its inode goal: without
 *       flex_bg and with inode 12 outside group 0 it still starts at the filesystem's first free block.
 * </ul>
 *
 * <h2>Journal group ({@code get_midpoint_journal_block})</h2>
 * g = group of block (blocks − first data block) / 2. With flex_bg (F groups per flex group) and
 * g > F: g goes down to its flex group's first group, then forward past groups with no free block (to
 * group 0 if it runs off the end), and the candidates are g and g + 1; otherwise g − 1 (if any), g and
 * g + 1 (if any). The candidate with the most free blocks wins, the lowest on ties.
 */
final class FilePlacement {
  static final int MAX_EXTENT = 32768;
  /** Extents (or index entries) the inode's i_block holds. */
  static final int IN_INODE = 4;

  private final BlockSpace space;
  private final int leafCapacity;
  private final long groups;
  private final int inodesPerGroup;
  private final int logFlex;
  private final BitSet touched = new BitSet();

  FilePlacement(BlockSpace space, int blockSize, long groups, int inodesPerGroup, int logFlex) {
    this.space = space;
    this.leafCapacity = (blockSize - 12) / 12;
    this.groups = groups;
    this.inodesPerGroup = inodesPerGroup;
    this.logFlex = logFlex;
  }

  /** Groups that received a file block. */
  BitSet touched() {
    return (BitSet) touched.clone();
  }

  /** lost+found's blocks: grown one block at a time until ≥ 16 KiB and ≥ 2 blocks, at most 12. */
  static int lostFoundBlocks(int blockSize) {
    int blocks = 1;
    for (int i = 1; i < 12; i++) {
      if ((long) i * blockSize >= 16 * 1024 && i >= 2) {
        break;
      }
      blocks++;
    }
    return blocks;
  }

  /** The first block of inode {@code ino}'s group, or of its flex group's first group. */
  long inodeGoal(long ino) {
    long g = (ino - 1) / inodesPerGroup;
    if (logFlex > 0) {
      g &= ~((1L << logFlex) - 1);
    }
    return space.groupFirst(Math.min(g, groups - 1));
  }

  /** A file of {@code count} blocks grown block by block from {@code goal}. */
  FileBlocks blockByBlock(long count, long goal) {
    Tree tree = new Tree(count);
    for (long i = 0; i < count; i++) {
      long b = one(goal);
      tree.add(b, 1);
      goal = b + 1;
    }
    return tree.blocks();
  }

  /** One block from {@code goal} (see {@link BlockSpace#newBlock}). */
  long one(long goal) {
    long b = space.newBlock(goal);
    if (b < 0) {
      throw new IllegalArgumentException("filesystem full while placing mke2fs's files");
    }
    mark(b, 1);
    return b;
  }

  /** A preallocated file of {@code blocks} blocks from {@code goal}. */
  FileBlocks preallocate(long blocks, long goal) {
    Tree tree = new Tree(blocks);
    long remaining = blocks;
    while (remaining > 0) {
      BlockRun piece = space.newRange(goal, Math.min(MAX_EXTENT, remaining));
      if (piece == null) {
        throw new IllegalArgumentException("filesystem full after " + (blocks - remaining) + " of " + blocks + " blocks");
      }
      mark(piece.start(), piece.count());
      tree.add(piece.start(), piece.count());
      remaining -= piece.count();
      goal = piece.end();
    }
    return tree.blocks();
  }

  /** The group whose first block is the journal's goal (see the class doc). */
  long journalGroup(long firstDataBlock) {
    long mid = (space.blocksCount() - firstDataBlock) / 2;
    long g = space.groupOf(Math.max(mid, firstDataBlock));
    long flex = 1L << logFlex;
    long start;
    if (logFlex > 0 && g > flex) {
      g &= ~(flex - 1);
      while (g < groups && space.freeInGroup(g) == 0) {
        g++;
      }
      if (g == groups) {
        g = 0;
      }
      start = g;
    } else {
      start = g > 0 ? g - 1 : g;
    }
    long end = g + 1 < groups ? g + 1 : g;
    long best = start;
    for (long i = start + 1; i <= end; i++) {
      if (space.freeInGroup(i) > space.freeInGroup(best)) {
        best = i;
      }
    }
    return best;
  }

  private void mark(long start, long len) {
    space.markUsed(start, len);
    touched.set(space.groupOf(start), space.groupOf(start + len - 1) + 1);
  }

  /** A file's extents and leaf blocks as they grow (see the class doc). */
  private final class Tree {
    private final long size;
    private final List<BlockRun> extents = new ArrayList<>();
    private final List<Long> leaves = new ArrayList<>();
    private int inLastLeaf;
    private int lastLeafFirst; // index in extents of the last leaf's first extent

    Tree(long size) {
      this.size = size;
    }

    /** Appends blocks just placed (and marked); allocates a leaf if the tree needs one. */
    void add(long start, long count) {
      BlockRun last = extents.isEmpty() ? null : extents.getLast();
      if (last != null && last.end() == start && last.count() + count <= MAX_EXTENT) {
        extents.set(extents.size() - 1, new BlockRun(last.start(), last.count() + count));
        return;
      }
      extents.add(new BlockRun(start, count));
      if (leaves.isEmpty()) {
        if (extents.size() > IN_INODE) {
          leaves.add(one(extents.getFirst().start() - 1));
          inLastLeaf = extents.size();
        }
      } else if (inLastLeaf < leafCapacity) {
        inLastLeaf++;
      } else {
        if (leaves.size() == IN_INODE) {
          throw new UnsupportedOperationException("a file of " + size + " blocks needs more than " + IN_INODE
              + " extent leaves (an extent tree of depth 2)");
        }
        leaves.add(one(extents.get(lastLeafFirst).start() - 1));
        lastLeafFirst = extents.size() - 2;
        inLastLeaf = 2;
      }
    }

    FileBlocks blocks() {
      return new FileBlocks(extents, leaves);
    }
  }
}
