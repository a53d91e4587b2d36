package io.ext4j.fs.namespace;

import io.ext4j.fs.context.Fs;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.extent.ExtentTree;
import io.ext4j.fs.file.FileIo;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.orphan.Orphans;
import io.ext4j.fs.xattr.Xattrs;
import java.io.IOException;
import java.time.Instant;
import java.util.function.IntSupplier;

/**
 * Birth and death of inodes: a new inode's initial bytes (as the kernel's {@code __ext4_new_inode}
 * fills them), freeing an inode whose last link and last opener are gone, and turning an inode into
 * {@link Attributes}.
 *
 * <h2>Durability</h2>
 * {@link #create} is part of the caller's Tx. {@link #delete} runs Txs of its own and relies on the
 * inode being on the orphan list, so that a crash part way is finished at the next mount.
 */
public final class InodeLife {
  /** Flags a new inode takes from its directory (for directories also DIRSYNC and TOPDIR's absence). */
  private static final int INHERITED = RawInode.FL_SYNC | RawInode.FL_NOATIME | 0x40 /* NODUMP */ | 0x1 /* SECRM */ | 0x2 /* UNRM */
      | 0x4 /* COMPR */ | RawInode.FL_DAX;
  /** Of those, what a new inode that is neither a regular file nor a directory keeps (ext4_mask_flags). */
  private static final int OTHER_INHERITED = RawInode.FL_NOATIME | 0x40 /* NODUMP */;

  private final Fs fs;
  private final FileIo io;
  private final Orphans orphans;
  private final Xattrs xattrs;
  private final IntSupplier generations;

  public InodeLife(Fs fs, FileIo io, Orphans orphans, Xattrs xattrs, IntSupplier generations) {
    this.fs = fs;
    this.io = io;
    this.orphans = orphans;
    this.xattrs = xattrs;
    this.generations = generations;
  }

  /**
   * Allocates and writes a new inode of {@code mode} in {@code tx}, near {@code parent}; returns it
   * referenced (the caller puts it). Regular files, directories and (slow) symlinks get an empty
   * extent tree when the filesystem has extents.
   */
  public Inode create(Tx tx, Inode parent, int mode, Caller who, boolean extents) throws IOException {
    boolean dir = (mode & RawInode.S_IFMT) == RawInode.S_IFDIR;
    long ino = fs.inodeAlloc.allocate(tx, parent == null ? 0 : parent.ino, dir);
    RawInode raw = RawInode.blank(fs.lay.inodeSize());
    Instant now = fs.clock.now();
    if (fs.lay.inodeSize() > 128) {
      raw.extraIsize(fs.lay.wantExtraIsize());
    }
    long gid = who.gid();
    int parentFlags = 0;
    if (parent != null) {
      RawInode p = parent.snapshot();
      parentFlags = p.flags();
      if ((p.mode() & 02000) != 0) { // setgid directory: new entries take its group, new directories stay setgid
        gid = p.gid();
        if (dir) {
          mode |= 02000;
        }
      }
    }
    raw.mode(mode);
    raw.uid(who.uid());
    raw.gid(gid);
    raw.links(dir ? 2 : 1);
    raw.time(RawInode.Time.ATIME, now);
    raw.time(RawInode.Time.MTIME, now);
    raw.time(RawInode.Time.CTIME, now);
    raw.time(RawInode.Time.CRTIME, now);
    raw.generation(generations.getAsInt());
    raw.version(1);
    int flags = parentFlags & INHERITED;
    if (dir) {
      flags |= parentFlags & RawInode.FL_DIRSYNC;
    } else if ((mode & 0xF000) != RawInode.S_IFREG) {
      flags &= OTHER_INHERITED;
    }
    if (extents && fs.lay.extents()) {
      flags |= RawInode.FL_EXTENTS;
      raw.flags(flags);
      ExtentTree.initRoot(raw);
    } else {
      raw.flags(flags);
    }
    fs.itable.write(tx, ino, raw);
    Inode inode = fs.inodes.install(ino, raw);
    inode.changedIn(tx.tid(), true);
    return inode;
  }

  /**
   * Frees an inode with no links and no openers: its blocks (a bounded number per Tx), its attribute
   * block reference, its number; then forgets it. The inode must be on the orphan list (the Tx that
   * dropped its last link put it there), so a crash part way is completed at the next mount.
   */
  public void delete(Inode inode) throws IOException {
    inode.rw.writeLock().lock();
    try {
      io.freeFrom(inode, 0);
      try (Tx tx = fs.meta.begin(12, 4)) {
        xattrs.releaseBlock(tx, inode);
        orphans.remove(tx, inode);
        boolean dir = inode.isDirectory();
        Instant now = fs.clock.now();
        inode.fields.lock();
        try {
          RawInode r = inode.raw();
          r.links(0);
          r.sizeBytes(0);
          r.dtime(Math.max(1, now.getEpochSecond()));
        } finally {
          inode.fields.unlock();
        }
        inode.unlinked(true);
        fs.writeInode(tx, inode, true);
        fs.inodeAlloc.free(tx, inode.ino, dir);
      }
      fs.inodes.forget(inode);
    } finally {
      inode.rw.writeLock().unlock();
    }
  }

  /**
   * Undoes {@link #create} inside the same Tx, after a later step of the creating operation failed
   * (a full directory, no space for a symlink block): the few blocks the new inode got, its number,
   * and its bytes (links 0, dtime set) — so the failed operation leaves nothing behind.
   */
  public void abortCreate(Tx tx, Inode inode) throws IOException {
    boolean dir = inode.isDirectory();
    if (inode.usesExtents()) {
      inode.map.writeLock().lock();
      try {
        for (io.ext4j.fs.format.Extent e : fs.extents.extents(inode, 0, Long.MAX_VALUE)) {
          for (long b = e.pblk(); b < e.pblk() + e.len(); b++) {
            if (dir) {
              tx.forget(b);
            } else {
              fs.cache.invalidate(b);
            }
          }
          fs.blocks.free(tx, e.pblk(), e.len());
        }
      } finally {
        inode.map.writeLock().unlock();
      }
    }
    inode.fields.lock();
    try {
      RawInode r = inode.raw();
      r.links(0);
      r.sizeBytes(0);
      r.blocksRaw(0);
      if (r.hasFlag(RawInode.FL_EXTENTS)) {
        ExtentTree.initRoot(r);
      }
      r.dtime(Math.max(1, fs.clock.now().getEpochSecond()));
    } finally {
      inode.fields.unlock();
    }
    inode.unlinked(true);
    fs.writeInode(tx, inode, false);
    fs.inodeAlloc.free(tx, inode.ino, dir);
    fs.inodes.forget(inode);
  }

  /** The inode's attributes. */
  public Attributes attributes(Inode inode) {
    RawInode r = inode.snapshot();
    inode.timesSeen();
    long blocks = r.blocksRaw();
    if (r.hasFlag(RawInode.FL_HUGE_FILE) && fs.lay.hugeFile()) {
      blocks *= fs.lay.sectorsPerBlock();
    }
    return new Attributes(inode.ino, r.mode(), r.links(), r.uid(), r.gid(), r.sizeBytes(), blocks,
        r.time(RawInode.Time.ATIME), r.time(RawInode.Time.MTIME), r.time(RawInode.Time.CTIME),
        r.time(RawInode.Time.CRTIME), rdev(r), r.flags(), r.generation(), fs.lay.blockSize());
  }

  /** The device number of a character or block device inode, in Linux's 32-bit encoding ({@link Attributes#rdev(int, int)}). */
  static long rdev(RawInode r) {
    int t = r.fileType();
    if (t != RawInode.S_IFCHR && t != RawInode.S_IFBLK) {
      return 0;
    }
    int old = r.iBlockWord(0);
    if (old != 0) {
      int major = (old >> 8) & 0xFF;
      int minor = old & 0xFF;
      return Attributes.rdev(major, minor);
    }
    return Integer.toUnsignedLong(r.iBlockWord(1));
  }


  /** Stores a device number as the kernel does: the old 16-bit form when major and minor fit a byte, else the new one. */
  static void storeRdev(RawInode r, long rdev) {
    int major = Attributes.major(rdev);
    int minor = Attributes.minor(rdev);
    if (major < 256 && minor < 256) {
      r.iBlockWord(0, (major << 8) | minor);
      r.iBlockWord(1, 0);
    } else {
      r.iBlockWord(0, 0);
      r.iBlockWord(1, (int) Attributes.rdev(major, minor));
    }
  }
}
