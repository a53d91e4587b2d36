package io.ext4j.fs.dir;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.file.FileIo;
import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.DxBlock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * A directory's blocks: mapping logical directory blocks to physical ones, reading them with their
 * checksums verified, writing them back with fresh checksums, and growing the directory by a block.
 * Callers hold the directory's {@code rw} lock (exclusive to change).
 */
final class DirBlocks {
  final Fs fs;
  final FileIo io;
  final int bs;

  DirBlocks(Fs fs, FileIo io) {
    this.fs = fs;
    this.io = io;
    this.bs = fs.lay.blockSize();
  }

  /** Number of blocks (i_size / block size). */
  long count(Inode dir) {
    return dir.size() / bs;
  }

  /** The checksum seed of the directory's blocks (ino_seed). */
  int seed(Inode dir) {
    return RawInode.inodeSeed(fs.lay.checksumSeed(), dir.ino, dir.generation());
  }

  Integer tailSeed(Inode dir) {
    return fs.lay.metadataCsum() ? seed(dir) : null;
  }

  int usable() {
    return fs.lay.dirUsable();
  }

  long physical(Inode dir, long lblk) throws IOException {
    long p;
    dir.map.readLock().lock();
    try {
      p = io.physical(dir, lblk);
    } finally {
      dir.map.readLock().unlock();
    }
    if (p == 0) {
      throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory has a hole at block " + lblk);
    }
    return p;
  }

  /** Reads a leaf (linear) block, verifying its tail checksum. */
  Buf readLeaf(Inode dir, long lblk) throws IOException {
    Buf b = fs.meta.read(physical(dir, lblk));
    if (fs.lay.metadataCsum()) {
      byte[] a = b.array();
      if (!DirBlock.hasTail(a, bs)) {
        b.close();
        throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory block " + lblk + " has no checksum tail");
      }
      int want = DirBlock.tailChecksum(a, bs, seed(dir));
      if (DirBlock.storedTailChecksum(a, bs) != want) {
        int stored = DirBlock.storedTailChecksum(a, bs);
        b.close();
        throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, String.format(
            "directory block %d checksum mismatch: stored 0x%08X, computed 0x%08X", lblk, stored, want));
      }
    }
    return b;
  }

  /** Reads an htree index block (root: countOffset 32, node: 8), verifying its checksum. */
  Buf readIndex(Inode dir, long lblk, int countOffset) throws IOException {
    Buf b = fs.meta.read(physical(dir, lblk));
    byte[] a = b.array();
    int limit = DxBlock.limit(a, countOffset);
    int count = DxBlock.count(a, countOffset);
    int want = DxBlock.limitFor(bs, countOffset, fs.lay.metadataCsum());
    if (limit != want || count > limit || count == 0) {
      b.close();
      throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "htree block " + lblk + " has count " + count + " and limit "
          + limit + " (a block here holds " + want + ")");
    }
    if (fs.lay.metadataCsum()) {
      int computed = DxBlock.checksum(a, countOffset, seed(dir));
      if (DxBlock.storedChecksum(a, countOffset) != computed) {
        int stored = DxBlock.storedChecksum(a, countOffset);
        b.close();
        throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, String.format(
            "htree block %d checksum mismatch: stored 0x%08X, computed 0x%08X", lblk, stored, computed));
      }
    }
    return b;
  }

  /** Parses a leaf block's entries. */
  List<DirBlock.Entry> entries(Inode dir, long lblk, byte[] a) throws Ext4Exception {
    try {
      return DirBlock.parse(a, bs, usable());
    } catch (DirBlock.Malformed m) {
      throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory block " + lblk + ": " + m.getMessage());
    }
  }

  /** The offset of the live entry {@code name} in a leaf block, -1 if none. */
  int find(Inode dir, long lblk, byte[] a, byte[] name) throws Ext4Exception {
    try {
      return DirBlock.find(a, bs, usable(), name);
    } catch (DirBlock.Malformed m) {
      throw Ext4Exception.corrupted(fs.lay.name(), dir.ino, "directory block " + lblk + ": " + m.getMessage());
    }
  }

  /** Recomputes a leaf block's tail checksum (with metadata_csum). */
  void sealLeaf(Inode dir, byte[] a) {
    if (fs.lay.metadataCsum()) {
      DirBlock.setTail(a, bs, seed(dir));
    }
  }

  /** Recomputes an index block's checksum (with metadata_csum). */
  void sealIndex(Inode dir, byte[] a, int countOffset) {
    if (fs.lay.metadataCsum()) {
      DxBlock.setChecksum(a, countOffset, seed(dir));
    }
  }

  /**
   * Appends a block to the directory: allocates it near the last one, maps it, grows i_size by a
   * block. Returns the new logical block (the caller fills its buffer via {@code tx.create}).
   */
  long[] append(Tx tx, Inode dir) throws IOException {
    long lblk = count(dir);
    if (lblk >= (1L << 28) - 1 || (!fs.lay.largeDir() && (lblk + 1) * bs > (2L << 30))) {
      throw new Ext4Exception(Errno.ENOSPC, dir.ino, null, "directory reached its largest size");
    }
    long goal = lblk > 0 ? physical(dir, lblk - 1) + 1 : fs.lay.groupFirstBlock(fs.lay.groupOfInode(dir.ino));
    long pblk;
    dir.map.writeLock().lock();
    try {
      pblk = fs.blocks.allocate(tx, goal, 1, 1).start();
      try {
        fs.extents.replace(tx, dir, lblk, lblk + 1, List.of(new Extent(lblk, pblk, 1, false)));
      } catch (IOException | RuntimeException e) {
        fs.blocks.free(tx, pblk, 1); // unmapped: give it back in the same Tx
        throw e;
      }
    } finally {
      dir.map.writeLock().unlock();
    }
    dir.fields.lock();
    try {
      RawInode r = dir.raw();
      r.sizeBytes((lblk + 1) * bs);
      r.blocksRaw(r.blocksRaw() + fs.lay.sectorsPerBlock());
    } finally {
      dir.fields.unlock();
    }
    return new long[] {lblk, pblk};
  }

  /** Sets the directory's mtime and ctime (an entry was added or removed). */
  void touch(Inode dir) {
    Instant now = fs.clock.now();
    dir.fields.lock();
    try {
      dir.raw().time(RawInode.Time.MTIME, now);
      dir.raw().time(RawInode.Time.CTIME, now);
    } finally {
      dir.fields.unlock();
    }
  }

  boolean indexed(Inode dir) {
    return (dir.flags() & RawInode.FL_INDEX) != 0 && fs.lay.dirIndex();
  }
}
