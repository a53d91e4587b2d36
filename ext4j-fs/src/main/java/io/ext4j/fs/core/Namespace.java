package io.ext4j.fs.core;

import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.dir.Directory;
import io.ext4j.fs.extent.Extent;
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
 * cycle can form.
 */
public final class Namespace {
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

  private static final int ACL_CREDITS = 12; // up to two attribute blocks (the new one, the old one's refcount) and the inode

  /**
   * @param dirSync the {@code dirsync} mount option: every directory change is synchronous, not
   *     only those in a directory with the DIRSYNC flag
   */
  public Namespace(Fs fs, Directory dirs, FileIo io, InodeLife life, Orphans orphans, Xattrs xattrs, boolean dirSync) {
    this.fs = fs;
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

  static boolean isDot(byte[] n) {
    return n.length == 1 && n[0] == '.' || n.length == 2 && n[0] == '.' && n[1] == '.';
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

  // ============================================================ create

  /**
   * Creates a non-directory inode of {@code mode} named {@code name} in {@code dir}: a regular file,
   * fifo, socket or device ({@code rdev}), or a symlink to {@code target}. Returns it referenced.
   */
  public Inode create(Inode dir, byte[] name, int mode, long rdev, byte[] target, Caller who) throws IOException {
    fs.checkWritable();
    checkName(name, dir.ino);
    int type = mode & RawInode.S_IFMT;
    if (type == RawInode.S_IFDIR) {
      throw new IllegalArgumentException("mkdir makes directories");
    }
    dir.rw.writeLock().lock();
    try {
      requireDir(dir);
      if (dirs.lookup(dir, name) != null) {
        throw new Ext4Exception(Errno.EEXIST, dir.ino, show(name), "exists");
      }
      boolean slowLink = type == RawInode.S_IFLNK && target.length >= 60;
      boolean extents = type == RawInode.S_IFREG || slowLink;
      Inheritance inh = inherited(dir, mode);
      try (Tx tx = fs.meta.begin(credits(dir) + (inh == null ? 0 : ACL_CREDITS), 0)) {
        Inode child = life.create(tx, dir, inh == null ? mode : inh.mode(), who, extents);
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
          undo(tx, child, e);
          throw e;
        }
        fs.writeInode(tx, dir, true);
        setDirSync(tx, dir);
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

  /** Makes a directory; returns it referenced. */
  public Inode mkdir(Inode dir, byte[] name, int mode, Caller who) throws IOException {
    fs.checkWritable();
    checkName(name, dir.ino);
    dir.rw.writeLock().lock();
    try {
      requireDir(dir);
      if (dirs.lookup(dir, name) != null) {
        throw new Ext4Exception(Errno.EEXIST, dir.ino, show(name), "exists");
      }
      checkLinkRoom(dir);
      Inheritance inh = inherited(dir, RawInode.S_IFDIR | (mode & 07777));
      try (Tx tx = fs.meta.begin(credits(dir) + 8 + (inh == null ? 0 : 2 * ACL_CREDITS), 0)) {
        Inode child = life.create(tx, dir, inh == null ? RawInode.S_IFDIR | (mode & 07777) : inh.mode(), who, true);
        try {
          if (inh != null) {
            storeInherited(tx, child, inh);
          }
          dirs.init(tx, child, dir.ino);
          fs.writeInode(tx, child, true);
          dirs.add(tx, dir, name, child.ino, dirs.typeOf(RawInode.S_IFDIR));
        } catch (IOException | RuntimeException e) {
          undo(tx, child, e);
          throw e;
        }
        addLink(dir);
        fs.writeInode(tx, dir, true);
        setDirSync(tx, dir);
        return child;
      }
    } finally {
      dir.rw.writeLock().unlock();
    }
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

  /** Adds name {@code name} in {@code dir} for {@code target} (not a directory). */
  public void link(Inode target, Inode dir, byte[] name) throws IOException {
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
        if (target.links() == 0) {
          throw new Ext4Exception(Errno.ENOENT, target.ino, null, "the file was removed");
        }
        if (target.links() >= LINK_MAX) {
          throw new Ext4Exception(Errno.EMLINK, target.ino, null, "the file has " + LINK_MAX + " links");
        }
        if (dirs.lookup(dir, name) != null) {
          throw new Ext4Exception(Errno.EEXIST, dir.ino, show(name), "exists");
        }
        try (Tx tx = fs.meta.begin(credits(dir), 0)) {
          dirs.add(tx, dir, name, target.ino, dirs.typeOf(target.mode()));
          target.fields.lock();
          try {
            target.raw().links(target.raw().links() + 1);
            target.raw().time(RawInode.Time.CTIME, fs.clock.now());
          } finally {
            target.fields.unlock();
          }
          fs.writeInode(tx, target, false);
          fs.writeInode(tx, dir, true);
          setDirSync(tx, dir);
        }
      } finally {
        target.rw.writeLock().unlock();
      }
    } finally {
      dir.rw.writeLock().unlock();
    }
  }

  /**
   * Removes name {@code name} from {@code dir}: a non-directory with {@code directory} false, an empty
   * directory with it true. An inode losing its last link is freed now, or at its last close when
   * open (it waits on the orphan list).
   */
  public void unlink(Inode dir, byte[] name, boolean directory) throws IOException {
    fs.checkWritable();
    checkName(name, dir.ino);
    Inode child;
    dir.rw.writeLock().lock();
    try {
      requireDir(dir);
      Directory.Found f = dirs.lookup(dir, name);
      if (f == null) {
        throw new Ext4Exception(Errno.ENOENT, dir.ino, show(name), "no such entry");
      }
      child = fs.inodes.get(f.inode());
      try {
        child.rw.writeLock().lock();
        try {
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
            dirs.removeAt(tx, dir, f);
            dropName(tx, child, isDir);
            if (isDir) {
              dropLink(dir);
            }
            fs.writeInode(tx, dir, true);
            setDirSync(tx, dir);
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
      orphans.add(tx, child);
    }
    fs.writeInode(tx, child, false);
  }

  /** Frees {@code child} if it has no link left and nobody has it open; else its last close will. */
  public void releaseIfGone(Inode child) throws IOException {
    if (child.links() != 0) {
      return;
    }
    if (fs.inodes.opens(child) > 0) {
      fs.inodes.orphaned(child, true);
      return;
    }
    life.delete(child);
  }

  // ============================================================ rename

  /** Renames {@code oldName} in {@code oldDir} to {@code newName} in {@code newDir}. */
  public void rename(Inode oldDir, byte[] oldName, Inode newDir, byte[] newName, RenameMode mode) throws IOException {
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
        Directory.Found src = dirs.lookup(oldDir, oldName);
        if (src == null) {
          throw new Ext4Exception(Errno.ENOENT, oldDir.ino, show(oldName), "no such entry");
        }
        Directory.Found dst = dirs.lookup(newDir, newName);
        if (mode == RenameMode.EXCHANGE && dst == null) {
          throw new Ext4Exception(Errno.ENOENT, newDir.ino, show(newName), "no such entry to exchange with");
        }
        if (mode == RenameMode.NOREPLACE && dst != null) {
          throw new Ext4Exception(Errno.EEXIST, newDir.ino, show(newName), "exists");
        }
        if (dst != null && dst.inode() == src.inode()) {
          return; // two names of one inode: nothing to do (POSIX)
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
          List<Inode> children = lockChildren(s, t);
          try {
            if (mode == RenameMode.EXCHANGE) {
              exchange(oldDir, src, s, newDir, dst, t, cross);
            } else {
              if (t != null) {
                checkReplace(s, t, newName);
              }
              if (s.isDirectory() && cross && (t == null || !t.isDirectory())) {
                checkLinkRoom(newDir);
              }
              move(oldDir, oldName, s, newDir, newName, dst, t, cross);
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

  private void move(Inode oldDir, byte[] oldName, Inode s, Inode newDir, byte[] newName, Directory.Found dst, Inode t,
      boolean cross) throws IOException {
    try (Tx tx = fs.meta.begin(2 * credits(newDir) + 16, 0)) {
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
      if (old == null || old.inode() != s.ino) {
        throw new IllegalStateException("rename source " + show(oldName) + " vanished under the directory lock");
      }
      dirs.removeAt(tx, oldDir, old);
      if (s.isDirectory() && cross) {
        dirs.setDotDot(tx, s, newDir.ino);
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
    }
  }

  private void exchange(Inode oldDir, Directory.Found src, Inode s, Inode newDir, Directory.Found dst, Inode t, boolean cross)
      throws IOException {
    try (Tx tx = fs.meta.begin(2 * credits(newDir) + 16, 0)) {
      dirs.retarget(tx, oldDir, src, t.ino, dirs.typeOf(t.mode()));
      dirs.retarget(tx, newDir, dst, s.ino, dirs.typeOf(s.mode()));
      if (cross) {
        if (s.isDirectory()) {
          dirs.setDotDot(tx, s, newDir.ino);
        }
        if (t.isDirectory()) {
          dirs.setDotDot(tx, t, oldDir.ino);
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
