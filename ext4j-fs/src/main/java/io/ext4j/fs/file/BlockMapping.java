package io.ext4j.fs.file;

import io.ext4j.block.cache.CachedBlock;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a file's bytes live: its blocks in [first, end) as {@link Segment}s (extent tree or
 * indirect blocks), the goal for a new block, the journal credits a change of the map needs, and
 * freeing data blocks (dropping their cached pages). The layer the other file classes share.
 */
final class BlockMapping {
  /** The most blocks one Tx of a write, allocation or free changes. */
  static final int CHUNK_BLOCKS = 2048;

  private final Fs fs;
  private final IndirectMap indirect;

  BlockMapping(Fs fs) {
    this.fs = fs;
    this.indirect = new IndirectMap(fs.lay, fs.meta);
  }

  /** {@link #segments}, looked up under the map lock (shared). */
  List<Segment> lookUp(Inode inode, long first, long end) throws IOException {
    inode.map.readLock().lock();
    try {
      return segments(inode, first, end);
    } finally {
      inode.map.readLock().unlock();
    }
  }

  /** The file's blocks in [first, end) as segments. Caller holds the map lock (or rw exclusive). */
  public List<Segment> segments(Inode inode, long first, long end) throws IOException {
    List<Segment> out = new ArrayList<>();
    RawInode raw = inode.snapshot();
    boolean ext = raw.hasFlag(RawInode.FL_EXTENTS);
    if (raw.hasFlag(RawInode.FL_INLINE_DATA)) {
      out.add(new Segment(first, end - first, 0, Segment.State.HOLE));
      return out;
    }
    long l = first;
    while (l < end) {
      if (ext) {
        Extent e = fs.extents.find(inode, l);
        if (e == null || e.lblk() >= end) {
          out.add(new Segment(l, end - l, 0, Segment.State.HOLE));
          break;
        }
        if (e.lblk() > l) {
          out.add(new Segment(l, e.lblk() - l, 0, Segment.State.HOLE));
          l = e.lblk();
        }
        long stop = Math.min(e.end(), end);
        out.add(new Segment(l, stop - l, e.physical(l), e.unwritten() ? Segment.State.UNWRITTEN : Segment.State.WRITTEN));
        l = stop;
      } else {
        Segment s = indirect.segment(inode.ino, raw.iBlock(), l, end - l);
        if (!out.isEmpty() && out.getLast().state() == s.state()
            && (s.state() == Segment.State.HOLE || out.getLast().pblk() + out.getLast().len() == s.pblk())) {
          Segment last = out.removeLast();
          s = new Segment(last.lblk(), last.len() + s.len(), last.pblk(), s.state());
        }
        out.add(s);
        l = s.end();
      }
    }
    return out;
  }

  /** The bytes of an inline-data inode (i_block then system.data). */
  public byte[] inlineContents(Inode inode, RawInode raw) throws IOException {
    return InlineData.contents(fs, inode, raw);
  }

  /** The physical block of logical block {@code lblk}, or 0 for a hole (unwritten blocks are mapped). */
  public long physical(Inode inode, long lblk) throws IOException {
    Segment s = segments(inode, lblk, lblk + 1).getFirst();
    return s.mapped() ? s.pblk() : 0;
  }

  /** The goal block for logical block {@code l}: after the previous block's, else after the file's last allocation, else its group. */
  long goal(Inode inode, long l) throws IOException {
    if (l > 0) {
      Extent prev = fs.extents.find(inode, l - 1);
      if (prev != null && prev.contains(l - 1)) {
        return prev.physical(l - 1) + 1;
      }
    }
    long last = inode.lastAllocated();
    if (last > 0) {
      return last;
    }
    if (inode.fileType() == RawInode.S_IFREG && l == 0) {
      return fs.blocks.goalForNewFile(inode.ino); // the file's first block: where a long run starts
    }
    return fs.lay.groupFirstBlock(fs.lay.groupOfInode(inode.ino));
  }

  int creditsFor(Inode inode, int segments) throws IOException {
    return 4 + segments * (fs.extents.credits(inode, 1) + 4);
  }

  void dropCachedPage(long block) throws IOException {
    CachedBlock cb = fs.cache.peek(block);
    if (cb != null) {
      boolean metadata = cb.held();
      cb.release();
      if (metadata) { // only metadata is dirty in the cache or held by the journal: two owners of one block
        throw Ext4Exception.corrupted(fs.lay.name(), 0, block, "data block " + block + " is also in use as metadata");
      }
      fs.cache.invalidate(block);
    }
  }

  /** Frees data blocks (dropping any cached page of them). */
  void freeData(Tx tx, long start, long len) throws IOException {
    for (long b = start; b < start + len; b++) {
      dropCachedPage(b);
    }
    fs.blocks.free(tx, start, len);
  }

  void chargeBlocks(Inode inode, long blocks) {
    inode.fields.lock();
    try {
      RawInode r = inode.raw();
      r.blocksRaw(Math.max(0, r.blocksRaw() + blocks * fs.lay.sectorsPerBlock()));
    } finally {
      inode.fields.unlock();
    }
  }
}
