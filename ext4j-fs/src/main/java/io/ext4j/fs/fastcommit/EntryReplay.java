package io.ext4j.fs.fastcommit;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.core.FsLayout;
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

  /** {@link DirBlock#insert}, but the name's padding keeps what was there, as e2fsck's link leaves it. */
  void insert(byte[] block, byte[] name, long ino, int type) throws DirBlock.Malformed {
    byte[] before = block.clone();
    int at = DirBlock.insert(block, lay.blockSize(), lay.dirUsable(), name, ino, type);
    int padFrom = at + 8 + name.length;
    System.arraycopy(before, padFrom, block, padFrom, at + DirBlock.minRecLen(name.length) - padFrom);
  }

  /**
   * Adds the entry to the leaf the htree index names for it. A full leaf is split as e2fsck's
   * link splits it — a new block at the directory's end takes the entries of the upper hashes, the
   * deepest index block gets an entry for it — and the insertion tried again. False when the
   * deepest index block is full too (the replay does not split index blocks).
   */
  boolean insertIndexed(long dir, RawInode d, List<long[]> blocks, byte[] name, long ino, int type) throws IOException {
    int bs = lay.blockSize();
    for (int attempt = 0; attempt < 2; attempt++) {
      List<int[]> path = htreePath(dir, blocks, name);
      int[] deepest = path.get(path.size() - 1);
      long leaf = indexEntry(blocks, deepest)[1];
      try (Buf b = tx.read(blocks.get((int) leaf)[1])) {
        try {
          if (DirBlock.hasRoom(b.array(), bs, lay.dirUsable(), name.length)) {
            tx.modify(b);
            insert(b.array(), name, ino, type);
            sealDirBlock(dir, d, b.array());
            tx.dirty(b);
            added++;
            return true;
          }
        } catch (DirBlock.Malformed e) {
          throw badIndex(dir, "leaf " + leaf + ": " + e.getMessage());
        }
      }
      if (attempt > 0 || deepest[3] >= deepest[4]) {
        return false;
      }
      splitLeaf(dir, blocks, deepest, leaf);
      d = store.readInode(dir);
      blocks = dirBlocks(dir, d);
    }
    return false;
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
      if (seed != null) { // dt_reserved keeps what it holds (the kernel leaves an old dirent tail's bytes there)
        int tail = frame[1] + 8 * DxBlock.limit(ib.array(), frame[1]);
        LittleEndian.putLe32(ib.array(), tail + 4, DxBlock.checksum(ib.array(), frame[1], seed));
      }
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

  /**
   * Turns an indexed directory into a linear one whose full leaf the replay cannot split: the root
   * keeps "." and "..", its index and every interior node become free space (with checksum tails),
   * and the index flag is cleared. Every entry stays where it is; the kernel and e2fsck read such a
   * directory linearly (e2fsck -D would index it again).
   */
  void dropIndex(long dir, RawInode d, List<long[]> blocks) throws IOException {
    int bs = lay.blockSize();
    Integer seed = store.inodeSeed(dir, d);
    List<Long> nodes = new ArrayList<>();
    try (Buf root = meta.read(blocks.get(0)[1])) {
      byte[] a = root.array();
      int levels = DxBlock.indirectLevels(a);
      List<Long> level = new ArrayList<>();
      int c = DxBlock.ROOT_COUNT_OFFSET;
      for (int i = 0; i < DxBlock.count(a, c); i++) {
        level.add(DxBlock.block(a, c, i));
      }
      for (int l = 0; l < levels; l++) {
        List<Long> next = new ArrayList<>();
        for (long n : level) {
          if (n == 0 || n >= blocks.size() || nodes.contains(n)) {
            throw new Ext4Exception(Errno.EFSCORRUPTED, dir, null, dev.name() + ": directory " + dir + " htree node " + n + " is bad");
          }
          nodes.add(n);
          try (Buf nb = meta.read(blocks.get((int) n)[1])) {
            int nc = DxBlock.NODE_COUNT_OFFSET;
            for (int i = 0; i < Math.min(DxBlock.count(nb.array(), nc), DxBlock.limit(nb.array(), nc)); i++) {
              next.add(DxBlock.block(nb.array(), nc, i));
            }
          }
        }
        level = next;
      }
    }
    try (Buf root = tx.read(blocks.get(0)[1])) {
      tx.modify(root);
      byte[] a = root.array();
      java.util.Arrays.fill(a, 24, bs, (byte) 0);
      DirBlock.putRecLen(a, 12, lay.dirUsable() - 12, bs);
      if (seed != null) {
        DirBlock.setTail(a, bs, seed);
      }
      tx.dirty(root);
    }
    for (long n : nodes) {
      try (Buf nb = tx.read(blocks.get((int) n)[1])) {
        tx.modify(nb);
        DirBlock.initEmpty(nb.array(), bs, seed);
        tx.dirty(nb);
      }
    }
    d.flags(d.flags() & ~RawInode.FL_INDEX);
    store.writeInode(dir, d);
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
      if (insertIndexed(dir, d, blocks, name, ino, t)) {
        return;
      }
      dropIndex(dir, d, blocks);
      d = store.readInode(dir);
    }
    for (long[] blk : blocks) {
      try (Buf b = tx.read(blk[1])) {
        try {
          if (!DirBlock.hasRoom(b.array(), bs, lay.dirUsable(), name.length)) {
            continue;
          }
          tx.modify(b);
          insert(b.array(), name, ino, t);
        } catch (DirBlock.Malformed e) {
          throw new Ext4Exception(Errno.EFSCORRUPTED, dir, null, dev.name() + ": directory " + dir + " block " + blk[1] + ": " + e.getMessage());
        }
        sealDirBlock(dir, d, b.array());
        tx.dirty(b);
        added++;
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
