package io.ext4j.tools.check;

/**
 * What a block-map walk ({@link ExtentWalk}, {@link IndirectWalk}) reports, in logical order. Every
 * block handed over is inside the filesystem; the walks report pointers outside it themselves.
 */
interface BlockVisitor {
  /** File blocks {@code [lblk, lblk + len)} are filesystem blocks {@code [pblk, pblk + len)}. */
  void data(long lblk, long pblk, long len, boolean unwritten);

  /**
   * An extent-tree or indirect block. Returns whether the walk should read it and descend: false
   * when another owner claimed it first (its contents are not this inode's to check, and not
   * descending bounds the walk on a looping or shared tree).
   */
  boolean node(long pblk);
}
