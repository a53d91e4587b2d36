package io.ext4j.fs.file;

import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.MetaStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The block map of an ext2/ext3-style (block-mapped) file: i_block holds 12 direct block numbers,
 * then a single-, a double- and a triple-indirect block, each a table of {@code blockSize / 4}
 * le32 block numbers; 0 is a hole. Read-side lookups, and the list of every block a file owns
 * (data and indirect) for freeing it whole. Pure over the metadata it reads.
 */
final class IndirectMap {
  private final FsLayout lay;
  private final MetaStore meta;
  private final long apb; // addresses per block

  IndirectMap(FsLayout lay, MetaStore meta) {
    this.lay = lay;
    this.meta = meta;
    this.apb = lay.blockSize() / 4;
  }

  /** The segment at {@code lblk}: one mapped block, or a hole up to the next table boundary (at most {@code max}). */
  Segment segment(long ino, byte[] iBlock, long lblk, long max) throws IOException {
    ByteBuffer ib = ByteBuffer.wrap(iBlock).order(ByteOrder.LITTLE_ENDIAN);
    if (lblk < 12) {
      return one(ino, lblk, Integer.toUnsignedLong(ib.getInt(4 * (int) lblk)), Math.min(max, 12 - lblk));
    }
    long l = lblk - 12;
    long span = apb;
    for (int level = 1; level <= 3; level++) {
      if (l < span) {
        long ptr = Integer.toUnsignedLong(ib.getInt(4 * (11 + level)));
        return walk(ino, ptr, level, l, lblk, max);
      }
      l -= span;
      span *= apb;
    }
    return new Segment(lblk, max, 0, Segment.State.HOLE);
  }

  private Segment walk(long ino, long table, int level, long index, long lblk, long max) throws IOException {
    long span = 1;
    for (int i = 1; i < level; i++) {
      span *= apb;
    }
    while (true) {
      if (table == 0) {
        long holeLen = span * apb - index; // the rest of this subtree
        return new Segment(lblk, Math.max(1, Math.min(max, holeLen)), 0, Segment.State.HOLE);
      }
      check(ino, table);
      long slot = index / span;
      long ptr;
      try (Buf b = meta.read(table)) {
        ptr = Integer.toUnsignedLong(b.le().getInt((int) (4 * slot)));
      }
      if (span == 1) {
        return one(ino, lblk, ptr, 1);
      }
      index %= span;
      span /= apb;
      table = ptr;
      if (table == 0) {
        return new Segment(lblk, Math.max(1, Math.min(max, span * apb - index)), 0, Segment.State.HOLE);
      }
    }
  }

  private Segment one(long ino, long lblk, long ptr, long holeMax) throws Ext4Exception {
    if (ptr == 0) {
      return new Segment(lblk, Math.max(1, holeMax), 0, Segment.State.HOLE);
    }
    check(ino, ptr);
    return new Segment(lblk, 1, ptr, Segment.State.WRITTEN);
  }

  private void check(long ino, long block) throws Ext4Exception {
    if (block < lay.firstDataBlock() || block >= lay.blocksCount()) {
      throw Ext4Exception.corrupted(lay.name(), ino, "block map points at block " + block + ", outside the filesystem");
    }
  }

  /**
   * Every block the file owns — data and indirect tables — as {start, length, table} runs (table 1
   * for indirect tables, which are metadata), for freeing it whole.
   */
  List<long[]> allBlocks(long ino, byte[] iBlock) throws IOException {
    List<long[]> out = new ArrayList<>();
    ByteBuffer ib = ByteBuffer.wrap(iBlock).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < 12; i++) {
      add(out, ino, Integer.toUnsignedLong(ib.getInt(4 * i)), 0);
    }
    for (int level = 1; level <= 3; level++) {
      collect(out, ino, Integer.toUnsignedLong(ib.getInt(4 * (11 + level))), level);
    }
    return out;
  }

  private void collect(List<long[]> out, long ino, long table, int level) throws IOException {
    if (table == 0) {
      return;
    }
    check(ino, table);
    long[] ptrs = new long[(int) apb];
    try (Buf b = meta.read(table)) {
      ByteBuffer le = b.le();
      for (int i = 0; i < apb; i++) {
        ptrs[i] = Integer.toUnsignedLong(le.getInt(4 * i));
      }
    }
    for (long p : ptrs) {
      if (level == 1) {
        add(out, ino, p, 0);
      } else {
        collect(out, ino, p, level - 1);
      }
    }
    add(out, ino, table, 1);
  }

  private void add(List<long[]> out, long ino, long b, int table) throws Ext4Exception {
    if (b == 0) {
      return;
    }
    check(ino, b);
    if (!out.isEmpty() && out.getLast()[0] + out.getLast()[1] == b && out.getLast()[2] == table && table == 0) {
      out.getLast()[1]++;
    } else {
      out.add(new long[] {b, 1, table});
    }
  }

  /** Whether {@code raw} uses this map (no extents flag, not inline, not a fast symlink or device). */
  static boolean applies(RawInode raw) {
    return !raw.hasFlag(RawInode.FL_EXTENTS) && !raw.hasFlag(RawInode.FL_INLINE_DATA);
  }
}
