package io.ext4j.tools.mkfs;

import java.util.Locale;

/**
 * What {@code mke2fs} is asked for: the inputs of {@link Geometry#of}. Immutable and validated; made by
 * {@link #builder()}, whose {@link Builder#build()} applies mke2fs's feature dependency rules first.
 *
 * <h2>Components (defaults are the builder's)</h2>
 * <ul>
 *   <li>{@code sizeBytes} — the target's size; exactly one of it and {@code blocksCount} is nonzero. As
 *       mke2fs does for a device (or file) whose size it reads, the size is rounded down to the 4 KiB
 *       page first (to whole blocks when blocks are larger): see {@link #requestedBlocks()}.
 *   <li>{@code blocksCount} — an explicit block count ({@code mke2fs IMG COUNT}), not rounded; needs an
 *       explicit {@code blockSize}.
 *   <li>{@code blockSize} — 1024…65536, a power of two; 0 (default) chooses as mke2fs does from the size
 *       type: 1024 for floppy and small, else 4096 (§2 step 1).
 *   <li>{@code inodeSize} — 256; a power of two in [128, block size].
 *   <li>{@code inodeRatio} — bytes per inode; 0 (default) takes the size type's (floppy 8192, small
 *       4096, default 16384, big 32768, huge 65536), raised to the block size if smaller. An explicit
 *       ratio (1024 … 64 MiB) is used as given, as {@code -i} is.
 *   <li>{@code inodesCount} — 0 (default) computes blocks × block size / ratio; else as {@code -N}.
 *   <li>{@code reservedPercent} — 5.0; {@code s_r_blocks_count} = this % of the blocks, 0…50.
 *   <li>{@code compat}, {@code incompat}, {@code roCompat} — features; default
 *       {@link FeatureSet#MKE2FS_EXT4_DEFAULTS} (0x103C / 0x22C2 / 0x046B).
 *   <li>{@code logGroupsPerFlex} — 4 (16 groups per flex group); 0…31; unused without flex_bg (where
 *       the builder refuses an explicit one, as mke2fs refuses {@code -G}). 0 with flex_bg keeps the
 *       feature but lays groups out as without it (s_log_groups_per_flex = 0).
 *   <li>{@code journalBlocks} — −1 (default) sizes the journal by the block count (§2 step 12), 0 means
 *       no journal (clears has_journal), else that many blocks (sets has_journal, as {@code -J size}
 *       does): {@link Geometry#of} requires 1024…10 240 000 and at most half the free blocks — unless
 *       the filesystem is too small for any journal (under 2048 blocks), which then has none.
 *   <li>{@code orphanFileBlocks} — −1 (default) sizes it by the block count (§2 step 13), else ≥ 1.
 *   <li>{@code lazyItableInit} — true: inode tables are left for the kernel to zero, as
 *       {@code lazy_itable_init=1}.
 *   <li>{@code targetReadsZeros} — true: the target reads as zeros where never written (a fresh or
 *       hole-punched regular file, or a device whose discard zeroes). mke2fs discards a regular-file
 *       target by punching it, finds it zeroed, and then marks every table ITABLE_ZEROED even with
 *       lazy init; so a group is ITABLE_ZEROED iff {@code !lazyItableInit || targetReadsZeros}.
 * </ul>
 *
 * <h2>Dependency rules applied by {@link Builder#build()} (mke2fs's, in this order)</h2>
 * <ol>
 *   <li>orphan_file needs a journal: cleared when the masks lack has_journal or {@code journalBlocks}
 *       is 0 (mke2fs drops it silently, judging by the features before {@code -J} turns has_journal
 *       on; a filesystem too small for a journal drops it later, in {@link Geometry#of}).
 *   <li>{@code journalBlocks} 0 clears has_journal; a positive one sets it.
 *   <li>metadata_csum_seed needs metadata_csum: cleared without it.
 *   <li>metadata_csum and uninit_bg (gdt_csum) exclude each other: metadata_csum wins.
 *   <li>meta_bg clears resize_inode. (mke2fs itself refuses {@code -O meta_bg} while resize_inode is
 *       on; this gives the layout of {@code -O meta_bg,^resize_inode}.)
 *   <li>64bit is turned on when the block count needs more than 32 bits, unless an edit string cleared
 *       it explicitly ({@code ^64bit}): then build() refuses, as mke2fs does. With more than 2³² − 1
 *       blocks resize_inode is cleared.
 * </ol>
 * Refused (IllegalArgumentException, as mke2fs exits): resize_inode without sparse_super ("reserved
 * online resize blocks not supported on non-sparse filesystem"); 64bit without extent.
 */
public record MkfsParameters(
    long sizeBytes,
    long blocksCount,
    int blockSize,
    int inodeSize,
    int inodeRatio,
    long inodesCount,
    double reservedPercent,
    int compat,
    int incompat,
    int roCompat,
    int logGroupsPerFlex,
    long journalBlocks,
    long orphanFileBlocks,
    boolean lazyItableInit,
    boolean targetReadsZeros) {

  /** The page size mke2fs rounds a read device size down to (x86-64). */
  static final int PAGE_SIZE = 4096;
  static final long MAX_32 = 0xFFFF_FFFFL;

  /** The size class that picks block size and inode ratio (mke2fs {@code parse_fs_type}, §2 step 1). */
  public enum SizeType {
    FLOPPY(1024, 8192), SMALL(1024, 4096), DEFAULT(4096, 16384), BIG(4096, 32768), HUGE(4096, 65536);

    private final int blockSize;
    private final int inodeRatio;

    SizeType(int blockSize, int inodeRatio) {
      this.blockSize = blockSize;
      this.inodeRatio = inodeRatio;
    }

    /** The block size mke2fs takes for this type when none is given. */
    public int blockSize() {
      return blockSize;
    }

    /** The bytes per inode mke2fs takes for this type when no ratio is given (before raising to the block size). */
    public int inodeRatio() {
      return inodeRatio;
    }

    /** The type of a filesystem of {@code bytes}: under 3 MiB, 512 MiB, 4 TiB, 16 TiB, else huge. */
    public static SizeType of(long bytes) {
      long mib = 1L << 20;
      if (bytes < 3 * mib) {
        return FLOPPY;
      } else if (bytes < 512 * mib) {
        return SMALL;
      } else if (bytes < (4L << 40)) {
        return DEFAULT;
      } else if (bytes < (16L << 40)) {
        return BIG;
      }
      return HUGE;
    }
  }

  public MkfsParameters {
    if ((sizeBytes > 0) == (blocksCount > 0) || sizeBytes < 0 || blocksCount < 0) {
      throw new IllegalArgumentException("exactly one of sizeBytes (" + sizeBytes + ") and blocksCount ("
          + blocksCount + ") must be positive");
    }
    if (blockSize != 0 && (blockSize < 1024 || blockSize > 65536 || Integer.bitCount(blockSize) != 1)) {
      throw new IllegalArgumentException("block size " + blockSize + " is not 0 or a power of two in [1024, 65536]");
    }
    if (blocksCount > 0 && blockSize == 0) {
      throw new IllegalArgumentException("an explicit block count (" + blocksCount + ") needs an explicit block size");
    }
    int bs = blockSize != 0 ? blockSize : SizeType.of(sizeBytes).blockSize();
    if (inodeSize < 128 || inodeSize > bs || Integer.bitCount(inodeSize) != 1) {
      throw new IllegalArgumentException("inode size " + inodeSize + " is not a power of two in [128, " + bs + "]");
    }
    if (inodeRatio != 0 && (inodeRatio < 1024 || inodeRatio > 65536 * 1024)) {
      throw new IllegalArgumentException("inode ratio " + inodeRatio + " is not 0 or in [1024, 67108864]");
    }
    if (inodesCount < 0 || inodesCount > MAX_32) {
      throw new IllegalArgumentException("inodes count " + inodesCount + " is not in [0, 2^32 - 1]");
    }
    if (!(reservedPercent >= 0 && reservedPercent <= 50)) {
      throw new IllegalArgumentException("reserved percent " + reservedPercent + " is not in [0, 50]");
    }
    if (logGroupsPerFlex < 0 || logGroupsPerFlex > 31) {
      throw new IllegalArgumentException("log groups per flex " + logGroupsPerFlex + " is not in [0, 31]");
    }
    if (journalBlocks < -1) {
      throw new IllegalArgumentException("journal blocks " + journalBlocks + " is not -1 (default), 0 (none) or positive");
    }
    if (orphanFileBlocks != -1 && orphanFileBlocks < 1) {
      throw new IllegalArgumentException("orphan file blocks " + orphanFileBlocks + " is not -1 (default) or positive");
    }
    FeatureSet f = new FeatureSet(compat, incompat, roCompat);
    if (f.hasCompat(FeatureSet.COMPAT_RESIZE_INODE) && !f.hasRoCompat(FeatureSet.RO_COMPAT_SPARSE_SUPER)) {
      throw new IllegalArgumentException("reserved online resize blocks not supported on non-sparse filesystem"
          + " (resize_inode needs sparse_super): " + f);
    }
    if (f.hasIncompat(FeatureSet.INCOMPAT_64BIT) && !f.hasIncompat(FeatureSet.INCOMPAT_EXTENTS)) {
      throw new IllegalArgumentException("extents must be enabled for a 64-bit filesystem: " + f);
    }
    long blocks = requestedBlocks(sizeBytes, blocksCount, bs);
    if (blocks < 1) {
      throw new IllegalArgumentException("size " + sizeBytes + " bytes holds no whole " + bs + "-byte block");
    }
    if (blocks > MAX_32 && !f.hasIncompat(FeatureSet.INCOMPAT_64BIT)) {
      throw new IllegalArgumentException(blocks + " blocks need the 64bit feature: " + f);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The feature masks as one value. */
  public FeatureSet features() {
    return new FeatureSet(compat, incompat, roCompat);
  }

  /** The block size to use: the given one, or the size type's. */
  public int resolvedBlockSize() {
    return blockSize != 0 ? blockSize : SizeType.of(sizeBytes).blockSize();
  }

  /**
   * The block count mke2fs starts from, before dropping a too-small last group: {@code blocksCount}, or
   * the size rounded down to the page (4096 bytes; to whole blocks when larger) in blocks.
   */
  public long requestedBlocks() {
    return requestedBlocks(sizeBytes, blocksCount, resolvedBlockSize());
  }

  private static long requestedBlocks(long sizeBytes, long blocksCount, int bs) {
    if (blocksCount > 0) {
      return blocksCount;
    }
    long unit = Math.max(bs, PAGE_SIZE);
    return sizeBytes / unit * (unit / bs);
  }

  /** The size type, from the requested blocks' bytes. */
  public SizeType sizeType() {
    return SizeType.of(requestedBlocks() * resolvedBlockSize());
  }

  /** The inode ratio to use: the given one, or the size type's raised to the block size. */
  public int resolvedInodeRatio() {
    return inodeRatio != 0 ? inodeRatio : Math.max(sizeType().inodeRatio(), resolvedBlockSize());
  }

  /** Builder; every default is listed in the record's doc. Not thread-safe. */
  public static final class Builder {
    private long sizeBytes;
    private long blocksCount;
    private int blockSize;
    private int inodeSize = 256;
    private int inodeRatio;
    private long inodesCount;
    private double reservedPercent = 5.0;
    private FeatureSet features = FeatureSet.MKE2FS_EXT4_DEFAULTS;
    private boolean cleared64bit; // an edit string said ^64bit
    private int logGroupsPerFlex = 4;
    private boolean flexSizeGiven;
    private long journalBlocks = -1;
    private long orphanFileBlocks = -1;
    private boolean lazyItableInit = true;
    private boolean targetReadsZeros = true;

    private Builder() {}

    /** The target's size in bytes (clears an explicit block count). */
    public Builder sizeBytes(long bytes) {
      this.sizeBytes = bytes;
      this.blocksCount = 0;
      return this;
    }

    /** An explicit block count (clears the size); needs {@link #blockSize(int)}. */
    public Builder blocksCount(long blocks) {
      this.blocksCount = blocks;
      this.sizeBytes = 0;
      return this;
    }

    public Builder blockSize(int bytes) {
      this.blockSize = bytes;
      return this;
    }

    public Builder inodeSize(int bytes) {
      this.inodeSize = bytes;
      return this;
    }

    public Builder inodeRatio(int bytesPerInode) {
      this.inodeRatio = bytesPerInode;
      return this;
    }

    public Builder inodesCount(long inodes) {
      this.inodesCount = inodes;
      return this;
    }

    public Builder reservedPercent(double percent) {
      this.reservedPercent = percent;
      return this;
    }

    /** Replaces the feature masks (an earlier {@code ^64bit} edit is forgotten). */
    public Builder features(FeatureSet f) {
      this.features = f;
      this.cleared64bit = false;
      return this;
    }

    /** Applies a {@code mke2fs -O} edit string to the current features (see {@link FeatureSet#edit}). */
    public Builder withFeatureString(String spec) {
      this.features = features.edit(spec);
      for (String token : spec.trim().toLowerCase(Locale.ROOT).split("[,\\s]+", -1)) {
        if (token.equals("^64bit") || token.equals("-64bit")) {
          cleared64bit = true;
        } else if (token.equals("64bit") || token.equals("+64bit")) {
          cleared64bit = false;
        }
      }
      return this;
    }

    /** log2 of the groups per flex group; refused at build() without flex_bg, as {@code -G} is. */
    public Builder logGroupsPerFlex(int log) {
      this.logGroupsPerFlex = log;
      this.flexSizeGiven = true;
      return this;
    }

    public Builder journalBlocks(long blocks) {
      this.journalBlocks = blocks;
      return this;
    }

    public Builder orphanFileBlocks(long blocks) {
      this.orphanFileBlocks = blocks;
      return this;
    }

    public Builder lazyItableInit(boolean lazy) {
      this.lazyItableInit = lazy;
      return this;
    }

    public Builder targetReadsZeros(boolean zeros) {
      this.targetReadsZeros = zeros;
      return this;
    }

    /**
     * Applies the dependency rules of the record's doc and validates.
     *
     * @throws IllegalArgumentException for values out of range or combinations mke2fs refuses
     */
    public MkfsParameters build() {
      FeatureSet f = features;
      if (!f.hasCompat(FeatureSet.COMPAT_HAS_JOURNAL) || journalBlocks == 0) {
        f = f.withCompat(FeatureSet.COMPAT_ORPHAN_FILE, false);
      }
      if (journalBlocks == 0) {
        f = f.withCompat(FeatureSet.COMPAT_HAS_JOURNAL, false);
      } else if (journalBlocks > 0) {
        f = f.withCompat(FeatureSet.COMPAT_HAS_JOURNAL, true);
      }
      if (flexSizeGiven && !f.hasIncompat(FeatureSet.INCOMPAT_FLEX_BG)) {
        throw new IllegalArgumentException("flex_bg feature not enabled, so a flex group size ("
            + logGroupsPerFlex + " as log2) may not be given");
      }
      if (!f.hasRoCompat(FeatureSet.RO_COMPAT_METADATA_CSUM)) {
        f = f.withIncompat(FeatureSet.INCOMPAT_CSUM_SEED, false);
      } else {
        f = f.withRoCompat(FeatureSet.RO_COMPAT_GDT_CSUM, false);
      }
      if (f.hasIncompat(FeatureSet.INCOMPAT_META_BG)) {
        f = f.withCompat(FeatureSet.COMPAT_RESIZE_INODE, false);
      }
      if (sizeBytes > 0 || blocksCount > 0) {
        int bs = blockSize != 0 ? blockSize : sizeBytes > 0 ? SizeType.of(sizeBytes).blockSize() : 1024;
        long blocks = requestedBlocks(sizeBytes, blocksCount, bs);
        if (blocks > MAX_32) {
          if (!f.hasIncompat(FeatureSet.INCOMPAT_64BIT) && cleared64bit) {
            throw new IllegalArgumentException(blocks + " blocks of " + bs
                + " bytes are too many for a filesystem without 64bit (^64bit was given)");
          }
          f = f.withIncompat(FeatureSet.INCOMPAT_64BIT, true).withCompat(FeatureSet.COMPAT_RESIZE_INODE, false);
        }
      }
      return new MkfsParameters(sizeBytes, blocksCount, blockSize, inodeSize, inodeRatio, inodesCount,
          reservedPercent, f.compat(), f.incompat(), f.roCompat(), logGroupsPerFlex, journalBlocks,
          orphanFileBlocks, lazyItableInit, targetReadsZeros);
    }
  }
}
