package io.ext4j.fs.file;

import io.ext4j.fs.DioLocking;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.orphan.Orphans;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * File contents: read, write (buffered and direct), truncate, fallocate — everything that maps a
 * file's bytes to blocks. The entry point; the work is done by {@link BufferedIo} (reads, writes,
 * lseek), {@link DirectIo}, {@link Truncation} and {@link Fallocation}, over {@link BlockMapping}
 * (where the bytes live), each using only those listed before it.
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
  private final Fs fs;
  private final BlockMapping map;
  private final BufferedIo buffered;
  private final Truncation truncation;
  private final Fallocation fallocation;
  private final DirectIo direct;

  public FileIo(Fs fs, Orphans orphans) {
    this.fs = fs;
    this.map = new BlockMapping(fs);
    this.buffered = new BufferedIo(fs, map);
    this.truncation = new Truncation(fs, orphans, map, buffered);
    this.fallocation = new Fallocation(fs, map, buffered, truncation);
    this.direct = new DirectIo(fs, map, buffered, fallocation);
  }

  /** The file's blocks in [first, end) as segments. Caller holds the map lock (or rw exclusive). */
  public List<Segment> segments(Inode inode, long first, long end) throws IOException {
    return map.segments(inode, first, end);
  }

  /** The bytes of an inline-data inode (i_block then system.data). */
  public byte[] inlineContents(Inode inode, RawInode raw) throws IOException {
    return map.inlineContents(inode, raw);
  }

  /** The physical block of logical block {@code lblk}, or 0 for a hole (unwritten blocks are mapped). */
  public long physical(Inode inode, long lblk) throws IOException {
    return map.physical(inode, lblk);
  }

  /** lseek(2)'s SEEK_DATA ({@code data} true) and SEEK_HOLE; see {@link BufferedIo#seek}. */
  public long seek(Inode inode, long pos, boolean data) throws IOException {
    return buffered.seek(inode, pos, data);
  }

  /** Reads at {@code pos}; see {@link BufferedIo#read}. */
  public int read(Inode inode, long pos, ByteBuffer dst, boolean direct) throws IOException {
    return buffered.read(inode, pos, dst, direct);
  }

  /** A buffered write at {@code pos} (or at the end, appending); see {@link BufferedIo#write}. */
  public long write(Inode inode, long pos, ByteBuffer src, boolean append) throws IOException {
    return buffered.write(inode, pos, src, append);
  }

  /** Updates mtime/ctime as a write does; see {@link BufferedIo#touch}. */
  public void touch(Inode inode, boolean mtime, boolean force) throws IOException {
    buffered.touch(inode, mtime, force);
  }

  /** A direct-I/O write; see {@link DirectIo#directWrite}. */
  public long directWrite(Inode inode, long pos, ByteBuffer src, boolean append, DioLocking strategy) throws IOException {
    return direct.directWrite(inode, pos, src, append, strategy);
  }

  /** A direct-I/O read: straight from the device into {@code dst}, under the shared lock. */
  public int directRead(Inode inode, long pos, ByteBuffer dst) throws IOException {
    return direct.directRead(inode, pos, dst);
  }

  /** Sets the size; see {@link Truncation#truncate}. */
  public void truncate(Inode inode, long newSize) throws IOException {
    truncation.truncate(inode, newSize);
  }

  /** {@link #truncate} with the inode's rw lock held exclusive. */
  public void truncateLocked(Inode inode, long newSize) throws IOException {
    truncation.truncateLocked(inode, newSize);
  }

  /** Frees every block from logical block {@code from} on; see {@link Truncation#freeFrom}. */
  public void freeFrom(Inode inode, long from) throws IOException {
    truncation.freeFrom(inode, from);
  }

  /** Whether i_block maps blocks; see {@link Truncation#hasBlockMap}. */
  public boolean hasBlockMap(RawInode raw) {
    return truncation.hasBlockMap(raw);
  }

  /** fallocate(2); see {@link Fallocation#fallocate}. */
  public void fallocate(Inode inode, int mode, long offset, long length) throws IOException {
    fallocation.fallocate(inode, mode, offset, length);
  }

  /** Allocates unwritten extents over the holes of logical blocks [first, end); see {@link Fallocation#allocateUnwritten}. */
  public void allocateUnwritten(Inode inode, long first, long end) throws IOException {
    fallocation.allocateUnwritten(inode, first, end);
  }

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
