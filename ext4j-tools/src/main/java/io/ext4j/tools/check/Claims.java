package io.ext4j.tools.check;

import java.util.Arrays;

/**
 * The block visitor of the inode scan: claims every block an inode's map reaches (recording blocks
 * claimed twice), counts them for i_blocks, tracks the last mapped and last initialized logical
 * block and whether the data is physically contiguous, and, for directories and the orphan file,
 * collects the (logical, physical) pairs. Reset for each inode; its arrays are reused.
 */
final class Claims implements BlockVisitor {
  private final Scan s;
  long blocks; // data and tree blocks of the current inode
  long lastLblk;
  long lastInit;
  long shared;
  boolean fragmented;
  private long nextPblk;
  private boolean collect;
  private boolean nodesInSequence;
  private boolean tooMany;
  int count; // collected pairs
  long[] lblk = new long[64];
  long[] pblk = new long[64];

  Claims(Scan s) {
    this.s = s;
  }

  void reset(boolean collect) {
    blocks = 0;
    lastLblk = -1;
    lastInit = -1;
    shared = 0;
    fragmented = false;
    nextPblk = -1;
    this.collect = collect;
    tooMany = false;
    count = 0;
    nodesInSequence = false;
  }

  /**
   * Whether tree blocks take part in the contiguity test: for block maps, where e2fsck sees each
   * indirect block just before the blocks it maps (mke2fs lays them out that way); not for extent
   * trees, whose index blocks live apart.
   */
  void nodesInSequence(boolean yes) {
    nodesInSequence = yes;
  }

  /** Whether collection stopped because the inode maps more blocks than the filesystem has. */
  boolean overflowed() {
    return tooMany;
  }

  @Override
  public void data(long l, long p, long len, boolean unwritten) {
    blocks += len;
    shared += s.claim(p, len);
    if (nextPblk >= 0 && p != nextPblk) {
      fragmented = true;
    }
    nextPblk = p + len;
    lastLblk = l + len - 1;
    if (!unwritten) {
      lastInit = lastLblk;
    }
    if (collect && !tooMany) {
      if (count + len > s.blocks) {
        tooMany = true;
        return;
      }
      ensure(count + (int) len);
      for (int i = 0; i < len; i++) {
        lblk[count] = l + i;
        pblk[count] = p + i;
        count++;
      }
    }
  }

  @Override
  public boolean node(long p) {
    blocks++;
    if (nodesInSequence) {
      if (nextPblk >= 0 && p != nextPblk) {
        fragmented = true;
      }
      nextPblk = p + 1;
    }
    long d = s.claim(p, 1);
    shared += d;
    return d == 0;
  }

  private void ensure(int n) {
    if (n > lblk.length) {
      int cap = Math.max(n, lblk.length * 2);
      lblk = Arrays.copyOf(lblk, cap);
      pblk = Arrays.copyOf(pblk, cap);
    }
  }

  long[] lblks() {
    return Arrays.copyOf(lblk, count);
  }

  long[] pblks() {
    return Arrays.copyOf(pblk, count);
  }
}
