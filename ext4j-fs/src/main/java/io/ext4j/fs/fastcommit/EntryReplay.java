package io.ext4j.fs.fastcommit;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.DirHash;
import io.ext4j.fs.format.DxBlock;
import io.ext4j.fs.format.LittleEndian;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.meta.UnjournaledStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The CREAT, LINK and UNLINK records: directory entries removed and added as e2fsck's link and
 * unlink do — first fit in a linear directory (which grows by a block when full, as the kernel's
 * replay grows it), and in an htree directory the leaf its index names, split when full. Used by
 * one replay thread only.
 */
final class EntryReplay {
  private final ReplayStore store;
  private final ExtentReplay extents;
  private final BlockDevice dev;
  private final FsLayout lay;
  private final UnjournaledStore meta;
  private final Tx tx;
  // replay thread only:
  int added;
  int removed;
  int splits;

  EntryReplay(ReplayStore store, ExtentReplay extents) {
    this.store = store;
    this.extents = extents;
    this.dev = store.dev;
    this.lay = store.lay;
    this.meta = store.meta;
    this.tx = store.tx;
  }

  /** The directory's blocks in logical order: {lblk, pblk}. */
  List<long[]> dirBlocks(long dir, RawInode d) throws IOException {
    if (!d.isDirectory()) {
      throw new Ext4Exception(Errno.ENOTDIR, dir, null, dev.name() + ": fast commit adds or removes an entry in inode " + dir
          + ", which is not a directory");
    }
    if (!d.hasFlag(RawInode.FL_EXTENTS)) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, dir, null, dev.name() + ": fast-commit replay into directory " + dir
          + " without extents is not supported");
    }
    List<long[]> mapping = new ArrayList<>();
    extents.walk(dir, d, mapping, new ArrayList<>());
    List<long[]> out = new ArrayList<>();
    long limit = Math.ceilDiv(d.sizeBytes(), lay.blockSize());
    for (long[] e : mapping) {
      for (long i = 0; i < e[2] && e[0] + i < limit; i++) {
        if (e[0] + i != out.size()) {
          throw new Ext4Exception(Errno.EFSCORRUPTED, dir, null, dev.name() + ": directory " + dir + " has a hole at block " + out.size());
        }
        out.add(new long[] {e[0] + i, e[1] + i});
      }
    }
    return out;
  }

  void unlink(long dir, byte[] name, long ino) throws IOException {
    RawInode d = store.readInode(dir);
    int bs = lay.blockSize();
    for (long[] blk : dirBlocks(dir, d)) {
      try (Buf b = tx.read(blk[1])) {
        int off;
        try {
          off = DirBlock.find(b.array(), bs, lay.dirUsable(), name);
        } catch (DirBlock.Malformed e) {
          continue; // an index block of an htree, or damage: not where the entry is
        }
        if (off < 0 || DirBlock.inodeAt(b.array(), off) != ino) {
          continue;
        }
        tx.modify(b);
        try {
          DirBlock.remove(b.array(), bs, lay.dirUsable(), off);
        } catch (DirBlock.Malformed e) {
          throw new Ext4Exception(Errno.EFSCORRUPTED, dir, null, dev.name() + ": directory " + dir + " block " + blk[1] + ": " + e.getMessage());
        }
        sealDirBlock(dir, d, b.array());
        tx.dirty(b);
        removed++;
        return;
      }
    }
  }

  void sealDirBlock(long dir, RawInode d, byte[] block) {
    Integer seed = store.inodeSeed(dir, d);
    if (seed != null && DirBlock.hasTail(block, lay.blockSize())) {
      DirBlock.setTail(block, lay.blockSize(), seed);
    }
  }

  /** Adds the entry to directory block {@code pblk} when it has room; false when it has none. */
  private boolean insertIfRoom(long dir, RawInode d, long pblk, byte[] name, long ino, int type) throws IOException {
    try (Buf b = tx.read(pblk)) {
      try {
        if (!DirBlock.hasRoom(b.array(), lay.blockSize(), lay.dirUsable(), name.length)) {
          return false;
        }
        tx.modify(b);
        insert(b.array(), name, ino, type);
      } catch (DirBlock.Malformed e) {
        throw new Ext4Exception(Errno.EFSCORRUPTED, dir, null, dev.name() + ": directory " + dir + " block " + pblk + ": " + e.getMessage());
      }
      sealDirBlock(dir, d, b.array());
      tx.dirty(b);
      added++;
      return true;
    }
  }

  /** {@link DirBlock#insert}, but the name's padding keeps what was there, as e2fsck's link leaves it. */
  void insert(byte[] block, byte[] name, long ino, int type) throws DirBlock.Malformed {
    byte[] before = block.clone();
    int at = DirBlock.insert(block, lay.blockSize(), lay.dirUsable(), name, ino, type);
    int padFrom = at + 8 + name.length;
    System.arraycopy(before, padFrom, block, padFrom, at + DirBlock.minRecLen(name.length) - padFrom);
  }

  /**
   * Adds the entry to the leaf the htree index names for it, growing the index the way e2fsck's
   * link grows it: a full leaf is split (a new block at the directory's end takes the entries of
   * the upper hashes, the deepest index block gets an entry for it); when that index block is full
   * too, the lowest full index block is split in two, or, when every level is full, a level is
   * added under the root; then the insertion starts over. False when the index cannot grow (every
   * level full at the depth the filesystem allows).
   */
  boolean insertIndexed(long dir, RawInode d, List<long[]> blocks, byte[] name, long ino, int type) throws IOException {
    for (int attempt = 0; attempt < 2 * MAX_INDEX_LEVELS + 2; attempt++) {
      List<int[]> path = htreePath(dir, blocks, name);
      int[] deepest = path.get(path.size() - 1);
      long leaf = indexEntry(blocks, deepest)[1];
      if (insertIfRoom(dir, d, blocks.get((int) leaf)[1], name, ino, type)) {
        return true;
      }
      int level = path.size() - 1;
      while (level >= 0 && path.get(level)[3] >= path.get(level)[4]) {
        level--;
      }
      int maxFrames = lay.largeDir() ? 3 : 2; // the root and the index levels below it
      if (level < 0 && path.size() >= maxFrames) {
        return false;
      }
      if (level == path.size() - 1) {
        splitLeaf(dir, blocks, deepest, leaf);
      } else {
        growIndex(dir, d, blocks, path, level);
      }
      d = store.readInode(dir);
      blocks = dirBlocks(dir, d);
    }
    return false;
  }

  private static final int MAX_INDEX_LEVELS = 3;

  /**
   * Makes room in the index for one more entry below {@code level} (the lowest index level with
   * room, or -1 when none has): the full index block under it is split in two halves, the upper
   * half moved to a new block; at -1 the root's entries move to a new index block and the root
   * points at it alone, one level deeper.
   */
  private void growIndex(long dir, RawInode d, List<long[]> blocks, List<int[]> path, int level) throws IOException {
    int bs = lay.blockSize();
    Integer seed = store.inodeSeed(dir, d);
    long newLblk = Math.ceilDiv(d.sizeBytes(), bs);
    long at = appendDirBlock(dir, d, blocks);
    int nodeC = DxBlock.NODE_COUNT_OFFSET;
    int nodeLimit = DxBlock.limitFor(bs, nodeC, seed != null);
    int[] full = path.get(level + 1);
    try (Buf nb = tx.create(at); Buf fb = tx.read(blocks.get(full[0])[1])) {
      byte[] node = nb.array();
      byte[] from = fb.array();
      java.util.Arrays.fill(node, (byte) 0);
      DirBlock.putRecLen(node, 0, bs, bs); // the empty entry an index node hides behind
      int count = DxBlock.count(from, full[1]);
      tx.modify(fb);
      if (level < 0) {
        System.arraycopy(from, full[1], node, nodeC, 8 * count);
        DxBlock.setLimit(node, nodeC, nodeLimit);
        DxBlock.setCount(node, nodeC, count);
        DxBlock.setCount(from, full[1], 1);
        DxBlock.setEntry(from, full[1], 0, 0, newLblk);
        DxBlock.setIndirectLevels(from, DxBlock.indirectLevels(from) + 1);
      } else {
        int keep = count / 2;
        int splitHash = DxBlock.hash(from, full[1], keep);
        System.arraycopy(from, full[1] + 8 * keep, node, nodeC, 8 * (count - keep));
        DxBlock.setLimit(node, nodeC, nodeLimit);
        DxBlock.setCount(node, nodeC, count - keep);
        DxBlock.setCount(from, full[1], keep);
        int[] parent = path.get(level);
        try (Buf pb = tx.read(blocks.get(parent[0])[1])) {
          tx.modify(pb);
          DxBlock.insertEntry(pb.array(), parent[1], parent[2] + 1, splitHash, newLblk);
          sealIndex(pb.array(), parent[1], seed);
          tx.dirty(pb);
        }
      }
      sealIndex(from, full[1], seed);
      sealIndex(node, nodeC, seed);
      tx.dirty(fb);
      tx.dirty(nb);
    }
  }

  /** Sets an index block's tail checksum, dt_reserved kept as it is (the kernel leaves an old dirent tail's bytes there). */
  private static void sealIndex(byte[] b, int c, Integer seed) {
    if (seed != null) {
      int tail = c + 8 * DxBlock.limit(b, c);
      LittleEndian.putLe32(b, tail + 4, DxBlock.checksum(b, c, seed));
    }
  }

  /** {hash, block} of the chosen entry of an index frame. */
  long[] indexEntry(List<long[]> blocks, int[] frame) throws IOException {
    try (Buf b = meta.read(blocks.get(frame[0])[1])) {
      return new long[] {DxBlock.hash(b.array(), frame[1], frame[2]), DxBlock.block(b.array(), frame[1], frame[2])};
    }
  }

  /** A name's hash as the directory's index orders it: the major hash of the filesystem's hash version and seed. */
  int major(byte[] name, int off, int len) {
    return DirHash.major(DirHash.hash(lay.hashVersion(), name, off, len, lay.hashSeed()));
  }

  /**
   * Splits the full leaf {@code leaf}: its live entries sorted by hash, as many of the upper ones
   * as fill up to half a block move to a new block appended to the directory, and the deepest
   * index block gets an entry (the first moved hash, plus one when the hash continues across the
   * split) after the leaf's.
   */
  void splitLeaf(long dir, List<long[]> blocks, int[] frame, long leaf) throws IOException {
    int bs = lay.blockSize();
    List<DirBlock.Entry> live = new ArrayList<>();
    try (Buf b = meta.read(blocks.get((int) leaf)[1])) {
      try {
        for (DirBlock.Entry e : DirBlock.parse(b.array(), bs, lay.dirUsable())) {
          if (e.inode() != 0 && e.name().length > 0) {
            live.add(e);
          }
        }
      } catch (DirBlock.Malformed e) {
        throw badIndex(dir, "leaf " + leaf + ": " + e.getMessage());
      }
    }
    int[] hashes = new int[live.size()];
    Integer[] order = new Integer[live.size()];
    for (int i = 0; i < live.size(); i++) {
      byte[] n = live.get(i).name();
      hashes[i] = major(n, 0, n.length);
      order[i] = i;
    }
    java.util.Arrays.sort(order, (x, y) -> Integer.compareUnsigned(hashes[x], hashes[y])); // stable
    int moveSize = 0;
    int i = live.size() - 1;
    for (; i >= 0; i--) {
      int size = live.get(order[i]).recLen();
      if (moveSize + size / 2 > bs / 2) {
        break;
      }
      moveSize += size;
    }
    int first = i + 1;
    if (first <= 0 || first >= live.size()) {
      throw badIndex(dir, "leaf " + leaf + " cannot be split (" + live.size() + " entries)");
    }
    List<DirBlock.Entry> stay = new ArrayList<>();
    List<DirBlock.Entry> move = new ArrayList<>();
    for (int k = 0; k < live.size(); k++) {
      (k < first ? stay : move).add(live.get(order[k]));
    }
    RawInode d = store.readInode(dir);
    Integer seed = store.inodeSeed(dir, d);
    long newLblk = Math.ceilDiv(d.sizeBytes(), bs);
    long at = appendDirBlock(dir, d, blocks);
    try (Buf nb = tx.create(at)) {
      DirBlock.pack(nb.array(), bs, move, seed);
      tx.dirty(nb);
    }
    try (Buf ob = tx.read(blocks.get((int) leaf)[1])) {
      tx.modify(ob);
      DirBlock.pack(ob.array(), bs, stay, seed);
      tx.dirty(ob);
    }
    splits++;
    int firstMoved = hashes[order[first]];
    boolean continued = firstMoved == hashes[order[first - 1]];
    try (Buf ib = tx.read(blocks.get(frame[0])[1])) {
      tx.modify(ib);
      DxBlock.insertEntry(ib.array(), frame[1], frame[2] + 1, firstMoved + (continued ? 1 : 0), newLblk);
      sealIndex(ib.array(), frame[1], seed);
      tx.dirty(ib);
    }
  }

  /**
   * Maps one more block at the end of the directory (next to its last block when free, as
   * e2fsck's allocation goal), grows i_size by it and returns it; the caller fills it.
   */
  long appendDirBlock(long dir, RawInode d, List<long[]> blocks) throws IOException {
    int bs = lay.blockSize();
    long lblk = Math.ceilDiv(d.sizeBytes(), bs);
    long goal = blocks.isEmpty() ? lay.groupFirstBlock(lay.groupOfInode(dir)) : blocks.get(blocks.size() - 1)[1] + 1;
    extents.load(dir);
    long at = store.allocate(goal, dir);
    extents.modify(lblk, 1, new long[] {lblk, at, 1, 0});
    extents.mapped--; // a directory block, not a logged range
    extents.flushExtents(0);
    RawInode grown = store.readInode(dir);
    grown.sizeBytes((lblk + 1) * bs);
    store.writeInode(dir, grown);
    return at;
  }

  /**
   * The index path for {@code name}: for the root and each index node below it, {logical block,
   * count offset, chosen entry, count, limit}.
   */
  List<int[]> htreePath(long dir, List<long[]> blocks, byte[] name) throws IOException {
    int major = major(name, 0, name.length);
    List<int[]> path = new ArrayList<>();
    long lblk = 0;
    int c = DxBlock.ROOT_COUNT_OFFSET;
    int levels = 0;
    for (int level = 0; level <= levels; level++) {
      if (lblk >= blocks.size() || (level > 0 && lblk == 0)) {
        throw badIndex(dir, "an index entry points at block " + lblk + " of " + blocks.size());
      }
      try (Buf b = meta.read(blocks.get((int) lblk)[1])) {
        byte[] a = b.array();
        if (level == 0) {
          levels = DxBlock.indirectLevels(a);
          if (DxBlock.infoLength(a) != 8 || levels > 2) {
            throw badIndex(dir, "the root's info header is bad");
          }
        }
        int count = DxBlock.count(a, c);
        int limit = DxBlock.limit(a, c);
        if (count < 1 || count > limit || c + 8 * limit > lay.blockSize()) {
          throw badIndex(dir, "block " + lblk + " has " + count + " entries for a limit of " + limit);
        }
        int at = 0;
        for (int i = 1; i < count; i++) {
          if (Integer.compareUnsigned(DxBlock.hash(a, c, i), major) <= 0) {
            at = i;
          }
        }
        path.add(new int[] {(int) lblk, c, at, count, limit});
        lblk = DxBlock.block(a, c, at);
      }
      c = DxBlock.NODE_COUNT_OFFSET;
    }
    if (lblk == 0 || lblk >= blocks.size()) {
      throw badIndex(dir, "the leaf " + lblk + " is not a block of the directory");
    }
    return path;
  }

  Ext4Exception badIndex(long dir, String what) {
    return new Ext4Exception(Errno.EFSCORRUPTED, dir, null, dev.name() + ": directory " + dir + " htree: " + what);
  }

  void link(long dir, byte[] name, long ino) throws IOException {
    RawInode child = store.readInode(ino);
    int type = DirBlock.typeOfMode(child.mode());
    if (type == 0) {
      throw new Ext4Exception(Errno.EFSCORRUPTED, ino, null, dev.name() + ": fast commit links inode " + ino
          + String.format(" of unknown mode 0%o", child.mode()));
    }
    unlink(dir, name, ino);
    RawInode d = store.readInode(dir);
    int bs = lay.blockSize();
    int t = lay.fileType() ? type : 0;
    List<long[]> blocks = dirBlocks(dir, d);
    if (d.hasFlag(RawInode.FL_INDEX)) {
      if (!insertIndexed(dir, d, blocks, name, ino, t)) {
        throw new Ext4Exception(Errno.ENOSPC, dir, null, dev.name() + ": fast-commit replay cannot add \""
            + new String(name, java.nio.charset.StandardCharsets.UTF_8) + "\" to directory " + dir + ": its htree index is full");
      }
      return;
    }
    for (long[] blk : blocks) {
      if (insertIfRoom(dir, d, blk[1], name, ino, t)) {
        return;
      }
    }
    // no room: one more block at the end of the directory (e2fsck's link fails here; the kernel grows it)
    long at = appendDirBlock(dir, d, blocks);
    try (Buf b = tx.create(at)) {
      DirBlock.initEmpty(b.array(), bs, store.inodeSeed(dir, d));
      try {
        DirBlock.insert(b.array(), bs, lay.dirUsable(), name, ino, t);
      } catch (DirBlock.Malformed e) {
        throw new IllegalStateException("a fresh directory block is malformed", e);
      }
      sealDirBlock(dir, d, b.array());
      tx.dirty(b);
    }
    added++;
  }
}
