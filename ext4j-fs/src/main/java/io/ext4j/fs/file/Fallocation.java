package io.ext4j.fs.file;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.alloc.BlockAllocator;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * fallocate(2): preallocation as unwritten extents, hole punching, zeroing a range, and collapsing or
 * inserting a range (moving the blocks after it).
 */
final class Fallocation {
  private final Fs fs;
  private final BlockMapping map;
  private final BufferedIo buffered;
  private final Truncation truncation;
  private final int bs;

  Fallocation(Fs fs, BlockMapping map, BufferedIo buffered, Truncation truncation) {
    this.fs = fs;
    this.map = map;
    this.buffered = buffered;
    this.truncation = truncation;
    this.bs = fs.lay.blockSize();
  }

  /** Linux fallocate mode bits. */
  public static final int KEEP_SIZE = io.ext4j.fs.OpenFile.FALLOC_KEEP_SIZE;
  public static final int PUNCH_HOLE = io.ext4j.fs.OpenFile.FALLOC_PUNCH_HOLE;
  public static final int ZERO_RANGE = io.ext4j.fs.OpenFile.FALLOC_ZERO_RANGE;
  public static final int COLLAPSE_RANGE = io.ext4j.fs.OpenFile.FALLOC_COLLAPSE_RANGE;
  public static final int INSERT_RANGE = io.ext4j.fs.OpenFile.FALLOC_INSERT_RANGE;
  /** Extents moved per Tx by a collapse or an insert. */
  private static final int SHIFT_BATCH = 32;

  /**
   * fallocate(2): 0 or KEEP_SIZE allocates unwritten extents over the holes of the range (growing the
   * size unless KEEP_SIZE); PUNCH_HOLE|KEEP_SIZE frees the whole blocks of the range and zeroes its
   * partial edges; ZERO_RANGE makes the range read as zeros, its whole blocks unwritten.
   *
   * COLLAPSE_RANGE and INSERT_RANGE (alone, block-aligned) remove or insert the range and move the
   * blocks after it, as {@link #shift} says.
   *
   * @throws Ext4Exception EOPNOTSUPP for other modes and for block-mapped files
   */
  public void fallocate(Inode inode, int mode, long offset, long length) throws IOException {
    fs.checkWritable();
    if (offset < 0 || length <= 0) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "fallocate of " + length + " bytes at " + offset);
    }
    if ((mode & (COLLAPSE_RANGE | INSERT_RANGE)) != 0) {
      if (mode != COLLAPSE_RANGE && mode != INSERT_RANGE) {
        throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "collapse and insert range take no other mode bits");
      }
      shift(inode, mode == INSERT_RANGE, offset, length);
      return;
    }
    if ((mode & ~(KEEP_SIZE | PUNCH_HOLE | ZERO_RANGE)) != 0 || ((mode & PUNCH_HOLE) != 0 && (mode & (KEEP_SIZE | ZERO_RANGE)) != KEEP_SIZE)) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, inode.ino, null, "fallocate mode 0x" + Integer.toHexString(mode) + " is not supported");
    }
    inode.rw.writeLock().lock();
    try {
      if (!inode.usesExtents()) {
        throw new Ext4Exception(Errno.EOPNOTSUPP, inode.ino, null, "fallocate needs an extent-mapped file");
      }
      long end = offset + length;
      if (end > fs.lay.maxFileSize()) {
        throw new Ext4Exception(Errno.EFBIG, inode.ino, null, "range ends past the largest file size");
      }
      long size = inode.size();
      if ((mode & PUNCH_HOLE) != 0) {
        punch(inode, offset, Math.min(end, Math.max(size, end)));
        buffered.touch(inode, true, true);
        return;
      }
      if ((mode & ZERO_RANGE) != 0) {
        zeroRange(inode, offset, end);
      } else {
        allocateUnwritten(inode, offset / bs, Math.ceilDiv(end, bs));
      }
      if ((mode & KEEP_SIZE) == 0 && end > size) {
        try (Tx tx = fs.meta.begin(4, 0)) {
          buffered.zeroPastEof(inode, size, end);
          truncation.setSizeAndTimes(inode, end);
          fs.writeInode(tx, inode, true);
        }
      } else {
        buffered.touch(inode, true, true);
      }
    } finally {
      inode.rw.writeLock().unlock();
    }
  }

  /**
   * FALLOC_FL_COLLAPSE_RANGE ({@code insert} false): the blocks of [offset, offset + length) are
   * freed, every later block moves down by the range and the size shrinks by it; the range must end
   * before the end of file. FALLOC_FL_INSERT_RANGE: every block from offset on moves up by the
   * range, leaving a hole there, and the size grows by it; offset must be inside the file. Both need
   * block-aligned offset and length (EINVAL otherwise). The extents move {@value #SHIFT_BATCH} per
   * Tx — lowest first for a collapse, highest first for an insert, so that each batch lands on
   * blocks the ones before it have left — and the size changes in the last Tx; a crash in between
   * leaves a valid file with part of its blocks moved, as the kernel's shift can.
   */
  private void shift(Inode inode, boolean insert, long offset, long length) throws IOException {
    inode.rw.writeLock().lock();
    try {
      if (!inode.usesExtents()) {
        throw new Ext4Exception(Errno.EOPNOTSUPP, inode.ino, null, "collapse and insert range need an extent-mapped file");
      }
      if (offset % bs != 0 || length % bs != 0) {
        throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "collapse and insert range need block-aligned offset and length");
      }
      long size = inode.size();
      if (insert ? offset >= size : offset + length >= size) {
        throw new Ext4Exception(Errno.EINVAL, inode.ino, null, (insert ? "insert" : "collapse") + " range at " + offset + " of "
            + length + " bytes does not fit a file of " + size + " bytes");
      }
      long n = length / bs;
      long from = offset / bs;
      if (insert && (size + length > fs.lay.maxFileSize() || lastMapped(inode) + n > 1L << 32)) {
        throw new Ext4Exception(Errno.EFBIG, inode.ino, null, "insert range would grow the file past the largest file size");
      }
      if (!insert) {
        removeBlocks(inode, from, from + n);
      }
      List<Extent> moving;
      inode.map.readLock().lock();
      try {
        moving = new ArrayList<>(fs.extents.extents(inode, insert ? from : from + n, Long.MAX_VALUE));
      } finally {
        inode.map.readLock().unlock();
      }
      if (!moving.isEmpty() && moving.getFirst().lblk() < from) { // an extent across the offset: only its tail moves
        Extent e = moving.getFirst();
        long cut = from - e.lblk();
        moving.set(0, new Extent(from, e.pblk() + cut, (int) (e.len() - cut), e.unwritten()));
      }
      long delta = insert ? n : -n;
      for (int done = 0; done < moving.size(); done += SHIFT_BATCH) {
        int count = Math.min(SHIFT_BATCH, moving.size() - done);
        List<Extent> batch = insert ? moving.subList(moving.size() - done - count, moving.size() - done)
            : moving.subList(done, done + count);
        List<Extent> moved = new ArrayList<>(batch.size());
        for (Extent e : batch) {
          moved.add(new Extent(e.lblk() + delta, e.pblk(), e.len(), e.unwritten()));
        }
        long lo = Math.min(batch.getFirst().lblk(), moved.getFirst().lblk());
        long hi = Math.max(batch.getLast().end(), moved.getLast().end());
        try (Tx tx = fs.meta.begin(fs.extents.credits(inode, batch.size() + 1) + 8, 0)) {
          inode.map.writeLock().lock();
          try {
            fs.extents.replace(tx, inode, lo, hi, moved); // what it removes is what moved: no block is freed
          } finally {
            inode.map.writeLock().unlock();
          }
          fs.writeInode(tx, inode, true);
        }
      }
      try (Tx tx = fs.meta.begin(4, 0)) {
        truncation.setSizeAndTimes(inode, size + (insert ? length : -length));
        fs.writeInode(tx, inode, true);
      }
    } finally {
      inode.rw.writeLock().unlock();
    }
  }

  /** The end of the last mapped logical block (0 for none). Caller holds rw. */
  private long lastMapped(Inode inode) throws IOException {
    inode.map.readLock().lock();
    try {
      List<Extent> all = fs.extents.extents(inode, 0, Long.MAX_VALUE);
      return all.isEmpty() ? 0 : all.getLast().end();
    } finally {
      inode.map.readLock().unlock();
    }
  }

  /**
   * Allocates unwritten extents over every hole of logical blocks [first, end). Caller holds rw
   * exclusive, or shared for a range inside the size (holes are looked up again under the map lock,
   * so a concurrent filler's extents are kept, not mapped twice).
   */
  public void allocateUnwritten(Inode inode, long first, long end) throws IOException {
    long l = first;
    while (l < end) {
      long stop = Math.min(end, l + BlockMapping.CHUNK_BLOCKS);
      List<Segment> segs = map.lookUp(inode, l, stop);
      long resume = stop; // where the next Tx starts: earlier when this one ran out of credits
      try (Tx tx = fs.meta.begin(map.creditsFor(inode, segs.size()), 0)) {
        long allocated = 0;
        inode.map.writeLock().lock();
        try {
          // Again under the map lock: a direct writer under the shared inode lock may have filled
          // some of these holes since.
          segs = map.segments(inode, l, stop);
          segments:
          for (Segment s : segs) {
            long h = s.lblk();
            while (!s.mapped() && h < s.end()) {
              if (!tx.ensureCredits(fs.extents.credits(inode, 1) + 4)) {
                resume = h;
                break segments;
              }
              BlockAllocator.Run run = fs.blocks.allocate(tx, map.goal(inode, h), 1, (int) Math.min(s.end() - h, Extent.MAX_UNWRITTEN));
              try {
                fs.extents.replace(tx, inode, h, h + run.length(), List.of(new Extent(h, run.start(), run.length(), true)));
              } catch (Ext4Exception e) {
                fs.blocks.free(tx, run.start(), run.length()); // unmapped: give it back, in the same Tx
                throw e;
              }
              inode.lastAllocated(run.end());
              allocated += run.length();
              h += run.length();
            }
          }
        } finally {
          inode.map.writeLock().unlock();
          map.chargeBlocks(inode, allocated);
          fs.writeInode(tx, inode, true);
        }
      }
      l = resume;
    }
  }

  private void punch(Inode inode, long from, long to) throws IOException {
    long firstWhole = Math.ceilDiv(from, bs);
    long endWhole = to / bs;
    zeroBytes(inode, from, Math.min(to, firstWhole * bs));
    if (endWhole >= firstWhole) {
      zeroBytes(inode, Math.max(from, endWhole * bs), to);
      removeBlocks(inode, firstWhole, endWhole);
    }
  }

  /** Frees the blocks of [first, end) (whatever their state), bounded work per Tx. Caller holds rw exclusive. */
  private void removeBlocks(Inode inode, long first, long end) throws IOException {
    long l = first;
    while (l < end) {
      long stop = Math.min(end, l + BlockMapping.CHUNK_BLOCKS);
      try (Tx tx = fs.meta.begin(fs.extents.credits(inode, 2) + 16, 8)) {
        long freed = 0;
        inode.map.writeLock().lock();
        try {
          for (Extent e : fs.extents.replace(tx, inode, l, stop, List.of())) {
            map.freeData(tx, e.pblk(), e.len());
            freed += e.len();
          }
        } finally {
          inode.map.writeLock().unlock();
        }
        map.chargeBlocks(inode, -freed);
        fs.writeInode(tx, inode, true);
      }
      l = stop;
    }
  }

  /** Zeroes file bytes [from, to) that lie in written blocks (holes and unwritten blocks already read as zeros). */
  private void zeroBytes(Inode inode, long from, long to) throws IOException {
    if (to <= from) {
      return;
    }
    List<Segment> segs = map.segments(inode, from / bs, Math.ceilDiv(to, bs));
    ByteBuffer zeros = ByteBuffer.allocate((int) (to - from));
    for (Segment s : segs) {
      if (s.state() == Segment.State.WRITTEN) {
        buffered.writeSegmentData(s, from, zeros, false);
      }
    }
  }

  private void zeroRange(Inode inode, long from, long to) throws IOException {
    long firstWhole = Math.ceilDiv(from, bs);
    long endWhole = to / bs;
    zeroBytes(inode, from, Math.min(to, firstWhole * bs));
    if (endWhole >= firstWhole) {
      zeroBytes(inode, Math.max(from, endWhole * bs), to); // the partial block at the end, if any
    }
    if (endWhole > firstWhole) {
      // whole blocks: written extents become unwritten (same blocks), holes get unwritten extents
      long l = firstWhole;
      while (l < endWhole) {
        long stop = Math.min(endWhole, l + BlockMapping.CHUNK_BLOCKS);
        List<Segment> segs = map.segments(inode, l, stop);
        try (Tx tx = fs.meta.begin(map.creditsFor(inode, segs.size()), 0)) {
          inode.map.writeLock().lock();
          try {
            for (Segment s : segs) {
              if (s.state() == Segment.State.WRITTEN) {
                List<Extent> conv = new ArrayList<>();
                for (long a = s.lblk(); a < s.end(); a += Extent.MAX_UNWRITTEN) {
                  int n = (int) Math.min(Extent.MAX_UNWRITTEN, s.end() - a);
                  conv.add(new Extent(a, s.physical(a), n, true));
                }
                fs.extents.replace(tx, inode, s.lblk(), s.end(), conv);
              }
            }
          } finally {
            inode.map.writeLock().unlock();
          }
          fs.writeInode(tx, inode, true);
        }
        l = stop;
      }
    } else if (endWhole < firstWhole) {
      return; // the whole range is inside one block and was zeroed above
    }
    allocateUnwritten(inode, from / bs, Math.ceilDiv(to, bs));
  }
}
