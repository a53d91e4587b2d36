package io.ext4j.tools.check;

import java.util.Objects;

/**
 * One finding of the {@link Checker}: which structure, which inode and/or block, and the evidence.
 *
 * @param structure the kind of structure, one of the {@code Problem.*} names below ("inode",
 *     "extent tree", "directory", "block bitmap", …)
 * @param inode the inode concerned, or {@link #NO_INODE} (0: inode numbers start at 1)
 * @param block the filesystem block concerned, or {@link #NO_BLOCK} (−1: block 0 exists)
 * @param what what is wrong, with the evidence: expected and found values
 */
public record Problem(String structure, long inode, long block, String what) {
  /** {@link #inode} when no inode is concerned. */
  public static final long NO_INODE = 0;
  /** {@link #block} when no block is concerned. */
  public static final long NO_BLOCK = -1;

  public static final String SUPERBLOCK = "superblock";
  public static final String GROUP_DESCRIPTOR = "group descriptor";
  public static final String BLOCK_BITMAP = "block bitmap";
  public static final String INODE_BITMAP = "inode bitmap";
  public static final String GROUP_COUNTS = "group counts";
  public static final String FREE_TOTALS = "free totals";
  public static final String INODE = "inode";
  public static final String EXTENT_TREE = "extent tree";
  public static final String BLOCK_MAP = "block map";
  public static final String XATTR = "xattr";
  public static final String XATTR_BLOCK = "xattr block";
  public static final String DIRECTORY = "directory";
  public static final String HTREE = "htree";
  public static final String DIRECTORY_TREE = "directory tree";
  public static final String LINK_COUNT = "link count";
  public static final String BLOCK_OWNERSHIP = "block ownership";
  public static final String ORPHANS = "orphans";
  public static final String RESIZE_INODE = "resize inode";
  public static final String JOURNAL = "journal";
  public static final String DEVICE = "device";

  public Problem {
    Objects.requireNonNull(structure, "structure");
    Objects.requireNonNull(what, "what");
  }

  public boolean hasInode() {
    return inode != NO_INODE;
  }

  public boolean hasBlock() {
    return block != NO_BLOCK;
  }

  /** One line: {@code [structure] inode N, block B: what} (inode and block only when concerned). */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("[").append(structure).append(']');
    if (hasInode()) {
      s.append(" inode ").append(inode);
    }
    if (hasBlock()) {
      s.append(hasInode() ? ", block " : " block ").append(block);
    }
    return s.append(": ").append(what).toString();
  }
}
