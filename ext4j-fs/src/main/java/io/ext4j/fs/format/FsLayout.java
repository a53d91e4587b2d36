package io.ext4j.fs.format;

import io.ext4j.fs.format.Ext4Superblock;

/**
 * The fixed geometry of an open filesystem, derived once from its superblock: group arithmetic,
 * where descriptors and superblock backups live, and the feature switches the engine asks about on
 * every operation. Immutable.
 */
public record FsLayout(
    String name,
    int blockSize,
    long blocksCount,
    long firstDataBlock,
    long blocksPerGroup,
    long inodesPerGroup,
    long inodesCount,
    int inodeSize,
    long groups,
    int descSize,
    int descPerBlock,
    long gdtBlocks,
    int reservedGdtBlocks,
    boolean metaBg,
    long firstMetaBg,
    boolean sparseSuper,
    int groupsPerFlex,
    boolean metadataCsum,
    boolean gdtCsum,
    int checksumSeed,
    boolean is64,
    boolean extents,
    boolean dirIndex,
    boolean largeDir,
    boolean dirNlink,
    boolean fileType,
    boolean extAttr,
    boolean hugeFile,
    boolean largeFile,
    boolean extraIsize,
    int wantExtraIsize,
    int[] hashSeed,
    int hashVersion,
    long firstIno,
    long orphanFileIno,
    boolean orphanFile,
    long journalIno) {

  /** Derives the layout of {@code sb}. */
  public static FsLayout of(String name, Ext4Superblock sb) {
    int bs = sb.blockSize();
    int ds = sb.descriptorSize();
    int dpb = bs / ds;
    long groups = sb.groupCount();
    boolean metaBg = sb.hasIncompat(Ext4Superblock.INCOMPAT_META_BG);
    long gdtBlocks = Math.ceilDiv(groups, dpb);
    int hashVersion = sb.defaultHashVersion();
    boolean unsigned = (sb.flags() & Ext4Superblock.FLAG_UNSIGNED_HASH) != 0;
    int want = sb.hasRoCompat(Ext4Superblock.RO_COMPAT_EXTRA_ISIZE) ? sb.wantExtraIsize() : 0;
    if (sb.inodeSize() > 128 && want == 0) {
      want = 32; // the kernel's default for large inodes (EXT4_GOOD_OLD_INODE_SIZE + 32 = 160 bytes of fields)
    }
    want = Math.min(want, sb.inodeSize() - 128);
    return new FsLayout(name, bs, sb.blocksCount(), sb.firstDataBlock(), sb.blocksPerGroup(), sb.inodesPerGroup(),
        sb.inodesCount(), sb.inodeSize(), groups, ds, dpb, gdtBlocks, sb.reservedGdtBlocks(), metaBg, sb.firstMetaBg(),
        sb.hasRoCompat(Ext4Superblock.RO_COMPAT_SPARSE_SUPER), sb.groupsPerFlex(), sb.hasMetadataCsum(),
        sb.hasRoCompat(Ext4Superblock.RO_COMPAT_GDT_CSUM) && !sb.hasMetadataCsum(), sb.checksumSeed(), sb.is64Bit(),
        sb.hasIncompat(Ext4Superblock.INCOMPAT_EXTENTS), sb.hasCompat(Ext4Superblock.COMPAT_DIR_INDEX),
        sb.hasIncompat(Ext4Superblock.INCOMPAT_LARGEDIR), sb.hasRoCompat(Ext4Superblock.RO_COMPAT_DIR_NLINK),
        sb.hasIncompat(Ext4Superblock.INCOMPAT_FILETYPE), sb.hasCompat(Ext4Superblock.COMPAT_EXT_ATTR),
        sb.hasRoCompat(Ext4Superblock.RO_COMPAT_HUGE_FILE), sb.hasRoCompat(Ext4Superblock.RO_COMPAT_LARGE_FILE),
        sb.hasRoCompat(Ext4Superblock.RO_COMPAT_EXTRA_ISIZE), want, sb.hashSeed(),
        unsigned && hashVersion <= 2 ? hashVersion + 3 : hashVersion, sb.firstInode(), sb.orphanFileInode(),
        sb.hasCompat(Ext4Superblock.COMPAT_ORPHAN_FILE) && sb.orphanFileInode() != 0, sb.journalInode());
  }

  /** The checksum seed as a boxed value for codecs that take "null = no checksum". */
  public Integer csumSeedOrNull() {
    return metadataCsum ? checksumSeed : null;
  }

  public long groupOfBlock(long block) {
    return (block - firstDataBlock) / blocksPerGroup;
  }

  public long groupFirstBlock(long group) {
    return firstDataBlock + group * blocksPerGroup;
  }

  /** Blocks in {@code group} (the last may be short). */
  public int groupBlockCount(long group) {
    return (int) Math.min(blocksPerGroup, blocksCount - groupFirstBlock(group));
  }

  public long groupOfInode(long ino) {
    return (ino - 1) / inodesPerGroup;
  }

  public int indexInGroup(long ino) {
    return (int) ((ino - 1) % inodesPerGroup);
  }

  /** Whether {@code group} holds a superblock backup (sparse_super: 0, 1 and powers of 3, 5, 7). */
  public boolean hasSuperBackup(long group) {
    if (group == 0 || !sparseSuper) {
      return true;
    }
    if (group == 1) {
      return true;
    }
    return isPower(group, 3) || isPower(group, 5) || isPower(group, 7);
  }

  private static boolean isPower(long n, int base) {
    long p = base;
    while (p < n) {
      p *= base;
    }
    return p == n;
  }

  /** Descriptor blocks and reserved-GDT blocks that follow a superblock backup in {@code group}. */
  public int superBackupOverhead(long group) {
    if (!hasSuperBackup(group)) {
      return metaBg ? metaBgDescriptorBlocks(group) : 0;
    }
    if (!metaBg) {
      return 1 + (int) gdtBlocks + reservedGdtBlocks;
    }
    long metaGroup = group / descPerBlock;
    int gdt = metaGroup < firstMetaBg ? (int) firstMetaBg + reservedGdtBlocks : metaBgDescriptorBlocks(group);
    return 1 + gdt;
  }

  private int metaBgDescriptorBlocks(long group) {
    long metaGroup = group / descPerBlock;
    if (metaGroup < firstMetaBg) {
      return 0;
    }
    long r = group % descPerBlock;
    return r == 0 || r == 1 || r == descPerBlock - 1 ? 1 : 0;
  }

  /** The block holding the primary copy of {@code group}'s descriptor. */
  public long descriptorBlock(long group) {
    long index = group / descPerBlock;
    if (!metaBg || index < firstMetaBg) {
      return firstDataBlock + 1 + index;
    }
    long first = groupFirstBlock(index * descPerBlock);
    return first + (hasSuperBackup(index * descPerBlock) ? 1 : 0);
  }

  /** Byte offset of {@code group}'s descriptor within {@link #descriptorBlock}. */
  public int descriptorOffset(long group) {
    return (int) (group % descPerBlock) * descSize;
  }

  /** The block of {@code ino}'s slot in the inode table whose first block is {@code itable}, and the byte offset in it. */
  public long inodeBlock(long itable, long ino) {
    return itable + (long) indexInGroup(ino) * inodeSize / blockSize;
  }

  public int inodeOffset(long ino) {
    return (int) ((long) indexInGroup(ino) * inodeSize % blockSize);
  }

  /** 512-byte sectors per block: i_blocks' unit. */
  public int sectorsPerBlock() {
    return blockSize / 512;
  }

  /** The largest file size: extent files 2^32 blocks (minus one), capped by i_blocks' 48 bits of sectors. */
  public long maxFileSize() {
    long byBlocks = ((1L << 32) - 1) * blockSize;
    long byIBlocks = hugeFile ? Long.MAX_VALUE : ((1L << 48) - 1) * 512;
    return Math.min(byBlocks, byIBlocks);
  }

  /** The largest file size of a block-mapped file (direct, indirect, double and triple indirect). */
  public long maxIndirectFileSize() {
    long apb = blockSize / 4;
    long blocks = 12 + apb + apb * apb + apb * apb * apb;
    return Math.min(blocks * blockSize, ((1L << 32) - 1) * 512);
  }

  /** Directory entries per block: bytes usable by entries (the 12-byte checksum tail excluded). */
  public int dirUsable() {
    return metadataCsum ? blockSize - 12 : blockSize;
  }
}
