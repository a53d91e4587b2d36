package io.ext4j.fs;

import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.vfs.Credentials;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.Set;

/**
 * An open file of an {@link Ext4FileSystem}: positional reads and writes with the flags it was
 * opened with (APPEND, SYNC, DSYNC, DIRECT), fsync, truncate and fallocate. It keeps its inode
 * alive after the last name is removed; {@link #close()} releases it (and frees an unlinked
 * inode). Thread-safe; positions are the caller's (no file offset is kept).
 *
 * <h2>Durability</h2>
 * A write returns with its data on the device but durable only after {@link #fsync} (or at once
 * with SYNC/DSYNC). {@code fsync(false)} makes data and all metadata durable; {@code fsync(true)}
 * (fdatasync) data and the metadata needed to read it — for an overwrite that changed no such
 * metadata, only a device flush.
 */
public final class OpenFile implements AutoCloseable {
  /** fallocate mode bit: do not change the size (Linux FALLOC_FL_KEEP_SIZE). */
  public static final int FALLOC_KEEP_SIZE = 0x01;
  /** fallocate mode bit: free the range, which then reads as zeros; needs KEEP_SIZE (FALLOC_FL_PUNCH_HOLE). */
  public static final int FALLOC_PUNCH_HOLE = 0x02;
  /** fallocate mode bit: the range reads as zeros, its whole blocks unwritten (FALLOC_FL_ZERO_RANGE). */
  public static final int FALLOC_ZERO_RANGE = 0x10;
  /** fallocate: remove the range, moving what follows down (FALLOC_FL_COLLAPSE_RANGE). */
  public static final int FALLOC_COLLAPSE_RANGE = 0x08;
  /** fallocate: insert a hole of the range's length, moving what follows up (FALLOC_FL_INSERT_RANGE). */
  public static final int FALLOC_INSERT_RANGE = 0x20;

  private final Ext4FileSystem fs;
  private final Inode inode;
  private final Set<OpenFlag> flags;
  private final Caller who; // whose writes these are (the root-reserved blocks)
  private final Credentials writer; // whose data changes these are (the privileges they clear); null: the raw engine, no rule
  private volatile boolean closed; // set once by close

  OpenFile(Ext4FileSystem fs, Inode inode, Set<OpenFlag> flags, Caller who, Credentials writer) {
    this.fs = fs;
    this.inode = inode;
    this.flags = Collections.unmodifiableSet(flags);
    this.who = who;
    this.writer = writer;
  }

  Inode inode() {
    return inode;
  }

  /** Whether this is an open directory (a starting point for the VFS's *at calls, or a listing). */
  public boolean isDirectory() {
    return inode.isDirectory();
  }

  /** The inode's generation (with {@link #ino()}, its handle). */
  public int generation() {
    return inode.generation();
  }

  public long ino() {
    return inode.ino;
  }

  public Set<OpenFlag> flags() {
    return flags;
  }

  private void checkOpen() throws Ext4Exception {
    if (closed) {
      throw new Ext4Exception(Errno.EBADF, inode.ino, null, "file is closed");
    }
  }

  /**
   * Whether a read now would update the access time (the filesystem's atime options, this file's
   * O_NOATIME, the inode's noatime flag): a cache above the engine that serves reads itself (the
   * kernel's page cache over FUSE) lets the next read through when it would.
   */
  public boolean readUpdatesAtime() {
    return !closed && fs.atimeDue(inode, flags);
  }

  /** Reads at {@code position}; returns the bytes read, -1 at end of file; updates the access time as the atime options say. */
  public int read(long position, ByteBuffer dst) throws IOException {
    checkOpen();
    return fs.read(inode, position, dst, flags);
  }

  /**
   * Writes at {@code position} (at the end of file with APPEND); returns the bytes written, fewer
   * than asked only when the filesystem filled up.
   */
  public long write(long position, ByteBuffer src) throws IOException {
    checkOpen();
    if (!flags.contains(OpenFlag.WRITE) && !flags.contains(OpenFlag.APPEND)) {
      throw new Ext4Exception(Errno.EBADF, inode.ino, null, "file is not open for writing");
    }
    return fs.write(inode, position, src, flags, who, writer);
  }

  /**
   * {@link #write(long, ByteBuffer)} by {@code by} rather than the opener (a FUSE WRITE names the
   * process writing, whose CAP_FSETID decides whether setuid and setgid survive).
   */
  public long write(long position, ByteBuffer src, Credentials by) throws IOException {
    checkOpen();
    if (!flags.contains(OpenFlag.WRITE) && !flags.contains(OpenFlag.APPEND)) {
      throw new Ext4Exception(Errno.EBADF, inode.ino, null, "file is not open for writing");
    }
    return fs.write(inode, position, src, flags, who, by);
  }

  /**
   * copy_file_range(2) from this file to {@code dst} by {@code by}: up to {@code length} bytes from
   * {@code position} (fewer at this file's end) written at {@code dstPosition}, as the writes of
   * {@code by} (they clear setuid, setgid and security.capability of {@code dst} as writes do).
   * Returns the bytes copied, 0 at or past the end. EBADF when this file is not open for reading or
   * {@code dst} not for writing or for appending, EISDIR for a directory, EINVAL for a non-regular
   * file or overlapping ranges of one file, as Linux's generic checks.
   */
  public long copyRange(long position, OpenFile dst, long dstPosition, long length, Credentials by) throws IOException {
    checkOpen();
    dst.checkOpen();
    if (!flags.contains(OpenFlag.READ)) {
      throw new Ext4Exception(Errno.EBADF, inode.ino, null, "copy source is not open for reading");
    }
    if (!dst.flags.contains(OpenFlag.WRITE) || dst.flags.contains(OpenFlag.APPEND)) {
      throw new Ext4Exception(Errno.EBADF, dst.inode.ino, null, "copy destination is not open for writing, or is append-only");
    }
    if (inode.isDirectory() || dst.inode.isDirectory()) {
      throw new Ext4Exception(Errno.EISDIR, (inode.isDirectory() ? inode : dst.inode).ino, null, "is a directory");
    }
    if (position < 0 || dstPosition < 0 || length < 0 || position + length < 0 || dstPosition + length < 0) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "negative or overflowing copy range");
    }
    if (inode == dst.inode && position < dstPosition + length && dstPosition < position + length) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "copy ranges overlap within one file");
    }
    return fs.copyRange(inode, position, flags, dst.inode, dstPosition, dst.flags, length, dst.who, by);
  }

  /** fsync ({@code datasync} false) or fdatasync (true). */
  public void fsync(boolean datasync) throws IOException {
    checkOpen();
    fs.fsync(inode, datasync);
  }

  /** Sets the size (ftruncate). */
  public void truncate(long size) throws IOException {
    truncate(size, writer);
  }

  /** ftruncate by {@code by} (see {@link #write(long, ByteBuffer, Credentials)}). */
  public void truncate(long size, Credentials by) throws IOException {
    checkOpen();
    if (!flags.contains(OpenFlag.WRITE) && !flags.contains(OpenFlag.APPEND)) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "file is not open for writing"); // ftruncate(2)'s errno
    }
    fs.truncate(inode, size, by);
  }

  /**
   * fallocate(2) with Linux's mode bits: 0 or {@link #FALLOC_KEEP_SIZE} allocates (unwritten, reading as
   * zeros), {@code FALLOC_PUNCH_HOLE | FALLOC_KEEP_SIZE} frees, {@link #FALLOC_ZERO_RANGE} zeroes,
   * {@link #FALLOC_COLLAPSE_RANGE} and {@link #FALLOC_INSERT_RANGE} (alone, block-aligned) remove or
   * insert the range, moving the rest of the file; other combinations fail with EOPNOTSUPP.
   */
  public void fallocate(int mode, long offset, long length) throws IOException {
    fallocate(mode, offset, length, writer);
  }

  /** fallocate by {@code by} (see {@link #write(long, ByteBuffer, Credentials)}). */
  public void fallocate(int mode, long offset, long length, Credentials by) throws IOException {
    checkOpen();
    if (!flags.contains(OpenFlag.WRITE) && !flags.contains(OpenFlag.APPEND)) {
      throw new Ext4Exception(Errno.EBADF, inode.ino, null, "file is not open for writing");
    }
    fs.fallocate(inode, mode, offset, length, who, by);
  }

  /**
   * lseek(2) SEEK_DATA: the first offset at or after {@code offset} that holds data (unwritten
   * extents are holes, as on ext4). Fails with ENXIO at or past the end of file or when only holes
   * follow.
   */
  public long seekData(long offset) throws IOException {
    checkOpen();
    return fs.seek(inode, offset, true);
  }

  /**
   * lseek(2) SEEK_HOLE: the first offset at or after {@code offset} in a hole, the end of file
   * counting as one. Fails with ENXIO at or past the end of file.
   */
  public long seekHole(long offset) throws IOException {
    checkOpen();
    return fs.seek(inode, offset, false);
  }

  /** The current size. */
  public long size() throws IOException {
    checkOpen();
    return inode.size();
  }

  public Attributes attributes() throws IOException {
    checkOpen();
    return fs.getattr(inode.ino);
  }

  @Override
  public void close() throws IOException {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    fs.release(inode);
  }
}
