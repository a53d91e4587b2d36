package io.ext4j.fs.context;

import io.ext4j.fs.Ext4FormatException;
import io.ext4j.fs.format.Ext4Superblock;
import java.util.ArrayList;
import java.util.List;

/**
 * Which filesystems ext4j opens, and how: the feature policy. Read-write: e2fsprogs 1.47's default
 * ext4 set plus metadata_csum_seed, large_dir and orphan_file, and images without 64bit, flex_bg or
 * metadata_csum (gdt_csum). Read-only: also inline_data, ea_inode, meta_bg, mmp and ro_compat
 * features ext4j does not maintain (quota, project, verity…), unknown ro_compat bits and the
 * "read-only" flag. Refused: every other incompat feature (compression, journal_dev, dirdata,
 * encrypt, casefold, bigalloc and unknown bits), named in the message.
 */
public final class Features {
  private static final int INCOMPAT_RW = Ext4Superblock.INCOMPAT_FILETYPE | Ext4Superblock.INCOMPAT_RECOVER
      | Ext4Superblock.INCOMPAT_EXTENTS | Ext4Superblock.INCOMPAT_64BIT | Ext4Superblock.INCOMPAT_FLEX_BG
      | Ext4Superblock.INCOMPAT_CSUM_SEED | Ext4Superblock.INCOMPAT_LARGEDIR;
  private static final int INCOMPAT_RO = Ext4Superblock.INCOMPAT_INLINE_DATA | Ext4Superblock.INCOMPAT_EA_INODE
      | Ext4Superblock.INCOMPAT_META_BG | Ext4Superblock.INCOMPAT_MMP;
  private static final int RO_COMPAT_RW = Ext4Superblock.RO_COMPAT_SPARSE_SUPER | Ext4Superblock.RO_COMPAT_LARGE_FILE
      | Ext4Superblock.RO_COMPAT_HUGE_FILE | Ext4Superblock.RO_COMPAT_GDT_CSUM | Ext4Superblock.RO_COMPAT_DIR_NLINK
      | Ext4Superblock.RO_COMPAT_EXTRA_ISIZE | Ext4Superblock.RO_COMPAT_METADATA_CSUM | Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT;

  private Features() {}

  /**
   * Checks {@code sb} and returns null when it may be written, else why it may only be read.
   *
   * @throws Ext4FormatException when ext4j cannot open it at all, naming the features
   */
  public static String readOnlyReason(String device, Ext4Superblock sb) throws Ext4FormatException {
    return readOnlyReason(device, sb, false);
  }

  /** As {@link #readOnlyReason(String, Ext4Superblock)}; {@code journalDeviceGiven}: an external journal is at hand. */
  public static String readOnlyReason(String device, Ext4Superblock sb, boolean journalDeviceGiven) throws Ext4FormatException {
    int incompat = sb.featureIncompat();
    int refused = incompat & ~(INCOMPAT_RW | INCOMPAT_RO);
    if (refused != 0) {
      throw new Ext4FormatException(device, Ext4Superblock.OFFSET + 0x60,
          "cannot open: unsupported incompat feature(s) " + Ext4Superblock.incompatNames(refused));
    }
    if (sb.hasRoCompat(Ext4Superblock.RO_COMPAT_BIGALLOC)) {
      throw new Ext4FormatException(device, Ext4Superblock.OFFSET + 0x64, "cannot open: bigalloc (clusters) is not supported");
    }
    if (sb.logClusterSize() != sb.logBlockSize()) {
      throw new Ext4FormatException(device, Ext4Superblock.OFFSET + 0x1C, "cannot open: cluster size differs from block size");
    }
    List<String> why = new ArrayList<>();
    int roIncompat = incompat & INCOMPAT_RO;
    if (roIncompat != 0) {
      why.add("incompat feature(s) " + Ext4Superblock.incompatNames(roIncompat) + " are read-only in ext4j");
    }
    int roCompat = sb.featureRoCompat() & ~RO_COMPAT_RW;
    if (roCompat != 0) {
      why.add("ro_compat feature(s) " + Ext4Superblock.roCompatNames(roCompat) + " are not maintained by ext4j");
    }
    if (sb.hasJournal() && sb.journalInode() == 0 && !journalDeviceGiven) {
      why.add("the journal is external and no journal device was given");
    }
    if (Integer.toUnsignedLong(sb.revLevel()) > 1) {
      why.add("revision " + Integer.toUnsignedString(sb.revLevel()) + " is newer than ext4j knows (1)"); // the kernel: read-only too
    }
    if (!sb.hasIncompat(Ext4Superblock.INCOMPAT_EXTENTS)) {
      why.add("without the extent feature ext4j cannot allocate (ext2/ext3 block maps are read-only)");
    }
    return why.isEmpty() ? null : String.join("; ", why);
  }
}
