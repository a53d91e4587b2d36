package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.INODE;
import static io.ext4j.tools.check.Problem.NO_BLOCK;

import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.RawInode;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Pass 1: every inode slot below each group's watermark, read a chunk of the inode table at a time.
 * An all-zero slot is unused and valid. Any other slot's checksum is verified (metadata_csum). A slot
 * at or past s_first_ino is in use iff i_links_count ≠ 0 (a deleted one must have a dtime); in-use
 * inodes go to {@link InodeCheck}. Reserved inodes below s_first_ino are always in use and are routed
 * by role: root, journal, resize inode, bad blocks, the rest ({@link SpecialInodes}).
 */
final class InodeScan {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  /** Inode-table bytes read per device call. */
  private static final int CHUNK_BYTES = 256 << 10;

  private InodeScan() {}

  /** What is done with one inode slot of the table. */
  interface Slot {
    void slot(long ino, byte[] buf, int off) throws IOException;
  }

  static void run(Scan s, InodeCheck check, SpecialInodes special) throws IOException {
    forEachSlot(s, (ino, buf, off) -> slot(s, check, special, ino, buf, off));
  }

  /** Reads every slot below the groups' watermarks, a chunk of inode table at a time, in inode order. */
  static void forEachSlot(Scan s, Slot handler) throws IOException {
    int perChunk = Math.max(1, CHUNK_BYTES / s.bs);
    byte[] buf = new byte[perChunk * s.bs];
    int perBlock = s.bs / s.isize;
    for (int g = 0; g < s.groups; g++) {
      int n = s.scanned[g];
      if (n == 0) {
        continue;
      }
      long table = s.gd[g].inodeTable();
      int tableBlocks = (int) Math.ceilDiv((long) n * s.isize, s.bs);
      for (int b = 0; b < tableBlocks; b += perChunk) {
        int count = Math.min(perChunk, tableBlocks - b);
        s.read(table + b, buf, count);
        int first = b * perBlock;
        int last = Math.min(n, (b + count) * perBlock);
        for (int idx = first; idx < last; idx++) {
          long ino = (long) g * s.ipg + idx + 1;
          handler.slot(ino, buf, (idx - first) * s.isize);
        }
      }
    }
  }

  private static void slot(Scan s, InodeCheck check, SpecialInodes special, long ino, byte[] buf, int off)
      throws IOException {
    if (allZero(buf, off, s.isize)) {
      if (ino < s.firstIno) {
        special.reservedZero(ino);
      }
      return;
    }
    if (s.metadataCsum && !RawInode.checksumMatches(buf, off, s.isize, s.fsSeed, ino)) {
      s.out.error(INODE, ino, NO_BLOCK, "checksum does not match the inode");
    }
    int links = (buf[off + 0x1A] & 0xFF) | (buf[off + 0x1B] & 0xFF) << 8;
    if (ino < s.firstIno) {
      special.reserved(ino, new RawInode(buf, off, s.isize));
      return;
    }
    if (links == 0) {
      int mode = (buf[off] & 0xFF) | (buf[off + 1] & 0xFF) << 8;
      long dtime = (buf[off + 0x14] & 0xFFL) | (buf[off + 0x15] & 0xFFL) << 8 | (buf[off + 0x16] & 0xFFL) << 16
          | (buf[off + 0x17] & 0xFFL) << 24;
      if (mode != 0 && dtime == 0) {
        s.out.error(INODE, ino, NO_BLOCK, "deleted inode (links 0) has zero dtime");
      } else if (dtime != 0 && dtime < s.inodesCount) {
        s.out.error(INODE, ino, NO_BLOCK, "deleted inode has dtime " + dtime
            + ", an inode number: it is a link of an orphan list that was not processed");
      }
      return;
    }
    RawInode r = new RawInode(buf, off, s.isize);
    boolean orphanFile = ino == s.lay.orphanFileIno() && s.sb.hasCompat(Ext4Superblock.COMPAT_ORPHAN_FILE);
    check.inUse(ino, r, orphanFile);
    if (orphanFile) {
      special.orphanFile(ino, r, check.claims());
    }
  }

  static boolean allZero(byte[] b, int off, int len) {
    for (int i = 0; i < len; i += 8) {
      if ((long) LONGS.get(b, off + i) != 0) {
        return false;
      }
    }
    return true;
  }
}
