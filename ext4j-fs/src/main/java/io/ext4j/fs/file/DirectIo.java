package io.ext4j.fs.file;

import io.ext4j.fs.DioLocking;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Direct I/O: data straight between the caller's buffer and the device, under the locking the
 * {@link io.ext4j.fs.DioLocking} strategy asks for (see {@link FileIo}).
 */
final class DirectIo {
  private final Fs fs;
  private final BlockMapping map;
  private final BufferedIo buffered;
  private final Fallocation fallocation;
  private final int bs;

  DirectIo(Fs fs, BlockMapping map, BufferedIo buffered, Fallocation fallocation) {
    this.fs = fs;
    this.map = map;
    this.buffered = buffered;
    this.fallocation = fallocation;
    this.bs = fs.lay.blockSize();
  }

  /**
   * Direct-I/O write: the data goes straight from {@code src} to the device. Locking as the class doc
   * describes for {@code strategy}.
   */
  public long directWrite(Inode inode, long pos, ByteBuffer src, boolean append, DioLocking strategy) throws IOException {
    fs.checkWritable();
    int n = src.remaining();
    boolean aligned = pos % bs == 0 && n % bs == 0 && !append;
    if (strategy != DioLocking.ALWAYS_EXCLUSIVE && aligned && n > 0) {
      inode.rw.readLock().lock();
      try {
        RawInode raw = inode.snapshot();
        if (pos + n <= raw.sizeBytes() && raw.hasFlag(RawInode.FL_EXTENTS)
            && (raw.flags() & (RawInode.FL_IMMUTABLE | RawInode.FL_APPEND)) == 0) {
          List<Segment> segs = map.lookUp(inode, pos / bs, (pos + n) / bs);
          boolean allWritten = segs.stream().allMatch(s -> s.state() == Segment.State.WRITTEN);
          if (allWritten || strategy == DioLocking.SHARED_WITH_UNWRITTEN) {
            if (!segs.stream().allMatch(Segment::mapped)) {
              // Holes inside the size, which only an exclusive holder changes: allocated as
              // unwritten extents under the map lock, still under the shared lock, so writers into
              // other holes go on meanwhile; two writers of one hole find it mapped by whichever
              // allocated first (allocateUnwritten looks again under the map lock), and the extent
              // is converted once. A crash before the conversion leaves unwritten extents, which
              // read as zeros: no stale data shows. Taking the exclusive lock here instead waited
              // for every direct write in flight: 0.41 of always-exclusive's rate for 4 KiB writes
              // into holes.
              fallocation.allocateUnwritten(inode, pos / bs, (pos + n) / bs);
              segs = map.lookUp(inode, pos / bs, (pos + n) / bs);
              for (Segment s : segs) {
                if (!s.mapped()) {
                  throw new IllegalStateException("hole at block " + s.lblk() + " of " + inode + " after allocating it");
                }
              }
            }
            ByteBuffer data = src.slice(src.position(), n);
            for (Segment s : segs) {
              buffered.writeSegmentData(s, pos, data, false);
            }
            if (!allWritten) {
              convertWritten(inode, segs);
            }
            buffered.touch(inode, true, false);
            src.position(src.position() + n);
            return n;
          }
        }
      } finally {
        inode.rw.readLock().unlock();
      }
    }
    inode.rw.writeLock().lock();
    try {
      return buffered.writeLocked(inode, pos, src, append, true);
    } finally {
      inode.rw.writeLock().unlock();
    }
  }

  /** Turns the unwritten segments among {@code segs} written, in Txs of their own (under map exclusive). */
  private void convertWritten(Inode inode, List<Segment> segs) throws IOException {
    for (Segment s : segs) {
      if (s.state() != Segment.State.UNWRITTEN) {
        continue;
      }
      try (Tx tx = fs.meta.begin(fs.extents.credits(inode, 2) + 2, 0)) {
        inode.map.writeLock().lock();
        try {
          // Re-read: a concurrent conversion of a neighbour may have merged or split extents.
          for (Segment now : map.segments(inode, s.lblk(), s.end())) {
            if (now.state() == Segment.State.UNWRITTEN) {
              fs.extents.replace(tx, inode, now.lblk(), now.end(), List.of(new Extent(now.lblk(), now.pblk(), (int) now.len(), false)));
            }
          }
        } finally {
          inode.map.writeLock().unlock();
        }
        fs.writeInode(tx, inode, true);
      }
    }
  }

  /** Direct-I/O read: straight from the device into {@code dst}, under the shared lock. */
  public int directRead(Inode inode, long pos, ByteBuffer dst) throws IOException {
    return buffered.read(inode, pos, dst, true);
  }
}
