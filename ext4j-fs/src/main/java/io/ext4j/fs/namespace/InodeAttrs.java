package io.ext4j.fs.namespace;

import io.ext4j.fs.context.Fs;
import io.ext4j.fs.AtimeUpdates;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.SetAttributes;
import io.ext4j.fs.file.FileIo;
import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.XattrName;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.xattr.AclRules;
import io.ext4j.fs.xattr.Xattrs;
import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * An inode's attributes and extended attributes changed as ext4 changes them (ext4_setattr,
 * ext4_xattr_set), without any permission rule: the VFS decides who may, this class does it. Each
 * call is given an inode its caller keeps alive (pinned) and takes the inode's locks itself.
 *
 * <h2>Durability</h2>
 * Each change is one Tx (a size change first truncates in Txs of its own); nothing is durable when
 * a call returns until the journal commits it (fsync, syncfs, close, or a synchronous Tx).
 */
public final class InodeAttrs {
  private final Fs fs;
  private final FileIo io;
  private final Xattrs xattrs;
  private final InodeLife life;

  public InodeAttrs(Fs fs, FileIo io, Xattrs xattrs, InodeLife life) {
    this.fs = fs;
    this.io = io;
    this.xattrs = xattrs;
    this.life = life;
  }

  /**
   * Changes attributes; a size change truncates or extends first. ctime becomes now (or the
   * explicit ctime a tree restore gives). A mode change rewrites the access ACL's entries that
   * mirror the permission bits. Returns the new attributes.
   */
  public Attributes setattr(Inode i, SetAttributes c) throws IOException {
    fs.checkWritable();
    if (c.size() != null) {
      if (i.isDirectory()) {
        throw new Ext4Exception(Errno.EISDIR, i.ino, null, "cannot truncate a directory");
      }
      if (i.fileType() != RawInode.S_IFREG) {
        throw new Ext4Exception(Errno.EINVAL, i.ino, null, "only regular files have a settable size");
      }
      io.truncate(i, c.size());
    }
    boolean other = c.mode() != null || c.uid() != null || c.gid() != null || c.atime() != null || c.mtime() != null
        || c.ctime() != null || c.crtime() != null;
    if (other) {
      i.rw.writeLock().lock();
      try {
        byte[] acl = c.mode() != null && i.fileType() != RawInode.S_IFLNK ? xattrs.get(i, XattrName.ACCESS_ACL) : null;
        try (Tx tx = fs.meta.begin(acl == null ? 2 : 12, 0)) {
          Instant now = fs.clock.now();
          i.fields.lock();
          try {
            RawInode r = i.raw();
            if (c.mode() != null) {
              r.mode((r.mode() & RawInode.S_IFMT) | (c.mode() & 07777));
            }
            if (c.uid() != null) {
              r.uid(c.uid());
            }
            if (c.gid() != null) {
              r.gid(c.gid());
            }
            if (c.atime() != null) {
              r.time(RawInode.Time.ATIME, c.atime());
            }
            if (c.mtime() != null) {
              r.time(RawInode.Time.MTIME, c.mtime());
            }
            if (c.crtime() != null) {
              r.time(RawInode.Time.CRTIME, c.crtime());
            }
            r.time(RawInode.Time.CTIME, c.ctime() != null ? c.ctime() : now);
          } finally {
            i.fields.unlock();
          }
          fs.writeInode(tx, i, false);
          if (acl != null) { // chmod rewrites the access ACL's entries that mirror the permission bits
            xattrs.set(tx, i, XattrName.ACCESS_ACL, PosixAcl.toVfs(AclRules.chmod(PosixAcl.parseVfs(acl), c.mode())), 0);
          }
        }
      } finally {
        i.rw.writeLock().unlock();
      }
    }
    return life.attributes(i);
  }

  /**
   * Records an access of {@code i} (a read of a file, a listing of a directory) as {@code policy}
   * says: the access time becomes the clock's now, in a Tx of its own, as the kernel's touch_atime
   * marks the inode dirty. Nothing on a read-only or failed filesystem, nor for an inode with the
   * noatime flag. Takes no inode lock: the access time is one field, set under the field lock.
   */
  public void touchAtime(Inode i, AtimeUpdates policy) throws IOException {
    if (policy == AtimeUpdates.NOATIME || fs.readOnly || fs.failure() != null) {
      return;
    }
    Instant now = fs.clock.now();
    if (!needsAtime(i, policy, now)) {
      return;
    }
    try (Tx tx = fs.meta.begin(1, 0)) {
      i.fields.lock();
      try {
        if (!needsAtime(i, policy, now)) {
          return; // a concurrent access did it
        }
        i.raw().time(RawInode.Time.ATIME, now);
      } finally {
        i.fields.unlock();
      }
      fs.writeInode(tx, i, false);
    }
  }

  /** Whether an access of {@code i} now would update its access time under {@code policy} (see {@link #touchAtime}). */
  public boolean atimeDue(Inode i, AtimeUpdates policy) {
    return policy != AtimeUpdates.NOATIME && !fs.readOnly && needsAtime(i, policy, fs.clock.now());
  }

  private static boolean needsAtime(Inode i, AtimeUpdates policy, Instant now) {
    i.fields.lock();
    try {
      RawInode r = i.raw();
      return (r.flags() & RawInode.FL_NOATIME) == 0
          && policy.needsUpdate(r.time(RawInode.Time.ATIME), r.time(RawInode.Time.MTIME), r.time(RawInode.Time.CTIME), now);
    } finally {
      i.fields.unlock();
    }
  }

  /**
   * The inode flags chattr(1) changes (FS_IOC_SETFLAGS): secure deletion, undelete, compress (kept,
   * with no effect, as ext4 keeps it), sync, immutable, append-only, nodump, noatime, notail, dirsync,
   * topdir and DAX (kept and inherited; ext4j maps no persistent memory, as ext4 without a DAX
   * device). Other bits are the
   * filesystem's own (extents, htree index, inline data …) and keep their values.
   */
  public static final int USER_MODIFIABLE_FLAGS = 0x1 | 0x2 | 0x4 | RawInode.FL_SYNC | RawInode.FL_IMMUTABLE | RawInode.FL_APPEND
      | 0x40 | RawInode.FL_NOATIME | 0x8000 | RawInode.FL_DIRSYNC | RawInode.FL_TOPDIR | RawInode.FL_DAX;

  /**
   * Sets the user-modifiable inode flags to those in {@code flags} ({@link #USER_MODIFIABLE_FLAGS};
   * the rest are ignored), and ctime to now, in one Tx. Returns the inode's flags afterwards.
   */
  public int setFlags(Inode i, int flags) throws IOException {
    fs.checkWritable();
    i.rw.writeLock().lock();
    try (Tx tx = fs.meta.begin(1, 0)) {
      int now;
      i.fields.lock();
      try {
        RawInode r = i.raw();
        now = (r.flags() & ~USER_MODIFIABLE_FLAGS) | (flags & USER_MODIFIABLE_FLAGS);
        r.flags(now);
        r.time(RawInode.Time.CTIME, fs.clock.now());
      } finally {
        i.fields.unlock();
      }
      fs.writeInode(tx, i, false);
      return now;
    } finally {
      i.rw.writeLock().unlock();
    }
  }

  /** The value of {@code n}; ENODATA if absent. */
  public byte[] getxattr(Inode i, XattrName n) throws IOException {
    i.rw.readLock().lock();
    try {
      byte[] v = xattrs.get(i, n);
      if (v == null) {
        throw new Ext4Exception(Errno.ENODATA, i.ino, n.toString(), "no such attribute");
      }
      return v;
    } finally {
      i.rw.readLock().unlock();
    }
  }

  /** Whether the inode has {@code n}. */
  public boolean hasXattr(Inode i, XattrName n) throws IOException {
    i.rw.readLock().lock();
    try {
      return xattrs.get(i, n) != null;
    } finally {
      i.rw.readLock().unlock();
    }
  }

  /** The names of the inode's extended attributes. */
  public List<String> listxattr(Inode i) throws IOException {
    i.rw.readLock().lock();
    try {
      return xattrs.list(i);
    } finally {
      i.rw.readLock().unlock();
    }
  }

  /**
   * Sets {@code n}; {@code flags} as setxattr's (1 CREATE, 2 REPLACE). POSIX ACLs behave as on
   * Linux: setting {@code system.posix_acl_access} also sets the permission bits from it (and an
   * ACL the bits express fully is not stored, only the bits); a default ACL only on a directory
   * (EACCES otherwise); neither on a symbolic link (EOPNOTSUPP). Who may set what, and the setgid
   * bit a caller outside the group loses with an access ACL, are the VFS's rules.
   */
  public void setxattr(Inode i, XattrName n, byte[] value, int flags) throws IOException {
    setxattr(i, n, value, flags, null);
  }

  /**
   * {@link #setxattr(Inode, XattrName, byte[], int)}, and for an access ACL the permission bits
   * other than rwx that the mode keeps ({@code keepBits}, e.g. setgid cleared by the VFS); null
   * keeps them all.
   */
  public void setxattr(Inode i, XattrName n, byte[] value, int flags, Integer keepBits) throws IOException {
    boolean access = n.equals(XattrName.ACCESS_ACL);
    List<PosixAcl.Entry> acl = null;
    if (access || n.equals(XattrName.DEFAULT_ACL)) {
      try {
        acl = PosixAcl.parseVfs(value);
      } catch (IllegalArgumentException e) {
        throw new Ext4Exception(Errno.EINVAL, i.ino, n.toString(), "invalid POSIX ACL: " + e.getMessage());
      }
    }
    fs.checkWritable();
    if (acl != null && i.fileType() == RawInode.S_IFLNK) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, i.ino, n.toString(), "symbolic links have no ACLs");
    }
    if (acl != null && !access && !i.isDirectory()) {
      throw new Ext4Exception(Errno.EACCES, i.ino, n.toString(), "only a directory has a default ACL");
    }
    i.rw.writeLock().lock();
    try (Tx tx = fs.meta.begin(acl != null ? 12 : 10, 2)) {
      if (access) {
        i.fields.lock();
        try {
          RawInode r = i.raw();
          int special = keepBits == null ? r.mode() & 07000 : keepBits & 07000;
          r.mode((r.mode() & RawInode.S_IFMT) | special | AclRules.modeOf(acl));
          r.time(RawInode.Time.CTIME, fs.clock.now());
        } finally {
          i.fields.unlock();
        }
        fs.writeInode(tx, i, false);
        if (!AclRules.extended(acl)) { // the bits say it all: no ACL kept, as the kernel does
          if (xattrs.get(i, n) != null) {
            xattrs.remove(tx, i, n);
          }
          return;
        }
      }
      xattrs.set(tx, i, n, value, flags);
    } finally {
      i.rw.writeLock().unlock();
    }
  }

  /** Removes {@code n}; ENODATA if absent. */
  public void removexattr(Inode i, XattrName n) throws IOException {
    fs.checkWritable();
    i.rw.writeLock().lock();
    try (Tx tx = fs.meta.begin(10, 2)) {
      xattrs.remove(tx, i, n);
    } finally {
      i.rw.writeLock().unlock();
    }
  }

  /** An xattr name as the engine parses it; EOPNOTSUPP for a namespace ext4 has no index for. */
  public static XattrName xattrName(long ino, String name) throws Ext4Exception {
    try {
      return XattrName.parse(name);
    } catch (IllegalArgumentException e) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, ino, name, e.getMessage());
    }
  }
}
