package io.ext4j.fs;

import io.ext4j.jbd2.JournalMap;

import io.ext4j.fs.format.Ext4Superblock;
import java.util.List;

/**
 * Where an ext4 filesystem's internal jbd2 journal lives: the journal inode's blocks as extents, and
 * the ext4 superblock it was found through. Journal block {@code j} is filesystem block
 * {@link #deviceBlock(long) deviceBlock(j)}; filesystem blocks are {@code superblock.blockSize()}
 * bytes, counted from byte 0 of the device (which may use another block size).
 *
 * @param superblock the ext4 superblock as decoded (checksum verified when metadata_csum is on)
 * @param extents the journal's blocks, in journal order, contiguous from journal block 0, no holes
 * @param damagedInode null when found through the journal inode; else why the inode could not be
 *     used, and the blocks came from the superblock's backup (s_jnl_blocks), as e2fsck finds them
 */
public record JournalLocation(Ext4Superblock superblock, List<Extent> extents, String damagedInode) {

  /** Located through the journal inode itself. */
  public JournalLocation(Ext4Superblock superblock, List<Extent> extents) {
    this(superblock, extents, null);
  }

  /** Journal blocks {@code [logical, logical + length)} are filesystem blocks {@code [physical, physical + length)}. */
  public record Extent(long logical, long physical, long length) {
    public Extent {
      if (logical < 0 || physical < 0 || length <= 0) {
        throw new IllegalArgumentException("bad extent " + logical + "->" + physical + " x" + length);
      }
    }
  }

  public JournalLocation {
    extents = List.copyOf(extents);
    long next = 0;
    for (Extent e : extents) {
      if (e.logical() != next) {
        throw new IllegalArgumentException("journal extents must be contiguous from 0; expected journal block "
            + next + " but an extent starts at " + e.logical());
      }
      next += e.length();
    }
  }

  /**
   * The journal as the jbd2 engine addresses it: journal block → filesystem block. Device blocks
   * equal filesystem blocks when the device is opened with the filesystem's block size.
   */
  public JournalMap journalMap() {
    return JournalMap.ofExtents(extents.stream()
        .map(e -> new JournalMap.Extent(e.logical(), e.physical(), e.length())).toList());
  }

  /** The journal's length in blocks. */
  public long length() {
    return extents.isEmpty() ? 0 : extents.getLast().logical() + extents.getLast().length();
  }

  /** The journal's block size: the filesystem's. */
  public int blockSize() {
    return superblock.blockSize();
  }

  /**
   * The filesystem block holding journal block {@code journalBlock}.
   *
   * @throws IndexOutOfBoundsException if {@code journalBlock} is outside {@code [0, length())}
   */
  public long deviceBlock(long journalBlock) {
    if (journalBlock < 0 || journalBlock >= length()) {
      throw new IndexOutOfBoundsException("journal block " + journalBlock + " is outside the journal of " + length() + " blocks");
    }
    return journalMap().deviceBlock(journalBlock);
  }
}
