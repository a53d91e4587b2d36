package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.INODE;
import static io.ext4j.tools.check.Problem.NO_BLOCK;

import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.RawInode;
import java.io.IOException;

/**
 * Pass 1 for one in-use inode: its fields (dtime, i_extra_isize, times, i_faddr, mode, flags for
 * its type), its block map walked and every block claimed ({@link ExtentWalk},
 * {@link IndirectWalk}, {@link Claims}), the size rules of its type, symlink and special-file
 * rules, its extended attributes, and i_blocks recounted exactly (data, tree and xattr blocks).
 * Directories are recorded with their blocks for pass 2.
 */
final class InodeCheck {
  private static final int FL_IMAGIC = 0x2000;
  static final int FL_ENCRYPT = 0x800;
  static final int FL_CASEFOLD = 0x40000000;
  private static final int FL_IMMUTABLE_OR_APPEND = RawInode.FL_IMMUTABLE | RawInode.FL_APPEND;

  private final Scan s;
  private final Claims claims;
  private final ExtentWalk extents;
  private final IndirectWalk indirect;
  private final boolean extentFs;
  private final boolean hugeFile;

  InodeCheck(Scan s) {
    this.s = s;
    this.claims = new Claims(s);
    this.extents = new ExtentWalk(s, s.out);
    this.indirect = new IndirectWalk(s, s.out);
    this.extentFs = s.sb.hasIncompat(Ext4Superblock.INCOMPAT_EXTENTS);
    this.hugeFile = s.sb.hasRoCompat(Ext4Superblock.RO_COMPAT_HUGE_FILE);
  }

  Claims claims() {
    return claims;
  }

  static byte typeOf(int mode) {
    return switch (mode & RawInode.S_IFMT) {
      case RawInode.S_IFREG -> Scan.T_REG;
      case RawInode.S_IFDIR -> Scan.T_DIR;
      case RawInode.S_IFCHR -> Scan.T_CHR;
      case RawInode.S_IFBLK -> Scan.T_BLK;
      case RawInode.S_IFIFO -> Scan.T_FIFO;
      case RawInode.S_IFSOCK -> Scan.T_SOCK;
      case RawInode.S_IFLNK -> Scan.T_LNK;
      default -> Scan.T_BAD;
    };
  }

  /** Checks an in-use inode and records it; {@code collect} also keeps its blocks (the orphan file). */
  void inUse(long ino, RawInode r, boolean collect) throws IOException {
    int d = s.dense(ino);
    byte t = typeOf(r.mode());
    s.links[d] = (char) r.links();
    s.type[d] = t;
    if (r.dtime() != 0 && ino >= s.firstIno) {
      s.out.error(INODE, ino, NO_BLOCK, "is in use (links " + r.links() + ") but has dtime " + r.dtime()
          + (r.dtime() < s.inodesCount ? " (it looks like a link of an orphan list)" : ""));
    }
    boolean extraOk = extraIsize(ino, r);
    if (extraOk) {
      times(ino, r);
    }
    if (u32(r, 0x70) != 0) {
      s.out.error(INODE, ino, NO_BLOCK, "i_faddr is " + u32(r, 0x70) + ", should be 0");
    }
    flags(ino, r, t);
    claims.reset(collect || t == Scan.T_DIR || t == Scan.T_LNK);
    switch (t) {
      case Scan.T_DIR, Scan.T_REG -> walk(ino, r, t == Scan.T_DIR);
      case Scan.T_LNK -> symlink(ino, r);
      case Scan.T_BAD -> s.out.error(INODE, ino, NO_BLOCK, String.format("has an invalid mode 0%o (file type 0%o)",
          r.mode(), r.mode() & RawInode.S_IFMT));
      default -> special(ino, r, t);
    }
    if (extraOk) {
      XattrCheck.inInode(s, ino, r);
    }
    long xattr = XattrCheck.block(s, ino, r);
    iBlocks(ino, r, claims.blocks + xattr);
    if (claims.fragmented && claims.blocks < s.sb.blocksPerGroup()) {
      s.fragmented++; // e2fsck's summary: a file larger than a group cannot be contiguous, so it does not count
    }
    switch (t) {
      case Scan.T_DIR -> directory(ino, r, d);
      case Scan.T_REG -> {
        s.regularFiles++;
        regularSize(ino, r);
      }
      case Scan.T_LNK -> s.symlinks++;
      case Scan.T_BAD -> { }
      default -> s.specialFiles++;
    }
  }

  /** Walks the block map of a file, directory or slow symlink, as its flags say. */
  void walk(long ino, RawInode r, boolean directory) throws IOException {
    if (r.hasFlag(RawInode.FL_EXTENTS)) {
      extents.walk(ino, r, directory, claims);
    } else {
      if (extentFs && looksLikeExtentRoot(r)) {
        s.out.error(INODE, ino, NO_BLOCK, "EXTENTS_FL is clear but i_block holds an extent tree root");
      }
      claims.nodesInSequence(true);
      indirect.walk(ino, r, claims);
    }
  }

  private static boolean looksLikeExtentRoot(RawInode r) {
    try {
      ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, RawInode.I_BLOCK_SIZE, ExtentNode.ROOT_MAX, null);
      return true;
    } catch (ExtentNode.Malformed e) {
      return false;
    }
  }

  private boolean extraIsize(long ino, RawInode r) {
    if (s.isize <= 128) {
      return false;
    }
    int v = r.extraIsize();
    if (v % 4 != 0 || v > s.isize - 128) {
      s.out.error(INODE, ino, NO_BLOCK, "i_extra_isize " + v + " is invalid (a multiple of 4 up to " + (s.isize - 128) + ")");
      return false;
    }
    return true;
  }

  /** e2fsck's "timestamps beyond 2310 are likely pre-1970": a negative base second with epoch bits 3. */
  private void times(long ino, RawInode r) {
    int[][] fields = {{0x0C, 0x84}, {0x10, 0x88}, {0x08, 0x8C}, {0x90, 0x94}};
    for (int[] f : fields) {
      if (r.hasExtraField(f[1], 4)) { // the _extra field (crtime's implies its base)
        int base = (int) u32(r, f[0]);
        int extra = (int) u32(r, f[1]);
        if (base < 0 && (extra & 3) == 3) {
          s.out.error(INODE, ino, NO_BLOCK, "a timestamp (byte 0x" + Integer.toHexString(f[0])
              + ") is beyond 2310-04-04, likely a pre-1970 time in the old encoding");
          return;
        }
      }
    }
  }

  private void flags(long ino, RawInode r, byte t) {
    int fl = r.flags();
    if ((fl & RawInode.FL_EXTENTS) != 0 && !extentFs) {
      s.out.error(INODE, ino, NO_BLOCK, "has EXTENTS_FL set on a filesystem without the extent feature");
    }
    if ((fl & RawInode.FL_INDEX) != 0) {
      if (t != Scan.T_DIR) {
        s.out.error(INODE, ino, NO_BLOCK, "has INDEX_FL (htree) set but is not a directory");
      } else if (!s.sb.hasCompat(Ext4Superblock.COMPAT_DIR_INDEX)) {
        s.out.error(INODE, ino, NO_BLOCK, "has INDEX_FL set on a filesystem without dir_index");
      }
    }
    if ((fl & FL_IMAGIC) != 0 && !s.sb.hasCompat(0x2)) {
      s.out.error(INODE, ino, NO_BLOCK, "has the imagic flag set");
    }
    if ((fl & FL_ENCRYPT) != 0) {
      s.out.error(INODE, ino, NO_BLOCK, "has the encrypt flag set on a filesystem without encryption");
    }
    if ((fl & FL_CASEFOLD) != 0) {
      s.out.error(INODE, ino, NO_BLOCK, "has the casefold flag set on a filesystem without casefold");
    }
    if ((fl & RawInode.FL_INLINE_DATA) != 0) {
      s.out.error(INODE, ino, NO_BLOCK, "has INLINE_DATA_FL set on a filesystem without inline_data");
    }
    if ((t == Scan.T_LNK || (t >= Scan.T_CHR && t <= Scan.T_SOCK)) && (fl & FL_IMMUTABLE_OR_APPEND) != 0) {
      s.out.note(INODE, ino, NO_BLOCK, "a special file or symlink has the immutable or append-only flag set");
    }
  }

  private void special(long ino, RawInode r, byte t) {
    int bad = r.flags() & (RawInode.FL_INDEX | RawInode.FL_EXTENTS | RawInode.FL_INLINE_DATA);
    String kind = switch (t) {
      case Scan.T_CHR -> "character device";
      case Scan.T_BLK -> "block device";
      case Scan.T_FIFO -> "FIFO";
      default -> "socket";
    };
    if (bad != 0) {
      s.out.error(INODE, ino, NO_BLOCK, "is an illegal " + kind + ": flags 0x" + Integer.toHexString(bad)
          + " (index, extents or inline data) make no sense on it");
    }
    if (r.sizeBytes() != 0) {
      s.out.error(INODE, ino, NO_BLOCK, "is a " + kind + " with non-zero size " + r.sizeBytes());
    }
  }

  private void symlink(long ino, RawInode r) throws IOException {
    long size = r.sizeBytes();
    String why = null;
    if (r.hasFlag(RawInode.FL_INDEX)) {
      why = "it has INDEX_FL";
    } else if (size > 0 && size < RawInode.I_BLOCK_SIZE) {
      if (r.hasFlag(RawInode.FL_EXTENTS)) {
        why = "a fast symlink (size " + size + ") has EXTENTS_FL";
      } else {
        int len = strnlen(r.bytes(), RawInode.I_BLOCK, RawInode.I_BLOCK_SIZE);
        if (len != size) {
          why = "the fast symlink target is " + len + " bytes long but i_size is " + size;
        }
      }
    } else if (size >= s.bs) {
      why = "i_size " + size + " is not below the block size";
      walk(ino, r, false);
    } else {
      walk(ino, r, false);
      if (claims.count != 1 || claims.blocks != 1 || claims.lblk[0] != 0) {
        why = "a slow symlink must map exactly one block at logical block 0 (maps " + claims.blocks + " blocks)";
      } else {
        byte[] b = s.newBlock();
        s.read(claims.pblk[0], b, 1);
        int len = strnlen(b, 0, s.bs);
        if (len != size) {
          why = "the target in block " + claims.pblk[0] + " is " + (len == s.bs ? "not NUL-terminated" : len + " bytes long")
              + " but i_size is " + size;
        }
      }
    }
    if (why != null) {
      s.out.error(INODE, ino, NO_BLOCK, "symlink is invalid: " + why);
    }
  }

  private static int strnlen(byte[] b, int off, int max) {
    int n = 0;
    while (n < max && b[off + n] != 0) {
      n++;
    }
    return n;
  }

  /** i_blocks against {@code blocks} filesystem blocks, in the inode's units. */
  void iBlocks(long ino, RawInode r, long blocks) {
    boolean fsUnits = hugeFile && r.hasFlag(RawInode.FL_HUGE_FILE);
    long stored = hugeFile ? r.blocksRaw() : r.blocksRaw() & 0xFFFFFFFFL;
    long want = fsUnits ? blocks : blocks * (s.bs / 512);
    if (stored != want) {
      s.out.error(INODE, ino, NO_BLOCK, "i_blocks is " + stored + ", should be " + want + " (" + blocks
          + " blocks" + (fsUnits ? ", HUGE_FILE_FL: in filesystem blocks" : " of " + s.bs / 512 + " sectors") + ")");
    }
  }

  private void regularSize(long ino, RawInode r) {
    long size = r.sizeBytes();
    if (claims.lastInit >= 0 && Long.compareUnsigned(size, claims.lastInit * s.bs) < 0) {
      s.out.error(INODE, ino, NO_BLOCK, "i_size is " + size + ", should be at least " + claims.lastInit * s.bs
          + " (initialized blocks reach logical block " + claims.lastInit + ")");
    }
    long max = r.hasFlag(RawInode.FL_EXTENTS) ? (1L << 32) * s.bs - 1 : s.lay.maxIndirectFileSize();
    if (Long.compareUnsigned(size, max) > 0) {
      s.out.error(INODE, ino, NO_BLOCK, "i_size " + Long.toUnsignedString(size) + " exceeds the largest file (" + max + ")");
    }
    if (Long.compareUnsigned(size, 1L << 31) >= 0 && !s.sb.hasRoCompat(Ext4Superblock.RO_COMPAT_LARGE_FILE)) {
      s.out.error(INODE, ino, NO_BLOCK, "is a file of " + Long.toUnsignedString(size)
          + " bytes but the filesystem lacks the large_file feature");
    }
  }

  private void directory(long ino, RawInode r, int d) {
    long size = r.sizeBytes();
    if (!s.sb.hasIncompat(Ext4Superblock.INCOMPAT_LARGEDIR) && size >>> 32 != 0) {
      s.out.error(INODE, ino, NO_BLOCK, "directory i_size_high is " + (size >>> 32) + ", should be 0 without large_dir");
    }
    if (claims.overflowed()) {
      s.out.error(INODE, ino, NO_BLOCK, "directory maps more blocks than the filesystem has");
    }
    if (claims.lastLblk < 0) {
      s.out.error(INODE, ino, NO_BLOCK, "is a zero-length directory (no blocks)");
    } else if (size % s.bs != 0) {
      s.out.error(INODE, ino, NO_BLOCK, "directory i_size " + size + " is not a multiple of the block size");
    } else {
      long have = claims.lastLblk + 1;
      long nb = size / s.bs;
      if (nb > have || have - nb > s.sb.preallocDirBlocks()) {
        s.out.error(INODE, ino, NO_BLOCK, "directory i_size is " + size + ", should be " + have * s.bs
            + " (blocks up to logical block " + claims.lastLblk + ")");
      }
    }
    for (int i = 0; i < claims.count; i++) {
      if (claims.lblk[i] != i) {
        s.out.error(INODE, ino, NO_BLOCK, "directory has a hole: logical block " + i + " is not mapped");
        break;
      }
    }
    boolean indexed = r.hasFlag(RawInode.FL_INDEX) && s.sb.hasCompat(Ext4Superblock.COMPAT_DIR_INDEX);
    s.dirs.add(new Scan.DirInfo(ino, r.generation(), indexed, size, r.links(),
        claims.lblks(), claims.pblks()));
    s.dirOrdinal[d] = s.dirs.size();
  }

  private static long u32(RawInode r, int at) {
    byte[] b = r.bytes();
    return (b[at] & 0xFFL) | (b[at + 1] & 0xFFL) << 8 | (b[at + 2] & 0xFFL) << 16 | (b[at + 3] & 0xFFL) << 24;
  }
}
