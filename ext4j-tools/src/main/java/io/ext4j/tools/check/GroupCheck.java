package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.GROUP_DESCRIPTOR;
import static io.ext4j.tools.check.Problem.NO_INODE;

import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.GroupDescriptor;
import java.io.IOException;

/**
 * The group descriptors: read (the primary copies), checksums, flags and counts that must agree with
 * each other, bitmap and inode-table locations; then every block of filesystem metadata is claimed —
 * superblock backups, descriptor and reserved GDT blocks, bitmaps, inode tables — and each group's
 * inode watermark fixed for the inode scan.
 */
final class GroupCheck {
  private GroupCheck() {}

  static void load(Scan s) throws IOException, CannotCheck {
    int n = s.groups;
    s.gd = new GroupDescriptor[n];
    boolean[] bbOk = new boolean[n];
    boolean[] ibOk = new boolean[n];
    boolean[] itOk = new boolean[n];
    byte[] buf = s.newBlock();
    long inBuf = -1;
    for (int g = 0; g < n; g++) {
      long blk = s.lay.descriptorBlock(g);
      if (blk < 0 || blk >= s.blocks) {
        throw new CannotCheck(GROUP_DESCRIPTOR, "descriptor block " + blk + " of group " + g + " is outside the filesystem");
      }
      if (blk != inBuf) {
        s.read(blk, buf, 1);
        inBuf = blk;
      }
      int off = s.lay.descriptorOffset(g);
      GroupDescriptor d = GroupDescriptor.decodeUnchecked(s.sb, buf, off);
      s.gd[g] = d;
      if (s.groupCsum) {
        int computed = GroupDescriptor.computeChecksum(s.sb, g, buf, off);
        if (computed != d.checksum()) {
          s.out.strictNote(GROUP_DESCRIPTOR, NO_INODE, blk, String.format(
              "group %d descriptor checksum is 0x%04X, should be 0x%04X (%s)", g, d.checksum(), computed,
              s.metadataCsum ? "crc32c" : "gdt_csum crc16"));
        }
      }
      checkFlags(s, g, d);
      bbOk[g] = checkLocation(s, g, "block bitmap", d.blockBitmap(), 1);
      ibOk[g] = checkLocation(s, g, "inode bitmap", d.inodeBitmap(), 1);
      itOk[g] = checkLocation(s, g, "inode table", d.inodeTable(), s.itableBlocks);
    }
    claimMetadata(s, bbOk, ibOk, itOk);
    watermarks(s, itOk);
    s.blockBitmapOk = bbOk;
    s.inodeBitmapOk = ibOk;
    s.inodeTableOk = itOk;
  }

  private static void checkFlags(Scan s, int g, GroupDescriptor d) {
    long blk = s.lay.descriptorBlock(g);
    int uninit = d.flags() & (GroupDescriptor.INODE_UNINIT | GroupDescriptor.BLOCK_UNINIT);
    if ((uninit != 0 || d.itableUnused() != 0) && !s.groupCsum) {
      // e2fsck -n reports it and exits 0: without the feature the flags and the count mean nothing
      s.out.note(GROUP_DESCRIPTOR, NO_INODE, blk, "group " + g + " is marked uninitialized (" + (uninit != 0 ? flagNames(uninit)
          : "itable_unused " + d.itableUnused()) + ") but the filesystem has neither uninit_bg nor metadata_csum");
    }
    if (s.groupCsum && g == s.groups - 1 && d.has(GroupDescriptor.BLOCK_UNINIT)) {
      s.out.error(GROUP_DESCRIPTOR, NO_INODE, blk, "the last group (" + g + ") has BLOCK_UNINIT set");
    }
    if (s.groupCsum && (d.itableUnused() > s.ipg || d.itableUnused() > d.freeInodes())) {
      s.out.error(GROUP_DESCRIPTOR, NO_INODE, blk, "group " + g + " has " + d.itableUnused()
          + " unused inodes (itable_unused) but " + d.freeInodes() + " free inodes of " + s.ipg);
    }
  }

  private static String flagNames(int flags) {
    return (flags & GroupDescriptor.INODE_UNINIT) != 0 && (flags & GroupDescriptor.BLOCK_UNINIT) != 0
        ? "INODE_UNINIT and BLOCK_UNINIT" : (flags & GroupDescriptor.INODE_UNINIT) != 0 ? "INODE_UNINIT" : "BLOCK_UNINIT";
  }

  /** Whether a group's bitmap or table lies inside the filesystem (and inside its group without flex_bg). */
  private static boolean checkLocation(Scan s, int g, String what, long start, long n) {
    boolean flex = s.sb.hasIncompat(Ext4Superblock.INCOMPAT_FLEX_BG);
    long lo = flex ? s.lay.firstDataBlock() : s.lay.groupFirstBlock(g);
    long hi = flex ? s.blocks : lo + s.lay.groupBlockCount(g);
    if (start < lo || start >= hi || n > hi - start) {
      s.out.error(GROUP_DESCRIPTOR, NO_INODE, start, "the " + what + " of group " + g + " at block " + start
          + (n > 1 ? " (" + n + " blocks)" : "") + " is not inside " + (flex ? "the filesystem" : "its group")
          + " [" + lo + ", " + hi + ")");
      return false;
    }
    return true;
  }

  private static void claimMetadata(Scan s, boolean[] bbOk, boolean[] ibOk, boolean[] itOk) {
    for (int g = 0; g < s.groups; g++) {
      int overhead = s.lay.superBackupOverhead(g);
      long first = s.lay.groupFirstBlock(g);
      if (overhead > s.lay.groupBlockCount(g)) {
        s.out.error(GROUP_DESCRIPTOR, NO_INODE, first, "group " + g + " is too small (" + s.lay.groupBlockCount(g)
            + " blocks) for its superblock backup and descriptor blocks (" + overhead + ")");
        overhead = s.lay.groupBlockCount(g);
      }
      if (overhead > 0 && s.claim(first, overhead) != 0) {
        s.out.error(GROUP_DESCRIPTOR, NO_INODE, first, "the superblock and descriptor blocks of group " + g
            + " overlap other metadata");
      }
    }
    for (int g = 0; g < s.groups; g++) {
      GroupDescriptor d = s.gd[g];
      if (bbOk[g] && s.claim(d.blockBitmap(), 1) != 0) {
        s.out.error(GROUP_DESCRIPTOR, NO_INODE, d.blockBitmap(), "the block bitmap of group " + g
            + " conflicts with other metadata");
      }
      if (ibOk[g] && s.claim(d.inodeBitmap(), 1) != 0) {
        s.out.error(GROUP_DESCRIPTOR, NO_INODE, d.inodeBitmap(), "the inode bitmap of group " + g
            + " conflicts with other metadata");
      }
      if (itOk[g] && s.claim(d.inodeTable(), s.itableBlocks) != 0) {
        s.out.error(GROUP_DESCRIPTOR, NO_INODE, d.inodeTable(), "the inode table of group " + g
            + " (" + s.itableBlocks + " blocks) conflicts with other metadata");
      }
    }
  }

  // A group's UNINIT flags and itable_unused are believed whenever the filesystem has uninit_bg or
  // metadata_csum, even under a descriptor checksum that fails: e2fsck -n, declining to clear them,
  // goes by them too.

  static boolean inodeUninit(Scan s, int g) {
    return s.groupCsum && s.gd[g].has(GroupDescriptor.INODE_UNINIT);
  }

  static boolean blockUninit(Scan s, int g) {
    return s.groupCsum && s.gd[g].has(GroupDescriptor.BLOCK_UNINIT) && g != s.groups - 1;
  }

  private static void watermarks(Scan s, boolean[] itOk) throws CannotCheck {
    s.scanned = new int[s.groups];
    s.base = new long[s.groups];
    long total = 0;
    for (int g = 0; g < s.groups; g++) {
      GroupDescriptor d = s.gd[g];
      long n;
      if (!itOk[g] || inodeUninit(s, g)) {
        n = 0;
      } else if (s.groupCsum && d.itableUnused() <= s.ipg && d.itableUnused() <= d.freeInodes()) {
        n = s.ipg - d.itableUnused();
      } else {
        n = s.ipg;
      }
      s.base[g] = total;
      s.scanned[g] = (int) n;
      total += n;
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new CannotCheck(GROUP_DESCRIPTOR, total + " inode slots in use is more than this checker handles");
    }
    s.denseCount = (int) total;
    s.links = new char[(int) total];
    s.refs = new int[(int) total];
    s.type = new byte[(int) total];
    s.dirOrdinal = new int[(int) total];
  }
}
