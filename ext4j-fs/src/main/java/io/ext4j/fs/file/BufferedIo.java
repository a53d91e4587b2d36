package io.ext4j.fs.file;

import io.ext4j.block.cache.CachedBlock;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.alloc.BlockAllocator;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;

/**
 * Buffered reads and writes, and SEEK_DATA/SEEK_HOLE: a write allocates, writes its data through
 * (data=ordered, see {@link FileIo}) and then makes the blocks reachable and the size larger in its
 * Tx; the timestamps follow the kernel's coarse clock ({@link #touch}).
 */
final class BufferedIo {
  private final Fs fs;
  private final BlockMapping map;
  private final int bs;
  private final ThreadLocal<byte[]> freshBlock; // each thread's own: composes a new block partly covered by a write

  BufferedIo(Fs fs, BlockMapping map) {
    this.fs = fs;
    this.map = map;
    this.bs = fs.lay.blockSize();
    this.freshBlock = ThreadLocal.withInitial(() -> new byte[bs]);
  }

  /**
   * lseek(2)'s SEEK_DATA ({@code data} true) and SEEK_HOLE: the first offset at or after {@code pos}
   * that lies in data, or in a hole. Data is what written blocks hold (the engine converts unwritten
   * extents as it writes into them, so an unwritten extent counts as a hole, as ext4 reports it);
   * the end of file counts as a hole, and an inline-data file is data throughout. ENXIO when
   * {@code pos} is at or past the end of file, or when SEEK_DATA finds no data after it; EINVAL for a
   * negative {@code pos}.
   */
  public long seek(Inode inode, long pos, boolean data) throws IOException {
    if (pos < 0) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "negative offset " + pos);
    }
    inode.rw.readLock().lock();
    try {
      RawInode raw = inode.snapshot();
      long size = raw.sizeBytes();
      if (pos >= size) {
        throw new Ext4Exception(Errno.ENXIO, inode.ino, null, "offset " + pos + " is at or past the end of file (" + size + ")");
      }
      if (raw.hasFlag(RawInode.FL_INLINE_DATA)) {
        return data ? pos : size;
      }
      List<Segment> segs = map.lookUp(inode, pos / bs, Math.ceilDiv(size, bs));
      for (Segment s : segs) {
        if ((s.state() == Segment.State.WRITTEN) == data) {
          return Math.min(size, Math.max(pos, s.lblk() * bs));
        }
      }
      if (data) {
        throw new Ext4Exception(Errno.ENXIO, inode.ino, null, "no data at or after offset " + pos);
      }
      return size;
    } finally {
      inode.rw.readLock().unlock();
    }
  }

  /**
   * Reads up to {@code dst.remaining()} bytes at {@code pos}. Returns the bytes read, or -1 at or past
   * the end of file. Holes and unwritten extents read as zeros. Does not update atime (noatime).
   */
  public int read(Inode inode, long pos, ByteBuffer dst, boolean direct) throws IOException {
    if (pos < 0) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "negative position " + pos);
    }
    inode.rw.readLock().lock();
    try {
      return readLocked(inode, pos, dst);
    } catch (io.ext4j.block.BlockDeviceException e) {
      // a data block the device would not read: this read fails, the filesystem is unharmed (metadata
      // reads fail through MetaStore as errors of the filesystem instead)
      throw new Ext4Exception(Errno.EIO, inode.ino, null, "reading file data at " + pos + ": " + e.getMessage(), e);
    } finally {
      inode.rw.readLock().unlock();
    }
  }

  private int readLocked(Inode inode, long pos, ByteBuffer dst) throws IOException {
    RawInode raw = inode.snapshot();
    long size = raw.sizeBytes();
    if (pos >= size) {
      return dst.hasRemaining() ? -1 : 0;
    }
    int n = (int) Math.min(dst.remaining(), size - pos);
    if (n == 0) {
      return 0;
    }
    if (raw.hasFlag(RawInode.FL_INLINE_DATA)) {
      return InlineData.read(fs, inode, raw, pos, dst, n);
    }
    long first = pos / bs;
    long end = (pos + n + bs - 1) / bs;
    List<Segment> segs = map.lookUp(inode, first, end);
    long at = pos;
    long stop = pos + n;
    for (Segment s : segs) {
      long segStart = Math.max(at, s.lblk() * bs);
      long segEnd = Math.min(stop, s.end() * bs);
      if (segEnd <= segStart) {
        continue;
      }
      if (!s.mapped() || s.state() == Segment.State.UNWRITTEN) {
        zero(dst, (int) (segEnd - segStart));
      } else {
        readMapped(s, segStart, segEnd, dst);
      }
      at = segEnd;
    }
    return n;
  }

  /** Reads file bytes [from, to) of a written segment into dst. */
  private void readMapped(Segment s, long from, long to, ByteBuffer dst) throws IOException {
    long at = from;
    while (at < to) {
      long lblk = at / bs;
      int off = (int) (at % bs);
      long pblk = s.physical(lblk);
      if (off == 0 && to - at >= bs) {
        long whole = Math.min((to - at) / bs, s.end() - lblk);
        int bytes = (int) (whole * bs);
        ByteBuffer slice = dst.slice(dst.position(), bytes);
        fs.device.read(pblk, slice);
        dst.position(dst.position() + bytes);
        at += bytes;
      } else {
        int len = (int) Math.min(bs - off, to - at);
        CachedBlock cb = fs.cache.get(pblk);
        try {
          synchronized (cb) {
            dst.put(cb.array(), off, len);
          }
        } finally {
          cb.release();
        }
        at += len;
      }
    }
  }

  private static void zero(ByteBuffer dst, int n) {
    for (int i = 0; i < n; i++) {
      dst.put((byte) 0);
    }
  }

  /**
   * Writes {@code src} at {@code pos} (at the end of file with {@code append}), allocating as needed.
   * Returns the bytes written: all of them, or fewer when the filesystem filled up part way
   * (ENOSPC is thrown only when nothing could be written).
   *
   * @throws Ext4Exception EFBIG past the largest file size, EPERM on immutable or append-only files
   *     (unless appending), ENOSPC, EOPNOTSUPP when a block-mapped file would need new blocks
   */
  public long write(Inode inode, long pos, ByteBuffer src, boolean append) throws IOException {
    fs.checkWritable();
    inode.rw.writeLock().lock();
    try {
      return writeLocked(inode, pos, src, append, false);
    } finally {
      inode.rw.writeLock().unlock();
    }
  }

  long writeLocked(Inode inode, long pos, ByteBuffer src, boolean append, boolean direct) throws IOException {
    RawInode raw = inode.snapshot();
    int flags = raw.flags();
    if ((flags & RawInode.FL_IMMUTABLE) != 0 || ((flags & RawInode.FL_APPEND) != 0 && !append)) {
      throw new Ext4Exception(Errno.EPERM, inode.ino, null, "the file is immutable or append-only");
    }
    if (raw.hasFlag(RawInode.FL_INLINE_DATA)) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, inode.ino, null, "writing files with inline data is not supported");
    }
    if (append) {
      pos = raw.sizeBytes();
    }
    if (pos < 0) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "negative position " + pos);
    }
    long len = src.remaining();
    if (len == 0) {
      return 0;
    }
    long max = raw.hasFlag(RawInode.FL_EXTENTS) ? fs.lay.maxFileSize() : fs.lay.maxIndirectFileSize();
    if (pos >= max) {
      throw new Ext4Exception(Errno.EFBIG, inode.ino, null, "position " + pos + " is past the largest file size " + max);
    }
    len = Math.min(len, max - pos);
    long done = 0;
    ByteBuffer data = src.slice(src.position(), (int) len);
    while (done < len) {
      long at = pos + done;
      long chunkEnd = Math.min(pos + len, (at / bs + BlockMapping.CHUNK_BLOCKS) * bs);
      long wrote;
      try {
        wrote = writeChunk(inode, at, data.slice((int) done, (int) (chunkEnd - at)));
      } catch (Ext4Exception e) {
        if (e.errno() == Errno.ENOSPC && done > 0) {
          break; // a short write
        }
        throw e;
      }
      done += wrote;
      if (wrote == 0) {
        break;
      }
      // A chunk cut short (its transaction could take no more, or space ran out part way) goes on
      // in a new transaction; if space is what ran out, that attempt fails with ENOSPC at once.
    }
    src.position(src.position() + (int) done);
    return done;
  }

  /**
   * Writes one chunk (at most {@link BlockMapping#CHUNK_BLOCKS} blocks) in one transaction. Returns the bytes
   * written: fewer than asked when space ran out after some were written, or when the journal's
   * running transaction could not take the chunk's whole allocation (the caller goes on in another).
   */
  private long writeChunk(Inode inode, long pos, ByteBuffer data) throws IOException {
    int n = data.remaining();
    long first = pos / bs;
    long end = (pos + n + bs - 1) / bs;
    long size = inode.size();
    List<Segment> segs = map.segments(inode, first, end);
    boolean allocating = segs.stream().anyMatch(s -> s.state() != Segment.State.WRITTEN);
    if (!allocating && pos + n <= size) {
      for (Segment s : segs) {
        writeSegmentData(s, pos, data, false);
      }
      touch(inode, true, false);
      return n;
    }
    if (!inode.usesExtents() && allocating) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, inode.ino, null,
          "allocating blocks for a block-mapped (ext2/ext3) file is not supported; only overwrites are");
    }
    try (Tx tx = fs.meta.begin(map.creditsFor(inode, segs.size()), 0)) {
      zeroPastEof(inode, size, pos);
      long[] allocated = {0};
      inode.map.writeLock().lock();
      try {
        for (Segment s : segs) {
          long done = writeSegment(tx, inode, s, pos, data, allocated);
          if (done < s.end()) {
            // Out of space at logical block {@code done}: a short write of what precedes it.
            long upTo = Math.min(pos + n, done * bs);
            if (upTo <= pos) {
              throw new Ext4Exception(Errno.ENOSPC, inode.ino, null, fs.lay.name() + ": no space for the write");
            }
            finishWrite(tx, inode, allocated[0], Math.max(size, upTo));
            return upTo - pos;
          }
        }
      } finally {
        inode.map.writeLock().unlock();
      }
      finishWrite(tx, inode, allocated[0], Math.max(size, pos + n));
      return n;
    }
  }

  /**
   * Writes one segment of a chunk: overwrites written blocks, fills and converts unwritten ones,
   * allocates holes. Returns the logical block it got to: {@code s.end()}, or less when space ran
   * out (nothing past that block changed, and no block was left allocated but unmapped).
   */
  private long writeSegment(Tx tx, Inode inode, Segment s, long pos, ByteBuffer data, long[] allocated) throws IOException {
    switch (s.state()) {
      case WRITTEN -> writeSegmentData(s, pos, data, false);
      case UNWRITTEN -> {
        writeSegmentData(s, pos, data, true);
        try {
          fs.extents.replace(tx, inode, s.lblk(), s.end(), List.of(new Extent(s.lblk(), s.pblk(), (int) s.len(), false)));
        } catch (Ext4Exception e) {
          if (e.errno() != Errno.ENOSPC) {
            throw e;
          }
          return s.lblk(); // the blocks stay unwritten (they read as zeros): the write ends before them
        }
      }
      case HOLE -> {
        long l = s.lblk();
        while (l < s.end()) {
          if (!tx.ensureCredits(fs.extents.credits(inode, 1) + 4)) {
            return l; // the journal cannot take more in this transaction: a short write
          }
          BlockAllocator.Run run;
          try {
            run = fs.blocks.allocate(tx, map.goal(inode, l), 1, (int) Math.min(s.end() - l, Extent.MAX_WRITTEN));
          } catch (Ext4Exception e) {
            if (e.errno() != Errno.ENOSPC) {
              throw e;
            }
            return l;
          }
          Segment fresh = new Segment(l, run.length(), run.start(), Segment.State.HOLE);
          try {
            writeSegmentData(fresh, pos, data, true);
          } catch (IOException | RuntimeException e) {
            giveBack(tx, run, e); // the data never landed: nothing of the allocation may commit
            throw e;
          }
          try {
            fs.extents.replace(tx, inode, l, l + run.length(), List.of(new Extent(l, run.start(), run.length(), false)));
          } catch (Ext4Exception e) {
            if (e.errno() != Errno.ENOSPC) {
              throw e;
            }
            map.freeData(tx, run.start(), run.length()); // the tree had no room: give the data blocks back
            return l;
          }
          inode.lastAllocated(run.end());
          allocated[0] += run.length();
          l += run.length();
        }
      }
    }
    return s.end();
  }

  /**
   * Frees a run allocated in {@code tx} whose data write failed. If even that fails the transaction
   * holds an allocation nothing owns, so the journal aborts rather than commit it.
   */
  private void giveBack(Tx tx, BlockAllocator.Run run, Throwable cause) {
    try {
      map.freeData(tx, run.start(), run.length());
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
      fs.fail(cause);
    }
  }

  private void finishWrite(Tx tx, Inode inode, long allocatedBlocks, long newSize) throws IOException {
    Instant now = fs.clock.now();
    inode.fields.lock();
    try {
      RawInode r = inode.raw();
      r.blocksRaw(r.blocksRaw() + allocatedBlocks * fs.lay.sectorsPerBlock());
      if (newSize > r.sizeBytes()) {
        r.sizeBytes(newSize);
      }
      r.time(RawInode.Time.MTIME, now);
      r.time(RawInode.Time.CTIME, now);
      inode.timesRecorded();
    } finally {
      inode.fields.unlock();
    }
    fs.writeInode(tx, inode, true);
  }

  /**
   * Writes the part of {@code data} (which starts at file byte {@code dataPos}) that falls in
   * segment {@code s}, whose blocks are {@code fresh} (new or unwritten: what is not written is zeroed)
   * or written (partial blocks are read, changed and written back).
   */
  void writeSegmentData(Segment s, long dataPos, ByteBuffer data, boolean fresh) throws IOException {
    long from = Math.max(dataPos, s.lblk() * bs);
    long to = Math.min(dataPos + data.limit(), s.end() * bs);
    long at = fresh ? s.lblk() * bs : from;
    long stop = fresh ? s.end() * bs : to;
    while (at < stop) {
      long lblk = at / bs;
      long pblk = s.physical(lblk);
      int off = (int) (at % bs);
      if (off == 0 && at >= from && to - at >= bs) {
        long whole = Math.min((to - at) / bs, s.end() - lblk);
        int bytes = (int) (whole * bs);
        ByteBuffer slice = data.slice((int) (at - dataPos), bytes);
        fs.device.write(pblk, slice);
        for (long b = pblk; b < pblk + whole; b++) {
          map.dropCachedPage(b);
        }
        at += bytes;
        continue;
      }
      // A block only partly covered by the data: a fresh one composed with zeros around it and not
      // kept (nothing maps it yet; a later append reads it back once; populating an image left a
      // cached tail block per small file for the collector to promote); a written one in the cache.
      long blockStart = lblk * bs;
      int dataFrom = (int) (Math.max(from, blockStart) - blockStart);
      int dataTo = (int) (Math.min(to, blockStart + bs) - blockStart);
      if (fresh) {
        byte[] a = freshBlock.get();
        if (dataTo > dataFrom) {
          java.util.Arrays.fill(a, 0, dataFrom, (byte) 0);
          data.get((int) (blockStart + dataFrom - dataPos), a, dataFrom, dataTo - dataFrom);
          java.util.Arrays.fill(a, dataTo, bs, (byte) 0);
        } else {
          java.util.Arrays.fill(a, (byte) 0);
        }
        fs.device.write(pblk, ByteBuffer.wrap(a));
        map.dropCachedPage(pblk);
        at = blockStart + bs;
        continue;
      }
      CachedBlock cb = fs.cache.get(pblk);
      try {
        synchronized (cb) {
          byte[] a = cb.array();
          if (dataTo > dataFrom) {
            data.get((int) (blockStart + dataFrom - dataPos), a, dataFrom, dataTo - dataFrom);
          }
          fs.device.write(pblk, ByteBuffer.wrap(a));
        }
      } finally {
        cb.release();
      }
      at = blockStart + bs;
    }
  }

  /**
   * Before the file grows from {@code size} to beyond {@code newStart}: zeroes the bytes past the
   * old end of file in its last block (undefined on disk until now). Part of the growing Tx.
   */
  void zeroPastEof(Inode inode, long size, long newStart) throws IOException {
    if (newStart <= size || size % bs == 0) {
      return;
    }
    long lblk = size / bs;
    long pblk;
    Segment s = map.segments(inode, lblk, lblk + 1).getFirst();
    if (s.state() != Segment.State.WRITTEN) {
      return;
    }
    pblk = s.pblk();
    int from = (int) (size % bs);
    int to = (int) Math.min(bs, newStart - lblk * bs);
    if (to <= from) {
      return;
    }
    CachedBlock cb = fs.cache.get(pblk);
    try {
      synchronized (cb) {
        java.util.Arrays.fill(cb.array(), from, bs, (byte) 0);
        fs.device.write(pblk, ByteBuffer.wrap(cb.array()));
      }
    } finally {
      cb.release();
    }
  }

  /**
   * The kernel's coarse clock ticks once a jiffy, 4 ms at Debian's HZ=250: a write within the tick
   * of the file's last timestamp change leaves the timestamps as they are (unless they were seen).
   */
  static final long COARSE_TICK_MS = 4;

  /**
   * Sets mtime/ctime (content change) or ctime only to now, in a Tx of its own, if they changed.
   * As the kernel's multigrain timestamps: while nobody has read the timestamps since they were last
   * set, a change within the same coarse tick records nothing (so a stream of writes costs one inode
   * update per tick, not one per write); once a caller has seen them, the next change is recorded
   * with the fine clock, so that caller can tell something changed. {@code force} always records.
   */
  public void touch(Inode inode, boolean mtime, boolean force) throws IOException {
    Instant now = fs.clock.now();
    inode.fields.lock();
    try {
      RawInode r = inode.raw();
      boolean quiet = inode.wereTimesSeen() ? r.time(RawInode.Time.CTIME).equals(now) && (!mtime || r.time(RawInode.Time.MTIME).equals(now))
          : sameTick(r.time(RawInode.Time.CTIME), now) && (!mtime || sameTick(r.time(RawInode.Time.MTIME), now));
      if (!force && quiet) {
        return; // nothing a caller could tell apart (the kernel's coarse timestamps)
      }
    } finally {
      inode.fields.unlock();
    }
    try (Tx tx = fs.meta.begin(2, 0)) {
      inode.fields.lock();
      try {
        RawInode r = inode.raw();
        if (mtime) {
          r.time(RawInode.Time.MTIME, now);
        }
        r.time(RawInode.Time.CTIME, now);
        inode.timesRecorded();
      } finally {
        inode.fields.unlock();
      }
      fs.writeInode(tx, inode, false);
    }
  }

  private static boolean sameTick(Instant t, Instant now) {
    long a = t.toEpochMilli();
    long b = now.toEpochMilli();
    return a <= b && Math.floorDiv(a, COARSE_TICK_MS) == Math.floorDiv(b, COARSE_TICK_MS);
  }
}
