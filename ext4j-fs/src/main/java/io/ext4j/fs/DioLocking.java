package io.ext4j.fs;

/**
 * How direct-I/O writes lock the inode (the ext4 DIO locking discussion): the "before" strategies
 * stay selectable so the benchmark can compare them.
 */
public enum DioLocking {
  /** Every direct write takes the inode lock exclusive (ext4 before 5.5's shared overwrites). */
  ALWAYS_EXCLUSIVE,
  /**
   * Aligned overwrites of written blocks inside the size run under the shared lock, in parallel;
   * everything else exclusive (ext4 5.5–6.2).
   */
  SHARED_OVERWRITE,
  /**
   * As {@link #SHARED_OVERWRITE}, and also overwrites of unwritten (preallocated) blocks under the
   * shared lock, converting them after the I/O (ext4 ≥ 6.3); aligned writes into holes inside the
   * size stay shared too, allocating unwritten extents under the block-map lock before the I/O (as
   * XFS allocates under its shared I/O lock). The default.
   */
  SHARED_WITH_UNWRITTEN
}
