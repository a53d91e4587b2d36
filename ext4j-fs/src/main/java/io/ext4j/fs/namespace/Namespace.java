package io.ext4j.fs.namespace;

import io.ext4j.fs.context.Fs;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.namespace.DentryCache.Dentry;
import io.ext4j.fs.dir.Directory;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.file.FileIo;
import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.XattrName;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.orphan.Orphans;
import io.ext4j.fs.xattr.AclRules;
import io.ext4j.fs.xattr.Xattrs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Operations on names: create, mknod, mkdir, symlink, link, unlink, rmdir, rename (replace,
 * no-replace, exchange). Each is one Tx, so each is atomic across a crash: after recovery either
 * all of its changes are there or none.
 *
 * <h2>The lock order (the only one)</h2>
 * <ol>
 *   <li>{@code renameLock}, taken by renames between two directories only (it keeps the directory
 *       tree's shape still while the rename checks ancestry, as the kernel's s_vfs_rename_mutex);
 *   <li>directory rw locks, parent before child: one directory for most operations; for a rename
 *       between directories the ancestor first when one contains the other, else the lower inode
 *       number first ({@link #lockParents});
 *   <li>the rw locks of the inodes named (source and target of a rename in ascending inode number;
 *       the one child of an unlink, link or rmdir), always after their directories';
 *   <li>a Tx (journal handle), then map, group and fields locks inside it.
 * </ol>
 * No thread takes a directory's lock while holding a lock of something below it in the tree, so no
 * cycle can form. The locks are reentrant: the VFS takes a directory's lock around a lookup and the
 * operation it decides on, and the operation takes it again.
 *
 * <h2>Names and permissions</h2>
 * Every operation keeps the {@link DentryCache} exact (see there) and looks names up through it,
 * so that an existing or known-absent name costs no directory read. The caller's permission
 * checks ({@link Access}) run under the locks, after the lookups and before any change; the rules
 * that hold for every caller are checked here: EPERM for an immutable directory or inode, an
 * append-only directory losing an entry, an append-only or immutable inode removed, renamed or
 * linked; ENOENT in a removed directory.
 */
public final class Namespace {
  private static final byte[] DOTDOT = {'.', '.'};

  /** Directory link counts saturate here: past it, dir_nlink stores 1 (as the kernel's EXT4_LINK_MAX). */
  static final int LINK_MAX = 65000;

  private final Fs fs;
  private final Directory dirs;
  private final FileIo io;
  private final InodeLife life;
  private final Orphans orphans;
  private final Xattrs xattrs;
  private final boolean dirSync;
  private final ReentrantLock renameLock = new ReentrantLock();
  private final DentryCache dentries;

  private static final int ACL_CREDITS = 12; // up to two attribute blocks (the new one, the old one's refcount) and the inode

  /**
   * @param dirSync the {@code dirsync} mount option: every directory change is synchronous, not
   *     only those in a directory with the DIRSYNC flag
   */
  public Namespace(Fs fs, Directory dirs, FileIo io, InodeLife life, Orphans orphans, Xattrs xattrs, boolean dirSync,
      DentryCache dentries) {
    this.fs = fs;
    this.dentries = dentries;
    this.dirSync = dirSync;
    this.dirs = dirs;
    this.io = io;
    this.life = life;
    this.orphans = orphans;
    this.xattrs = xattrs;
  }

  /** What a new inode inherits: its mode and access ACL ({@link AclRules#inherit}), and the parent's default ACL. */
  private record Inheritance(AclRules.Inherited rules, byte[] defaultAcl) {
    int mode() {
      return rules.mode();
    }
  }

  /**
   * What a new inode of {@code mode} inherits from {@code dir}'s default ACL (null when it has none,
   * or for a symlink, which never has ACLs). Caller holds {@code dir}'s rw lock.
   */
  private Inheritance inherited(Inode dir, int mode) throws IOException {
    if ((mode & RawInode.S_IFMT) == RawInode.S_IFLNK) {
      return null;
    }
    byte[] dflt = xattrs.get(dir, XattrName.DEFAULT_ACL);
    return dflt == null ? null : new Inheritance(AclRules.inherit(PosixAcl.parseVfs(dflt), mode), dflt);
  }

  /** Stores what a new inode inherited: its access ACL, and for a directory the default ACL itself. */
  private void storeInherited(Tx tx, Inode child, Inheritance inh) throws IOException {
    if (inh.rules().access() != null) {
      xattrs.set(tx, child, XattrName.ACCESS_ACL, PosixAcl.toVfs(inh.rules().access()), 0);
    }
    if (child.isDirectory()) {
      xattrs.set(tx, child, XattrName.DEFAULT_ACL, inh.defaultAcl(), 0);
    }
  }

  /** Checks a name for an entry to create or remove: 1–255 bytes, no '/' or NUL, not "." or "..". */
  public static void checkName(byte[] name, long dir) throws Ext4Exception {
    if (name.length == 0) {
      throw new Ext4Exception(Errno.ENOENT, dir, "", "empty name");
    }
    if (name.length > 255) {
      throw new Ext4Exception(Errno.ENAMETOOLONG, dir, show(name), name.length + " bytes; at most 255");
    }
    for (byte b : name) {
      if (b == '/' || b == 0) {
        throw new Ext4Exception(Errno.EINVAL, dir, show(name), "a name may not contain '/' or NUL");
      }
    }
    if (isDot(name)) {
      throw new Ext4Exception(Errno.EINVAL, dir, show(name), "\".\" and \"..\" cannot be created or removed");
    }
  }

  public static boolean isDot(byte[] n) {
    return (n.length == 1 && n[0] == '.') || (n.length == 2 && n[0] == '.' && n[1] == '.');
  }

  static String show(byte[] name) {
    return new String(name, StandardCharsets.UTF_8);
  }

  private static void requireDir(Inode dir) throws Ext4Exception {
    if (!dir.isDirectory()) {
      throw new Ext4Exception(Errno.ENOTDIR, dir.ino, null, "not a directory");
    }
    if (dir.links() == 0) {
      throw new Ext4Exception(Errno.ENOENT, dir.ino, null, "the directory was removed");
    }
  }

  private int credits(Inode dir) throws IOException {
    return 24 + 2 * fs.extents.credits(dir, 2);
  }

  /** The dentry cache this namespace keeps exact. */
  public DentryCache dentries() {
    return dentries;
  }

  /** EPERM when {@code dir} is immutable: no entry may be added or removed (inode_permission's write check). */
  private static void checkDirWritable(Inode dir) throws Ext4Exception {
    if ((dir.flags() & RawInode.FL_IMMUTABLE) != 0) {
      throw new Ext4Exception(Errno.EPERM, dir.ino, null, "the directory is immutable");
    }
  }

  /** EPERM when {@code victim}'s entry may not leave {@code dir}: an append-only directory, an immutable or append-only victim. */
  private static void checkRemovable(Inode dir, Inode victim, byte[] name) throws Ext4Exception {
    if ((dir.flags() & RawInode.FL_APPEND) != 0) {
      throw new Ext4Exception(Errno.EPERM, dir.ino, show(name), "the directory is append-only");
    }
    if ((victim.flags() & (RawInode.FL_IMMUTABLE | RawInode.FL_APPEND)) != 0) {
      throw new Ext4Exception(Errno.EPERM, victim.ino, show(name), "immutable or append-only");
    }
  }

  // ============================================================ lookup

  /**
   * What {@code name} in directory {@code dir} names: the cached entry, or else the directory's own
   * (read under its shared lock, then cached). {@link DentryCache#NEGATIVE} when there is none,
   * also in a removed directory. ".." is looked up (and cached) like a name; "." is not a name.
   *
   * @throws Ext4Exception ENOTDIR when {@code dir} is not a directory, ENAMETOOLONG past 255 bytes
   */
  public Dentry lookup(Inode dir, byte[] name) throws IOException {
    if (!dir.isDirectory()) {
      throw new Ext4Exception(Errno.ENOTDIR, dir.ino, null, "not a directory");
    }
    if (name.length > 255) {
      throw new Ext4Exception(Errno.ENAMETOOLONG, dir.ino, null, name.length + " bytes");
    }
    if (name.length == 1 && name[0] == '.') {
      throw new IllegalArgumentException("\".\" is the directory itself, not a name to look up");
    }
    Dentry d = dentries.get(dir, name);
    if (d != null) {
      return d;
    }
    dir.rw.readLock().lock();
    try {
      return entry(dir, name);
    } finally {
      dir.rw.readLock().unlock();
    }
  }

  /** {@link #lookup} with {@code dir}'s rw lock held (shared or exclusive): fills the cache on a miss. */
  private Dentry entry(Inode dir, byte[] name) throws IOException {
    Dentry d = dentries.get(dir, name);
    if (d != null) {
      return d;
    }
    if (dir.links() == 0) {
      return DentryCache.NEGATIVE; // a removed directory holds nothing (and is not cached)
    }
    Directory.Found f = dirs.lookup(dir, name);
    if (f == null) {
      dentries.negative(dir, name);
      return DentryCache.NEGATIVE;
    }
    Inode child = fs.inodes.get(f.inode());
    try {
      d = new Dentry(child.ino, child.generation());
    } finally {
      fs.inodes.put(child);
    }
    dentries.positive(dir, name, d.ino(), d.generation());
    return d;
  }

  // ============================================================ create

  /**
   * Creates a non-directory inode of {@code mode} named {@code name} in {@code dir}: a regular file,
   * fifo, socket or device ({@code rdev}), or a symlink to {@code target}. {@code umask} is taken
   * from the mode unless {@code dir} has a default ACL (which then decides the new inode's bits, as
   * on Linux). Returns it referenced.
   */
  public Inode create(Inode dir, byte[] name, int mode, long rdev, byte[] target, Caller who, int umask, Access access)
      throws IOException {
    fs.checkWritable();
    checkName(name, dir.ino);
    if ((mode & RawInode.S_IFMT) == RawInode.S_IFDIR) {
      throw new IllegalArgumentException("mkdir makes directories");
    }
    dir.rw.writeLock().lock();
    try {
      requireDir(dir);
      if (!entry(dir, name).negative()) {
        throw new Ext4Exception(Errno.EEXIST, dir.ino, show(name), "exists");
      }
      checkDirWritable(dir);
      access.mayCreate(dir);
      return createLocked(dir, name, mode, rdev, target, who, umask);
    } finally {
      dir.rw.writeLock().unlock();
    }
  }

  /** {@link #create} with the old signature's meaning: the bits as given, no checks. */
  public Inode create(Inode dir, byte[] name, int mode, long rdev, byte[] target, Caller who) throws IOException {
    return create(dir, name, mode, rdev, target, who, 0, Access.NONE);
  }

  /** The creation itself, under {@code dir}'s exclusive lock, the name checked absent and the caller allowed. */
  private Inode createLocked(Inode dir, byte[] name, int mode, long rdev, byte[] target, Caller who, int umask) throws IOException {
    int type = mode & RawInode.S_IFMT;
    boolean slowLink = type == RawInode.S_IFLNK && target.length >= 60;
    boolean extents = type == RawInode.S_IFREG || slowLink;
    Inheritance inh = inherited(dir, mode);
    int bits = inh != null ? inh.mode() : type == RawInode.S_IFLNK ? mode : mode & ~umask;
    try (Tx tx = fs.meta.begin(credits(dir) + (inh == null ? 0 : ACL_CREDITS), 0)) {
      Inode child = life.create(tx, dir, bits, who, extents);
      try {
        if (inh != null) {
          storeInherited(tx, child, inh);
        }
        if (type == RawInode.S_IFCHR || type == RawInode.S_IFBLK) {
          child.fields.lock();
          try {
            InodeLife.storeRdev(child.raw(), rdev);
          } finally {
            child.fields.unlock();
          }
        } else if (type == RawInode.S_IFLNK) {
          writeSymlink(tx, child, target);
        }
        fs.writeInode(tx, child, true);
        dirs.add(tx, dir, name, child.ino, dirs.typeOf(mode));
      } catch (IOException | RuntimeException e) {
        dentries.forget(dir, name);
        undo(tx, child, e);
        throw e;
      }
      fs.writeInode(tx, dir, true);
      setDirSync(tx, dir);
      dentries.positive(dir, name, child);
      return child;
    }
  }

  /** What {@link #open} found or made: the regular file (or whatever the name held), referenced and pinned. */
  public record Opened(Inode inode, boolean created) {}

  /**
   * open(2) with O_CREAT, as one step under {@code dir}'s lock: the inode {@code name} names when it
   * exists (EEXIST instead with {@code exclusive}), else a new regular file of {@code mode} (less
   * {@code umask}, as {@link #create}). Whatever the name holds is returned, pinned before the
   * lock is released so that no unlink can free it first; a symbolic link is the caller's to
   * follow. Never fails with EEXIST without {@code exclusive}, nor with ENOENT because a concurrent
   * unlink won: the two are ordered by the lock.
   */
  public Opened open(Inode dir, byte[] name, int mode, Caller who, int umask, boolean exclusive, Access access) throws IOException {
    checkName(name, dir.ino);
    dir.rw.writeLock().lock();
    try {
      requireDir(dir);
      Dentry d = entry(dir, name);
      if (!d.negative()) {
        if (exclusive) {
          throw new Ext4Exception(Errno.EEXIST, dir.ino, show(name), "exists");
        }
        Inode found = fs.inodes.get(d.ino());
        try {
          if (found.generation() != d.generation() || !fs.inodes.pin(found)) { // the lock keeps names and inodes in step: damage
            throw new Ext4Exception(Errno.EFSCORRUPTED, dir.ino, show(name), "names inode " + found.ino + ", which is not in use");
          }
        } catch (RuntimeException e) {
          fs.inodes.put(found);
          throw e;
        }
        return new Opened(found, false);
      }
      fs.checkWritable();
      checkDirWritable(dir);
      access.mayCreate(dir);
      Inode child = createLocked(dir, name, RawInode.S_IFREG | (mode & 07777), 0, null, who, umask);
      fs.inodes.pin(child); // it has its link: this cannot fail
      return new Opened(child, true);
    } finally {
      dir.rw.writeLock().unlock();
    }
  }

  /**
   * O_TMPFILE: a new regular file in {@code dir}'s group of inodes with no name (no link, on the
   * orphan list, as ext4 keeps it), returned referenced and pinned: it is freed at its last unpin
   * unless {@link #link} gives it a name first, which only a {@code linkable} one may take (O_EXCL
   * makes it never linkable). The directory itself does not change.
   */
  public Inode tmpfile(Inode dir, int mode, Caller who, int umask, boolean linkable, Access access) throws IOException {
    fs.checkWritable();
    dir.rw.writeLock().lock();
    try {
      requireDir(dir);
      checkDirWritable(dir);
      access.mayCreate(dir);
      Inheritance inh = inherited(dir, RawInode.S_IFREG | (mode & 07777));
      int bits = inh != null ? inh.mode() : RawInode.S_IFREG | (mode & 07777 & ~umask);
      try (Tx tx = fs.meta.begin(credits(dir) + 8 + (inh == null ? 0 : ACL_CREDITS), 0)) {
        Inode child = life.create(tx, dir, bits, who, true);
        try {
          if (inh != null) {
            storeInherited(tx, child, inh);
          }
          child.fields.lock();
          try {
            child.raw().links(0);
          } finally {
            child.fields.unlock();
          }
          child.unlinked(true);
          child.linkable(linkable);
          orphans.add(tx, child);
          fs.writeInode(tx, child, true);
        } catch (IOException | RuntimeException e) {
          undo(tx, child, e);
          throw e;
        }
        fs.inodes.pinCreated(child);
        return child;
      }
    } finally {
      dir.rw.writeLock().unlock();
    }
  }

  private void writeSymlink(Tx tx, Inode link, byte[] target) throws IOException {
    if (target.length == 0 || target.length >= fs.lay.blockSize()) {
      throw new Ext4Exception(Errno.ENAMETOOLONG, link.ino, null, "symlink target of " + target.length + " bytes");
    }
    if (target.length < 60) {
      link.fields.lock();
      try {
        byte[] ib = new byte[RawInode.I_BLOCK_SIZE];
        System.arraycopy(target, 0, ib, 0, target.length);
        link.raw().iBlock(ib);
        link.raw().sizeBytes(target.length);
      } finally {
        link.fields.unlock();
      }
      return;
    }
    long goal = fs.lay.groupFirstBlock(fs.lay.groupOfInode(link.ino));
    long pblk = fs.blocks.allocate(tx, goal, 1, 1).start();
    byte[] block = new byte[fs.lay.blockSize()];
    System.arraycopy(target, 0, block, 0, target.length);
    fs.device.write(pblk, ByteBuffer.wrap(block)); // data before the Tx that maps it stops
    fs.cache.invalidate(pblk);
    link.map.writeLock().lock();
    try {
      fs.extents.replace(tx, link, 0, 1, List.of(new Extent(0, pblk, 1, false)));
    } finally {
      link.map.writeLock().unlock();
    }
    link.fields.lock();
    try {
      RawInode r = link.raw();
      r.sizeBytes(target.length);
      r.blocksRaw(r.blocksRaw() + fs.lay.sectorsPerBlock());
    } finally {
      link.fields.unlock();
    }
  }

  /** A symlink's target. */
  public byte[] readlink(Inode link) throws IOException {
    RawInode r = link.snapshot();
    if (r.fileType() != RawInode.S_IFLNK) {
      throw new Ext4Exception(Errno.EINVAL, link.ino, null, "not a symbolic link");
    }
    long size = r.sizeBytes();
    if (size <= 0 || size >= fs.lay.blockSize()) {
      throw Ext4Exception.corrupted(fs.lay.name(), link.ino, "symlink has size " + size);
    }
    if (r.hasFlag(RawInode.FL_INLINE_DATA) || !io.hasBlockMap(r)) {
      byte[] all = r.hasFlag(RawInode.FL_INLINE_DATA) ? io.inlineContents(link, r) : r.iBlock();
      if (size > all.length) {
        throw Ext4Exception.corrupted(fs.lay.name(), link.ino, "fast symlink of size " + size + " holds only " + all.length + " bytes");
      }
      return Arrays.copyOf(all, (int) size);
    }
    ByteBuffer buf = ByteBuffer.allocate((int) size);
    io.read(link, 0, buf, false);
    return buf.array();
  }

  /** Makes a directory of permission bits {@code mode} (less {@code umask}, as {@link #create}); returns it referenced. */
  public Inode mkdir(Inode dir, byte[] name, int mode, Caller who, int umask, Access access) throws IOException {
    fs.checkWritable();
    checkName(name, dir.ino);
    dir.rw.writeLock().lock();
    try {
      requireDir(dir);
      if (!entry(dir, name).negative()) {
        throw new Ext4Exception(Errno.EEXIST, dir.ino, show(name), "exists");
      }
      checkDirWritable(dir);
      access.mayCreate(dir);
      checkLinkRoom(dir);
      Inheritance inh = inherited(dir, RawInode.S_IFDIR | (mode & 07777));
      int bits = inh != null ? inh.mode() : RawInode.S_IFDIR | (mode & 07777 & ~umask);
      try (Tx tx = fs.meta.begin(credits(dir) + 8 + (inh == null ? 0 : 2 * ACL_CREDITS), 0)) {
        Inode child = life.create(tx, dir, bits, who, true);
        try {
          if (inh != null) {
            storeInherited(tx, child, inh);
          }
          dirs.init(tx, child, dir.ino);
          fs.writeInode(tx, child, true);
          dirs.add(tx, dir, name, child.ino, dirs.typeOf(RawInode.S_IFDIR));
        } catch (IOException | RuntimeException e) {
          dentries.forget(dir, name);
          undo(tx, child, e);
          throw e;
        }
        addLink(dir);
        fs.writeInode(tx, dir, true);
        setDirSync(tx, dir);
        dentries.positive(dir, name, child);
        dentries.positive(child, DOTDOT, dir);
        return child;
      }
    } finally {
      dir.rw.writeLock().unlock();
    }
  }

  /** {@link #mkdir} with the old signature's meaning: the bits as given, no checks. */
  public Inode mkdir(Inode dir, byte[] name, int mode, Caller who) throws IOException {
    return mkdir(dir, name, mode, who, 0, Access.NONE);
  }

  /**
   * A creating operation failed after its inode was allocated: the inode is freed again in the same
   * Tx (nothing of the operation remains). If even that fails, the filesystem cannot vouch for the
   * transaction any more and turns read-only.
   */
  private void undo(Tx tx, Inode child, Throwable cause) {
    try {
      life.abortCreate(tx, child);
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(e);
      fs.fail(cause);
    } finally {
      fs.inodes.put(child);
    }
  }

  /** Whether a directory can take one more subdirectory link (always with dir_nlink). */
  private void checkLinkRoom(Inode dir) throws Ext4Exception {
    if (!fs.lay.dirNlink() && dir.links() >= LINK_MAX) {
      throw new Ext4Exception(Errno.EMLINK, dir.ino, null, "directory has " + LINK_MAX + " links (no dir_nlink)");
    }
  }

  /** A directory gained a subdirectory: +1, or 1 for good once past LINK_MAX (dir_nlink). */
  private void addLink(Inode dir) {
    dir.fields.lock();
    try {
      RawInode r = dir.raw();
      int n = r.links();
      if (n == 1 && fs.lay.dirNlink()) {
        return; // saturated: the count is unknown
      }
      r.links(n + 1 >= LINK_MAX && fs.lay.dirNlink() ? 1 : n + 1);
    } finally {
      dir.fields.unlock();
    }
  }

  /** A directory lost a subdirectory. */
  private void dropLink(Inode dir) {
    dir.fields.lock();
    try {
      RawInode r = dir.raw();
      int n = r.links();
      if (n > 2) {
        r.links(n - 1);
      }
    } finally {
      dir.fields.unlock();
    }
  }

  private void setDirSync(Tx tx, Inode dir) {
    if (dirSync || (dir.flags() & RawInode.FL_DIRSYNC) != 0) {
      tx.setSync();
    }
  }

  // ============================================================ link and unlink

  /**
   * Adds name {@code name} in {@code dir} for {@code target} (not a directory). An O_TMPFILE inode
   * made linkable takes its first link so, and leaves the orphan list.
   */
  public void link(Inode target, Inode dir, byte[] name, Access access) throws IOException {
    fs.checkWritable();
    checkName(name, dir.ino);
    if (target.isDirectory()) {
      throw new Ext4Exception(Errno.EPERM, target.ino, null, "hard links to directories are not allowed");
    }
    dir.rw.writeLock().lock();
    try {
      target.rw.writeLock().lock();
      try {
        requireDir(dir);
        if (!entry(dir, name).negative()) {
          throw new Ext4Exception(Errno.EEXIST, dir.ino, show(name), "exists");
        }
        checkDirWritable(dir);
        access.mayCreate(dir);
        if ((target.flags() & (RawInode.FL_IMMUTABLE | RawInode.FL_APPEND)) != 0) {
          throw new Ext4Exception(Errno.EPERM, target.ino, null, "the file is immutable or append-only");
        }
        boolean first = target.links() == 0;
        if (first && !(target.linkable() && fs.inodes.pins(target) > 0)) {
          throw new Ext4Exception(Errno.ENOENT, target.ino, null, "the file was removed");
        }
        if (target.links() >= LINK_MAX) {
          throw new Ext4Exception(Errno.EMLINK, target.ino, null, "the file has " + LINK_MAX + " links");
        }
        try (Tx tx = fs.meta.begin(credits(dir) + (first ? 8 : 0), 0)) {
          try {
            dirs.add(tx, dir, name, target.ino, dirs.typeOf(target.mode()));
          } catch (IOException | RuntimeException e) {
            dentries.forget(dir, name);
            throw e;
          }
          target.fields.lock();
          try {
            target.raw().links(target.raw().links() + 1);
            target.raw().time(RawInode.Time.CTIME, fs.clock.now());
          } finally {
            target.fields.unlock();
          }
          if (first) {
            orphans.remove(tx, target);
            target.unlinked(false);
            target.linkable(false);
          }
          fs.writeInode(tx, target, false);
          fs.writeInode(tx, dir, true);
          setDirSync(tx, dir);
          dentries.positive(dir, name, target);
        }
      } finally {
        target.rw.writeLock().unlock();
      }
    } finally {
      dir.rw.writeLock().unlock();
    }
  }

  /** {@link #link} without checks. */
  public void link(Inode target, Inode dir, byte[] name) throws IOException {
    link(target, dir, name, Access.NONE);
  }

  /**
   * Removes name {@code name} from {@code dir}: a non-directory with {@code directory} false, an empty
   * directory with it true. An inode losing its last link is freed now, or at its last unpin (an
   * open file, a lookup reference) when pinned; it waits on the orphan list meanwhile.
   */
  public void unlink(Inode dir, byte[] name, boolean directory, Access access) throws IOException {
    fs.checkWritable();
    checkName(name, dir.ino);
    Inode child;
    dir.rw.writeLock().lock();
    try {
      requireDir(dir);
      if (entry(dir, name).negative()) {
        throw new Ext4Exception(Errno.ENOENT, dir.ino, show(name), "no such entry");
      }
      Directory.Found f = dirs.lookup(dir, name);
      if (f == null) { // the dentry cache had it from an earlier read of the blocks, which now disagree: damage
        throw new Ext4Exception(Errno.EFSCORRUPTED, dir.ino, show(name), "found in the directory before, not found in its blocks now");
      }
      child = fs.inodes.get(f.inode());
      try {
        child.rw.writeLock().lock();
        try {
          checkDirWritable(dir);
          access.mayDelete(dir, child);
          checkRemovable(dir, child, name);
          boolean isDir = child.isDirectory();
          if (directory && !isDir) {
            throw new Ext4Exception(Errno.ENOTDIR, child.ino, show(name), "not a directory");
          }
          if (!directory && isDir) {
            throw new Ext4Exception(Errno.EISDIR, child.ino, show(name), "is a directory");
          }
          if (isDir && !dirs.isEmpty(child)) {
            throw new Ext4Exception(Errno.ENOTEMPTY, child.ino, show(name), "directory not empty");
          }
          try (Tx tx = fs.meta.begin(credits(dir), 0)) {
            dentries.forget(dir, name);
            dirs.removeAt(tx, dir, f);
            dropName(tx, child, isDir);
            if (isDir) {
              dropLink(dir);
            }
            fs.writeInode(tx, dir, true);
            setDirSync(tx, dir);
            dentries.negative(dir, name);
          }
        } finally {
          child.rw.writeLock().unlock();
        }
      } catch (IOException | RuntimeException e) {
        fs.inodes.put(child);
        throw e;
      }
    } finally {
      dir.rw.writeLock().unlock();
    }
    try {
      releaseIfGone(child);
    } finally {
      fs.inodes.put(child);
    }
  }

  /** {@link #unlink} without checks. */
  public void unlink(Inode dir, byte[] name, boolean directory) throws IOException {
    unlink(dir, name, directory, Access.NONE);
  }

  /** One link of {@code child} is gone (a directory: all of them); on the last, the inode goes on the orphan list. */
  private void dropName(Tx tx, Inode child, boolean isDir) throws IOException {
    int left;
    child.fields.lock();
    try {
      RawInode r = child.raw();
      left = isDir ? 0 : Math.max(0, r.links() - 1);
      r.links(left);
      r.time(RawInode.Time.CTIME, fs.clock.now());
    } finally {
      child.fields.unlock();
    }
    if (left == 0) {
      child.unlinked(true);
      orphans.add(tx, child);
    }
    fs.writeInode(tx, child, false);
  }

  /**
   * Frees {@code child} if it has no link left and nobody pins it; else its last unpin will. Called
   * with no lock held.
   */
  public void releaseIfGone(Inode child) throws IOException {
    if (fs.inodes.claim(child)) {
      life.delete(child);
    }
  }

  // ============================================================ rename

  /**
   * Renames {@code oldName} in {@code oldDir} to {@code newName} in {@code newDir}, one Tx. A
   * whiteout mode leaves a whiteout owned by {@code who} at the old name.
   */
  public void rename(Inode oldDir, byte[] oldName, Inode newDir, byte[] newName, RenameMode mode, Caller who, Access access)
      throws IOException {
    fs.checkWritable();
    checkName(oldName, oldDir.ino);
    checkName(newName, newDir.ino);
    boolean cross = oldDir.ino != newDir.ino;
    if (cross) {
      renameLock.lock();
    }
    Inode replaced = null;
    try {
      List<Inode> parents = lockParents(oldDir, newDir, cross);
      try {
        requireDir(oldDir);
        requireDir(newDir);
        Directory.Found src = entry(oldDir, oldName).negative() ? null : dirs.lookup(oldDir, oldName);
        if (src == null) {
          throw new Ext4Exception(Errno.ENOENT, oldDir.ino, show(oldName), "no such entry");
        }
        Directory.Found dst = entry(newDir, newName).negative() ? null : dirs.lookup(newDir, newName);
        if (mode == RenameMode.EXCHANGE && dst == null) {
          throw new Ext4Exception(Errno.ENOENT, newDir.ino, show(newName), "no such entry to exchange with");
        }
        if (mode.noReplace() && dst != null) {
          throw new Ext4Exception(Errno.EEXIST, newDir.ino, show(newName), "exists");
        }
        Inode s = fs.inodes.get(src.inode());
        Inode t = dst == null ? null : fs.inodes.get(dst.inode());
        try {
          if (s.isDirectory() && cross && isAncestor(s, newDir)) {
            throw new Ext4Exception(Errno.EINVAL, s.ino, show(oldName), "cannot move a directory into itself");
          }
          if (t != null && mode == RenameMode.EXCHANGE && t.isDirectory() && cross && isAncestor(t, oldDir)) {
            throw new Ext4Exception(Errno.EINVAL, t.ino, show(newName), "cannot move a directory into itself");
          }
          if (t != null && t.ino == s.ino) {
            return; // two names of one inode: nothing to do (POSIX)
          }
          checkDirWritable(oldDir);
          checkDirWritable(newDir);
          access.mayDelete(oldDir, s);
          if (t == null) {
            access.mayCreate(newDir);
          } else {
            access.mayDelete(newDir, t);
          }
          if (cross && s.isDirectory()) {
            access.mayReparent(s);
          }
          if (cross && mode == RenameMode.EXCHANGE && t.isDirectory()) {
            access.mayReparent(t);
          }
          checkRemovable(oldDir, s, oldName);
          if (t != null) {
            checkRemovable(newDir, t, newName);
          }
          List<Inode> children = lockChildren(s, t);
          try {
            if (mode == RenameMode.EXCHANGE) {
              if (s.isDirectory() != t.isDirectory() && cross) {
                checkLinkRoom(s.isDirectory() ? newDir : oldDir);
              }
              exchange(oldDir, oldName, src, s, newDir, newName, dst, t, cross);
            } else {
              if (t != null) {
                checkReplace(s, t, newName);
              }
              if (s.isDirectory() && cross && (t == null || !t.isDirectory())) {
                checkLinkRoom(newDir);
              }
              move(oldDir, oldName, s, newDir, newName, dst, t, cross, mode.whiteout() ? who : null);
              if (t != null) {
                replaced = t;
                t = null; // released below, after the locks
              }
            }
          } finally {
            for (Inode c : children) {
              c.rw.writeLock().unlock();
            }
          }
        } finally {
          fs.inodes.put(s);
          if (t != null) {
            fs.inodes.put(t);
          }
        }
      } finally {
        for (int i = parents.size() - 1; i >= 0; i--) {
          parents.get(i).rw.writeLock().unlock();
        }
      }
    } finally {
      if (cross) {
        renameLock.unlock();
      }
    }
    if (replaced != null) {
      try {
        releaseIfGone(replaced);
      } finally {
        fs.inodes.put(replaced);
      }
    }
  }

  /** {@link #rename} without checks (a whiteout owned by root). */
  public void rename(Inode oldDir, byte[] oldName, Inode newDir, byte[] newName, RenameMode mode) throws IOException {
    rename(oldDir, oldName, newDir, newName, mode, Caller.ROOT, Access.NONE);
  }

  private void checkReplace(Inode s, Inode t, byte[] newName) throws IOException {
    if (s.isDirectory() && !t.isDirectory()) {
      throw new Ext4Exception(Errno.ENOTDIR, t.ino, show(newName), "cannot replace a non-directory with a directory");
    }
    if (!s.isDirectory() && t.isDirectory()) {
      throw new Ext4Exception(Errno.EISDIR, t.ino, show(newName), "cannot replace a directory with a non-directory");
    }
    if (t.isDirectory() && !dirs.isEmpty(t)) {
      throw new Ext4Exception(Errno.ENOTEMPTY, t.ino, show(newName), "directory not empty");
    }
  }

  /** The rename's one Tx; {@code whiteoutOwner} non-null leaves a whiteout it owns at the old name. */
  private void move(Inode oldDir, byte[] oldName, Inode s, Inode newDir, byte[] newName, Directory.Found dst, Inode t,
      boolean cross, Caller whiteoutOwner) throws IOException {
    dentries.forget(oldDir, oldName);
    dentries.forget(newDir, newName);
    try (Tx tx = fs.meta.begin(2 * credits(newDir) + 16 + (whiteoutOwner != null ? 24 : 0), 0)) {
      int type = dirs.typeOf(s.mode());
      if (dst != null) {
        dirs.retarget(tx, newDir, dst, s.ino, type);
        dropName(tx, t, t.isDirectory());
        if (t.isDirectory()) {
          dropLink(newDir);
        }
      } else {
        dirs.add(tx, newDir, newName, s.ino, type);
      }
      Directory.Found old = dirs.lookup(oldDir, oldName); // the add may have moved entries (a leaf split)
      if (old == null || old.inode() != s.ino) { // found before the add, not after it: the directory's blocks are damaged
        Ext4Exception e = new Ext4Exception(Errno.EFSCORRUPTED, oldDir.ino, show(oldName),
            "the rename's source entry is gone from the directory's blocks after adding " + show(newName));
        fs.error(e); // aborts the journal before this half-done transaction can commit
        throw e;
      }
      Inode whiteout = null;
      if (whiteoutOwner != null) {
        whiteout = life.create(tx, oldDir, RawInode.S_IFCHR, whiteoutOwner, false); // 0:0, mode 0: a whiteout
        fs.writeInode(tx, whiteout, true);
        dirs.retarget(tx, oldDir, old, whiteout.ino, dirs.typeOf(RawInode.S_IFCHR));
      } else {
        dirs.removeAt(tx, oldDir, old);
      }
      if (s.isDirectory() && cross) {
        dentries.forget(s, DOTDOT);
        dirs.setDotDot(tx, s, newDir.ino);
        dentries.positive(s, DOTDOT, newDir);
        fs.writeInode(tx, s, true);
        dropLink(oldDir);
        addLink(newDir);
      }
      s.fields.lock();
      try {
        s.raw().time(RawInode.Time.CTIME, fs.clock.now());
      } finally {
        s.fields.unlock();
      }
      fs.writeInode(tx, s, false);
      fs.writeInode(tx, oldDir, true);
      if (cross) {
        fs.writeInode(tx, newDir, true);
      }
      setDirSync(tx, oldDir);
      setDirSync(tx, newDir);
      dentries.positive(newDir, newName, s);
      if (whiteout != null) {
        dentries.positive(oldDir, oldName, whiteout);
        fs.inodes.put(whiteout);
      } else {
        dentries.negative(oldDir, oldName);
      }
    }
  }

  private void exchange(Inode oldDir, byte[] oldName, Directory.Found src, Inode s, Inode newDir, byte[] newName,
      Directory.Found dst, Inode t, boolean cross) throws IOException {
    dentries.forget(oldDir, oldName);
    dentries.forget(newDir, newName);
    try (Tx tx = fs.meta.begin(2 * credits(newDir) + 16, 0)) {
      dirs.retarget(tx, oldDir, src, t.ino, dirs.typeOf(t.mode()));
      dirs.retarget(tx, newDir, dst, s.ino, dirs.typeOf(s.mode()));
      if (cross) {
        if (s.isDirectory()) {
          dentries.forget(s, DOTDOT);
          dirs.setDotDot(tx, s, newDir.ino);
          dentries.positive(s, DOTDOT, newDir);
        }
        if (t.isDirectory()) {
          dentries.forget(t, DOTDOT);
          dirs.setDotDot(tx, t, oldDir.ino);
          dentries.positive(t, DOTDOT, oldDir);
        }
        if (s.isDirectory() != t.isDirectory()) {
          if (s.isDirectory()) {
            dropLink(oldDir);
            addLink(newDir);
          } else {
            dropLink(newDir);
            addLink(oldDir);
          }
        }
      }
      Instant now = fs.clock.now();
      for (Inode i : new Inode[] {s, t}) {
        i.fields.lock();
        try {
          i.raw().time(RawInode.Time.CTIME, now);
        } finally {
          i.fields.unlock();
        }
        fs.writeInode(tx, i, true);
      }
      fs.writeInode(tx, oldDir, true);
      if (cross) {
        fs.writeInode(tx, newDir, true);
      }
      setDirSync(tx, oldDir);
      setDirSync(tx, newDir);
      dentries.positive(oldDir, oldName, t);
      dentries.positive(newDir, newName, s);
    }
  }

  /** Whether directory {@code a} is {@code d} or one of its ancestors (walking ".." up to the root). */
  private boolean isAncestor(Inode a, Inode d) throws IOException {
    long at = d.ino;
    int guard = 0;
    while (true) {
      if (at == a.ino) {
        return true;
      }
      if (at == 2 || ++guard > 1 << 16) {
        return false;
      }
      Inode i = fs.inodes.get(at);
      try {
        long up = dirs.parentUnlocked(i);
        if (up == at) {
          return false;
        }
        at = up;
      } finally {
        fs.inodes.put(i);
      }
    }
  }

  /** Locks the rename's directories in the written order; returns them in locking order. */
  private List<Inode> lockParents(Inode a, Inode b, boolean cross) throws IOException {
    List<Inode> order = new ArrayList<>();
    if (!cross) {
      order.add(a);
    } else if (isAncestor(a, b)) {
      order.add(a);
      order.add(b);
    } else if (isAncestor(b, a)) {
      order.add(b);
      order.add(a);
    } else if (a.ino < b.ino) {
      order.add(a);
      order.add(b);
    } else {
      order.add(b);
      order.add(a);
    }
    for (Inode i : order) {
      i.rw.writeLock().lock();
    }
    return order;
  }

  /** Locks the source and (if any) target inodes in ascending number; returns what was locked. */
  private static List<Inode> lockChildren(Inode s, Inode t) {
    List<Inode> order = new ArrayList<>();
    order.add(s);
    if (t != null) {
      if (t.ino < s.ino) {
        order.addFirst(t);
      } else {
        order.add(t);
      }
    }
    for (Inode i : order) {
      i.rw.writeLock().lock();
    }
    return order;
  }
}
