package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;

import io.ext4j.fs.Ext4FormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The ext4 superblock: 1024 bytes at byte offset 1024 of the device, little-endian. Pure codec, no I/O.
 *
 * <h2>On-disk grammar (the fields decoded here; byte offsets within the 1024 bytes)</h2>
 * <pre>
 * 0x000 u32 s_inodes_count          0x004 u32 s_blocks_count_lo      0x014 u32 s_first_data_block
 * 0x018 u32 s_log_block_size (block size = 1024 &lt;&lt; it)              0x020 u32 s_blocks_per_group
 * 0x028 u32 s_inodes_per_group      0x038 u16 s_magic = 0xEF53       0x03A u16 s_state
 * 0x04C u32 s_rev_level             0x054 u32 s_first_ino (rev ≥ 1)  0x058 u16 s_inode_size (rev ≥ 1; else 128)
 * 0x05C u32 s_feature_compat        0x060 u32 s_feature_incompat     0x064 u32 s_feature_ro_compat
 * 0x068 u8[16] s_uuid               0x078 u8[16] s_volume_name (NUL-padded)
 * 0x0D0 u8[16] s_journal_uuid       0x0E0 u32 s_journal_inum         0x0E4 u32 s_journal_dev
 * 0x0FE u16 s_desc_size (64bit only; else 32)                         0x104 u32 s_first_meta_bg
 * 0x150 u32 s_blocks_count_hi (64bit only)
 * 0x175 u8  s_checksum_type (1 = crc32c)                              0x270 u32 s_checksum_seed (csum_seed)
 * 0x3FC u32 s_checksum: with metadata_csum, crc32c seeded ~0 over bytes [0, 0x3FC), not inverted
 *           (= ~java.util.zip.CRC32C of those bytes)
 * </pre>
 *
 * <p>Decoding checks, each with its own message: the magic; the checksum type and checksum (only when
 * {@code metadata_csum} is set); the geometry (block size, group sizes, inode and descriptor sizes).
 * Unknown feature bits are not an error here; callers ask {@link #unknownIncompatFeatures()} and decide.
 * The geometry is not checked on an external journal device's superblock (journal_dev), which
 * describes no block groups.
 */
public final class Ext4Superblock {
  /** Byte offset of the superblock on the device. */
  public static final int OFFSET = 1024;
  /** Size of the superblock in bytes. */
  public static final int SIZE = 1024;
  public static final int MAGIC = 0xEF53;
  static final int MAGIC_AT = 0x38;
  static final int CHECKSUM_AT = 0x3FC;
  static final int STATE_AT = 0x3A;
  /** s_state bit 1: errors detected (EXT2_ERROR_FS). */
  public static final int STATE_ERRORS = 0x0002;
  static final int INCOMPAT_AT = 0x60;

  public static final int COMPAT_HAS_JOURNAL = 0x4;
  public static final int COMPAT_EXT_ATTR = 0x8;
  public static final int COMPAT_RESIZE_INODE = 0x10;
  public static final int COMPAT_DIR_INDEX = 0x20;
  public static final int COMPAT_SPARSE_SUPER2 = 0x200;
  public static final int COMPAT_FAST_COMMIT = 0x400;
  public static final int COMPAT_ORPHAN_FILE = 0x1000;

  public static final int INCOMPAT_FILETYPE = 0x2;
  public static final int INCOMPAT_RECOVER = 0x4;
  public static final int INCOMPAT_JOURNAL_DEV = 0x8;
  public static final int INCOMPAT_META_BG = 0x10;
  public static final int INCOMPAT_EXTENTS = 0x40;
  public static final int INCOMPAT_64BIT = 0x80;
  public static final int INCOMPAT_MMP = 0x100;
  public static final int INCOMPAT_FLEX_BG = 0x200;
  public static final int INCOMPAT_EA_INODE = 0x400;
  public static final int INCOMPAT_CSUM_SEED = 0x2000;
  public static final int INCOMPAT_LARGEDIR = 0x4000;
  public static final int INCOMPAT_INLINE_DATA = 0x8000;
  public static final int INCOMPAT_ENCRYPT = 0x10000;
  public static final int INCOMPAT_CASEFOLD = 0x20000;

  public static final int RO_COMPAT_SPARSE_SUPER = 0x1;
  public static final int RO_COMPAT_LARGE_FILE = 0x2;
  public static final int RO_COMPAT_HUGE_FILE = 0x8;
  public static final int RO_COMPAT_GDT_CSUM = 0x10;
  public static final int RO_COMPAT_DIR_NLINK = 0x20;
  public static final int RO_COMPAT_EXTRA_ISIZE = 0x40;
  public static final int RO_COMPAT_QUOTA = 0x100;
  public static final int RO_COMPAT_BIGALLOC = 0x200;
  public static final int RO_COMPAT_METADATA_CSUM = 0x400;
  public static final int RO_COMPAT_READONLY = 0x1000;
  public static final int RO_COMPAT_PROJECT = 0x2000;
  public static final int RO_COMPAT_ORPHAN_PRESENT = 0x10000;

  /** s_state bit 0: cleanly unmounted (EXT2_VALID_FS). */
  public static final int STATE_VALID = 0x0001;
  /** s_state bit 2: orphans being recovered. */
  public static final int STATE_ORPHANS = 0x0004;
  /** s_flags: directory hashes use signed chars. */
  public static final int FLAG_SIGNED_HASH = 0x1;
  /** s_flags: directory hashes use unsigned chars. */
  public static final int FLAG_UNSIGNED_HASH = 0x2;

  private static final String[] COMPAT_NAMES = {
    "dir_prealloc", "imagic_inodes", "has_journal", "ext_attr", "resize_inode", "dir_index",
    "lazy_bg", "exclude_inode", "exclude_bitmap", "sparse_super2", "fast_commit", "stable_inodes",
    "orphan_file"
  };
  private static final String[] INCOMPAT_NAMES = {
    "compression", "filetype", "needs_recovery", "journal_dev", "meta_bg", null, "extent", "64bit",
    "mmp", "flex_bg", "ea_inode", null, "dirdata", "metadata_csum_seed", "large_dir", "inline_data",
    "encrypt", "casefold"
  };
  private static final String[] RO_COMPAT_NAMES = {
    "sparse_super", "large_file", "btree_dir", "huge_file", "uninit_bg", "dir_nlink", "extra_isize",
    "snapshot", "quota", "bigalloc", "metadata_csum", "replica", "read-only", "project",
    "shared_blocks", "verity", "orphan_present"
  };
  private static final String[][] FEATURE_NAMES = {COMPAT_NAMES, INCOMPAT_NAMES, RO_COMPAT_NAMES};

  private final byte[] raw; // never exposed; copies only
  private final ByteBuffer b;

  private Ext4Superblock(byte[] raw) {
    this.raw = raw;
    this.b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Decodes the superblock from its 1024 bytes.
   *
   * @param device the device or image name, for messages
   * @param bytes exactly {@link #SIZE} bytes, the device's bytes [1024, 2048)
   * @throws Ext4FormatException on a bad magic, an unknown checksum type, a checksum mismatch, or
   *     impossible geometry; each names the device and the byte offset
   */
  public static Ext4Superblock decode(String device, byte[] bytes) throws Ext4FormatException {
    return decode(device, bytes, true);
  }

  /**
   * Decodes the superblock checking everything but its checksum: for a superblock torn by a crash
   * in the middle of its write, whose fields (each the old or the new value) still locate the
   * journal that will rewrite it. Callers must not trust it beyond that.
   */
  public static Ext4Superblock decodeIgnoringChecksum(String device, byte[] bytes) throws Ext4FormatException {
    return decode(device, bytes, false);
  }

  /** Whether the stored checksum matches (true without metadata_csum). */
  public boolean checksumValid() {
    return !hasMetadataCsum() || computeChecksum() == checksum();
  }

  private static Ext4Superblock decode(String device, byte[] bytes, boolean verify) throws Ext4FormatException {
    if (bytes.length != SIZE) {
      throw new IllegalArgumentException("superblock must be " + SIZE + " bytes, got " + bytes.length);
    }
    Ext4Superblock sb = new Ext4Superblock(bytes.clone());
    if (sb.magic() != MAGIC) {
      throw new Ext4FormatException(device, OFFSET + MAGIC_AT, String.format(
          "not an ext4 filesystem (bad superblock magic 0x%04X at byte %d, expected 0x%04X)",
          sb.magic(), OFFSET + MAGIC_AT, MAGIC));
    }
    if (sb.hasMetadataCsum() && verify) {
      if (sb.checksumType() != 1) {
        throw new Ext4FormatException(device, OFFSET + 0x175,
            "superblock checksum type " + sb.checksumType() + " is unknown (1 = crc32c)");
      }
      int expected = sb.computeChecksum();
      if (expected != sb.checksum()) {
        throw new Ext4FormatException(device, OFFSET + CHECKSUM_AT, String.format(
            "superblock checksum mismatch: stored 0x%08X, computed 0x%08X", sb.checksum(), expected));
      }
    }
    if ((sb.featureIncompat() & INCOMPAT_JOURNAL_DEV) == 0) {
      sb.checkGeometry(device); // an external journal device's superblock describes no groups
    }
    return sb;
  }

  /**
   * Decodes like {@link #decode} but without verifying the checksum, for a checker that reports a
   * mismatch itself ({@link #checksumMatches()}) and goes on with the stored fields.
   *
   * @throws Ext4FormatException on a bad magic or impossible geometry
   */
  public static Ext4Superblock decodeUnverified(String device, byte[] bytes) throws Ext4FormatException {
    if (bytes.length != SIZE) {
      throw new IllegalArgumentException("superblock must be " + SIZE + " bytes, got " + bytes.length);
    }
    Ext4Superblock sb = new Ext4Superblock(bytes.clone());
    if (sb.magic() != MAGIC) {
      throw new Ext4FormatException(device, OFFSET + MAGIC_AT, String.format(
          "not an ext4 filesystem (bad superblock magic 0x%04X at byte %d, expected 0x%04X)",
          sb.magic(), OFFSET + MAGIC_AT, MAGIC));
    }
    if ((sb.featureIncompat() & INCOMPAT_JOURNAL_DEV) == 0) {
      sb.checkGeometry(device);
    }
    return sb;
  }

  /** Whether s_checksum equals the crc32c of the other bytes (meaningful with metadata_csum). */
  public boolean checksumMatches() {
    return computeChecksum() == checksum();
  }

  /** The checksum s_checksum should hold: crc32c(~0, bytes [0, 0x3FC)). */
  public int expectedChecksum() {
    return computeChecksum();
  }

  private void checkGeometry(String device) throws Ext4FormatException {
    int log = b.getInt(0x18);
    if (log < 0 || log > 6) {
      throw new Ext4FormatException(device, OFFSET + 0x18, "s_log_block_size " + log + " is out of range [0, 6]");
    }
    if (blocksPerGroup() <= 0 || inodesPerGroup() <= 0) {
      throw new Ext4FormatException(device, OFFSET + 0x20, "blocks per group " + blocksPerGroup()
          + " / inodes per group " + inodesPerGroup() + " must be positive");
    }
    int is = inodeSize();
    if (is < 128 || is > blockSize() || Integer.bitCount(is) != 1) {
      throw new Ext4FormatException(device, OFFSET + 0x58, "inode size " + is + " is not a power of two in [128, block size]");
    }
    int ds = descriptorSize();
    if (ds < 32 || ds > 1024 || Integer.bitCount(ds) != 1 || (is64Bit() && ds < 64)) {
      throw new Ext4FormatException(device, OFFSET + 0xFE, "group descriptor size " + ds + " is invalid");
    }
    if (firstDataBlock() > 1 || (blockSize() > 1024 && firstDataBlock() != 0)) {
      throw new Ext4FormatException(device, OFFSET + 0x14, "first data block " + firstDataBlock()
          + " does not match block size " + blockSize());
    }
    long bitsPerBlock = 8L * blockSize();
    if (blocksPerGroup() > bitsPerBlock || inodesPerGroup() > bitsPerBlock) {
      throw new Ext4FormatException(device, OFFSET + 0x20, "blocks per group " + blocksPerGroup() + " / inodes per group "
          + inodesPerGroup() + " do not fit one bitmap block (" + bitsPerBlock + " bits)");
    }
    if (blocksCount() <= firstDataBlock()) {
      throw new Ext4FormatException(device, OFFSET + 0x4, "block count " + blocksCount() + " leaves no block after the first data block");
    }
    long groups = Math.ceilDiv(blocksCount() - firstDataBlock(), blocksPerGroup());
    if (inodesCount() != groups * inodesPerGroup()) {
      throw new Ext4FormatException(device, OFFSET, "inode count " + inodesCount() + " is not " + groups + " groups of "
          + inodesPerGroup() + " inodes");
    }
    if (revLevel() >= 1 && (firstInode() < 11 || firstInode() > inodesCount())) {
      throw new Ext4FormatException(device, OFFSET + 0x54, "first non-reserved inode " + firstInode()
          + " is not in [11, " + inodesCount() + "]");
    }
  }

  /** The stored superblock bytes (a copy). */
  public byte[] toBytes() {
    return raw.clone();
  }

  /**
   * The superblock bytes with {@code needs_recovery} (INCOMPAT_RECOVER) set or cleared and, when
   * {@code metadata_csum} is on, the checksum recomputed. Every other byte is unchanged.
   */
  public byte[] withNeedsRecovery(boolean needsRecovery) {
    Ext4Superblock copy = new Ext4Superblock(raw.clone());
    int incompat = featureIncompat();
    copy.b.putInt(INCOMPAT_AT, needsRecovery ? incompat | INCOMPAT_RECOVER : incompat & ~INCOMPAT_RECOVER);
    if (hasMetadataCsum()) {
      copy.b.putInt(CHECKSUM_AT, copy.computeChecksum());
    }
    return copy.raw;
  }

  /**
   * The superblock bytes with the "errors detected" bit (EXT2_ERROR_FS, 0x0002) of {@code s_state}
   * set and, when {@code metadata_csum} is on, the checksum recomputed — what e2fsck writes when it
   * finds an aborted journal's errno. Every other byte is unchanged.
   */
  public byte[] withErrorsDetected() {
    Ext4Superblock copy = new Ext4Superblock(raw.clone());
    copy.b.putShort(STATE_AT, (short) (state() | STATE_ERRORS));
    if (hasMetadataCsum()) {
      copy.b.putInt(CHECKSUM_AT, copy.computeChecksum());
    }
    return copy.raw;
  }

  int computeChecksum() {
    return Crc32c.update(0xFFFFFFFF, raw, 0, CHECKSUM_AT);
  }

  public int magic() {
    return Short.toUnsignedInt(b.getShort(MAGIC_AT));
  }

  public long inodesCount() {
    return Integer.toUnsignedLong(b.getInt(0x00));
  }

  /** Blocks count, including the high 32 bits when the 64bit feature is on. */
  public long blocksCount() {
    long lo = Integer.toUnsignedLong(b.getInt(0x04));
    return is64Bit() ? lo | Integer.toUnsignedLong(b.getInt(0x150)) << 32 : lo;
  }

  public long firstDataBlock() {
    return Integer.toUnsignedLong(b.getInt(0x14));
  }

  public int blockSize() {
    return 1024 << b.getInt(0x18);
  }

  public long blocksPerGroup() {
    return Integer.toUnsignedLong(b.getInt(0x20));
  }

  public long inodesPerGroup() {
    return Integer.toUnsignedLong(b.getInt(0x28));
  }

  /** s_state: bit 0 cleanly unmounted, bit 1 errors detected, bit 2 orphans being recovered. */
  public int state() {
    return Short.toUnsignedInt(b.getShort(STATE_AT));
  }

  public int revLevel() {
    return b.getInt(0x4C);
  }

  public int inodeSize() {
    return revLevel() == 0 ? 128 : Short.toUnsignedInt(b.getShort(0x58));
  }

  public int featureCompat() {
    return b.getInt(0x5C);
  }

  public int featureIncompat() {
    return b.getInt(INCOMPAT_AT);
  }

  public int featureRoCompat() {
    return b.getInt(0x64);
  }

  public UUID uuid() {
    return uuidAt(0x68);
  }

  /** The volume label, NUL-padded on disk; "" when none. */
  public String volumeName() {
    int end = 0x78;
    while (end < 0x88 && raw[end] != 0) {
      end++;
    }
    return new String(raw, 0x78, end - 0x78, StandardCharsets.UTF_8);
  }

  /** The external journal's UUID; all zeros for an internal journal. */
  public UUID journalUuid() {
    return uuidAt(0xD0);
  }

  public long journalInode() {
    return Integer.toUnsignedLong(b.getInt(0xE0));
  }

  /** The external journal's device number; 0 for an internal journal. */
  public int journalDevice() {
    return b.getInt(0xE4);
  }

  /** Group descriptor size: s_desc_size with the 64bit feature, else 32. */
  public int descriptorSize() {
    return is64Bit() ? Short.toUnsignedInt(b.getShort(0xFE)) : 32;
  }

  public long firstMetaBg() {
    return Integer.toUnsignedLong(b.getInt(0x104));
  }

  public int checksumType() {
    return Byte.toUnsignedInt(raw[0x175]);
  }

  /** The stored s_checksum_seed (meaningful only with metadata_csum_seed). */
  public int storedChecksumSeed() {
    return b.getInt(0x270);
  }

  /** The stored s_checksum. */
  public int checksum() {
    return b.getInt(CHECKSUM_AT);
  }

  /**
   * The seed of every metadata checksum but the superblock's: s_checksum_seed with
   * metadata_csum_seed, else crc32c(~0, s_uuid).
   */
  public int checksumSeed() {
    return (featureIncompat() & INCOMPAT_CSUM_SEED) != 0
        ? storedChecksumSeed()
        : Crc32c.update(~0, raw, 0x68, 16);
  }

  public boolean hasJournal() {
    return (featureCompat() & COMPAT_HAS_JOURNAL) != 0;
  }

  public boolean needsRecovery() {
    return (featureIncompat() & INCOMPAT_RECOVER) != 0;
  }

  public boolean is64Bit() {
    return (featureIncompat() & INCOMPAT_64BIT) != 0;
  }

  public boolean hasMetadataCsum() {
    return (featureRoCompat() & RO_COMPAT_METADATA_CSUM) != 0;
  }

  /** uninit_bg (gdt_csum): group descriptors carry a CRC-16 (ignored when metadata_csum is also set). */
  public boolean hasGdtCsum() {
    return (featureRoCompat() & RO_COMPAT_GDT_CSUM) != 0;
  }

  /** s_uuid as its 16 stored bytes (a copy). */
  public byte[] uuidBytes() {
    return java.util.Arrays.copyOfRange(raw, 0x68, 0x78);
  }

  public long reservedBlocksCount() {
    long lo = Integer.toUnsignedLong(b.getInt(0x08));
    return is64Bit() ? lo | Integer.toUnsignedLong(b.getInt(0x154)) << 32 : lo;
  }

  public long freeBlocksCount() {
    long lo = Integer.toUnsignedLong(b.getInt(0x0C));
    return is64Bit() ? lo | Integer.toUnsignedLong(b.getInt(0x158)) << 32 : lo;
  }

  public long freeInodesCount() {
    return Integer.toUnsignedLong(b.getInt(0x10));
  }

  public int logBlockSize() {
    return b.getInt(0x18);
  }

  public int logClusterSize() {
    return b.getInt(0x1C);
  }

  public long clustersPerGroup() {
    return Integer.toUnsignedLong(b.getInt(0x24));
  }

  /** s_mtime (seconds, with the high byte at 0x275). */
  public long mountTime() {
    return time(0x2C, 0x275);
  }

  /** s_wtime. */
  public long writeTime() {
    return time(0x30, 0x274);
  }

  /** s_mkfs_time. */
  public long mkfsTime() {
    return time(0x108, 0x276);
  }

  /** s_lastcheck. */
  public long lastCheckTime() {
    return time(0x40, 0x277);
  }

  /** s_checkinterval: the most seconds between forced checks (0: none). */
  public long checkInterval() {
    return Integer.toUnsignedLong(b.getInt(0x44));
  }

  public int mountCount() {
    return Short.toUnsignedInt(b.getShort(0x34));
  }

  public int maxMountCount() {
    return b.getShort(0x36);
  }

  /** s_errors: 1 continue, 2 remount read-only, 3 panic. */
  public int errorBehaviour() {
    return Short.toUnsignedInt(b.getShort(0x3C));
  }

  public int creatorOs() {
    return b.getInt(0x48);
  }

  public int defaultReservedUid() {
    return Short.toUnsignedInt(b.getShort(0x50));
  }

  public int defaultReservedGid() {
    return Short.toUnsignedInt(b.getShort(0x52));
  }

  /** The first non-reserved inode (s_first_ino; 11 on revision 0). */
  public long firstInode() {
    return revLevel() == 0 ? 11 : Integer.toUnsignedLong(b.getInt(0x54));
  }

  /** s_block_group_nr: which group's copy this is (0 for the primary). */
  public int blockGroupNr() {
    return Short.toUnsignedInt(b.getShort(0x5A));
  }

  /** s_last_mounted, the directory where the filesystem was last mounted ("" if none). */
  public String lastMounted() {
    int end = 0x88;
    while (end < 0xC8 && raw[end] != 0) {
      end++;
    }
    return new String(raw, 0x88, end - 0x88, StandardCharsets.UTF_8);
  }

  /** s_prealloc_dir_blocks: blocks the kernel may preallocate past a directory's size (e2fsck tolerates them). */
  public int preallocDirBlocks() {
    return Byte.toUnsignedInt(raw[0xCD]);
  }

  public int reservedGdtBlocks() {
    return Short.toUnsignedInt(b.getShort(0xCE));
  }

  /** s_last_orphan: the newest inode of the classic orphan list, 0 when empty. */
  public long lastOrphan() {
    return Integer.toUnsignedLong(b.getInt(0xE8));
  }

  /** s_hash_seed as four words. */
  public int[] hashSeed() {
    int[] seed = new int[4];
    for (int i = 0; i < 4; i++) {
      seed[i] = b.getInt(0xEC + 4 * i);
    }
    return seed;
  }

  /** s_def_hash_version: 0 legacy, 1 half_md4, 2 tea. */
  public int defaultHashVersion() {
    return Byte.toUnsignedInt(raw[0xFC]);
  }

  public int defaultMountOptions() {
    return b.getInt(0x100);
  }

  /** s_jnl_blocks[17]: a copy of the journal inode's i_block (15 words), i_size_high and i_size. */
  public int[] journalBackup() {
    int[] j = new int[17];
    for (int i = 0; i < 17; i++) {
      j[i] = b.getInt(0x10C + 4 * i);
    }
    return j;
  }

  public int journalBackupType() {
    return Byte.toUnsignedInt(raw[0xFD]);
  }

  public int minExtraIsize() {
    return Short.toUnsignedInt(b.getShort(0x15C));
  }

  public int wantExtraIsize() {
    return Short.toUnsignedInt(b.getShort(0x15E));
  }

  /** s_flags (signed/unsigned hash, test filesystem). */
  public int flags() {
    return b.getInt(0x160);
  }

  /** Groups per flex group (1 &lt;&lt; s_log_groups_per_flex), 1 without flex_bg. */
  public int groupsPerFlex() {
    int log = Byte.toUnsignedInt(raw[0x174]);
    return (featureIncompat() & INCOMPAT_FLEX_BG) == 0 || log > 30 ? 1 : 1 << log;
  }

  public int logGroupsPerFlex() {
    return Byte.toUnsignedInt(raw[0x174]);
  }

  public long kbytesWritten() {
    return b.getLong(0x178);
  }

  public int errorCount() {
    return b.getInt(0x194);
  }

  public long firstErrorTime() {
    return time(0x198, 0x278);
  }

  public long lastErrorTime() {
    return time(0x1CC, 0x279);
  }

  public long firstErrorInode() {
    return Integer.toUnsignedLong(b.getInt(0x19C));
  }

  public long lastErrorInode() {
    return Integer.toUnsignedLong(b.getInt(0x1D0));
  }

  public long firstErrorBlock() {
    return b.getLong(0x1A0);
  }

  public long lastErrorBlock() {
    return b.getLong(0x1D8);
  }

  /** s_first_error_func, NUL-padded. */
  public String firstErrorFunction() {
    return cString(0x1A8, 32);
  }

  public String lastErrorFunction() {
    return cString(0x1E0, 32);
  }

  public int firstErrorLine() {
    return b.getInt(0x1C8);
  }

  public int lastErrorLine() {
    return b.getInt(0x1D4);
  }

  public int firstErrorCode() {
    return Byte.toUnsignedInt(raw[0x27A]);
  }

  public int lastErrorCode() {
    return Byte.toUnsignedInt(raw[0x27B]);
  }

  public long overheadClusters() {
    return Integer.toUnsignedLong(b.getInt(0x248));
  }

  public int encoding() {
    return Short.toUnsignedInt(b.getShort(0x27C));
  }

  /** s_orphan_file_inum (orphan_file feature), 0 if none. */
  public long orphanFileInode() {
    return Integer.toUnsignedLong(b.getInt(0x280));
  }

  public long usrQuotaInode() {
    return Integer.toUnsignedLong(b.getInt(0x240));
  }

  public long grpQuotaInode() {
    return Integer.toUnsignedLong(b.getInt(0x244));
  }

  public long prjQuotaInode() {
    return Integer.toUnsignedLong(b.getInt(0x26C));
  }

  public boolean has(int compatMask, int incompatMask, int roCompatMask) {
    return (featureCompat() & compatMask) == compatMask && (featureIncompat() & incompatMask) == incompatMask
        && (featureRoCompat() & roCompatMask) == roCompatMask;
  }

  public boolean hasCompat(int mask) {
    return (featureCompat() & mask) != 0;
  }

  public boolean hasIncompat(int mask) {
    return (featureIncompat() & mask) != 0;
  }

  public boolean hasRoCompat(int mask) {
    return (featureRoCompat() & mask) != 0;
  }

  /** Names of the set ro_compat features; unknown bits as {@code ro_compat_0x…}. */
  public static List<String> roCompatNames(int bits) {
    List<String> names = new ArrayList<>();
    addNames(names, bits, RO_COMPAT_NAMES, "ro_compat");
    return names;
  }

  /** Names of the set compat features. */
  public static List<String> compatNames(int bits) {
    List<String> names = new ArrayList<>();
    addNames(names, bits, COMPAT_NAMES, "compat");
    return names;
  }

  /** Ro_compat bits this codec has no name for. */
  public int unknownRoCompatFeatures() {
    int known = 0;
    for (int i = 0; i < RO_COMPAT_NAMES.length; i++) {
      known |= 1 << i;
    }
    return featureRoCompat() & ~known;
  }

  /**
   * The dumpe2fs name of feature bit {@code mask} (one bit) of {@code kind} (0 compat, 1 incompat,
   * 2 ro_compat), or null when it has none.
   */
  public static String featureName(int kind, int mask) {
    String[] t = FEATURE_NAMES[kind];
    int i = Integer.numberOfTrailingZeros(mask);
    return i < t.length ? t[i] : null;
  }

  /** A feature's bit by its dumpe2fs name: {kind (0 compat, 1 incompat, 2 ro_compat), mask}, or null. */
  public static int[] featureByName(String name) {
    for (int kind = 0; kind < 3; kind++) {
      String[] t = FEATURE_NAMES[kind];
      for (int i = 0; i < t.length; i++) {
        if (name.equals(t[i])) {
          return new int[] {kind, 1 << i};
        }
      }
    }
    return switch (name) {
      case "extents" -> new int[] {1, INCOMPAT_EXTENTS};
      case "gdt_csum" -> new int[] {2, RO_COMPAT_GDT_CSUM};
      default -> null;
    };
  }

  private long time(int lo, int hiByte) {
    return Integer.toUnsignedLong(b.getInt(lo)) | (long) Byte.toUnsignedInt(raw[hiByte]) << 32;
  }

  private String cString(int at, int max) {
    int end = at;
    while (end < at + max && raw[end] != 0) {
      end++;
    }
    return new String(raw, at, end - at, StandardCharsets.ISO_8859_1);
  }

  /** Number of block groups. */
  public long groupCount() {
    return Math.ceilDiv(blocksCount() - firstDataBlock(), blocksPerGroup());
  }

  /** Names of the set compat, incompat and ro_compat features, as dumpe2fs spells them. */
  public List<String> featureNames() {
    List<String> names = new ArrayList<>();
    addNames(names, featureCompat(), COMPAT_NAMES, "compat");
    addNames(names, featureIncompat(), INCOMPAT_NAMES, "incompat");
    addNames(names, featureRoCompat(), RO_COMPAT_NAMES, "ro_compat");
    return names;
  }

  /** Names of the set incompat features; unknown bits as {@code incompat_0x…}. */
  public static List<String> incompatNames(int bits) {
    List<String> names = new ArrayList<>();
    addNames(names, bits, INCOMPAT_NAMES, "incompat");
    return names;
  }

  /** Incompat bits this codec has no name for. */
  public int unknownIncompatFeatures() {
    int known = 0;
    for (int i = 0; i < INCOMPAT_NAMES.length; i++) {
      if (INCOMPAT_NAMES[i] != null) {
        known |= 1 << i;
      }
    }
    return featureIncompat() & ~known;
  }

  private static void addNames(List<String> out, int bits, String[] names, String kind) {
    for (int i = 0; i < 32; i++) {
      if ((bits & (1 << i)) != 0) {
        out.add(i < names.length && names[i] != null ? names[i] : String.format("%s_0x%x", kind, 1 << i));
      }
    }
  }

  private UUID uuidAt(int at) {
    ByteBuffer be = ByteBuffer.wrap(raw, at, 16).order(ByteOrder.BIG_ENDIAN);
    return new UUID(be.getLong(), be.getLong());
  }

  @Override
  public String toString() {
    return "Ext4Superblock[uuid=" + uuid() + ", blockSize=" + blockSize() + ", blocks=" + blocksCount()
        + ", inodes=" + inodesCount() + ", features=" + featureNames() + "]";
  }
}
