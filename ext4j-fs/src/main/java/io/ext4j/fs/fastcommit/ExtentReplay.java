package io.ext4j.fs.fastcommit;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.meta.UnjournaledStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The ADD_RANGE and DEL_RANGE records: one inode's extent list held in memory while consecutive
 * records change it (punch the range, add the extent, merge neighbours; the bitmap follows), and
 * written back as a new extent tree when the replay moves on — the way e2fsck's replay batches
 * them. Also i_blocks as e2fsck counts it. Used by one replay thread only.
 */
final class ExtentReplay {
  static final int MAX_DEPTH = 5;

  private final ReplayStore store;
  private final BlockDevice dev;
  private final FsLayout lay;
  private final UnjournaledStore meta;
  private final Tx tx;
  // replay thread only:
  private long listIno; // inode whose extent list is held, or 0
  private List<long[]> list = new ArrayList<>(); // {lblk, pblk, len, unwritten}, sorted, of listIno
  long mapped; // blocks the records mapped
  long unmapped; // blocks they unmapped

  ExtentReplay(ReplayStore store) {
    this.store = store;
    this.dev = store.dev;
    this.lay = store.lay;
    this.meta = store.meta;
    this.tx = store.tx;
  }

  /** Data, tree and xattr blocks the inode's mapping on disk holds. */
  long countBlocks(long ino, RawInode r) throws IOException {
    if (!r.hasFlag(RawInode.FL_EXTENTS)) {
      return r.fileAcl() != 0 ? 1 : 0; // inline data or a block map the replay does not change
    }
    List<long[]> extents = new ArrayList<>();
    List<Long> tree = new ArrayList<>();
    walk(ino, r, extents, tree);
    long n = (long) tree.size() + (r.fileAcl() != 0 ? 1 : 0);
    for (long[] e : extents) {
      n += e[2];
    }
    return n;
  }

  void setBlocks(RawInode r, long fsBlocks) {
    r.blocksRaw(r.hasFlag(RawInode.FL_HUGE_FILE) ? fsBlocks : fsBlocks * lay.sectorsPerBlock());
  }

  /** Reads the extent tree of {@code ino} into {@code extents} (leaf rows) and {@code tree} (its blocks). */
  void walk(long ino, RawInode r, List<long[]> extents, List<Long> tree) throws IOException {
    byte[] root = java.util.Arrays.copyOfRange(r.bytes(), RawInode.I_BLOCK, RawInode.I_BLOCK + RawInode.I_BLOCK_SIZE);
    ExtentNode node;
    try {
      node = ExtentNode.decode(root, 0, root.length, ExtentNode.ROOT_MAX, null);
    } catch (ExtentNode.Malformed e) {
      throw new Ext4Exception(Errno.EFSCORRUPTED, ino, null, dev.name() + ": inode " + ino + " extent root: " + e.getMessage());
    }
    if (node.depth() > MAX_DEPTH) {
      throw new Ext4Exception(Errno.EFSCORRUPTED, ino, null, dev.name() + ": inode " + ino + " extent tree depth " + node.depth());
    }
    descend(ino, node, extents, tree, lay.blocksCount());
  }

  void descend(long ino, ExtentNode node, List<long[]> extents, List<Long> tree, long budget) throws IOException {
    if (node.depth() == 0) {
      extents.addAll(node.rows());
      return;
    }
    for (long[] row : node.rows()) {
      long child = row[1];
      if (child < lay.firstDataBlock() || child >= lay.blocksCount() || tree.size() >= budget) {
        throw new Ext4Exception(Errno.EFSCORRUPTED, ino, null, dev.name() + ": inode " + ino + " extent index points to block " + child);
      }
      tree.add(child);
      ExtentNode c;
      try (Buf b = meta.read(child)) {
        c = ExtentNode.decode(b.array(), 0, lay.blockSize(), ExtentNode.blockMax(lay.blockSize()), null);
      } catch (ExtentNode.Malformed e) {
        throw new Ext4Exception(Errno.EFSCORRUPTED, ino, null, dev.name() + ": inode " + ino + " extent block " + child + ": " + e.getMessage());
      }
      if (c.depth() != node.depth() - 1) {
        throw new Ext4Exception(Errno.EFSCORRUPTED, ino, null, dev.name() + ": inode " + ino + " extent block " + child
            + " has depth " + c.depth() + " under a node of depth " + node.depth());
      }
      descend(ino, c, extents, tree, budget);
    }
  }

  /** Makes {@code ino}'s extent list the one held, reading it from disk; its tree blocks are freed (rebuilt at the flush). */
  void load(long ino) throws IOException {
    if (listIno == ino) {
      return;
    }
    RawInode r = store.readInode(ino);
    List<long[]> extents = new ArrayList<>();
    List<Long> tree = new ArrayList<>();
    if (r.hasFlag(RawInode.FL_EXTENTS)) {
      walk(ino, r, extents, tree);
    }
    for (long b : tree) {
      store.setBlockBits(b, 1, false);
    }
    listIno = ino;
    list = new ArrayList<>();
    for (long[] e : extents) {
      list.add(e.clone());
    }
    list.sort(Comparator.comparingLong(e -> e[0]));
  }

  /** Punches {@code [lblk, lblk + len)} out of the held list, then adds {@code add} (or nothing). */
  void modify(long lblk, long len, long[] add) throws IOException {
    if (len <= 0) {
      return;
    }
    long end = lblk + len; // exclusive
    List<long[]> out = new ArrayList<>();
    for (long[] e : list) {
      long eEnd = e[0] + e[2];
      if (eEnd <= lblk || e[0] >= end) {
        out.add(e);
        continue;
      }
      store.setBlockBits(e[1], e[2], false);
      if (e[0] < lblk) {
        out.add(new long[] {e[0], e[1], lblk - e[0], e[3]});
      }
      if (eEnd > end) {
        long skip = end - e[0];
        out.add(new long[] {end, e[1] + skip, eEnd - end, e[3]});
      }
      long kept = Math.max(0, Math.min(eEnd, end) - Math.max(e[0], lblk));
      unmapped += kept;
    }
    if (add != null) {
      if (add[1] < lay.firstDataBlock() || add[1] + add[2] > lay.blocksCount()) {
        throw new Ext4Exception(Errno.EFSCORRUPTED, listIno, null, dev.name() + ": fast commit maps blocks [" + add[1] + ", "
            + (add[1] + add[2]) + ") of inode " + listIno + ", outside the filesystem");
      }
      out.add(add.clone());
      mapped += add[2];
    }
    out.sort(Comparator.comparingLong(e -> e[0]));
    list = merge(out);
    for (long[] e : list) {
      store.setBlockBits(e[1], e[2], true);
    }
  }

  /** Joins neighbours that are contiguous logically and physically and alike, up to the extent length limit. */
  static List<long[]> merge(List<long[]> sorted) {
    List<long[]> out = new ArrayList<>();
    for (long[] e : sorted) {
      if (!out.isEmpty()) {
        long[] last = out.get(out.size() - 1);
        long max = last[3] != 0 ? 32767 : 32768;
        if (last[0] + last[2] == e[0] && last[1] + last[2] == e[1] && last[3] == e[3]) {
          long take = Math.min(e[2], max - last[2]);
          last[2] += take;
          if (take == e[2]) {
            continue;
          }
          e = new long[] {e[0] + take, e[1] + take, e[2] - take, e[3]};
        }
      }
      out.add(e.clone());
    }
    return out;
  }

  /** Writes the held list back as {@code listIno}'s extent tree, unless {@code next} is that inode. */
  void flushExtents(long next) throws IOException {
    if (listIno == 0 || listIno == next) {
      return;
    }
    long ino = listIno;
    List<long[]> extents = list;
    listIno = 0;
    list = new ArrayList<>();
    RawInode r = store.readInode(ino);
    long treeBlocks = writeTree(ino, r, extents);
    long n = treeBlocks + (r.fileAcl() != 0 ? 1 : 0);
    for (long[] e : extents) {
      n += e[2];
    }
    r.flags(r.flags() | RawInode.FL_EXTENTS);
    setBlocks(r, n);
    store.writeInode(ino, r);
  }

  /** Builds the tree of {@code extents} into {@code r}'s i_block and new tree blocks; returns how many blocks. */
  long writeTree(long ino, RawInode r, List<long[]> extents) throws IOException {
    Integer seed = store.inodeSeed(ino, r);
    int per = ExtentNode.blockMax(lay.blockSize());
    List<ExtentNode> level = new ArrayList<>();
    List<long[]> keysAndBlocks = new ArrayList<>();
    if (extents.size() <= ExtentNode.ROOT_MAX) {
      ExtentNode.leaf(extents).encode(r.bytes(), RawInode.I_BLOCK, RawInode.I_BLOCK_SIZE, ExtentNode.ROOT_MAX, null);
      return 0;
    }
    long blocks = 0;
    // e2fsck's goal for the block its rebuild splits the full root into: just before the root's
    // first extent (else the start of the inode's flex group); the first free block from there
    long goal = extents.get(0)[1] - 1 > lay.firstDataBlock() ? extents.get(0)[1] - 1 : lay.groupFirstBlock(store.flexGroupOf(ino));
    for (int i = 0; i < extents.size(); i += per) {
      level.add(ExtentNode.leaf(extents.subList(i, Math.min(extents.size(), i + per))));
    }
    int depth = 0;
    while (true) {
      keysAndBlocks.clear();
      for (ExtentNode n : level) {
        long at = store.allocate(goal, ino);
        goal = at + 1;
        blocks++;
        try (Buf b = tx.create(at)) {
          n.encode(b.array(), 0, lay.blockSize(), per, seed);
          tx.dirty(b);
        }
        keysAndBlocks.add(new long[] {n.keys()[0], at});
      }
      depth++;
      if (keysAndBlocks.size() <= ExtentNode.ROOT_MAX) {
        // As e2fsck's tree rebuild leaves it: the root was a leaf of the first four extents until
        // the fifth moved them out, and only the index header and entries replace its bytes.
        ExtentNode.leaf(extents.subList(0, ExtentNode.ROOT_MAX))
            .encode(r.bytes(), RawInode.I_BLOCK, RawInode.I_BLOCK_SIZE, ExtentNode.ROOT_MAX, null);
        byte[] root = new byte[RawInode.I_BLOCK_SIZE];
        ExtentNode index = ExtentNode.index(depth, keysAndBlocks);
        index.encode(root, 0, root.length, ExtentNode.ROOT_MAX, null);
        System.arraycopy(root, 0, r.bytes(), RawInode.I_BLOCK, 12 + 12 * index.count());
        return blocks;
      }
      List<ExtentNode> up = new ArrayList<>();
      for (int i = 0; i < keysAndBlocks.size(); i += per) {
        up.add(ExtentNode.index(depth, new ArrayList<>(keysAndBlocks.subList(i, Math.min(keysAndBlocks.size(), i + per)))));
      }
      level = up;
      if (depth > MAX_DEPTH) {
        throw new Ext4Exception(Errno.EFBIG, ino, null, dev.name() + ": inode " + ino + " needs an extent tree deeper than " + MAX_DEPTH);
      }
    }
  }
}
