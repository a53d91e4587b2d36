package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.DIRECTORY;

import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.GroupDescriptor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Pass 2: every block of every directory, read once. Leaf and linear blocks: the checksum tail
 * (metadata_csum), each entry's rec_len and name_len, "." and ".." first in block 0, names without
 * '/' or NUL, inode numbers (range, reserved, root, self, the orphan file, the unused part of a
 * group, deleted inodes), file_type against the inode's mode, duplicate names within a block (as
 * e2fsck checks them), a second name for a directory. Indexed directories also go through
 * {@link HtreeCheck}. Counts every reference for pass 4 and records each directory's parent and
 * ".." for pass 3. Entries are walked in place, without allocating per entry.
 */
final class DirCheck {
  private static final long ROOT = 2;

  private final Scan s;
  private final byte[] buf;
  private final boolean fileType;
  private final int[] hashSeed;
  private final int hashVersionFlags;
  // duplicate detection within one block: a table of at least twice the entries a block can hold
  private final int[] slotStamp;
  private final long[] slotKey;
  private final int[] slotOff;
  private int stamp;

  DirCheck(Scan s) {
    this.s = s;
    this.buf = s.newBlock();
    this.fileType = s.sb.hasIncompat(Ext4Superblock.INCOMPAT_FILETYPE);
    this.hashSeed = s.sb.hashSeed();
    this.hashVersionFlags = s.sb.flags();
    int slots = Integer.highestOneBit(Math.max(16, s.bs / 12 * 2)) * 2;
    this.slotStamp = new int[slots];
    this.slotKey = new long[slots];
    this.slotOff = new int[slots];
  }

  static void run(Scan s) throws IOException {
    DirCheck c = new DirCheck(s);
    for (Scan.DirInfo d : s.dirs) {
      c.directory(d);
    }
  }

  private void directory(Scan.DirInfo d) throws IOException {
    int seed = s.metadataCsum ? s.inodeSeed(d.ino, d.generation) : 0;
    HtreeCheck ht = d.indexed ? new HtreeCheck(s, d, seed, hashSeed, hashVersionFlags) : null;
    for (int i = 0; i < d.lblk.length; i++) {
      long lblk = d.lblk[i];
      long pblk = d.pblk[i];
      s.read(pblk, buf, 1);
      if (ht != null && ht.valid()) {
        if (lblk == 0) {
          ht.root(buf);
          entries(d, lblk, pblk, buf, s.bs, null); // "." and ".." (the index lives inside ".."'s record)
          continue;
        }
        if (ht.isNode(buf)) {
          ht.node(lblk, pblk, buf);
          continue;
        }
        ht.leaf(lblk);
      }
      int usable = s.bs;
      if (s.metadataCsum) {
        if (!DirBlock.hasTail(buf, s.bs)) {
          s.out.error(DIRECTORY, d.ino, pblk, "directory block " + lblk + " has no checksum tail");
        } else {
          usable = s.bs - DirBlock.TAIL_SIZE;
          int want = DirBlock.tailChecksum(buf, s.bs, seed);
          int got = DirBlock.storedTailChecksum(buf, s.bs);
          if (want != got) {
            s.out.error(DIRECTORY, d.ino, pblk, String.format(
                "directory block %d checksum does not match: stored 0x%08X, computed 0x%08X", lblk, got, want));
          }
        }
      }
      entries(d, lblk, pblk, buf, usable, ht != null && ht.valid() ? ht : null);
    }
    if (ht != null) {
      ht.finish();
    }
  }

  /** Walks the entries of one block covering [0, usable); hashes them into {@code ht} when it is a leaf of an htree. */
  private void entries(Scan.DirInfo d, long lblk, long pblk, byte[] b, int usable, HtreeCheck ht) {
    int off = 0;
    int index = 0;
    int names = 0;
    while (off < usable) {
      if (usable - off < 12) {
        s.out.error(DIRECTORY, d.ino, pblk, "block " + lblk + ": " + (usable - off) + " bytes at offset " + off
            + " are too few for a directory entry");
        return;
      }
      long ino = u32(b, off);
      int rec = DirBlock.getRecLen(b, off, s.bs);
      int nameLen = b[off + 6] & 0xFF;
      int ft = b[off + 7] & 0xFF;
      if (rec < 12 || rec % 4 != 0 || rec > usable - off || DirBlock.minRecLen(nameLen) > rec) {
        s.out.error(DIRECTORY, d.ino, pblk, "block " + lblk + ", offset " + off + ": corrupt entry (rec_len " + rec
            + ", name_len " + nameLen + ", " + (usable - off) + " bytes left)");
        return;
      }
      if (lblk == 0 && index == 0) {
        dot(d, pblk, b, off, ino, rec, nameLen, ft);
      } else if (lblk == 0 && index == 1) {
        dotDot(d, pblk, b, off, ino, nameLen, ft);
      } else if (ino != 0) {
        if (entry(d, lblk, pblk, b, off, ino, nameLen, ft)) {
          names = remember(b, off, nameLen, names, d, lblk, pblk);
        }
        if (ht != null) {
          ht.leafEntry(lblk, b, off + 8, nameLen);
        }
      }
      off += rec;
      index++;
    }
    if (lblk == 0 && index < 2) {
      s.out.error(DIRECTORY, d.ino, pblk, "block 0 has no '..' entry");
    }
  }

  private void dot(Scan.DirInfo d, long pblk, byte[] b, int off, long ino, int rec, int nameLen, int ft) {
    if (nameLen != 1 || b[off + 8] != '.') {
      s.out.error(DIRECTORY, d.ino, pblk, "the first entry is '" + name(b, off + 8, nameLen) + "', not '.'");
      return;
    }
    if (ino != d.ino) {
      s.out.error(DIRECTORY, d.ino, pblk, "'.' refers to inode " + ino + ", should be " + d.ino);
    } else {
      s.refs[s.dense(d.ino)]++;
    }
    if (rec > 24) {
      s.out.error(DIRECTORY, d.ino, pblk, "the '.' entry is big (rec_len " + rec + ")");
    }
    if (b[off + 9] != 0 || b[off + 10] != 0 || b[off + 11] != 0) {
      s.out.error(DIRECTORY, d.ino, pblk, "the '.' name is not NUL-padded");
    }
    fileTypeOf(d, pblk, ".", ft, Scan.T_DIR);
  }

  private void dotDot(Scan.DirInfo d, long pblk, byte[] b, int off, long ino, int nameLen, int ft) {
    if (nameLen != 2 || b[off + 8] != '.' || b[off + 9] != '.') {
      s.out.error(DIRECTORY, d.ino, pblk, "the second entry is '" + name(b, off + 8, nameLen) + "', not '..'");
      return;
    }
    d.dotdot = ino;
    if (b[off + 10] != 0 || b[off + 11] != 0) {
      s.out.error(DIRECTORY, d.ino, pblk, "the '..' name is not NUL-padded");
    }
    fileTypeOf(d, pblk, "..", ft, Scan.T_DIR);
  }

  /** An ordinary live entry; returns whether it names a valid inode (and so takes part in duplicate detection). */
  private boolean entry(Scan.DirInfo d, long lblk, long pblk, byte[] b, int off, long ino, int nameLen, int ft) {
    int at = off + 8;
    String where = "entry '" + name(b, at, nameLen) + "' (block " + lblk + ", offset " + off + ")";
    if (nameLen == 0) {
      s.out.error(DIRECTORY, d.ino, pblk, "an entry for inode " + ino + " at block " + lblk + ", offset " + off
          + " has an empty name");
      return false;
    }
    for (int i = 0; i < nameLen; i++) {
      if (b[at + i] == '/' || b[at + i] == 0) {
        s.out.error(DIRECTORY, d.ino, pblk, where + " has illegal characters ('/' or NUL) in its name");
        break;
      }
    }
    if (nameLen <= 2 && b[at] == '.' && (nameLen == 1 || b[at + 1] == '.')) {
      s.out.error(DIRECTORY, d.ino, pblk, "a second '" + name(b, at, nameLen) + "' entry at block " + lblk + ", offset " + off);
      return false;
    }
    if (ino > s.inodesCount || (ino < s.firstIno && ino != ROOT)) {
      s.out.error(DIRECTORY, d.ino, pblk, where + " has bad inode number " + ino);
      return false;
    }
    if (ino == ROOT) {
      s.out.error(DIRECTORY, d.ino, pblk, where + " is a link to the root inode");
      return false;
    }
    if (ino == d.ino) {
      s.out.error(DIRECTORY, d.ino, pblk, where + " is a link to '.' (the directory itself)");
      return false;
    }
    if (ino == s.sb.orphanFileInode() && ino != 0) { // e2fsck refuses it as a name's inode even without orphan_file
      s.out.error(DIRECTORY, d.ino, pblk, where + " refers to the orphan file inode " + ino);
      return false;
    }
    int dense = s.dense(ino);
    if (dense < 0) {
      int g = (int) s.groupOfInode(ino);
      s.out.error(DIRECTORY, d.ino, pblk, where + " refers to inode " + ino + " in the "
          + (GroupCheck.inodeUninit(s, g) ? "uninitialized inode table of group " + g
          : "unused part (past itable_unused) of group " + g + "'s inode table"));
      return false;
    }
    if (!s.groupCsum && markedUnused(ino)) {
      // without group checksums every slot is scanned, but e2fsck's pass 2 still goes by the flags it declined to clear
      int g = (int) s.groupOfInode(ino);
      s.out.error(DIRECTORY, d.ino, pblk, where + " refers to inode " + ino + " in the part of group " + g
          + "'s inode table its descriptor marks unused (INODE_UNINIT or itable_unused)");
      return false;
    }
    byte t = s.type[dense];
    if (t == 0) {
      s.out.error(DIRECTORY, d.ino, pblk, where + " refers to deleted or unused inode " + ino);
      return false;
    }
    if (t != Scan.T_BAD) {
      fileTypeOf(d, pblk, name(b, at, nameLen), ft, t);
    }
    s.refs[dense]++;
    if (t == Scan.T_DIR) {
      Scan.DirInfo child = s.dirInfo(ino);
      if (child != null) {
        if (child.parent == 0) {
          child.parent = d.ino;
        } else {
          s.out.error(DIRECTORY, d.ino, pblk, where + " is a second link to directory " + ino
              + " (already named in directory " + child.parent + ")");
        }
      }
    }
    return true;
  }

  /**
   * Whether {@code ino}'s descriptor says it is not in use: INODE_UNINIT, or at or past the first
   * unused inode that itable_unused implies — computed, as e2fsck does, in 32 bits, so that an
   * itable_unused larger than the group wraps around and marks nothing.
   */
  private boolean markedUnused(long ino) {
    long g = s.groupOfInode(ino);
    GroupDescriptor gd = s.gd[(int) g];
    long firstUnused = (g * s.ipg + 1 + s.ipg - gd.itableUnused()) & 0xFFFFFFFFL;
    return gd.has(GroupDescriptor.INODE_UNINIT) || ino >= firstUnused;
  }

  private void fileTypeOf(Scan.DirInfo d, long pblk, String name, int ft, byte want) {
    if (fileType) {
      if (ft != want && ft != 0) { // 0 (unknown) is only filled in: e2fsck -n says nothing of it
        s.out.error(DIRECTORY, d.ino, pblk, "entry '" + name + "' has file type " + ft + ", should be " + want);
      }
    } else if (ft != 0) {
      s.out.error(DIRECTORY, d.ino, pblk, "entry '" + name + "' has file type " + ft
          + " set but the filesystem lacks the filetype feature");
    }
  }

  /**
   * Records the name at {@code off} for duplicate detection within its block and reports a
   * duplicate; returns the new count. An open-addressing table of FNV-1a keys, reset per block by a
   * stamp; equal keys are compared byte by byte.
   */
  private int remember(byte[] b, int off, int nameLen, int n, Scan.DirInfo d, long lblk, long pblk) {
    if (n == 0) {
      stamp++;
    }
    long h = 0xcbf29ce484222325L ^ nameLen;
    for (int i = 0; i < nameLen; i++) {
      h = (h ^ (b[off + 8 + i] & 0xFF)) * 0x100000001b3L;
    }
    int mask = slotStamp.length - 1;
    for (int i = (int) (h ^ h >>> 32) & mask; ; i = (i + 1) & mask) {
      if (slotStamp[i] != stamp) {
        slotStamp[i] = stamp;
        slotKey[i] = h;
        slotOff[i] = off;
        return n + 1;
      }
      if (slotKey[i] == h) {
        int o = slotOff[i];
        int len = b[o + 6] & 0xFF;
        if (len == nameLen && Arrays.equals(b, o + 8, o + 8 + len, b, off + 8, off + 8 + nameLen)) {
          s.out.error(DIRECTORY, d.ino, pblk, "duplicate entry '" + name(b, off + 8, nameLen) + "' in block " + lblk
              + " (offsets " + o + " and " + off + ")");
          return n;
        }
      }
    }
  }

  static String name(byte[] b, int at, int len) {
    String n = new String(b, at, Math.min(len, b.length - at), StandardCharsets.UTF_8);
    return n.length() > 80 ? n.substring(0, 77) + "…" : n;
  }

  private static long u32(byte[] b, int at) {
    return (b[at] & 0xFFL) | (b[at + 1] & 0xFFL) << 8 | (b[at + 2] & 0xFFL) << 16 | (b[at + 3] & 0xFFL) << 24;
  }
}
