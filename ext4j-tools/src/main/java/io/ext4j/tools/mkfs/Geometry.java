package io.ext4j.tools.mkfs;

import java.util.List;

/**
 * The layout mke2fs 1.47.0 lays down for a {@link MkfsParameters}: the superblock's counts, every
 * group's metadata positions, flags and free counts, and where mke2fs's own files go. Immutable;
 * computed by {@link #of} (pure: no I/O, no clock, no randomness).
 *
 * <h2>How it is computed (each step's rules are in the named class)</h2>
 * <ol>
 *   <li>{@link MkfsParameters}: block size and inode ratio by size type, the requested block count,
 *       feature dependency rules.
 *   <li>{@link GroupSizing}: groups, inodes per group, descriptor and reserved GDT blocks, the
 *       last-group-too-small rule, r_blocks.
 *   <li>Each superblock group reserves its superblock, descriptor and reserved-GDT blocks
 *       ({@link #hasBackup}; with meta_bg one descriptor block in each meta group's first, second and
 *       last group instead, s_first_meta_bg = 0).
 *   <li>{@link GroupTables}: bitmaps and inode tables, per group or flex_bg-packed. The groups' free
 *       counts are taken here ({@link GroupLayout#freeBlocks()}).
 *   <li>{@link FilePlacement}: root directory, lost+found, resize inode DIND block, journal (default
 *       size by block count: &lt; 2048 none — then has_journal and orphan_file are dropped; &lt; 32Ki
 *       1024; &lt; 256Ki 4096; &lt; 512Ki 8192; &lt; 4Mi 16384; &lt; 8Mi 32768; &lt; 16Mi 65536;
 *       &lt; 32Mi 131072; else 262144; an explicit size must not exceed half the free blocks, counted
 *       as mke2fs counts them before placing tables: without the tables when flex_bg packs them), orphan
 *       file (default 32 blocks under 128Ki blocks, else blocks / 4096 but at most 512).
 *   <li>Flags, with group descriptor checksums (metadata_csum or uninit_bg): INODE_UNINIT where no
 *       inode is used; BLOCK_UNINIT on every group but the last that neither hosts a flex-placed
 *       bitmap/table nor holds a file block (1.47.0 still sets it on groups with backups; 1.47.1 does
 *       not); itable_unused = ipg − used. ITABLE_ZEROED on every group when
 *       {@code !lazyItableInit || targetReadsZeros}, with or without checksums.
 *   <li>s_overhead_clusters = first data block + every superblock/descriptor/reserved-GDT copy,
 *       bitmap and table block + the journal's blocks (not the other files).
 * </ol>
 *
 * <h2>Where mke2fs 1.47.0 does more than the format brief says (mke2fs is followed)</h2>
 * Each was found by the oracle test ({@code GeometryOracleTest}) or read back from an image.
 * <ul>
 *   <li>Step 1: a size is rounded down to the 4 KiB page first (2051 KiB makes 2048 1 KiB blocks).
 *   <li>Step 3: the inode count is fixed from the requested block count before any last-group drop
 *       (a dropped group raises ipg); a ratio larger than the filesystem falls back to one inode per
 *       4 KiB; ipg is at least 8 (16 inodes in 4 groups give 8 per group); a bpg retry restores the
 *       block count but keeps r_blocks from an abandoned pass ({@code -b 4096 -i 1024}, 64 MiB:
 *       713).
 *   <li>Step 7: flex-placed arrays run on into following groups and step over their backups.
 *   <li>Step 8: BLOCK_UNINIT is also lost by a group that receives any file block (the journal's
 *       group, typically), and by the group of lost+found's inode when ipg &lt; 11.
 *   <li>Step 12: a journal is contiguous only while no metadata lies in its way: it flows around
 *       metadata in pieces of at most 32768 blocks, and from the fifth piece on has extent leaf
 *       blocks (not counted in s_overhead_clusters). An explicit size is checked against the free
 *       count before flex-placed tables are charged; under 2048 blocks there is no journal even if
 *       a size was given.
 *   <li>Step 13: the orphan file is at most 512 blocks in 1.47.0 already, and starts at the
 *       filesystem's first free block rather than in its inode's group.
 *   <li>More than 2³² − 1 blocks (64bit turned on, resize_inode off): the descriptor table then
 *       exceeds ¾ of a group with 1 KiB blocks, so meta_bg comes on too (checked on a 4 TiB image of
 *       1 KiB blocks: all 524416 groups match).
 * </ul>
 *
 * <h2>Not modelled</h2>
 * bigalloc, sparse_super2, quota/project, mmp, fast_commit, inline_data, journal_dev, and a journal
 * or orphan file without extents: {@link #of} throws UnsupportedOperationException naming the
 * feature. meta_bg layouts are computed (checked against mkfs.ext4 in the oracle test).
 *
 * @param blockSize bytes per block
 * @param blocksCount s_blocks_count
 * @param firstDataBlock s_first_data_block (1 with 1 KiB blocks, else 0)
 * @param blocksPerGroup s_blocks_per_group
 * @param inodesPerGroup s_inodes_per_group
 * @param groupCount number of block groups
 * @param inodesCount s_inodes_count (= inodesPerGroup × groupCount)
 * @param inodeSize s_inode_size
 * @param inodeTableBlocks blocks of each group's inode table
 * @param descriptorSize s_desc_size (64 with 64bit; 32 without, where s_desc_size is written as 0)
 * @param descriptorBlocks blocks of the whole descriptor table
 * @param reservedGdtBlocks s_reserved_gdt_blocks
 * @param reservedBlocks s_r_blocks_count
 * @param features the final feature masks (after the rules of {@link MkfsParameters} and those that
 *     depend on the layout: meta_bg by the ¾ rule, has_journal/orphan_file dropped for a tiny fs)
 * @param logGroupsPerFlex s_log_groups_per_flex (0 without flex_bg)
 * @param firstMetaBg s_first_meta_bg (0; meaningful with meta_bg)
 * @param overheadClusters s_overhead_clusters
 * @param groups every group, in order
 * @param files mke2fs's own files
 */
public record Geometry(
    int blockSize,
    long blocksCount,
    long firstDataBlock,
    int blocksPerGroup,
    int inodesPerGroup,
    long groupCount,
    long inodesCount,
    int inodeSize,
    int inodeTableBlocks,
    int descriptorSize,
    long descriptorBlocks,
    int reservedGdtBlocks,
    long reservedBlocks,
    FeatureSet features,
    int logGroupsPerFlex,
    long firstMetaBg,
    long overheadClusters,
    List<GroupLayout> groups,
    Files files) {

  /**
   * Blocks of the files mke2fs creates.
   *
   * @param rootDirectory inode 2's one block
   * @param lostFound inode 11's blocks
   * @param resizeInodeBlock inode 7's DIND block, 0 without resize_inode
   * @param journal inode 8's blocks ({@link FileBlocks#NONE} without a journal)
   * @param orphanFile inode 12's blocks ({@link FileBlocks#NONE} without orphan_file)
   */
  public record Files(FileBlocks rootDirectory, FileBlocks lostFound, long resizeInodeBlock, FileBlocks journal,
      FileBlocks orphanFile) {}

  public Geometry {
    groups = List.copyOf(groups);
    if (groups.size() != groupCount) {
      throw new IllegalArgumentException(groups.size() + " group layouts for " + groupCount + " groups");
    }
  }

  /**
   * The layout mke2fs 1.47.0 would lay down for {@code p}.
   *
   * @throws IllegalArgumentException for a filesystem mke2fs would refuse (too small, too many inodes,
   *     journal too big)
   * @throws UnsupportedOperationException for a feature whose layout is not modelled (see the class doc)
   */
  public static Geometry of(MkfsParameters p) {
    return LayoutPlanner.plan(p);
  }

  /** Whether group {@code g} holds a superblock (the primary in group 0, else a backup; sparse_super rule). */
  public boolean hasBackup(long g) {
    return GroupSizing.hasSuper(features, g);
  }

  /** The first block of group {@code g}. */
  public long groupFirstBlock(long g) {
    return firstDataBlock + g * blocksPerGroup;
  }

  /** The number of blocks of group {@code g} (the last one may be shorter). */
  public int groupBlocks(long g) {
    return (int) (Math.min(groupFirstBlock(g) + blocksPerGroup, blocksCount) - groupFirstBlock(g));
  }

  /** The group holding {@code block}. */
  public long groupOf(long block) {
    return (block - firstDataBlock) / blocksPerGroup;
  }

  public GroupLayout group(long g) {
    return groups.get(Math.toIntExact(g));
  }

  /** The journal's blocks (0 without a journal). */
  public long journalBlocks() {
    return files.journal().dataBlocks();
  }

  /** The orphan file's blocks (0 without orphan_file). */
  public long orphanFileBlocks() {
    return files.orphanFile().dataBlocks();
  }

  /** lost+found's blocks. */
  public long lostFoundBlocks() {
    return files.lostFound().dataBlocks();
  }

  /** Σ bg_free_blocks_count as mke2fs writes it (s_free_blocks_count). */
  public long freeBlocksAfterMkfs() {
    return groups.stream().mapToLong(GroupLayout::freeBlocksAfterMkfs).sum();
  }

  @Override
  public String toString() {
    return "Geometry[" + blocksCount + " blocks of " + blockSize + ", " + groupCount + " groups of " + blocksPerGroup
        + ", " + inodesCount + " inodes (" + inodesPerGroup + "/group, " + inodeTableBlocks + " table blocks), rsv gdt "
        + reservedGdtBlocks + ", r_blocks " + reservedBlocks + ", flex " + logGroupsPerFlex + ", journal " + files.journal()
        + ", " + features + "]";
  }
}
