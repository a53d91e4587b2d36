package io.ext4j.fs.context;

import io.ext4j.fs.format.FsLayout;
import io.ext4j.block.BlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.FsClock;
import io.ext4j.fs.alloc.BlockAllocator;
import io.ext4j.fs.alloc.Groups;
import io.ext4j.fs.alloc.InodeAllocator;
import io.ext4j.fs.extent.ExtentTree;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.inode.InodeCache;
import io.ext4j.fs.inode.InodeTable;
import io.ext4j.fs.meta.MetaStore;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.format.SuperblockEditor;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Everything one open filesystem's components share: its layout, metadata store, group and
 * allocation state, inode table and cache, the extent-tree code, the clock, and whether it still
 * accepts writes. Components hold a reference to it; it holds no locks of its own except the error
 * state and the monitor that records errors in the superblock.
 */
public final class Fs {
  public final FsLayout lay;
  public final BlockDevice device;
  public final BlockCache cache;
  public final MetaStore meta;
  public final Groups groups;
  public final BlockAllocator blocks;
  public final InodeAllocator inodeAlloc;
  public final InodeTable itable;
  public final InodeCache inodes;
  public final ExtentTree extents;
  public final SuperblockState superblock;
  public final FsClock clock;
  public final boolean readOnly;
  private final AtomicReference<Throwable> failure = new AtomicReference<>(); // first fatal error: later writes fail with it
  private final Object errorRecord = new Object(); // guards recording errors in the superblock, one at a time

  public Fs(FsLayout lay, BlockDevice device, BlockCache cache, MetaStore meta, Groups groups, SuperblockState superblock,
      FsClock clock, boolean readOnly, int inodeCacheSize) {
    this.lay = lay;
    this.device = device;
    this.cache = cache;
    this.meta = meta;
    this.groups = groups;
    this.superblock = superblock;
    this.clock = clock;
    this.readOnly = readOnly;
    this.blocks = new BlockAllocator(lay, groups, meta);
    this.inodeAlloc = new InodeAllocator(lay, groups);
    this.itable = new InodeTable(lay, groups, meta);
    this.inodes = new InodeCache(itable, meta::runningTid, inodeCacheSize);
    this.extents = new ExtentTree(lay, meta, blocks);
  }

  /** Throws EROFS when the filesystem is read-only or failed (naming the first failure). */
  public void checkWritable() throws Ext4Exception {
    Throwable f = failure();
    if (f != null) {
      throw new Ext4Exception(Errno.EROFS, 0, null, lay.name() + " is read-only after an error: " + f.getMessage(), f);
    }
    if (readOnly) {
      throw new Ext4Exception(Errno.EROFS, 0, null, lay.name() + " is open read-only");
    }
  }

  /**
   * Records the first fatal error; from now on the filesystem refuses writes and the journal commits
   * nothing more (errors=remount-ro, which aborts the journal as the kernel does).
   */
  public void fail(Throwable cause) {
    if (failure.compareAndSet(null, cause)) {
      meta.abort(cause);
    }
  }

  /** The first fatal error: one {@link #fail} recorded, or else what aborted the journal; null while healthy. */
  public Throwable failure() {
    Throwable f = failure.get();
    return f != null ? f : meta.abortCause();
  }

  /**
   * ext4's answer to an error of the filesystem ({@link Ext4Exception#isFilesystemError}) with
   * errors=remount-ro: the journal aborts and the filesystem refuses writes from now on
   * ({@link #fail}; what committed before stays, and reads go on), and the error is recorded in the
   * superblock as ext4's save_error_info does — state "errors", s_error_count, the first-error
   * fields once and the last-error fields each time — in memory and on the device. The device copy
   * is the superblock as it is on the device with only those fields changed, written straight to the
   * device and flushed, as ext4_commit_super does once the journal has aborted; nothing is written
   * when the filesystem was opened read-only. Should recovery later replay an older logged copy of
   * the superblock, the journal's own record of the abort (s_errno) marks the filesystem again at
   * the next open. A failure to write the record is attached to {@code e}.
   */
  public void error(Ext4Exception e) {
    fail(e);
    if (readOnly || !e.markRecorded()) {
      return; // nothing to write, or already recorded by an inner operation
    }
    StackTraceElement at = origin(e);
    String function = at == null ? "unknown" : at.getClassName().substring(at.getClassName().lastIndexOf('.') + 1) + "." + at.getMethodName();
    int line = at == null ? 0 : Math.max(0, at.getLineNumber());
    long now = clock.now().getEpochSecond();
    Consumer<SuperblockEditor> record = ed -> ed.recordError(now, e.inode(), e.block(), function, line, errorCode(e.errno()));
    synchronized (errorRecord) {
      superblock.change(record);
      try {
        superblock.editOnDevice(device, record);
        device.flush();
      } catch (IOException | RuntimeException w) {
        e.addSuppressed(w);
      }
    }
  }

  /** The first frame that found the error (not the exception's own factories). */
  private static StackTraceElement origin(Throwable e) {
    for (StackTraceElement f : e.getStackTrace()) {
      if (!f.getClassName().equals(Ext4Exception.class.getName())) {
        return f;
      }
    }
    return null;
  }

  /** ext4's EXT4_ERR_* code for the superblock's s_*_error_errcode fields. */
  static int errorCode(Errno errno) {
    return switch (errno) {
      case EIO -> 2;
      case ENOMEM -> 3;
      case EBADMSG -> 4; // EFSBADCRC
      case EUCLEAN -> 5; // EFSCORRUPTED
      case ENOSPC -> 6;
      case EROFS -> 8;
      case EFBIG -> 9;
      case EEXIST -> 10;
      case ERANGE -> 11;
      case EOVERFLOW -> 12;
      case EBUSY -> 13;
      case ENOTDIR -> 14;
      case ENOTEMPTY -> 15;
      default -> 1;
    };
  }

  /** Writes {@code inode}'s bytes to the inode table in {@code tx} and records the tid ({@code data}: the change matters to fdatasync). */
  public void writeInode(Tx tx, Inode inode, boolean data) throws IOException {
    itable.write(tx, inode);
    inode.changedIn(tx.tid(), data);
  }
}
