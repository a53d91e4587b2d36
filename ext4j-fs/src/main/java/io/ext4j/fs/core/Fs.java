package io.ext4j.fs.core;

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
import java.io.IOException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Everything one open filesystem's components share: its layout, metadata store, group and
 * allocation state, inode table and cache, the extent-tree code, the clock, and whether it still
 * accepts writes. Components hold a reference to it; it holds no locks of its own except the error
 * state.
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
    Throwable f = failure.get();
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

  public Throwable failure() {
    return failure.get();
  }

  /** Writes {@code inode}'s bytes to the inode table in {@code tx} and records the tid ({@code data}: the change matters to fdatasync). */
  public void writeInode(Tx tx, Inode inode, boolean data) throws IOException {
    itable.write(tx, inode);
    inode.changedIn(tx.tid(), data);
  }
}
