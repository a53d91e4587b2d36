package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.NO_BLOCK;
import static io.ext4j.tools.check.Problem.NO_INODE;
import static io.ext4j.tools.check.Problem.SUPERBLOCK;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.Ext4FormatException;
import io.ext4j.fs.format.Ext4Superblock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * Pass 0, the superblock: whether it can be checked at all (magic, geometry, features this checker
 * knows — else {@link CannotCheck}, exit 8, as e2fsck's "Corruption found in superblock"), then the
 * field and feature rules whose violations are errors (checksum, inode count, feature pairs) or notes
 * (times in the future, extra-isize hints: e2fsck -fn prints them and exits 0).
 */
final class SuperblockCheck {
  /** Incompat features whose structures this checker knows. */
  private static final int INCOMPAT_KNOWN = Ext4Superblock.INCOMPAT_FILETYPE | Ext4Superblock.INCOMPAT_RECOVER
      | Ext4Superblock.INCOMPAT_META_BG | Ext4Superblock.INCOMPAT_EXTENTS | Ext4Superblock.INCOMPAT_64BIT
      | Ext4Superblock.INCOMPAT_FLEX_BG | Ext4Superblock.INCOMPAT_CSUM_SEED | Ext4Superblock.INCOMPAT_LARGEDIR;
  /** Ro_compat features whose structures this checker knows (0x1000 is the "read-only" flag). */
  private static final int RO_COMPAT_KNOWN = Ext4Superblock.RO_COMPAT_SPARSE_SUPER | Ext4Superblock.RO_COMPAT_LARGE_FILE
      | Ext4Superblock.RO_COMPAT_HUGE_FILE | Ext4Superblock.RO_COMPAT_GDT_CSUM | Ext4Superblock.RO_COMPAT_DIR_NLINK
      | Ext4Superblock.RO_COMPAT_EXTRA_ISIZE | Ext4Superblock.RO_COMPAT_METADATA_CSUM | Ext4Superblock.RO_COMPAT_READONLY
      | Ext4Superblock.RO_COMPAT_PROJECT | Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT;
  /** Compat features e2fsck accepts (EXT2_LIB_FEATURE_COMPAT_SUPP); it refuses to check anything else. */
  private static final int COMPAT_E2FSCK_KNOWN = 0x1 | 0x2 | Ext4Superblock.COMPAT_HAS_JOURNAL | 0x8 | 0x10
      | Ext4Superblock.COMPAT_DIR_INDEX | Ext4Superblock.COMPAT_SPARSE_SUPER2 | Ext4Superblock.COMPAT_FAST_COMMIT | 0x800
      | Ext4Superblock.COMPAT_ORPHAN_FILE;
  /** Compat features that change the layout in ways this checker does not know. */
  private static final int COMPAT_UNKNOWN_LAYOUT = Ext4Superblock.COMPAT_SPARSE_SUPER2 | 0x0100 /* exclude_bitmap */;
  /** e2fsck's time fudge: a last mount time less than this far in the future is "probably the clock". */
  private static final long FUDGE_SECONDS = 86_400;

  private SuperblockCheck() {}

  /**
   * Reads the superblock at byte 1024 through a device of any block size, without verifying its
   * checksum ({@link #check} reports a mismatch).
   */
  static Ext4Superblock read(BlockDevice dev) throws CannotCheck, IOException {
    int dbs = dev.blockSize();
    long first = Ext4Superblock.OFFSET / dbs;
    int n = Math.max(1, Ext4Superblock.SIZE / dbs);
    if (dev.blockCount() < first + n) {
      throw new CannotCheck(Problem.DEVICE, "the device (" + dev.blockCount() * dbs
          + " bytes) is too small to hold an ext4 superblock at byte 1024");
    }
    ByteBuffer buf = ByteBuffer.allocate(n * dbs);
    dev.read(first, buf);
    byte[] raw = new byte[Ext4Superblock.SIZE];
    buf.get((int) (Ext4Superblock.OFFSET - first * dbs), raw);
    try {
      return Ext4Superblock.decodeUnverified(dev.name(), raw);
    } catch (Ext4FormatException e) {
      throw new CannotCheck(SUPERBLOCK, e.getMessage());
    }
  }

  /**
   * Everything that must hold before the groups can be read; else the filesystem cannot be checked.
   */
  static void checkCheckable(BlockDevice dev, Ext4Superblock sb) throws CannotCheck {
    if ((sb.featureIncompat() & Ext4Superblock.INCOMPAT_JOURNAL_DEV) != 0) {
      throw new CannotCheck(SUPERBLOCK, "this is an external journal device (journal_dev), not a filesystem");
    }
    int incompat = sb.featureIncompat() & ~INCOMPAT_KNOWN;
    if (incompat != 0) {
      throw new CannotCheck(SUPERBLOCK, "unsupported incompat feature(s) " + Ext4Superblock.incompatNames(incompat));
    }
    int ro = sb.featureRoCompat() & ~RO_COMPAT_KNOWN;
    if (ro != 0) {
      throw new CannotCheck(SUPERBLOCK, "unsupported ro_compat feature(s) " + Ext4Superblock.roCompatNames(ro));
    }
    int unknown = sb.featureCompat() & ~COMPAT_E2FSCK_KNOWN;
    if (unknown != 0) {
      throw new CannotCheck(SUPERBLOCK, "unknown compat feature(s) " + Ext4Superblock.compatNames(unknown));
    }
    int compat = sb.featureCompat() & COMPAT_UNKNOWN_LAYOUT;
    if (compat != 0) {
      throw new CannotCheck(SUPERBLOCK, "unsupported compat feature(s) " + Ext4Superblock.compatNames(compat));
    }
    if (Integer.toUnsignedLong(sb.revLevel()) > 1) {
      throw new CannotCheck(SUPERBLOCK, "revision " + Integer.toUnsignedString(sb.revLevel()) + " is newer than this checker (1)");
    }
    int bs = sb.blockSize();
    if (dev.blockSize() != bs) {
      throw new CannotCheck(Problem.DEVICE, "the device has " + dev.blockSize()
          + "-byte blocks but the filesystem " + bs + "-byte blocks; open it with the filesystem's block size");
    }
    long blocks = sb.blocksCount();
    if (blocks > dev.blockCount()) {
      throw new CannotCheck(Problem.DEVICE, "the superblock says " + blocks + " blocks but the device has only "
          + dev.blockCount() + " (truncated image, or a corrupt superblock)");
    }
    long bpg = sb.blocksPerGroup();
    long ipg = sb.inodesPerGroup();
    require(sb.logClusterSize() == sb.logBlockSize() && sb.clustersPerGroup() == bpg,
        "cluster size or clusters per group (" + sb.clustersPerGroup() + ") differ from the block geometry");
    require(bpg >= 8 && bpg <= 8L * bs, "blocks per group " + bpg + " is outside [8, " + 8L * bs + "]");
    require(ipg >= bs / sb.inodeSize() && ipg <= 8L * bs,
        "inodes per group " + ipg + " is outside [" + bs / sb.inodeSize() + ", " + 8L * bs + "]");
    require(blocks > sb.firstDataBlock(), "blocks count " + blocks + " leaves no group after the first data block");
    require(sb.reservedBlocksCount() <= blocks / 2, "reserved blocks " + sb.reservedBlocksCount()
        + " exceed half of the " + blocks + " blocks");
    require(sb.reservedGdtBlocks() <= bs / 4, "reserved GDT blocks " + sb.reservedGdtBlocks() + " exceed " + bs / 4);
    long groups = sb.groupCount();
    require(groups <= Integer.MAX_VALUE / 2, groups + " groups is more than this checker handles");
    long itable = Math.ceilDiv(ipg * sb.inodeSize(), bs);
    require(itable * groups <= blocks, "the inode tables (" + itable + " blocks × " + groups
        + " groups) do not fit in " + blocks + " blocks");
    long inodes = ipg * groups;
    require(sb.firstInode() >= 11 && sb.firstInode() < inodes, "first inode " + sb.firstInode()
        + " is outside [11, " + inodes + ")");
    require(!sb.hasJournal() || sb.journalInode() != 0 || sb.journalDevice() == 0,
        "the journal is external (s_journal_dev " + sb.journalDevice() + "); this checker needs an internal one");
  }

  private static void require(boolean ok, String what) throws CannotCheck {
    if (!ok) {
      throw new CannotCheck(SUPERBLOCK, "corrupt superblock: " + what);
    }
  }

  /**
   * The superblock's own rules, once it is known to be checkable. A checksum mismatch is an error
   * when a backup superblock exists (e2fsck goes on with the backup), and makes the filesystem
   * uncheckable when none does (e2fsck gives up with exit 8).
   */
  static void check(Scan s) throws CannotCheck {
    Ext4Superblock sb = s.sb;
    Findings out = s.out;
    if (sb.hasMetadataCsum()) {
      String bad = sb.checksumType() != 1 ? "checksum type " + sb.checksumType() + " is not crc32c (1)"
          : sb.checksumMatches() ? null : String.format("checksum does not match: stored 0x%08X, computed 0x%08X",
              sb.checksum(), sb.expectedChecksum());
      if (bad != null && s.groups < 2) {
        throw new CannotCheck(SUPERBLOCK, bad + ", and the filesystem has no backup superblock to check with");
      }
      if (bad != null) {
        out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, bad);
      }
    }
    long inodes = s.ipg * s.groups;
    if (sb.inodesCount() != inodes) {
      out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, "inodes count is " + sb.inodesCount() + ", should be " + inodes
          + " (" + s.ipg + " per group × " + s.groups + " groups)");
    }
    if (sb.hasMetadataCsum() && sb.hasGdtCsum()) {
      out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, "both metadata_csum and uninit_bg are set; metadata_csum supersedes it");
    }
    if (sb.hasIncompat(Ext4Superblock.INCOMPAT_CSUM_SEED) && !sb.hasMetadataCsum()) {
      out.note(SUPERBLOCK, NO_INODE, NO_BLOCK, "metadata_csum_seed is set without metadata_csum"); // e2fsck -n: exit 0
    }
    if (sb.needsRecovery() && !sb.hasJournal()) {
      out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, "needs_recovery is set but the filesystem has no journal");
    }
    if (sb.hasRoCompat(Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT) && !sb.hasCompat(Ext4Superblock.COMPAT_ORPHAN_FILE)) {
      out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, "orphan_present is set without the orphan_file feature");
    }
    if (sb.hasCompat(Ext4Superblock.COMPAT_ORPHAN_FILE)
        && (sb.orphanFileInode() == 0 || sb.orphanFileInode() > inodes)) {
      out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, "orphan_file is set but s_orphan_file_inum is " + sb.orphanFileInode());
    }
    if (sb.hasJournal() && (sb.journalInode() >= sb.firstInode() || sb.journalInode() == 0)) {
      out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, "journal inode " + sb.journalInode()
          + " is not a reserved inode (below " + sb.firstInode() + ")");
    }
    if (!sb.hasCompat(Ext4Superblock.COMPAT_RESIZE_INODE) && sb.reservedGdtBlocks() != 0) {
      out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, "resize_inode is not set but s_reserved_gdt_blocks is "
          + sb.reservedGdtBlocks());
    }
    if (sb.hasIncompat(Ext4Superblock.INCOMPAT_FLEX_BG) && sb.logGroupsPerFlex() > 31) {
      out.error(SUPERBLOCK, NO_INODE, NO_BLOCK, "log groups per flex " + sb.logGroupsPerFlex() + " exceeds 31");
    }
    if (s.isize > 128 && sb.hasRoCompat(Ext4Superblock.RO_COMPAT_EXTRA_ISIZE)) {
      int max = s.isize - 128;
      if (badExtraIsize(sb.minExtraIsize(), max)) {
        out.note(SUPERBLOCK, NO_INODE, NO_BLOCK, "required extra isize " + sb.minExtraIsize() + " is invalid (a multiple"
            + " of 4 up to " + max + ")");
      }
      if (badExtraIsize(sb.wantExtraIsize(), max)) {
        out.note(SUPERBLOCK, NO_INODE, NO_BLOCK, "desired extra isize " + sb.wantExtraIsize() + " is invalid (a multiple"
            + " of 4 up to " + max + ")");
      }
    }
    long now = s.opt.clock().instant().getEpochSecond();
    if (sb.mountTime() > now) {
      out.note(SUPERBLOCK, NO_INODE, NO_BLOCK, "last mount time " + Instant.ofEpochSecond(sb.mountTime())
          + " is in the future (now " + Instant.ofEpochSecond(now) + ")"
          + (sb.mountTime() - now < FUDGE_SECONDS ? ", by less than a day" : ""));
    }
    if ((sb.state() & Ext4Superblock.STATE_ERRORS) != 0) {
      out.strictOnly(SUPERBLOCK, NO_INODE, NO_BLOCK, "the state records errors (s_state 0x" + Integer.toHexString(sb.state())
          + "); a kernel found a problem");
    }
  }

  private static boolean badExtraIsize(int v, int max) {
    return v != 0 && (v > max || v % 4 != 0);
  }
}
