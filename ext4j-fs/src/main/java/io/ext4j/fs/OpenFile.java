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

  /** Reads at {@code position}; returns the bytes read, -1 at end of file. */
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
