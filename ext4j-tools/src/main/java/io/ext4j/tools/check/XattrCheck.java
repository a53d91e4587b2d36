package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.XATTR;
import static io.ext4j.tools.check.Problem.XATTR_BLOCK;

import io.ext4j.fs.Ext4FormatException;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.XattrBlock;
import io.ext4j.fs.format.XattrCodec;
import io.ext4j.fs.format.XattrEntry;
import java.io.IOException;
import java.util.List;

/**
 * Extended attributes: the in-inode area (after i_extra_isize; ignored, as e2fsck does, when it does
 * not start with the magic) and the shared block of i_file_acl — magic, h_blocks, checksum, every
 * entry's bounds, name index and hash ({@link XattrCodec} checks each) — read once however many
 * inodes share it; at the end each block's h_refcount against the inodes found referring to it.
 */
final class XattrCheck {
  private XattrCheck() {}

  /** Checks the in-inode area of an in-use inode whose i_extra_isize is valid. */
  static void inInode(Scan s, long ino, RawInode r) {
    int start = 128 + r.extraIsize();
    if (s.isize - start < 4) {
      return;
    }
    byte[] b = r.bytes();
    int magic = (b[start] & 0xFF) | (b[start + 1] & 0xFF) << 8 | (b[start + 2] & 0xFF) << 16 | (b[start + 3] & 0xFF) << 24;
    if (magic != XattrCodec.MAGIC) {
      return;
    }
    try {
      List<XattrEntry> entries = XattrCodec.decodeInodeArea(b, start, s.isize, "inode " + ino);
      for (XattrEntry e : entries) {
        if (e.inEaInode()) {
          s.out.error(XATTR, ino, Problem.NO_BLOCK, "in-inode attribute " + e.name() + " keeps its value in EA inode "
              + Integer.toUnsignedString(e.valueInum()) + " but the filesystem has no ea_inode feature");
        }
      }
    } catch (Ext4FormatException e) {
      s.out.error(XATTR, ino, Problem.NO_BLOCK, "in-inode extended attributes are corrupt: " + strip(e));
    }
  }

  /**
   * Checks the xattr block of {@code ino} (i_file_acl ≠ 0) and counts the reference. Returns the
   * number of blocks to charge to the inode's i_blocks (1, or 0 when the pointer is unusable).
   */
  static long block(Scan s, long ino, RawInode r) throws IOException {
    long blk = r.fileAcl();
    if (!s.sb.is64Bit()) {
      blk &= 0xFFFFFFFFL; // i_file_acl_high means nothing without 64bit
    }
    if (blk == 0) {
      return 0;
    }
    if (!s.sb.hasCompat(Ext4Superblock.COMPAT_EXT_ATTR)) {
      s.out.error(XATTR_BLOCK, ino, blk, "the inode has an xattr block but the filesystem lacks the ext_attr feature");
    }
    if (!s.inRange(blk, 1)) {
      s.out.error(XATTR_BLOCK, ino, blk, "the xattr block " + blk + " is outside the filesystem");
      return 0;
    }
    Scan.XattrRef ref = s.xattrBlocks.get(blk);
    if (ref == null) {
      boolean fresh = s.claim(blk, 1) == 0;
      boolean valid = false;
      long refcount = 0;
      if (fresh) {
        byte[] b = s.newBlock();
        s.read(blk, b, 1);
        try {
          XattrBlock x = XattrCodec.decodeBlock(b, blk, s.fsSeed, s.metadataCsum, "xattr block " + blk);
          valid = true;
          refcount = Integer.toUnsignedLong(x.refcount());
          for (XattrEntry e : x.entries()) {
            if (e.inEaInode()) {
              valid = false;
              s.out.error(XATTR_BLOCK, ino, blk, "attribute " + e.name() + " keeps its value in EA inode "
                  + Integer.toUnsignedString(e.valueInum()) + " but the filesystem has no ea_inode feature");
            }
          }
        } catch (Ext4FormatException e) {
          s.out.error(XATTR_BLOCK, ino, blk, "the xattr block is corrupt: " + strip(e));
        }
      }
      ref = new Scan.XattrRef(blk, ino, valid, refcount);
      s.xattrBlocks.put(blk, ref);
    }
    ref.refs++;
    return 1;
  }

  /** After the inode scan: every valid block's h_refcount must equal the inodes referring to it. */
  static void refcounts(Scan s) {
    for (Scan.XattrRef ref : s.xattrBlocks.values()) {
      if (ref.valid && ref.refs != ref.storedRefcount) {
        s.out.error(XATTR_BLOCK, ref.firstInode, ref.block, "the xattr block has reference count " + ref.storedRefcount
            + ", should be " + ref.refs + " (the inodes referring to it)");
      }
    }
  }

  /** The codec's message without the "where: " prefix it adds. */
  private static String strip(Ext4FormatException e) {
    String m = e.getMessage();
    int i = m.indexOf(": ");
    return i >= 0 ? m.substring(i + 2) : m;
  }
}
