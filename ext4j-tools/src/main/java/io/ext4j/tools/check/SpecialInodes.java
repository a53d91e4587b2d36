package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.INODE;
import static io.ext4j.tools.check.Problem.JOURNAL;
import static io.ext4j.tools.check.Problem.NO_BLOCK;
import static io.ext4j.tools.check.Problem.ORPHANS;
import static io.ext4j.tools.check.Problem.RESIZE_INODE;
import static io.ext4j.tools.check.Problem.SUPERBLOCK;

import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.OrphanBlock;
import io.ext4j.fs.format.RawInode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The inodes with a role: the reserved ones below s_first_ino (root 2, bad blocks 1, resize 7,
 * journal 8, the unused 3–6, 9, 10) and the orphan file. Root and journal are checked as ordinary
 * files first; the resize inode's map is checked against where the reserved GDT blocks and their
 * backups are (mke2fs's layout, §2 step 11 of the format brief); the orphan file's blocks must all be
 * pristine on a clean filesystem.
 */
final class SpecialInodes {
  private static final long BAD_BLOCKS = 1;
  private static final long ROOT = 2;
  private static final long BOOT_LOADER = 5;
  private static final long RESIZE = 7;

  private final Scan s;
  private final InodeCheck check;
  private boolean orphanFileSeen;
  private boolean orphanFileClean = true;

  SpecialInodes(Scan s, InodeCheck check) {
    this.s = s;
    this.check = check;
  }

  private boolean isJournal(long ino) {
    return s.sb.hasJournal() && ino == s.sb.journalInode();
  }

  private boolean resizeFeature() {
    return s.sb.hasCompat(Ext4Superblock.COMPAT_RESIZE_INODE);
  }

  /** A reserved inode whose slot is all zero. */
  void reservedZero(long ino) {
    if (ino == ROOT) {
      s.out.error(INODE, ino, NO_BLOCK, "the root inode is not allocated (its slot is zero)");
    } else if (isJournal(ino)) {
      s.out.error(JOURNAL, ino, NO_BLOCK, "the journal inode " + ino + " is zero but has_journal is set");
    } else if (ino == RESIZE && resizeFeature()) {
      s.out.error(RESIZE_INODE, ino, NO_BLOCK, "the resize inode is not valid: its slot is zero");
    }
  }

  /** A reserved inode (below s_first_ino) with something in its slot. */
  void reserved(long ino, RawInode r) throws IOException {
    if (ino == ROOT) {
      check.inUse(ino, r, false);
      if (!r.isDirectory()) {
        s.out.error(INODE, ino, NO_BLOCK, String.format("the root inode is not a directory (mode 0%o)", r.mode()));
      }
      return;
    }
    if (isJournal(ino)) {
      check.inUse(ino, r, true);
      if (!r.isRegular() || r.links() == 0) {
        s.out.error(JOURNAL, ino, NO_BLOCK, String.format("the journal inode is not a regular file in use (mode 0%o, links %d)",
            r.mode(), r.links()));
      } else {
        JournalCheck.check(s, ino, r, check.claims());
      }
      return;
    }
    recordReserved(ino, r);
    if (ino == RESIZE && resizeFeature()) {
      resize(r);
      return;
    }
    if (ino == BAD_BLOCKS) {
      Claims c = check.claims();
      c.reset(false);
      check.walk(ino, r, false); // the listed bad blocks are in use
      return;
    }
    boolean modeOk = ino == BOOT_LOADER ? !r.isDirectory() : ino == RESIZE ? r.mode() == 0 || r.isRegular() : r.mode() == 0;
    if (!modeOk) {
      s.out.error(INODE, ino, NO_BLOCK, String.format("reserved inode %d has an invalid mode 0%o", ino, r.mode()));
    }
    if (ino == RESIZE && anyBlockPointer(r)) {
      s.out.error(RESIZE_INODE, ino, NO_BLOCK, "resize_inode is not enabled but the resize inode's i_block is non-zero");
    }
    if (ino == s.sb.journalInode() && !s.sb.hasJournal() && (r.links() != 0 || r.blocksRaw() != 0 || r.iBlockWord(0) != 0)) {
      s.out.error(JOURNAL, ino, NO_BLOCK, "has_journal is clear but the journal inode is not clear");
    }
    Claims c = check.claims();
    c.reset(false);
    check.walk(ino, r, false); // their blocks are claimed; e2fsck -fn does not compare their i_blocks
    XattrCheck.block(s, ino, r);
  }

  private void recordReserved(long ino, RawInode r) {
    int d = s.dense(ino);
    s.links[d] = (char) r.links();
    s.type[d] = r.mode() == 0 ? Scan.T_REG : InodeCheck.typeOf(r.mode());
  }

  private static boolean anyBlockPointer(RawInode r) {
    for (int i = 0; i < 15; i++) {
      if (r.iBlockWord(i) != 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * The resize inode: only i_block[13] (double indirect) set; its slot (k mod apb) for the k-th
   * descriptor block past the GDT holds that reserved GDT block, which, read as an indirect block,
   * lists its copy in each backup group; i_blocks counts all of them. Only the DIND block is claimed
   * here: the reserved GDT blocks are the groups' metadata.
   */
  private void resize(RawInode r) throws IOException {
    String why = null;
    for (int i = 0; i < 15 && why == null; i++) {
      if (i != 13 && r.iBlockWord(i) != 0) {
        why = "i_block[" + i + "] is " + Integer.toUnsignedString(r.iBlockWord(i)) + "; only the double-indirect block may be set";
      }
    }
    long dind = Integer.toUnsignedLong(r.iBlockWord(13));
    int odd = r.flags() & (RawInode.FL_INDEX | RawInode.FL_EXTENTS | RawInode.FL_INLINE_DATA | InodeCheck.FL_ENCRYPT
        | InodeCheck.FL_CASEFOLD);
    if (why == null && odd != 0) {
      why = "it has flags 0x" + Integer.toHexString(odd) + " (index, extents, inline data, encrypt or casefold), "
          + "which a block-mapped regular file cannot have";
    }
    if (why == null && (r.links() == 0 || !r.isRegular())) {
      why = String.format("mode 0%o, links %d: it must be a regular file in use", r.mode(), r.links());
    }
    if (why == null && !s.inRange(dind, 1)) {
      why = "the double-indirect block " + dind + " is not inside the filesystem";
    }
    if (why == null && s.claim(dind, 1) != 0) {
      why = "its double-indirect block " + dind + " is also used by something else";
    }
    if (why == null) {
      why = resizeMap(dind, r);
    }
    if (why != null) {
      s.out.error(RESIZE_INODE, RESIZE, NO_BLOCK, "the resize inode is not valid: " + why);
    }
  }

  private String resizeMap(long dind, RawInode r) throws IOException {
    int apb = s.bs / 4;
    long gdt = s.lay.gdtBlocks();
    int rsv = s.sb.reservedGdtBlocks();
    int backups = 0;
    for (int g = 1; g < s.groups; g++) {
      if (s.lay.hasSuperBackup(g)) {
        backups++;
      }
    }
    byte[] d = s.newBlock();
    byte[] ind = s.newBlock();
    s.read(dind, d, 1);
    ByteBuffer dl = ByteBuffer.wrap(d).order(ByteOrder.LITTLE_ENDIAN);
    for (int j = 0; j < rsv; j++) {
      long expect = s.lay.firstDataBlock() + 1 + gdt + j;
      long got = Integer.toUnsignedLong(dl.getInt((int) ((gdt + j) % apb) * 4));
      if (got != expect) {
        return "double-indirect slot " + (gdt + j) % apb + " is " + got + ", should be the reserved GDT block " + expect;
      }
      s.read(expect, ind, 1);
      ByteBuffer il = ByteBuffer.wrap(ind).order(ByteOrder.LITTLE_ENDIAN);
      int k = 0;
      for (int g = 1; g < s.groups && k < apb; g++) {
        if (!s.lay.hasSuperBackup(g)) {
          continue;
        }
        long copy = expect + (long) g * s.sb.blocksPerGroup();
        long at = Integer.toUnsignedLong(il.getInt(4 * k));
        if (at != copy) {
          return "reserved GDT block " + expect + " lists " + at + " as its copy in group " + g + ", should be " + copy;
        }
        k++;
      }
    }
    long blocks = 1 + (long) rsv * (1 + Math.min(backups, apb));
    long want = blocks * (s.bs / 512);
    if ((r.blocksRaw() & 0xFFFFFFFFL) != want) {
      return "i_blocks is " + r.blocksRaw() + ", should be " + want;
    }
    return null;
  }

  /** The orphan file, after {@link InodeCheck#inUse} collected its blocks. */
  void orphanFile(long ino, RawInode r, Claims c) throws IOException {
    orphanFileSeen = true;
    if (!r.isRegular()) {
      s.out.error(ORPHANS, ino, NO_BLOCK, String.format("the orphan file is not a regular file (mode 0%o)", r.mode()));
      return;
    }
    if (c.count * (long) s.bs != r.sizeBytes()) {
      s.out.error(ORPHANS, ino, NO_BLOCK, "the orphan file maps " + c.count + " blocks but its size is " + r.sizeBytes());
    }
    int seed = OrphanBlock.inodeSeed(s.fsSeed, (int) ino, r.generation());
    byte[] b = s.newBlock();
    int slots = OrphanBlock.slots(s.bs);
    for (int i = 0; i < c.count; i++) {
      if (c.lblk[i] != i) {
        s.out.error(ORPHANS, ino, NO_BLOCK, "the orphan file has a hole at logical block " + i);
        orphanFileClean = false;
        return;
      }
      long p = c.pblk[i];
      s.read(p, b, 1);
      if (!OrphanBlock.isPristine(b, s.bs, seed, p, s.metadataCsum)) {
        orphanFileClean = false;
        int used = 0;
        long first = 0;
        ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        for (int k = 0; k < slots; k++) {
          long v = Integer.toUnsignedLong(le.getInt(4 * k));
          if (v != 0 && used++ == 0) {
            first = v;
          }
        }
        int magic = le.getInt(s.bs - OrphanBlock.TAIL);
        String what = magic != OrphanBlock.MAGIC ? String.format("its magic is 0x%08X, not 0x%08X", magic, OrphanBlock.MAGIC)
            : used > 0 ? used + " slot(s) hold orphans (the first inode " + first + ")" : "its checksum does not match";
        s.out.error(ORPHANS, ino, p, "orphan file block " + i + " is not clean: " + what);
      }
    }
  }

  /** After the scan: orphan_present against the orphan file, the orphan file's own presence, the list head. */
  void finish() {
    boolean feature = s.sb.hasCompat(Ext4Superblock.COMPAT_ORPHAN_FILE);
    long ino = s.lay.orphanFileIno();
    if (feature && !orphanFileSeen && ino > 0 && ino <= s.inodesCount) {
      s.out.error(ORPHANS, ino, NO_BLOCK, "the orphan file inode " + ino + " is not in use");
    }
    if (feature && orphanFileSeen && orphanFileClean && s.sb.hasRoCompat(Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT)) {
      s.out.error(SUPERBLOCK, Problem.NO_INODE, NO_BLOCK, "orphan_present is set but the orphan file is clean");
    }
    if (s.sb.lastOrphan() != 0) {
      s.out.strictOnly(ORPHANS, s.sb.lastOrphan(), NO_BLOCK, "the orphan list is not empty (s_last_orphan "
          + s.sb.lastOrphan() + "): a mount or e2fsck -p would process it");
    }
  }
}
