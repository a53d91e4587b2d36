package io.ext4j.tools.mkfs;

/**
 * One block group as mke2fs 1.47.0 leaves it.
 *
 * <p>Positions: when {@code hasSuperblockBackup}, block {@code firstBlock} holds the superblock (the
 * primary in group 0 — at byte 1024 of block 0 with blocks over 1 KiB — a backup elsewhere); then come
 * {@code descriptorBlocks} descriptor-table blocks from {@link #descriptorStart()} and
 * {@code reservedGdtBlocks} reserved GDT blocks from {@link #reservedGdtStart()}. The bitmaps and
 * table may lie in another group (flex_bg).
 *
 * @param group the group number
 * @param firstBlock its first block
 * @param blockCount its blocks (the last group may be shorter)
 * @param hasSuperblockBackup whether it holds a superblock copy (always for group 0)
 * @param descriptorBlocks descriptor-table blocks it holds: the whole table in a superblock group
 *     without meta_bg; with meta_bg one block in a meta group's first, second and last group
 * @param reservedGdtBlocks reserved GDT blocks it holds (resize_inode; superblock groups only)
 * @param blockBitmap the block of its block bitmap
 * @param inodeBitmap the block of its inode bitmap
 * @param inodeTable the first block of its inode table
 * @param flags bg_flags: {@link #INODE_UNINIT}, {@link #BLOCK_UNINIT}, {@link #ITABLE_ZEROED}, as
 *     written once mke2fs has created its files (UNINIT flags only with group descriptor checksums)
 * @param itableUnused bg_itable_unused: inodes per group − used inodes (0 without descriptor checksums)
 * @param usedInodes inodes in use in this group (1–11, and 12 with an orphan file, all in group 0 but
 *     for tiny inodes-per-group counts)
 * @param freeBlocks free blocks once the superblock/descriptor copies, reserved GDT blocks and every
 *     bitmap and table lying in this group are counted, before any file data
 * @param fileBlocks blocks of mke2fs's own files (root, lost+found, resize DIND, journal, orphan file,
 *     their extent blocks) lying in this group; bg_free_blocks_count = freeBlocks − fileBlocks
 */
public record GroupLayout(
    long group,
    long firstBlock,
    int blockCount,
    boolean hasSuperblockBackup,
    int descriptorBlocks,
    int reservedGdtBlocks,
    long blockBitmap,
    long inodeBitmap,
    long inodeTable,
    int flags,
    int itableUnused,
    int usedInodes,
    int freeBlocks,
    int fileBlocks) {
  /** bg_flags: the inode bitmap and table are not initialized. */
  public static final int INODE_UNINIT = 0x1;
  /** bg_flags: the block bitmap is not initialized (computed from the group's own metadata). */
  public static final int BLOCK_UNINIT = 0x2;
  /** bg_flags: the inode table is known to be zeroed. */
  public static final int ITABLE_ZEROED = 0x4;

  public boolean hasFlag(int flag) {
    return (flags & flag) != 0;
  }

  /** The first descriptor block in this group (meaningful when {@code descriptorBlocks > 0}). */
  public long descriptorStart() {
    return firstBlock + (hasSuperblockBackup ? 1 : 0);
  }

  /** The first reserved GDT block in this group (meaningful when {@code reservedGdtBlocks > 0}). */
  public long reservedGdtStart() {
    return descriptorStart() + descriptorBlocks;
  }

  /** bg_free_blocks_count as mke2fs writes it: {@code freeBlocks − fileBlocks}. */
  public int freeBlocksAfterMkfs() {
    return freeBlocks - fileBlocks;
  }
}
