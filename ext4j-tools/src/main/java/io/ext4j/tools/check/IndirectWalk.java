package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.BLOCK_MAP;

import io.ext4j.fs.format.RawInode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Walks a block-mapped (ext2/ext3) inode: 12 direct pointers, then single-, double- and
 * triple-indirect blocks; 0 is a hole. Every pointer must lie inside the filesystem. Consecutive
 * data blocks reach the visitor as one run. Recursion is at most three levels deep, and an indirect
 * block already claimed is not descended into again.
 */
final class IndirectWalk {
  private final Scan s;
  private final Findings out;
  private final int apb;
  private final byte[][] buf = new byte[4][];
  private long runL;
  private long runP;
  private long runN;

  IndirectWalk(Scan s, Findings out) {
    this.s = s;
    this.out = out;
    this.apb = s.bs / 4;
  }

  void walk(long ino, RawInode r, BlockVisitor v) throws IOException {
    runN = 0;
    for (int i = 0; i < 12; i++) {
      pointer(ino, Integer.toUnsignedLong(r.iBlockWord(i)), i, -1, v);
    }
    long start = 12;
    long span = 1;
    for (int level = 1; level <= 3; level++) {
      span *= apb;
      long ptr = Integer.toUnsignedLong(r.iBlockWord(11 + level));
      if (ptr != 0) {
        indirect(ino, ptr, level, start, -1, v);
      }
      start += span;
    }
    flush(v);
  }

  private void pointer(long ino, long p, long lblk, long in, BlockVisitor v) {
    if (p == 0) {
      return;
    }
    if (!s.inRange(p, 1)) {
      out.error(BLOCK_MAP, ino, in, "logical block " + lblk + " points to block " + p + ", outside the filesystem");
      return;
    }
    if (runN > 0 && runL + runN == lblk && runP + runN == p && runN < Integer.MAX_VALUE) {
      runN++;
      return;
    }
    flush(v);
    runL = lblk;
    runP = p;
    runN = 1;
  }

  private void flush(BlockVisitor v) {
    if (runN > 0) {
      v.data(runL, runP, runN, false);
      runN = 0;
    }
  }

  private void indirect(long ino, long blk, int level, long start, long in, BlockVisitor v) throws IOException {
    if (!s.inRange(blk, 1)) {
      out.error(BLOCK_MAP, ino, in, "the level-" + level + " indirect block for logical block " + start + " is " + blk
          + ", outside the filesystem");
      return;
    }
    flush(v); // keep data runs in logical order relative to the node
    if (!v.node(blk)) {
      return;
    }
    if (buf[level] == null) {
      buf[level] = s.newBlock();
    }
    byte[] b = buf[level];
    s.read(blk, b, 1);
    ByteBuffer le = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    long span = 1;
    for (int i = 1; i < level; i++) {
      span *= apb;
    }
    for (int j = 0; j < apb; j++) {
      long p = Integer.toUnsignedLong(le.getInt(4 * j));
      if (p == 0) {
        continue;
      }
      if (level == 1) {
        pointer(ino, p, start + j, blk, v);
      } else {
        indirect(ino, p, level - 1, start + j * span, blk, v);
      }
    }
  }
}
