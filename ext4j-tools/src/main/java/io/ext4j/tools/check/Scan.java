package io.ext4j.tools.check;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.GroupDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The state one check builds up, pass by pass: the geometry, the group descriptors, which blocks
 * and inodes the structures use (computed, not read from the bitmaps), per-inode link and type
 * information, the directories found, and the counters of the summary. Single-threaded; each field
 * is written by the pass named in its comment and only read after it.
 *
 * <h2>Inode numbering</h2>
 * Only inode slots below each group's watermark are read (all of them without group checksums;
 * none in an INODE_UNINIT group; {@code ipg − itable_unused} otherwise), as e2fsck reads them. Those
 * slots get a dense index ({@link #dense}); per-inode arrays are sized by their number, not by
 * {@code s_inodes_count}, so a large, mostly empty filesystem costs little.
 */
final class Scan {
  /** File type codes (the directory entry's file_type values); 0 = not in use. */
  static final byte T_REG = 1;
  static final byte T_DIR = 2;
  static final byte T_CHR = 3;
  static final byte T_BLK = 4;
  static final byte T_FIFO = 5;
  static final byte T_SOCK = 6;
  static final byte T_LNK = 7;
  /** In use, but its mode is not a valid type (reported in pass 1). */
  static final byte T_BAD = 8;

  final BlockDevice dev;
  final String name;
  final Ext4Superblock sb;
  final FsLayout lay;
  final CheckOptions opt;
  final Findings out;
  final int bs;
  final long blocks;
  final int groups;
  final long ipg;
  final int isize;
  final long inodesCount;
  final long firstIno;
  /** uninit_bg or metadata_csum: UNINIT flags and itable_unused have a meaning. */
  final boolean groupCsum;
  final boolean metadataCsum;
  final int fsSeed;
  final int itableBlocks;
  /** Computed block usage, set by every pass that finds an owner. */
  final Bits used;

  GroupDescriptor[] gd; // set by GroupCheck.load
  boolean[] blockBitmapOk; // GroupCheck.load: location inside the filesystem
  boolean[] inodeBitmapOk; // GroupCheck.load
  boolean[] inodeTableOk; // GroupCheck.load
  int[] scanned; // GroupCheck.load: inode slots read per group
  long[] base; // GroupCheck.load: dense index of each group's first slot
  int denseCount; // GroupCheck.load

  char[] links; // InodeScan: i_links_count of each in-use dense inode
  int[] refs; // DirCheck/TreeCheck: names (and "." / "..") referring to each dense inode
  byte[] type; // InodeScan: T_* of each dense inode, 0 when not in use
  int[] dirOrdinal; // InodeScan: 1 + index in dirs, for directories
  final List<DirInfo> dirs = new ArrayList<>(); // InodeScan
  final Map<Long, XattrRef> xattrBlocks = new HashMap<>(); // InodeScan: shared xattr blocks by block number
  Bits shared; // InodeScan: blocks claimed twice, allocated at the first such claim
  long sharedCount; // InodeScan

  long regularFiles; // InodeScan
  long symlinks; // InodeScan
  long specialFiles; // InodeScan
  long fragmented; // InodeScan
  boolean journalReplayed; // Checker
  BitmapCheck bitmaps; // Checker, after pass 5: the computed totals

  Scan(BlockDevice dev, Ext4Superblock sb, FsLayout lay, CheckOptions opt, Findings out) {
    this.dev = dev;
    this.name = dev.name();
    this.sb = sb;
    this.lay = lay;
    this.opt = opt;
    this.out = out;
    this.bs = sb.blockSize();
    this.blocks = sb.blocksCount();
    this.groups = (int) lay.groups();
    this.ipg = sb.inodesPerGroup();
    this.isize = sb.inodeSize();
    this.inodesCount = ipg * groups;
    this.firstIno = sb.firstInode();
    this.metadataCsum = sb.hasMetadataCsum();
    this.groupCsum = metadataCsum || sb.hasGdtCsum();
    this.fsSeed = sb.checksumSeed();
    this.itableBlocks = (int) Math.ceilDiv(ipg * isize, bs);
    this.used = new Bits(blocks);
  }

  // ------------------------------------------------------------------ reading

  /** Reads {@code n} blocks from {@code block} into {@code dst[0, n·bs)}; the caller checked the range. */
  void read(long block, byte[] dst, int n) throws IOException {
    dev.read(block, ByteBuffer.wrap(dst, 0, n * bs));
  }

  byte[] newBlock() {
    return new byte[bs];
  }

  /** Whether {@code [start, start + n)} lies inside the filesystem's blocks after the first data block. */
  boolean inRange(long start, long n) {
    return n > 0 && start >= lay.firstDataBlock() && start < blocks && n <= blocks - start;
  }

  // ------------------------------------------------------------------ block ownership

  /**
   * Marks {@code [start, start + n)} as used (the range is inside the filesystem). Blocks already
   * used are recorded as shared; returns how many there were.
   */
  long claim(long start, long n) {
    if (used.count(start, start + n) == 0) {
      used.setRange(start, n);
      return 0;
    }
    long dup = 0;
    for (long b = start; b < start + n; b++) {
      if (used.get(b)) {
        if (shared == null) {
          shared = new Bits(blocks);
        }
        if (!shared.get(b)) {
          shared.set(b);
          sharedCount++;
        }
        dup++;
      } else {
        used.set(b);
      }
    }
    return dup;
  }

  // ------------------------------------------------------------------ inodes

  long groupOfInode(long ino) {
    return (ino - 1) / ipg;
  }

  /** The dense index of {@code ino}, or −1 when it is out of range or past its group's watermark. */
  int dense(long ino) {
    if (ino < 1 || ino > inodesCount) {
      return -1;
    }
    int g = (int) ((ino - 1) / ipg);
    int idx = (int) ((ino - 1) % ipg);
    return idx < scanned[g] ? (int) (base[g] + idx) : -1;
  }

  /** T_* of {@code ino}, 0 when it is not in use (or was not read). */
  byte typeOf(long ino) {
    int d = dense(ino);
    return d < 0 ? 0 : type[d];
  }

  DirInfo dirInfo(long ino) {
    int d = dense(ino);
    return d < 0 || dirOrdinal[d] == 0 ? null : dirs.get(dirOrdinal[d] - 1);
  }

  /** The inode's checksum seed (ino_seed), for the checksums of its blocks. */
  int inodeSeed(long ino, int generation) {
    return io.ext4j.fs.format.RawInode.inodeSeed(fsSeed, ino, generation);
  }

  /** Whether {@code ino} is a special inode that has no directory entry: reserved, journal, orphan file. */
  boolean isUnnamedSpecial(long ino) {
    return (ino < firstIno && ino != 2) || (ino == lay.orphanFileIno() && lay.orphanFile())
        || (ino == sb.journalInode() && sb.hasJournal());
  }

  // ------------------------------------------------------------------ per-structure records

  /** One directory: its blocks in logical order, and what pass 2 finds about its place in the tree. */
  static final class DirInfo {
    final long ino;
    final int generation;
    final boolean indexed;
    final long size;
    final long links;
    final long[] lblk;
    final long[] pblk;
    long parent; // DirCheck: the directory whose entry names this one (0: none yet)
    long dotdot; // DirCheck: what ".." says (0: not found)
    boolean reached; // TreeCheck

    DirInfo(long ino, int generation, boolean indexed, long size, long links, long[] lblk, long[] pblk) {
      this.ino = ino;
      this.generation = generation;
      this.indexed = indexed;
      this.size = size;
      this.links = links;
      this.lblk = lblk;
      this.pblk = pblk;
    }
  }

  /** A shared xattr block: its stored refcount, and the inodes found referring to it. */
  static final class XattrRef {
    final long block;
    final long firstInode;
    final boolean valid;
    final long storedRefcount;
    long refs;

    XattrRef(long block, long firstInode, boolean valid, long storedRefcount) {
      this.block = block;
      this.firstInode = firstInode;
      this.valid = valid;
      this.storedRefcount = storedRefcount;
    }
  }
}
