package io.ext4j.fs.file;

import io.ext4j.block.cache.CachedBlock;
import io.ext4j.fs.DioLocking;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.alloc.BlockAllocator;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.orphan.Orphans;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * File contents: read, write (buffered and direct), truncate, fallocate — everything that maps a
 * file's bytes to blocks.
 *
 * <h2>Data and ordering (data=ordered by construction)</h2>
 * Data is written through to the device as part of the call: the bytes of a block are on the
 * device (not necessarily flushed) before the Tx that makes the block reachable — a new extent, an
 * unwritten extent turned written, a larger size — stops. A commit's flush therefore always covers
 * the data its metadata points at, which is ext4's data=ordered guarantee, and the cache never
 * holds dirty file data. Partial-block writes and reads go through the block cache (so small files
 * and their last blocks stay cached); whole blocks go straight between the caller's buffer and the
 * device. Bytes past the end of file in its last block are undefined on disk: reads stop at the size,
 * and an operation that grows the file zeroes them first.
 *
 * <h2>Locks</h2>
 * Buffered writes, truncate and fallocate take the inode's {@code rw} lock exclusive; reads take
 * it shared. Direct I/O follows its {@link DioLocking} strategy: aligned overwrites of written
 * blocks within the size run under the shared lock; with {@code SHARED_WITH_UNWRITTEN} so do
 * writes into unwritten blocks and holes inside the size (holes allocated as unwritten extents
 * under the map lock, then written and converted);
 * anything else (unaligned, extending) runs exclusive, restarting from the top after trading the
 * shared lock for the exclusive one (the predicates may have changed in between). The block map
 * is changed under {@code map} exclusive, inside a Tx; lookups take it shared.
 *
 * <h2>Durability</h2>
 * Nothing here waits for durability; {@link #fsync} does (see there).
 */
public final class FileIo {
  /** The most blocks one Tx of a write, allocation or free changes. */
  static final int CHUNK_BLOCKS = 2048;

  private final Fs fs;
  private final Orphans orphans;
  private final IndirectMap indirect;
  private final int bs;
  private final ThreadLocal<byte[]> freshBlock; // each thread's own: composes a new block partly covered by a write

  public FileIo(Fs fs, Orphans orphans) {
    this.fs = fs;
    this.orphans = orphans;
    this.indirect = new IndirectMap(fs.lay, fs.meta);
    this.bs = fs.lay.blockSize();
    this.freshBlock = ThreadLocal.withInitial(() -> new byte[bs]);
  }

  // ================================================================ mapping

  /** {@link #segments}, looked up under the map lock (shared). */
  private List<Segment> lookUp(Inode inode, long first, long end) throws IOException {
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

  // ================================================================ lseek

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
      List<Segment> segs = lookUp(inode, pos / bs, Math.ceilDiv(size, bs));
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

  // ================================================================ read

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
    List<Segment> segs = lookUp(inode, first, end);
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

  // ================================================================ write

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

  private long writeLocked(Inode inode, long pos, ByteBuffer src, boolean append, boolean direct) throws IOException {
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
      long chunkEnd = Math.min(pos + len, (at / bs + CHUNK_BLOCKS) * bs);
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
   * Writes one chunk (at most {@link #CHUNK_BLOCKS} blocks) in one transaction. Returns the bytes
   * written: fewer than asked when space ran out after some were written, or when the journal's
   * running transaction could not take the chunk's whole allocation (the caller goes on in another).
   */
  private long writeChunk(Inode inode, long pos, ByteBuffer data) throws IOException {
    int n = data.remaining();
    long first = pos / bs;
    long end = (pos + n + bs - 1) / bs;
    long size = inode.size();
    List<Segment> segs = segments(inode, first, end);
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
    try (Tx tx = fs.meta.begin(creditsFor(inode, segs.size()), 0)) {
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
            run = fs.blocks.allocate(tx, goal(inode, l), 1, (int) Math.min(s.end() - l, Extent.MAX_WRITTEN));
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
            freeData(tx, run.start(), run.length()); // the tree had no room: give the data blocks back
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
      freeData(tx, run.start(), run.length());
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

  /** The goal block for logical block {@code l}: after the previous block's, else after the file's last allocation, else its group. */
  private long goal(Inode inode, long l) throws IOException {
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

  private int creditsFor(Inode inode, int segments) throws IOException {
    return 4 + segments * (fs.extents.credits(inode, 1) + 4);
  }

  /**
   * Writes the part of {@code data} (which starts at file byte {@code dataPos}) that falls in
   * segment {@code s}, whose blocks are {@code fresh} (new or unwritten: what is not written is zeroed)
   * or written (partial blocks are read, changed and written back).
   */
  private void writeSegmentData(Segment s, long dataPos, ByteBuffer data, boolean fresh) throws IOException {
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
          dropCachedPage(b);
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
        dropCachedPage(pblk);
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

  private void dropCachedPage(long block) throws IOException {
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

  /**
   * Before the file grows from {@code size} to beyond {@code newStart}: zeroes the bytes past the
   * old end of file in its last block (undefined on disk until now). Part of the growing Tx.
   */
  private void zeroPastEof(Inode inode, long size, long newStart) throws IOException {
    if (newStart <= size || size % bs == 0) {
      return;
    }
    long lblk = size / bs;
    long pblk;
    Segment s = segments(inode, lblk, lblk + 1).getFirst();
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

  // ================================================================ direct I/O

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
          List<Segment> segs = lookUp(inode, pos / bs, (pos + n) / bs);
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
              allocateUnwritten(inode, pos / bs, (pos + n) / bs);
              segs = lookUp(inode, pos / bs, (pos + n) / bs);
              for (Segment s : segs) {
                if (!s.mapped()) {
                  throw new IllegalStateException("hole at block " + s.lblk() + " of " + inode + " after allocating it");
                }
              }
            }
            ByteBuffer data = src.slice(src.position(), n);
            for (Segment s : segs) {
              writeSegmentData(s, pos, data, false);
            }
            if (!allWritten) {
              convertWritten(inode, segs);
            }
            touch(inode, true, false);
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
      return writeLocked(inode, pos, src, append, true);
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
          for (Segment now : segments(inode, s.lblk(), s.end())) {
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
    return read(inode, pos, dst, true);
  }

  // ================================================================ truncate

  /** Sets the size: shrinking frees the blocks past it (crash-safe through the orphan list), growing leaves a hole. */
  public void truncate(Inode inode, long newSize) throws IOException {
    fs.checkWritable();
    if (newSize < 0) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "negative size " + newSize);
    }
    inode.rw.writeLock().lock();
    try {
      truncateLocked(inode, newSize);
    } finally {
      inode.rw.writeLock().unlock();
    }
  }

  /** {@link #truncate} with the inode's rw lock held exclusive. */
  public void truncateLocked(Inode inode, long newSize) throws IOException {
    RawInode raw = inode.snapshot();
    if ((raw.flags() & (RawInode.FL_IMMUTABLE | RawInode.FL_APPEND)) != 0) {
      throw new Ext4Exception(Errno.EPERM, inode.ino, null, "the file is immutable or append-only");
    }
    long max = raw.hasFlag(RawInode.FL_EXTENTS) ? fs.lay.maxFileSize() : fs.lay.maxIndirectFileSize();
    if (newSize > max) {
      throw new Ext4Exception(Errno.EFBIG, inode.ino, null, "size " + newSize + " is past the largest file size " + max);
    }
    long old = raw.sizeBytes();
    if (newSize >= old) {
      try (Tx tx = fs.meta.begin(4, 0)) {
        zeroPastEof(inode, old, newSize);
        setSizeAndTimes(inode, newSize);
        fs.writeInode(tx, inode, true);
      }
      return;
    }
    try (Tx tx = fs.meta.begin(6, 0)) {
      orphans.add(tx, inode);
      setSizeAndTimes(inode, newSize);
      fs.writeInode(tx, inode, true);
    }
    freeFrom(inode, Math.ceilDiv(newSize, bs));
    try (Tx tx = fs.meta.begin(6, 0)) {
      orphans.remove(tx, inode);
      fs.writeInode(tx, inode, false);
    }
  }

  private void setSizeAndTimes(Inode inode, long size) {
    Instant now = fs.clock.now();
    inode.fields.lock();
    try {
      RawInode r = inode.raw();
      r.sizeBytes(size);
      r.time(RawInode.Time.MTIME, now);
      r.time(RawInode.Time.CTIME, now);
      inode.timesRecorded();
    } finally {
      inode.fields.unlock();
    }
  }

  /**
   * Frees every block of the file from logical block {@code from} on, the last extents first, a
   * bounded number per Tx. Caller holds rw exclusive (nothing else changes the map meanwhile) and
   * has the inode on the orphan list when the operation must survive a crash.
   */
  public void freeFrom(Inode inode, long from) throws IOException {
    if (!hasBlockMap(inode.snapshot())) {
      return;
    }
    if (!inode.usesExtents()) {
      if (from > 0) {
        throw new Ext4Exception(Errno.EOPNOTSUPP, inode.ino, null, "truncating a block-mapped file other than to 0 is not supported");
      }
      freeIndirect(inode);
      return;
    }
    List<Extent> all;
    inode.map.readLock().lock();
    try {
      all = fs.extents.extents(inode, from, Long.MAX_VALUE);
    } finally {
      inode.map.readLock().unlock();
    }
    // A directory's blocks are journaled metadata: each freed one is revoked, so a batch is bounded
    // by blocks (revoke records) as well as by extents (bitmap and descriptor credits).
    boolean metadata = inode.isDirectory();
    long end = 1L << 32;
    int i = all.size();
    while (i > 0) {
      int j = i - 1;
      long cut = Math.max(from, all.get(j).lblk());
      if (metadata) {
        cut = Math.max(cut, Math.min(end, all.get(j).end()) - METADATA_FREE_BATCH);
      } else {
        while (j > 0 && i - j < 16) {
          j--;
        }
        cut = Math.max(from, all.get(j).lblk());
      }
      int revokes = metadata ? (int) Math.min(METADATA_FREE_BATCH, end - cut) : 0;
      try (Tx tx = fs.meta.begin(fs.extents.credits(inode, 1) + 4 * (i - j) + 8, revokes)) {
        long freed = 0;
        inode.map.writeLock().lock();
        try {
          List<Extent> removed = fs.extents.replace(tx, inode, cut, end, List.of());
          for (Extent e : removed) {
            if (metadata) {
              for (long b = e.pblk(); b < e.pblk() + e.len(); b++) {
                tx.forget(b);
              }
              fs.blocks.free(tx, e.pblk(), e.len());
            } else {
              freeData(tx, e.pblk(), e.len());
            }
            freed += e.len();
          }
        } finally {
          inode.map.writeLock().unlock();
        }
        chargeBlocks(inode, -freed);
        fs.writeInode(tx, inode, true);
      }
      if (cut <= from) {
        break; // everything from {@code from} on is gone
      }
      end = cut;
      while (i > 0 && all.get(i - 1).lblk() >= cut) {
        i--;
      }
    }
  }

  /** Directory blocks freed (and revoked) per Tx. */
  static final int METADATA_FREE_BATCH = 256;

  /**
   * Whether i_block maps blocks: extent trees always; otherwise regular files, directories and slow
   * symlinks (fast symlinks keep their target there, devices their number, inline files their data).
   */
  public boolean hasBlockMap(RawInode raw) {
    if (raw.hasFlag(RawInode.FL_INLINE_DATA)) {
      return false;
    }
    if (raw.hasFlag(RawInode.FL_EXTENTS)) {
      return true;
    }
    return switch (raw.fileType()) {
      case RawInode.S_IFREG, RawInode.S_IFDIR -> true;
      case RawInode.S_IFLNK -> raw.blocksRaw() - (raw.fileAcl() != 0 ? fs.lay.sectorsPerBlock() : 0) > 0;
      default -> false;
    };
  }

  private void freeIndirect(Inode inode) throws IOException {
    RawInode raw = inode.snapshot();
    List<long[]> runs = indirect.allBlocks(inode.ino, raw.iBlock());
    int k = 0;
    while (k < runs.size()) {
      try (Tx tx = fs.meta.begin(4 * Math.min(16, runs.size() - k) + 4, 64 + 32)) {
        long freed = 0;
        int revoked = 0;
        for (int n = 0; n < 16 && k < runs.size() && revoked < 32; n++) {
          long[] r = runs.get(k);
          boolean metadata = r[2] == 1 || inode.isDirectory();
          long len = metadata ? Math.min(r[1], 32 - revoked) : r[1];
          for (long b = r[0]; b < r[0] + len; b++) {
            if (metadata) {
              tx.forget(b);
              revoked++;
            } else {
              dropCachedPage(b);
            }
          }
          fs.blocks.free(tx, r[0], len);
          freed += len;
          if (len < r[1]) {
            runs.set(k, new long[] {r[0] + len, r[1] - len, r[2]}); // the rest in the next Tx
          } else {
            k++;
          }
        }
        chargeBlocks(inode, -freed);
        if (k >= runs.size()) {
          inode.fields.lock();
          try {
            inode.raw().iBlock(new byte[RawInode.I_BLOCK_SIZE]);
          } finally {
            inode.fields.unlock();
          }
        }
        fs.writeInode(tx, inode, true);
      }
    }
  }

  /** Frees data blocks (dropping any cached page of them). */
  void freeData(Tx tx, long start, long len) throws IOException {
    for (long b = start; b < start + len; b++) {
      dropCachedPage(b);
    }
    fs.blocks.free(tx, start, len);
  }

  private void chargeBlocks(Inode inode, long blocks) {
    inode.fields.lock();
    try {
      RawInode r = inode.raw();
      r.blocksRaw(Math.max(0, r.blocksRaw() + blocks * fs.lay.sectorsPerBlock()));
    } finally {
      inode.fields.unlock();
    }
  }

  // ================================================================ fallocate

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
        touch(inode, true, true);
        return;
      }
      if ((mode & ZERO_RANGE) != 0) {
        zeroRange(inode, offset, end);
      } else {
        allocateUnwritten(inode, offset / bs, Math.ceilDiv(end, bs));
      }
      if ((mode & KEEP_SIZE) == 0 && end > size) {
        try (Tx tx = fs.meta.begin(4, 0)) {
          zeroPastEof(inode, size, end);
          setSizeAndTimes(inode, end);
          fs.writeInode(tx, inode, true);
        }
      } else {
        touch(inode, true, true);
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
        setSizeAndTimes(inode, size + (insert ? length : -length));
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
      long stop = Math.min(end, l + CHUNK_BLOCKS);
      List<Segment> segs = lookUp(inode, l, stop);
      long resume = stop; // where the next Tx starts: earlier when this one ran out of credits
      try (Tx tx = fs.meta.begin(creditsFor(inode, segs.size()), 0)) {
        long allocated = 0;
        inode.map.writeLock().lock();
        try {
          // Again under the map lock: a direct writer under the shared inode lock may have filled
          // some of these holes since.
          segs = segments(inode, l, stop);
          segments:
          for (Segment s : segs) {
            long h = s.lblk();
            while (!s.mapped() && h < s.end()) {
              if (!tx.ensureCredits(fs.extents.credits(inode, 1) + 4)) {
                resume = h;
                break segments;
              }
              BlockAllocator.Run run = fs.blocks.allocate(tx, goal(inode, h), 1, (int) Math.min(s.end() - h, Extent.MAX_UNWRITTEN));
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
          chargeBlocks(inode, allocated);
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
      long stop = Math.min(end, l + CHUNK_BLOCKS);
      try (Tx tx = fs.meta.begin(fs.extents.credits(inode, 2) + 16, 8)) {
        long freed = 0;
        inode.map.writeLock().lock();
        try {
          for (Extent e : fs.extents.replace(tx, inode, l, stop, List.of())) {
            freeData(tx, e.pblk(), e.len());
            freed += e.len();
          }
        } finally {
          inode.map.writeLock().unlock();
        }
        chargeBlocks(inode, -freed);
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
    List<Segment> segs = segments(inode, from / bs, Math.ceilDiv(to, bs));
    ByteBuffer zeros = ByteBuffer.allocate((int) (to - from));
    for (Segment s : segs) {
      if (s.state() == Segment.State.WRITTEN) {
        writeSegmentData(s, from, zeros, false);
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
        long stop = Math.min(endWhole, l + CHUNK_BLOCKS);
        List<Segment> segs = segments(inode, l, stop);
        try (Tx tx = fs.meta.begin(creditsFor(inode, segs.size()), 0)) {
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

  // ================================================================ fsync

  /**
   * fsync / fdatasync: returns when everything written before the call, and the metadata it needs
   * (all of the inode's metadata for fsync; size and block map for fdatasync), is durable. With a
   * journal: waits for the inode's last (data) transaction — committing it if it runs — and flushes
   * the device when that transaction had committed earlier. An inode read from the inode table
   * starts with the transaction that was running then (as ext4_iget does), since its last changes
   * may still be uncommitted. Without a journal: writes back everything and flushes.
   */
  public void fsync(Inode inode, boolean datasync) throws IOException {
    if (!fs.meta.journaled()) {
      fs.meta.sync();
      return;
    }
    if (!inode.tidsKnown()) {
      fs.meta.sync(); // loaded while nothing ran: its last changes may be in a committing transaction
      return;
    }
    fs.meta.commit(datasync ? inode.datasyncTid() : inode.syncTid());
  }
}
