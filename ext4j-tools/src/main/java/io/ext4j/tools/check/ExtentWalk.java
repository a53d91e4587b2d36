package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.EXTENT_TREE;

import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.RawInode;
import java.io.IOException;

/**
 * Walks an inode's extent tree (the root in i_block, tree blocks of one block each), depth first
 * with an explicit stack (at most 6 levels), checking what e2fsck checks: each node's header (magic,
 * eh_max within [max − 2, max], entries, depth; via {@link ExtentNode#decode}) and tail checksum,
 * child depth, index keys equal to the child's first key (except a leading 0), every entry inside
 * the range its parent gives it, no extent reaching the next one, block numbers inside the
 * filesystem, no unwritten extents in directories; and, for the note e2fsck prints under -f, whether
 * the tree could be narrower or shorter.
 *
 * <p>Bounded: a tree block another owner (or an earlier part of this tree) claimed is not read
 * again ({@link BlockVisitor#node}), so no tree costs more reads than the filesystem has blocks.
 */
final class ExtentWalk {
  private static final long KEY_LIMIT = 1L << 32;
  private static final int LEVELS = 6;

  private final Scan s;
  private final Findings out;
  private final int perBlock;
  private final int maxDepth;
  private final byte[][] buf;

  ExtentWalk(Scan s, Findings out) {
    this.s = s;
    this.out = out;
    this.perBlock = ExtentNode.blockMax(s.bs);
    int log = 31 - Integer.numberOfLeadingZeros(perBlock);
    this.maxDepth = Math.min(LEVELS - 1, 1 + 29 / log);
    this.buf = new byte[LEVELS][];
  }

  /** One node on the stack and the key range its parent allows: [lo, hi). */
  private record Frame(ExtentNode node, int level, long lo, long hi, long block) {}

  /**
   * Walks {@code ino}'s tree, handing every in-range block to {@code v}.
   *
   * @param directory whether unwritten extents are forbidden
   */
  void walk(long ino, RawInode r, boolean directory, BlockVisitor v) throws IOException {
    byte[] ib = r.bytes();
    int at = RawInode.I_BLOCK;
    int magic = (ib[at] & 0xFF) | (ib[at + 1] & 0xFF) << 8;
    int entries0 = (ib[at + 2] & 0xFF) | (ib[at + 3] & 0xFF) << 8;
    int depth0 = (ib[at + 6] & 0xFF) | (ib[at + 7] & 0xFF) << 8;
    int max0 = ExtentNode.headerMax(ib, at);
    if (magic == ExtentNode.MAGIC && entries0 == 0 && depth0 > 0 && max0 >= ExtentNode.ROOT_MAX - 2
        && max0 <= ExtentNode.ROOT_MAX) {
      // an empty tree that claims depth: e2fsck -fn only says it could be shorter (exit 0)
      out.note(EXTENT_TREE, ino, Problem.NO_BLOCK, "the empty extent tree has depth " + depth0
          + (depth0 > maxDepth ? " (more than " + maxDepth + ")" : "") + "; it could be shorter");
      return;
    }
    ExtentNode root;
    try {
      root = ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, RawInode.I_BLOCK_SIZE, ExtentNode.ROOT_MAX, null);
    } catch (ExtentNode.Malformed e) {
      out.error(EXTENT_TREE, ino, Problem.NO_BLOCK, "the extent root in i_block is invalid: " + e.getMessage());
      return;
    }
    int rootMax = ExtentNode.headerMax(r.bytes(), RawInode.I_BLOCK);
    if (rootMax < ExtentNode.ROOT_MAX - 2) {
      out.error(EXTENT_TREE, ino, Problem.NO_BLOCK, "the extent root's eh_max is " + rootMax + ", expected "
          + (ExtentNode.ROOT_MAX - 2) + "…" + ExtentNode.ROOT_MAX);
      return;
    }
    if (root.depth() > maxDepth) {
      out.error(EXTENT_TREE, ino, Problem.NO_BLOCK, "the extent tree depth " + root.depth() + " exceeds " + maxDepth);
      return;
    }
    int seed = s.metadataCsum ? s.inodeSeed(ino, r.generation()) : 0;
    long[] entries = new long[LEVELS];
    long[] capacity = new long[LEVELS];
    entries[0] = root.count();
    capacity[0] = rootMax;
    Frame[] stack = new Frame[LEVELS];
    int[] next = new int[LEVELS];
    int top = 0;
    stack[0] = new Frame(root, 0, 0, KEY_LIMIT, Problem.NO_BLOCK);
    next[0] = 0;
    while (top >= 0) {
      Frame f = stack[top];
      int k = next[top]++;
      if (k >= f.node.count()) {
        top--;
        continue;
      }
      ExtentNode node = f.node;
      long key = node.keys()[k];
      long nextKey = k + 1 < node.count() ? node.keys()[k + 1] : f.hi;
      if (key < f.lo || key >= f.hi) {
        out.error(EXTENT_TREE, ino, f.block, "entry " + k + " at logical block " + key
            + " is outside the range [" + f.lo + ", " + f.hi + ") its parent index gives");
        continue;
      }
      if (node.depth() == 0) {
        leaf(ino, f, k, key, nextKey, directory, v);
        continue;
      }
      long child = node.values()[k];
      if (!s.inRange(child, 1)) {
        out.error(EXTENT_TREE, ino, f.block, "index entry " + k + " (logical block " + key + ") points to block "
            + child + ", outside the filesystem");
        continue;
      }
      if (!v.node(child)) {
        continue;
      }
      int level = f.level + 1;
      if (buf[level] == null) {
        buf[level] = s.newBlock();
      }
      byte[] b = buf[level];
      s.read(child, b, 1);
      ExtentNode c;
      try {
        c = ExtentNode.decode(b, 0, s.bs, perBlock, null);
      } catch (ExtentNode.Malformed e) {
        out.error(EXTENT_TREE, ino, child, "extent block at level " + level + " (logical block " + key + ") is invalid: "
            + e.getMessage());
        continue;
      }
      int max = ExtentNode.headerMax(b, 0);
      if (max < perBlock - 2) {
        out.error(EXTENT_TREE, ino, child, "extent block eh_max is " + max + ", expected " + (perBlock - 2) + "…" + perBlock);
        continue;
      }
      if (c.depth() != node.depth() - 1) {
        out.error(EXTENT_TREE, ino, child, "extent block has depth " + c.depth() + ", expected " + (node.depth() - 1));
        continue;
      }
      if (c.count() == 0) {
        out.error(EXTENT_TREE, ino, child, "extent block at level " + level + " has no entries");
        continue;
      }
      if (s.metadataCsum && !ExtentNode.checksumMatches(b, 0, s.bs, seed)) {
        out.error(EXTENT_TREE, ino, child, "extent block checksum does not match (eh_max " + max + ")");
      }
      if (c.keys()[0] != key && !(key == 0 && k == 0)) {
        out.error(EXTENT_TREE, ino, child, "index entry " + k + " at level " + f.level + " starts at logical block " + key
            + " but the block it points to starts at " + c.keys()[0]);
      }
      entries[level] += c.count();
      capacity[level] += c.count() < max ? max - 1 : max; // e2fsck's slack for a split's half-full block
      top++;
      stack[top] = new Frame(c, level, key, nextKey, child);
      next[top] = 0;
    }
    optimisable(ino, root.depth(), entries, capacity);
  }

  private void leaf(long ino, Frame f, int k, long key, long nextKey, boolean directory, BlockVisitor v) {
    ExtentNode node = f.node;
    long len = node.lengths()[k];
    long pblk = node.values()[k];
    boolean unwritten = node.unwritten()[k];
    if (key + len > nextKey) {
      out.error(EXTENT_TREE, ino, f.block, "extent " + k + " (logical " + key + ", physical " + pblk + ", length " + len
          + ") ends beyond the next extent or index at logical block " + nextKey);
      return;
    }
    if (!s.inRange(pblk, len)) {
      out.error(EXTENT_TREE, ino, f.block, "extent " + k + " (logical " + key + ", length " + len + ") maps blocks ["
          + pblk + ", " + (pblk + len) + "), outside the filesystem [" + s.lay.firstDataBlock() + ", " + s.blocks + ")");
      return;
    }
    if (directory && unwritten) {
      out.error(EXTENT_TREE, ino, f.block, "directory extent at logical block " + key + " (length " + len
          + ") is marked unwritten");
    }
    v.data(key, pblk, len, unwritten);
  }

  /**
   * e2fsck's "could be narrower / could be shorter" rule: per level the entries and the capacities
   * summed; narrower when a level's free slots exceed one block's worth, shorter when a level's
   * entries fit in the capacity of the level above. A note: e2fsck -fn prints it and exits 0.
   */
  private void optimisable(long ino, int depth, long[] entries, long[] capacity) {
    for (int level = 1; level <= depth; level++) {
      if (capacity[level] - entries[level] > perBlock) {
        out.note(EXTENT_TREE, ino, Problem.NO_BLOCK, "the extent tree could be narrower at level " + level + " ("
            + entries[level] + " entries in room for " + capacity[level] + ")");
        return;
      }
      if (entries[level] < capacity[level - 1]) {
        out.note(EXTENT_TREE, ino, Problem.NO_BLOCK, "the extent tree could be shorter at level " + level + " ("
            + entries[level] + " entries fit in the " + capacity[level - 1] + " of the level above)");
        return;
      }
    }
  }
}
