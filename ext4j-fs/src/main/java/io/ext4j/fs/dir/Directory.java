package io.ext4j.fs.dir;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.file.FileIo;
import io.ext4j.fs.file.InlineData;
import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Directory entries: lookup, insertion, removal, in-place retargeting (rename over an existing
 * name), ".." updates, emptiness, and listing with stable cookies — for linear directories and
 * htree-indexed ones ({@link HTree}); inline-data directories are read only.
 *
 * <h2>Linear directories</h2>
 * Blocks of entries searched in order. A name goes into the first entry with room (a free record,
 * or the slack after a live one); when no block has room, a one-block directory becomes indexed
 * (with dir_index), any other gets a new block. A removal gives the record's space to the entry
 * before it. Entries never move, so a listing cookie — the byte offset of the next entry — stays
 * valid while others are added and removed.
 *
 * <h2>Locks and durability</h2>
 * Callers hold the directory's {@code rw} lock: shared to look up and list, exclusive to change,
 * and a Tx for changes, which are part of it. The directory inode's own bytes (size, flags, times)
 * change in memory here; the caller writes the inode in the same Tx.
 */
public final class Directory {
  /** A found entry: where it is and what it names. */
  public record Found(long inode, int type, long lblk, int offset) {}

  /** One listed entry; {@code next} is the cookie to continue after it. */
  public record Listed(byte[] name, long inode, int type, long next) {
    public String nameString() {
      return new String(name, StandardCharsets.UTF_8);
    }
  }

  private static final byte[] DOT = {'.'};
  private static final byte[] DOTDOT = {'.', '.'};

  private final Fs fs;
  private final DirBlocks blocks;
  private final HTree htree;
  private final int bs;

  public Directory(Fs fs, FileIo io) {
    this.fs = fs;
    this.blocks = new DirBlocks(fs, io);
    this.htree = new HTree(blocks);
    this.bs = fs.lay.blockSize();
  }

  /** The file_type byte of an inode mode (0 without the filetype feature). */
  public int typeOf(int mode) {
    if (!fs.lay.fileType()) {
      return 0;
    }
    return DirBlock.typeOfMode(mode);
  }

  private boolean inline(Inode dir) {
    return (dir.flags() & RawInode.FL_INLINE_DATA) != 0;
  }

  // ============================================================ lookup

  /** The entry named {@code name}, or null. */
  public Found lookup(Inode dir, byte[] name) throws IOException {
    if (inline(dir)) {
      for (InlineEntry e : inlineEntries(dir)) {
        if (Arrays.equals(e.name(), name)) {
          return new Found(e.ino(), e.type(), -1, -1);
        }
      }
      return null;
    }
    if (blocks.indexed(dir) && !Arrays.equals(name, DOT) && !Arrays.equals(name, DOTDOT)) {
      HTree.Hit f = htree.lookup(dir, name);
      return f == null ? null : new Found(f.ino(), f.type(), f.leaf(), f.offset());
    }
    if (blocks.indexed(dir)) {
      long ino = Arrays.equals(name, DOT) ? dir.ino : htree.dotDot(dir);
      return new Found(ino, fs.lay.fileType() ? 2 : 0, 0, Arrays.equals(name, DOT) ? 0 : 12);
    }
    long n = blocks.count(dir);
    for (long lblk = 0; lblk < n; lblk++) {
      if (lblk % 32 == 0) {
        readAhead(dir, lblk, (int) Math.min(32, n - lblk));
      }
      try (Buf b = blocks.readLeaf(dir, lblk)) {
        int off = blocks.find(dir, lblk, b.array(), name);
        if (off >= 0) {
          return new Found(DirBlock.inodeAt(b.array(), off), DirBlock.typeAt(b.array(), off), lblk, off);
        }
      }
    }
    return null;
  }

  private void readAhead(Inode dir, long lblk, int count) throws IOException {
    long p = blocks.physical(dir, lblk);
    fs.meta.readAhead(p, count);
  }

  // ============================================================ changes

  /** Adds an entry (the caller checked the name is new and valid). */
  public void add(Tx tx, Inode dir, byte[] name, long ino, int type) throws IOException {
    if (inline(dir)) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, dir.ino, null, "changing an inline-data directory is not supported");
    }
    if (blocks.indexed(dir)) {
      htree.insert(tx, dir, name, ino, type);
      blocks.touch(dir);
      return;
    }
    long n = blocks.count(dir);
    for (long lblk = 0; lblk < n; lblk++) {
      try (Buf b = blocks.readLeaf(dir, lblk)) {
        byte[] a = b.array();
        int at;
        try {
          if (!DirBlock.hasRoom(a, bs, blocks.usable(), name.length)) {
            continue;
          }
          tx.modify(b);
          at = DirBlock.insert(a, bs, blocks.usable(), name, ino, type);
        } catch (DirBlock.Malformed m) {
          throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory block " + lblk + ": " + m.getMessage());
        }
        if (at >= 0) {
          blocks.sealLeaf(dir, a);
          tx.dirty(b);
          blocks.touch(dir);
          return;
        }
      }
    }
    if (n == 1 && fs.lay.dirIndex()) {
      htree.convert(tx, dir);
      htree.insert(tx, dir, name, ino, type);
      blocks.touch(dir);
      return;
    }
    long[] nb = blocks.append(tx, dir);
    try (Buf b = tx.create(nb[1])) {
      byte[] a = b.array();
      DirBlock.initEmpty(a, bs, blocks.tailSeed(dir));
      try {
        DirBlock.insert(a, bs, blocks.usable(), name, ino, type);
      } catch (DirBlock.Malformed m) {
        throw new IllegalStateException(m);
      }
      blocks.sealLeaf(dir, a);
      tx.dirty(b);
    }
    blocks.touch(dir);
  }

  /** Removes the entry named {@code name}; returns what it named. ENOENT if absent. */
  public Found remove(Tx tx, Inode dir, byte[] name) throws IOException {
    Found f = lookup(dir, name);
    if (f == null) {
      throw new Ext4Exception(Errno.ENOENT, dir.ino, display(name), "no such entry");
    }
    removeAt(tx, dir, f);
    return f;
  }

  /** Removes a found entry. */
  public void removeAt(Tx tx, Inode dir, Found f) throws IOException {
    if (f.lblk() < 0) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, dir.ino, null, "changing an inline-data directory is not supported");
    }
    try (Buf b = blocks.readLeaf(dir, f.lblk())) {
      tx.modify(b);
      try {
        DirBlock.remove(b.array(), bs, blocks.usable(), f.offset());
      } catch (DirBlock.Malformed m) {
        throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory block " + f.lblk() + ": " + m.getMessage());
      }
      blocks.sealLeaf(dir, b.array());
      tx.dirty(b);
    }
    blocks.touch(dir);
  }

  /** Points an existing entry at another inode (rename over an existing name, exchange). */
  public void retarget(Tx tx, Inode dir, Found f, long ino, int type) throws IOException {
    if (f.lblk() < 0) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, dir.ino, null, "changing an inline-data directory is not supported");
    }
    try (Buf b = blocks.readLeaf(dir, f.lblk())) {
      tx.modify(b);
      ByteBuffer le = ByteBuffer.wrap(b.array()).order(ByteOrder.LITTLE_ENDIAN);
      le.putInt(f.offset(), (int) ino);
      b.array()[f.offset() + 7] = (byte) type;
      blocks.sealLeaf(dir, b.array());
      tx.dirty(b);
    }
    blocks.touch(dir);
  }

  /** Makes {@code dir}'s ".." name {@code parent}. */
  public void setDotDot(Tx tx, Inode dir, long parent) throws IOException {
    if (blocks.indexed(dir)) {
      htree.setDotDot(tx, dir, parent);
      return;
    }
    try (Buf b = blocks.readLeaf(dir, 0)) {
      List<DirBlock.Entry> es = blocks.entries(dir, 0, b.array());
      if (es.size() < 2 || !Arrays.equals(es.get(1).name(), DOTDOT)) {
        throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory block 0 does not start with \".\" and \"..\"");
      }
      tx.modify(b);
      ByteBuffer.wrap(b.array()).order(ByteOrder.LITTLE_ENDIAN).putInt(es.get(1).offset(), (int) parent);
      blocks.sealLeaf(dir, b.array());
      tx.dirty(b);
    }
  }

  /**
   * Writes a new directory's first block ("." and "..") and sizes the inode to it. Caller has
   * installed the inode (extents flag set, empty tree) and writes it afterwards.
   */
  public void init(Tx tx, Inode dir, long parent) throws IOException {
    long[] nb = blocks.append(tx, dir);
    try (Buf b = tx.create(nb[1])) {
      DirBlock.initDots(b.array(), bs, dir.ino, parent, fs.lay.fileType(), blocks.tailSeed(dir));
      tx.dirty(b);
    }
  }

  /** Whether the directory holds nothing but "." and "..". */
  public boolean isEmpty(Inode dir) throws IOException {
    return list(dir, 0, 3).stream().noneMatch(l -> !Arrays.equals(l.name(), DOT) && !Arrays.equals(l.name(), DOTDOT));
  }

  // ============================================================ listing

  /**
   * Up to {@code max} entries from cookie {@code from} (0: the start), "." and ".." included; each
   * carries the cookie to continue after it. Linear directories: cookies are byte offsets; indexed
   * ones: "." is 0, ".." 1, the rest their name hash (stable while other names come and go).
   */
  public List<Listed> list(Inode dir, long from, int max) throws IOException {
    List<Listed> out = new ArrayList<>();
    if (inline(dir)) {
      List<InlineEntry> es = inlineEntries(dir);
      for (int i = (int) from; i < es.size() && out.size() < max; i++) {
        InlineEntry e = es.get(i);
        out.add(new Listed(e.name(), e.ino(), e.type(), i + 1));
      }
      return out;
    }
    if (blocks.indexed(dir)) {
      int t = fs.lay.fileType() ? 2 : 0;
      if (from <= 0 && out.size() < max) {
        out.add(new Listed(DOT, dir.ino, t, 1));
      }
      if (from <= 1 && out.size() < max) {
        out.add(new Listed(DOTDOT, htree.dotDot(dir), t, 2));
      }
      if (out.size() < max) {
        for (HTree.Cookied e : htree.list(dir, Math.max(from, 2), max - out.size())) {
          DirBlock.Entry d = e.entry();
          out.add(new Listed(d.name(), d.inode(), d.type(), e.cookie() + 1));
        }
      }
      return out;
    }
    long n = blocks.count(dir);
    long lblk = from / bs;
    while (lblk < n && out.size() < max) {
      if (lblk % 32 == 0) {
        readAhead(dir, lblk, (int) Math.min(32, n - lblk));
      }
      try (Buf b = blocks.readLeaf(dir, lblk)) {
        for (DirBlock.Entry e : blocks.entries(dir, lblk, b.array())) {
          long pos = lblk * bs + e.offset();
          if (pos < from || e.isFree()) {
            continue;
          }
          if (out.size() >= max) {
            break;
          }
          out.add(new Listed(e.name(), e.inode(), e.type(), pos + e.recLen()));
        }
      }
      lblk++;
    }
    return out;
  }

  /**
   * The ".." of a directory without its lock (for the rename ancestry walk, under the rename lock,
   * which keeps every ".." still). Both layouts keep ".." as the inode number at byte 12 of block 0
   * ("." takes the first 12 bytes), and a concurrent insertion there changes only its rec_len, so
   * the number read is right even while the block changes.
   */
  public long parentUnlocked(Inode dir) throws IOException {
    if (inline(dir)) {
      return inlineEntries(dir).get(1).ino();
    }
    try (Buf b = fs.meta.read(blocks.physical(dir, 0))) {
      ByteBuffer le = ByteBuffer.wrap(b.array()).order(ByteOrder.LITTLE_ENDIAN);
      if (b.array()[6] != 1 || b.array()[8] != '.' || le.getShort(4) != 12) {
        throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory block 0 does not start with \".\"");
      }
      return Integer.toUnsignedLong(le.getInt(12));
    }
  }

  /** The ".." of a directory. */
  public long parentOf(Inode dir) throws IOException {
    Found f = lookup(dir, DOTDOT);
    if (f == null) {
      throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory has no \"..\" entry");
    }
    return f.inode();
  }

  /** An entry of an inline-data directory. */
  private record InlineEntry(byte[] name, long ino, int type) {}

  /** Inline-data directory entries: ".", "..", then those in i_block and system.data. */
  private List<InlineEntry> inlineEntries(Inode dir) throws IOException {
    RawInode raw = dir.snapshot();
    byte[] all = InlineData.contents(fs, dir, raw);
    List<InlineEntry> out = new ArrayList<>();
    int t = fs.lay.fileType() ? 2 : 0;
    out.add(new InlineEntry(DOT, dir.ino, t));
    long parent = Integer.toUnsignedLong(ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
    out.add(new InlineEntry(DOTDOT, parent, t));
    addInline(dir, all, 4, 60, out);
    if (all.length > 60) {
      addInline(dir, all, 60, all.length, out);
    }
    return out;
  }

  private void addInline(Inode dir, byte[] all, int from, int to, List<InlineEntry> out) throws Ext4Exception {
    byte[] region = Arrays.copyOfRange(all, from, to);
    try {
      for (DirBlock.Entry e : DirBlock.parse(region, 1 << 20, region.length)) {
        if (!e.isFree()) {
          out.add(new InlineEntry(e.name(), e.inode(), e.type()));
        }
      }
    } catch (DirBlock.Malformed m) {
      throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "inline directory data: " + m.getMessage());
    }
  }

  private static String display(byte[] name) {
    return new String(name, StandardCharsets.UTF_8);
  }
}
