package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.BLOCK_BITMAP;
import static io.ext4j.tools.check.Problem.FREE_TOTALS;
import static io.ext4j.tools.check.Problem.GROUP_COUNTS;
import static io.ext4j.tools.check.Problem.INODE_BITMAP;
import static io.ext4j.tools.check.Problem.NO_BLOCK;
import static io.ext4j.tools.check.Problem.NO_INODE;

import io.ext4j.fs.format.GroupDescriptor;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Pass 5: the bitmaps against the usage the other passes computed, per group — each bitmap's
 * checksum (unless its UNINIT flag says it is not there), its padding (bytes past cpg/8 or ipg/8,
 * and in the last group the bits past the end of the filesystem, all ones), every differing bit, the
 * group's free block, free inode and directory counts — then the superblock's free totals (notes:
 * e2fsck -fn prints them and exits 0). A BLOCK_UNINIT group's bitmap reads as e2fsck builds it: its
 * own superblock backup and descriptor blocks, and the bitmaps and tables of every BLOCK_UNINIT group
 * wherever they lie; an INODE_UNINIT group's inode bitmap reads as all free.
 */
final class BitmapCheck {
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final int LISTED_RANGES = 8;

  private final Scan s;
  private final byte[] buf;
  private final byte[] zero;
  private Bits uninitMarks;
  long freeBlocks; // summed over the groups
  long freeInodes;
  long dirs;

  BitmapCheck(Scan s) {
    this.s = s;
    this.buf = s.newBlock();
    this.zero = s.newBlock();
  }

  static BitmapCheck run(Scan s) throws IOException {
    BitmapCheck c = new BitmapCheck(s);
    c.markUninit();
    for (int g = 0; g < s.groups; g++) {
      c.blocks(g);
      c.inodes(g);
    }
    c.totals();
    return c;
  }

  /** The bits e2fsck sets for BLOCK_UNINIT groups, wherever they fall. */
  private void markUninit() {
    for (int g = 0; g < s.groups; g++) {
      if (!GroupCheck.blockUninit(s, g)) {
        continue;
      }
      if (uninitMarks == null) {
        uninitMarks = new Bits(s.blocks);
      }
      int overhead = Math.min(s.lay.superBackupOverhead(g), s.lay.groupBlockCount(g));
      if (overhead > 0) {
        uninitMarks.setRange(s.lay.groupFirstBlock(g), overhead);
      }
      GroupDescriptor d = s.gd[g];
      if (s.blockBitmapOk[g]) {
        uninitMarks.set(d.blockBitmap());
      }
      if (s.inodeBitmapOk[g]) {
        uninitMarks.set(d.inodeBitmap());
      }
      if (s.inodeTableOk[g]) {
        uninitMarks.setRange(d.inodeTable(), s.itableBlocks);
      }
    }
  }

  private void blocks(int g) throws IOException {
    GroupDescriptor d = s.gd[g];
    long first = s.lay.groupFirstBlock(g);
    int count = s.lay.groupBlockCount(g);
    int cpgBytes = (int) (s.sb.clustersPerGroup() / 8);
    byte[] disk;
    if (GroupCheck.blockUninit(s, g)) {
      disk = zero;
    } else if (s.blockBitmapOk[g]) {
      disk = buf;
      s.read(d.blockBitmap(), buf, 1);
      if (s.metadataCsum) {
        int want = GroupDescriptor.bitmapChecksum(s.sb, buf, cpgBytes);
        if (want != d.blockBitmapChecksum()) {
          s.out.error(BLOCK_BITMAP, NO_INODE, d.blockBitmap(), String.format(
              "group %d block bitmap does not match its checksum (descriptor 0x%X, computed 0x%X)", g,
              d.blockBitmapChecksum(), want));
        }
      }
      padding(BLOCK_BITMAP, g, d.blockBitmap(), buf, cpgBytes, count, s.sb.clustersPerGroup());
    } else {
      disk = null; // its location was reported; every used block counts as a difference
    }
    differences(BLOCK_BITMAP, g, first, count, disk, true);
    long free = count - s.used.count(first, first + count);
    freeBlocks += free;
    if (free != d.freeBlocks()) {
      s.out.error(GROUP_COUNTS, NO_INODE, NO_BLOCK, "free blocks count wrong for group " + g + " (" + d.freeBlocks()
          + ", counted=" + free + ")");
    }
  }

  private void inodes(int g) throws IOException {
    GroupDescriptor d = s.gd[g];
    int ipg = (int) s.ipg;
    int ipgBytes = ipg / 8;
    byte[] disk;
    if (GroupCheck.inodeUninit(s, g)) {
      disk = zero;
    } else if (s.inodeBitmapOk[g]) {
      disk = buf;
      s.read(d.inodeBitmap(), buf, 1);
      if (s.metadataCsum) {
        int want = GroupDescriptor.bitmapChecksum(s.sb, buf, ipgBytes);
        if (want != d.inodeBitmapChecksum()) {
          s.out.error(INODE_BITMAP, NO_INODE, d.inodeBitmap(), String.format(
              "group %d inode bitmap does not match its checksum (descriptor 0x%X, computed 0x%X)", g,
              d.inodeBitmapChecksum(), want));
        }
      }
      padding(INODE_BITMAP, g, d.inodeBitmap(), buf, ipgBytes, ipg, ipg);
    } else {
      disk = null;
    }
    Bits used = new Bits(ipg);
    long groupDirs = 0;
    long firstIno = (long) g * ipg + 1;
    for (int idx = 0; idx < ipg; idx++) {
      long ino = firstIno + idx;
      boolean inUse = ino < s.firstIno;
      if (idx < s.scanned[g]) {
        byte t = s.type[(int) (s.base[g] + idx)];
        inUse |= t != 0;
        if (t == Scan.T_DIR) {
          groupDirs++;
        }
      }
      if (inUse) {
        used.set(idx);
      }
    }
    inodeDifferences(g, used, disk);
    long free = ipg - used.count(0, ipg);
    freeInodes += free;
    dirs += groupDirs;
    if (free != d.freeInodes()) {
      s.out.error(GROUP_COUNTS, NO_INODE, NO_BLOCK, "free inodes count wrong for group " + g + " (" + d.freeInodes()
          + ", counted=" + free + ")");
    }
    if (groupDirs != d.usedDirs()) {
      s.out.error(GROUP_COUNTS, NO_INODE, NO_BLOCK, "directories count wrong for group " + g + " (" + d.usedDirs()
          + ", counted=" + groupDirs + ")");
    }
  }

  /** Bytes [bytes, bs) all 0xFF, and bits [valid, bits) of the bitmap proper all set. */
  private void padding(String what, int g, long block, byte[] b, int bytes, long valid, long bits) {
    for (int i = bytes; i < s.bs; i++) {
      if (b[i] != (byte) 0xFF) {
        s.out.error(what, NO_INODE, block, "padding at the end of the " + what + " of group " + g + " is not set (byte "
            + i + " is 0x" + Integer.toHexString(b[i] & 0xFF) + ")");
        return;
      }
    }
    for (long i = valid; i < bits; i++) {
      if ((b[(int) (i >>> 3)] & 1 << (i & 7)) == 0) {
        s.out.error(what, NO_INODE, block, "padding at the end of the " + what + " of group " + g
            + " is not set (bit " + i + ", past the end of the filesystem)");
        return;
      }
    }
  }

  private void differences(String what, int g, long first, int count, byte[] disk, boolean blocks) {
    Diff diff = new Diff();
    for (int i = 0; i < count; i += 64) {
      int take = Math.min(64, count - i);
      long mask = take == 64 ? -1L : (1L << take) - 1;
      long have = disk == null ? 0 : word(disk, i, take);
      if (uninitMarks != null) {
        have |= uninitMarks.word64(first + i);
      }
      long want = s.used.word64(first + i);
      long x = (have ^ want) & mask;
      while (x != 0) {
        int bit = Long.numberOfTrailingZeros(x);
        x &= x - 1;
        diff.add(first + i + bit, (want >>> bit & 1) != 0);
      }
    }
    diff.report(what, g, blocks);
  }

  private void inodeDifferences(int g, Bits used, byte[] disk) {
    Diff diff = new Diff();
    int ipg = (int) s.ipg;
    long firstIno = (long) g * ipg + 1;
    for (int i = 0; i < ipg; i += 64) {
      int take = Math.min(64, ipg - i);
      long mask = take == 64 ? -1L : (1L << take) - 1;
      long have = disk == null ? 0 : word(disk, i, take);
      long want = used.word64(i);
      long x = (have ^ want) & mask;
      while (x != 0) {
        int bit = Long.numberOfTrailingZeros(x);
        x &= x - 1;
        diff.add(firstIno + i + bit, (want >>> bit & 1) != 0);
      }
    }
    diff.report(INODE_BITMAP, g, false);
  }

  /** {@code take} ≤ 64 bits of a bitmap from bit {@code i} (a multiple of 64). */
  private static long word(byte[] b, int i, int take) {
    int at = i >>> 3;
    if (take == 64 && at + 8 <= b.length) {
      return (long) LONGS.get(b, at);
    }
    long v = 0;
    for (int k = 0; k < (take + 7) / 8 && at + k < b.length; k++) {
      v |= (b[at + k] & 0xFFL) << (8 * k);
    }
    return v;
  }

  /** Differences of one bitmap of one group, as ranges: "+N" in use but free on disk, "-N" the reverse. */
  private final class Diff {
    private final StringBuilder text = new StringBuilder();
    private int ranges;
    private long total;
    private long firstAt = -1;
    private long runStart = -1;
    private long runEnd = -1;
    private boolean runPlus;

    void add(long n, boolean plus) {
      total++;
      if (firstAt < 0) {
        firstAt = n;
      }
      if (runStart >= 0 && n == runEnd + 1 && plus == runPlus) {
        runEnd = n;
        return;
      }
      flush();
      runStart = n;
      runEnd = n;
      runPlus = plus;
    }

    private void flush() {
      if (runStart < 0) {
        return;
      }
      if (ranges++ < LISTED_RANGES) {
        text.append(' ').append(runPlus ? '+' : '-').append(runStart);
        if (runEnd > runStart) {
          text.append("..").append(runEnd);
        }
      }
      runStart = -1;
    }

    void report(String what, int g, boolean blocks) {
      flush();
      if (total == 0) {
        return;
      }
      String more = ranges > LISTED_RANGES ? " … (" + ranges + " ranges)" : "";
      s.out.error(what, blocks ? NO_INODE : firstAt, blocks ? firstAt : NO_BLOCK, what + " differences in group " + g
          + ":" + text + more + " (" + total + (blocks ? " blocks" : " inodes") + "; + in use but marked free, - marked"
          + " but unused)");
    }
  }

  private void totals() {
    if (freeBlocks != s.sb.freeBlocksCount()) {
      s.out.strictNote(FREE_TOTALS, NO_INODE, NO_BLOCK, "free blocks count wrong (" + s.sb.freeBlocksCount()
          + ", counted=" + freeBlocks + ")");
    }
    if (freeInodes != s.sb.freeInodesCount()) {
      s.out.strictNote(FREE_TOTALS, NO_INODE, NO_BLOCK, "free inodes count wrong (" + s.sb.freeInodesCount()
          + ", counted=" + freeInodes + ")");
    }
  }
}
