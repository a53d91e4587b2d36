package io.ext4j.fs.dir;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.DirHash;
import io.ext4j.fs.format.DxBlock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * An indexed (htree) directory: lookup by name hash, insertion with leaf and index splits, the
 * conversion of a full one-block directory into an indexed one, and hash-ordered listing.
 *
 * <h2>Algorithms (as the kernel's; see ext4-format.md §6.3–6.4)</h2>
 * <ul>
 *   <li>Probe: from the root down, at each index block the last entry whose hash is ≤ the name's
 *       (entry 0 counts as 0); the leaf is the chosen entry's block. A name whose hash continues
 *       into the next leaf (its index hash has bit 0 set) is looked for there too.
 *   <li>Insert: into the probed leaf if it has room. Else, when the leaf's index block is full, the
 *       highest full index block below a parent with room is split in half (its upper half moves to
 *       a new block, whose first hash goes into the parent); when every level is full the root's
 *       entries move into a new node and the tree grows a level (at most 2 levels, 3 with large_dir)
 *       — then the probe starts over. With room in the index, the leaf is split: its entries sorted
 *       by hash, the upper ones (about half the bytes) move to a new block whose first hash (+1 if it
 *       continues the hash below) is inserted after the leaf's entry; the name goes to the half its
 *       hash belongs to.
 *   <li>Index blocks and leaves never merge; a removal only frees the entry's space.
 * </ul>
 * Every block an htree directory has is referenced by the index exactly once (e2fsck checks it).
 *
 * <h2>Locks and durability</h2>
 * The directory's rw lock (exclusive to change); changes in the caller's Tx.
 */
final class HTree {
  private final DirBlocks blocks;
  private final int bs;
  private final boolean csum;

  HTree(DirBlocks blocks) {
    this.blocks = blocks;
    this.bs = blocks.bs;
    this.csum = blocks.fs.lay.metadataCsum();
  }

  int maxLevels() {
    return blocks.fs.lay.largeDir() ? 2 : 1; // indirect_levels: levels of nodes below the root
  }

  long hash(byte[] name) {
    return DirHash.hash(blocks.fs.lay.hashVersion(), name, 0, name.length, blocks.fs.lay.hashSeed());
  }

  /** One index block on a probe path: its logical block, count offset, the chosen entry, and its counts. */
  record Frame(long lblk, int c, int at, int count, int limit) {}

  /** The path from the root to the leaf for {@code major}; the last frame's chosen entry names the leaf. */
  List<Frame> probe(Inode dir, int major) throws IOException {
    List<Frame> frames = new ArrayList<>();
    int levels;
    long lblk = 0;
    int c = DxBlock.ROOT_COUNT_OFFSET;
    try (Buf root = blocks.readIndex(dir, 0, c)) {
      byte[] a = root.array();
      if (DxBlock.reservedZero(a) != 0 || DxBlock.infoLength(a) != 8 || (DxBlock.unusedFlags(a) & DxBlock.FLAG_INCOMPAT) != 0) {
        throw corrupt(dir, "htree root has a bad info header");
      }
      levels = DxBlock.indirectLevels(a);
      if (levels > maxLevels()) {
        throw corrupt(dir, "htree has " + levels + " levels; at most " + maxLevels() + " allowed");
      }
      frames.add(choose(a, 0, c, major));
    }
    for (int l = 1; l <= levels; l++) {
      Frame parent = frames.getLast();
      lblk = childOf(dir, parent);
      c = DxBlock.NODE_COUNT_OFFSET;
      try (Buf node = blocks.readIndex(dir, lblk, c)) {
        frames.add(choose(node.array(), lblk, c, major));
      }
    }
    return frames;
  }

  private Frame choose(byte[] a, long lblk, int c, int major) {
    int count = DxBlock.count(a, c);
    int lo = 1;
    int hi = count - 1;
    int at = 0;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Integer.compareUnsigned(DxBlock.hash(a, c, mid), major) <= 0) {
        at = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return new Frame(lblk, c, at, count, DxBlock.limit(a, c));
  }

  /** The block named by the frame's chosen entry. */
  private long childOf(Inode dir, Frame f) throws IOException {
    try (Buf b = blocks.readIndex(dir, f.lblk(), f.c())) {
      long child = DxBlock.block(b.array(), f.c(), f.at());
      if (child == 0 || child >= blocks.count(dir)) {
        throw corrupt(dir, "htree block " + f.lblk() + " entry " + f.at() + " points at block " + child
            + " (directory has " + blocks.count(dir) + ")");
      }
      return child;
    }
  }

  /** The leaf of the path. */
  long leafOf(Inode dir, List<Frame> frames) throws IOException {
    return childOf(dir, frames.getLast());
  }

  /** The path to a leaf and the hash its index entry starts at. */
  record NextLeaf(List<Frame> path, int startHash) {}

  /** A name found: its leaf block, its entry's offset there, the inode it names and its file type. */
  record Hit(long leaf, int offset, long ino, int type) {}

  /** A live entry with the readdir cookie it sorts by. */
  record Cookied(long cookie, DirBlock.Entry entry) {}

  /** The path to the next leaf after {@code frames}', or null at the last leaf. */
  NextLeaf next(Inode dir, List<Frame> frames) throws IOException {
    int level = frames.size() - 1;
    while (level >= 0 && frames.get(level).at() + 1 >= frames.get(level).count()) {
      level--;
    }
    if (level < 0) {
      return null;
    }
    List<Frame> path = new ArrayList<>(frames.subList(0, level));
    Frame f = frames.get(level);
    Frame moved = new Frame(f.lblk(), f.c(), f.at() + 1, f.count(), f.limit());
    path.add(moved);
    int startHash;
    try (Buf b = blocks.readIndex(dir, f.lblk(), f.c())) {
      startHash = DxBlock.hash(b.array(), f.c(), moved.at());
    }
    for (int l = level + 1; l < frames.size(); l++) {
      long child = childOf(dir, path.getLast());
      try (Buf b = blocks.readIndex(dir, child, DxBlock.NODE_COUNT_OFFSET)) {
        path.add(new Frame(child, DxBlock.NODE_COUNT_OFFSET, 0, DxBlock.count(b.array(), DxBlock.NODE_COUNT_OFFSET),
            DxBlock.limit(b.array(), DxBlock.NODE_COUNT_OFFSET)));
      }
    }
    return new NextLeaf(path, startHash);
  }

  // ============================================================ lookup

  /** Finds {@code name}, or null. */
  Hit lookup(Inode dir, byte[] name) throws IOException {
    int major = DirHash.major(hash(name));
    List<Frame> frames = probe(dir, major);
    while (true) {
      long leaf = leafOf(dir, frames);
      try (Buf b = blocks.readLeaf(dir, leaf)) {
        int off = blocks.find(dir, leaf, b.array(), name);
        if (off >= 0) {
          return new Hit(leaf, off, DirBlock.inodeAt(b.array(), off), DirBlock.typeAt(b.array(), off));
        }
      }
      NextLeaf n = next(dir, frames);
      if (n == null || (n.startHash() & ~1) != major) {
        return null;
      }
      frames = n.path();
    }
  }

  // ============================================================ insert

  /** Inserts an entry (the caller checked it does not exist). */
  void insert(Tx tx, Inode dir, byte[] name, long ino, int type) throws IOException {
    long h = hash(name);
    int major = DirHash.major(h);
    for (int attempt = 0; attempt < 8; attempt++) {
      List<Frame> frames = probe(dir, major);
      long leaf = leafOf(dir, frames);
      try (Buf b = blocks.readLeaf(dir, leaf)) {
        byte[] a = b.array();
        if (hasRoom(dir, leaf, a, name.length)) {
          tx.modify(b);
          insertInto(dir, leaf, a, name, ino, type);
          blocks.sealLeaf(dir, a);
          tx.dirty(b);
          return;
        }
      }
      Frame last = frames.getLast();
      if (last.count() >= last.limit()) {
        growIndex(tx, dir, frames);
        continue; // the index changed: probe again
      }
      splitLeaf(tx, dir, frames, leaf, name, ino, type, major);
      return;
    }
    throw new IllegalStateException("htree insert into " + dir + " did not settle");
  }

  private boolean hasRoom(Inode dir, long lblk, byte[] a, int nameLen) throws Ext4Exception {
    try {
      return DirBlock.hasRoom(a, bs, blocks.usable(), nameLen);
    } catch (DirBlock.Malformed m) {
      throw corrupt(dir, "directory block " + lblk + ": " + m.getMessage());
    }
  }

  private void insertInto(Inode dir, long lblk, byte[] a, byte[] name, long ino, int type) throws Ext4Exception {
    try {
      if (DirBlock.insert(a, bs, blocks.usable(), name, ino, type) < 0) {
        throw new IllegalStateException("no room in directory block " + lblk + " after checking for it");
      }
    } catch (DirBlock.Malformed m) {
      throw corrupt(dir, "directory block " + lblk + ": " + m.getMessage());
    }
  }

  /** Makes room in the leaf's index block: splits the highest full block below a non-full parent, or grows the root. */
  private void growIndex(Tx tx, Inode dir, List<Frame> frames) throws IOException {
    int level = frames.size() - 1;
    while (level >= 0 && frames.get(level).count() >= frames.get(level).limit()) {
      level--;
    }
    if (level < 0) {
      int levels = frames.size() - 1;
      if (levels >= maxLevels()) {
        throw new Ext4Exception(Errno.ENOSPC, dir.ino, null, "directory index is full (" + (levels + 1)
            + " levels" + (blocks.fs.lay.largeDir() ? "" : "; the large_dir feature allows one more") + ")");
      }
      addLevel(tx, dir);
      return;
    }
    splitNode(tx, dir, frames.get(level), frames.get(level + 1));
  }

  /** Moves the root's entries into a new node: the tree is one level deeper. */
  private void addLevel(Tx tx, Inode dir) throws IOException {
    long[] nb = blocks.append(tx, dir);
    int rc = DxBlock.ROOT_COUNT_OFFSET;
    int nc = DxBlock.NODE_COUNT_OFFSET;
    try (Buf root = blocks.readIndex(dir, 0, rc); Buf node = tx.create(nb[1])) {
      tx.modify(root);
      byte[] r = root.array();
      byte[] n = node.array();
      DxBlock.initNode(n, bs, csum);
      int count = DxBlock.count(r, rc);
      System.arraycopy(r, rc + 4, n, nc + 4, 4 + 8 * (count - 1)); // entry 0's block, then entries 1..count-1
      DxBlock.setCount(n, nc, count);
      DxBlock.setCount(r, rc, 1);
      DxBlock.setEntry(r, rc, 0, 0, nb[0]);
      DxBlock.setIndirectLevels(r, DxBlock.indirectLevels(r) + 1);
      blocks.sealIndex(dir, n, nc);
      blocks.sealIndex(dir, r, rc);
      tx.dirty(node);
      tx.dirty(root);
    }
  }

  /** Splits full index block {@code full} (a child of {@code parent}, which has room) in half. */
  private void splitNode(Tx tx, Inode dir, Frame parent, Frame full) throws IOException {
    long[] nb = blocks.append(tx, dir);
    int c = full.c();
    int nc = DxBlock.NODE_COUNT_OFFSET;
    int moveHash;
    try (Buf old = blocks.readIndex(dir, full.lblk(), c); Buf fresh = tx.create(nb[1])) {
      tx.modify(old);
      byte[] o = old.array();
      byte[] n = fresh.array();
      DxBlock.initNode(n, bs, csum);
      int count = DxBlock.count(o, c);
      int keep = count / 2;
      moveHash = DxBlock.hash(o, c, keep);
      for (int i = keep; i < count; i++) {
        DxBlock.setEntry(n, nc, i - keep, DxBlock.hash(o, c, i), DxBlock.block(o, c, i));
      }
      DxBlock.setCount(n, nc, count - keep);
      DxBlock.setCount(o, c, keep);
      blocks.sealIndex(dir, n, nc);
      blocks.sealIndex(dir, o, c);
      tx.dirty(fresh);
      tx.dirty(old);
    }
    try (Buf p = blocks.readIndex(dir, parent.lblk(), parent.c())) {
      tx.modify(p);
      DxBlock.insertEntry(p.array(), parent.c(), parent.at() + 1, moveHash, nb[0]);
      blocks.sealIndex(dir, p.array(), parent.c());
      tx.dirty(p);
    }
  }

  /** An entry with its hash, for sorting a leaf. */
  private record Hashed(DirBlock.Entry entry, int major, int minor) {}

  private static final Comparator<Hashed> BY_HASH = (x, y) -> {
    int c = Integer.compareUnsigned(x.major, y.major);
    return c != 0 ? c : Integer.compareUnsigned(x.minor, y.minor);
  };

  /** Splits the full leaf, indexes the new half, and inserts the name into the half its hash belongs to. */
  private void splitLeaf(Tx tx, Inode dir, List<Frame> frames, long leaf, byte[] name, long ino, int type, int major)
      throws IOException {
    long[] nb = blocks.append(tx, dir);
    int hash2;
    boolean continued;
    try (Buf old = blocks.readLeaf(dir, leaf); Buf fresh = tx.create(nb[1])) {
      tx.modify(old);
      byte[] o = old.array();
      List<Hashed> live = new ArrayList<>();
      for (DirBlock.Entry e : blocks.entries(dir, leaf, o)) {
        if (!e.isFree()) {
          long h = hash(e.name());
          live.add(new Hashed(e, DirHash.major(h), DirHash.minor(h)));
        }
      }
      live.sort(BY_HASH);
      int count = live.size();
      int size = 0;
      int move = 0;
      for (int i = count - 1; i >= 0; i--) {
        int rec = DirBlock.minRecLen(live.get(i).entry().nameLen());
        if (size + rec / 2 > bs / 2) {
          break;
        }
        size += rec;
        move++;
      }
      int split = move >= count ? count / 2 : count - move;
      split = Math.max(1, Math.min(split, count - 1));
      hash2 = live.get(split).major();
      continued = live.get(split - 1).major() == hash2;
      List<DirBlock.Entry> keep = new ArrayList<>();
      List<DirBlock.Entry> moved = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        (i < split ? keep : moved).add(live.get(i).entry());
      }
      Integer seed = blocks.tailSeed(dir);
      DirBlock.pack(o, bs, keep, seed);
      DirBlock.pack(fresh.array(), bs, moved, seed);
      boolean toNew = Integer.compareUnsigned(major, hash2) >= 0;
      byte[] target = toNew ? fresh.array() : o;
      if (!hasRoom(dir, toNew ? nb[0] : leaf, target, name.length)) {
        throw new Ext4Exception(Errno.ENOSPC, dir.ino, null, "no room for the name after splitting directory block " + leaf);
      }
      insertInto(dir, toNew ? nb[0] : leaf, target, name, ino, type);
      blocks.sealLeaf(dir, o);
      blocks.sealLeaf(dir, fresh.array());
      tx.dirty(old);
      tx.dirty(fresh);
    }
    Frame f = frames.getLast();
    try (Buf p = blocks.readIndex(dir, f.lblk(), f.c())) {
      tx.modify(p);
      DxBlock.insertEntry(p.array(), f.c(), f.at() + 1, hash2 | (continued ? 1 : 0), nb[0]);
      blocks.sealIndex(dir, p.array(), f.c());
      tx.dirty(p);
    }
  }

  /**
   * Turns a full one-block linear directory into an indexed one: block 0 becomes the root (keeping
   * "." and ".."), its other entries move to a new block 1, which the root's only entry points at.
   */
  void convert(Tx tx, Inode dir) throws IOException {
    long[] nb = blocks.append(tx, dir);
    if (nb[0] != 1) {
      throw new IllegalStateException("converting a directory of " + nb[0] + " blocks to an htree");
    }
    try (Buf b0 = blocks.readLeaf(dir, 0); Buf b1 = tx.create(nb[1])) {
      tx.modify(b0);
      byte[] a = b0.array();
      List<DirBlock.Entry> all = blocks.entries(dir, 0, a);
      long self = dir.ino;
      long parent = 0;
      List<DirBlock.Entry> rest = new ArrayList<>();
      for (DirBlock.Entry e : all) {
        if (e.isFree()) {
          continue;
        }
        String n = new String(e.name(), java.nio.charset.StandardCharsets.ISO_8859_1);
        if (n.equals(".")) {
          self = e.inode();
        } else if (n.equals("..")) {
          parent = e.inode();
        } else {
          rest.add(e);
        }
      }
      DirBlock.pack(b1.array(), bs, rest, blocks.tailSeed(dir));
      tx.dirty(b1);
      int hashVersion = blocks.fs.lay.hashVersion() >= 3 ? blocks.fs.lay.hashVersion() - 3 : blocks.fs.lay.hashVersion();
      DxBlock.initRoot(a, bs, self, parent, blocks.fs.lay.fileType(), hashVersion, csum);
      DxBlock.setCount(a, DxBlock.ROOT_COUNT_OFFSET, 1);
      DxBlock.setEntry(a, DxBlock.ROOT_COUNT_OFFSET, 0, 0, nb[0]);
      blocks.sealIndex(dir, a, DxBlock.ROOT_COUNT_OFFSET);
      tx.dirty(b0);
    }
    dir.fields.lock();
    try {
      RawInode r = dir.raw();
      r.flags(r.flags() | RawInode.FL_INDEX);
    } finally {
      dir.fields.unlock();
    }
  }

  /** Sets ".." in the root (its checksum is the index's, not a dirent tail). */
  void setDotDot(Tx tx, Inode dir, long parent) throws IOException {
    try (Buf root = blocks.readIndex(dir, 0, DxBlock.ROOT_COUNT_OFFSET)) {
      tx.modify(root);
      java.nio.ByteBuffer.wrap(root.array()).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(12, (int) parent);
      blocks.sealIndex(dir, root.array(), DxBlock.ROOT_COUNT_OFFSET);
      tx.dirty(root);
    }
  }

  long dotDot(Inode dir) throws IOException {
    try (Buf root = blocks.readIndex(dir, 0, DxBlock.ROOT_COUNT_OFFSET)) {
      return Integer.toUnsignedLong(java.nio.ByteBuffer.wrap(root.array()).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(12));
    }
  }

  // ============================================================ listing

  /** Cookie of an entry: 63 bits of (major, minor), at least 2 (0 and 1 are "." and ".."). */
  static long cookie(int major, int minor) {
    long k = (Integer.toUnsignedLong(major) >>> 1) << 32 | Integer.toUnsignedLong(minor);
    return Math.max(k, 2);
  }

  /**
   * Up to {@code max} live entries (not "." and "..") whose cookies are ≥ {@code from}, in cookie
   * order. Reads leaves from the one holding {@code from}'s hash on until
   * no later leaf can hold an entry that sorts before what it has.
   */
  List<Cookied> list(Inode dir, long from, int max) throws IOException {
    int major = (int) ((from >>> 32) << 1);
    TreeMap<Long, DirBlock.Entry> found = new TreeMap<>();
    List<Frame> frames = probe(dir, major);
    while (true) {
      long leaf = leafOf(dir, frames);
      try (Buf b = blocks.readLeaf(dir, leaf)) {
        for (DirBlock.Entry e : blocks.entries(dir, leaf, b.array())) {
          if (e.isFree()) {
            continue;
          }
          long h = hash(e.name());
          long k = cookie(DirHash.major(h), DirHash.minor(h));
          if (k >= from) {
            found.put(k, e);
          }
        }
      }
      while (found.size() > max) {
        found.pollLastEntry();
      }
      NextLeaf n = next(dir, frames);
      if (n == null) {
        break;
      }
      long nextStart = cookie(n.startHash() & ~1, 0);
      if (found.size() >= max && nextStart > found.lastKey()) {
        break;
      }
      frames = n.path();
    }
    List<Cookied> out = new ArrayList<>();
    found.forEach((k, e) -> out.add(new Cookied(k, e)));
    return out;
  }

  private Ext4Exception corrupt(Inode dir, String what) {
    return Ext4Exception.corrupted(blocks.fs.lay.name(), dir.ino, what);
  }
}
