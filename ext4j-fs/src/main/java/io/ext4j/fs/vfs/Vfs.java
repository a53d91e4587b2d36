package io.ext4j.fs.vfs;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.namespace.Access;
import io.ext4j.fs.namespace.DentryCache.Dentry;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.namespace.Namespace;
import io.ext4j.fs.dir.Directory;
import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.XattrName;
import io.ext4j.fs.inode.Inode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What Linux's VFS does once for every filesystem, done once here for every adapter (java.nio,
 * FUSE, the CLI): path resolution ({@link Walk}), operations on paths with open(2)'s and
 * rename(2)'s atomicity, handles that stay valid for one inode only, the lifetime of inodes, and
 * the permission and privilege rules ({@link Permissions}) for a caller's {@link Credentials}.
 * The model is fs/namei.c, fs/open.c, fs/attr.c, fs/xattr.c and fs/inode.c.
 *
 * <h2>Two kinds of call</h2>
 * <ul>
 *   <li><b>Path calls</b> ({@code openat}, {@code statat}, {@code mkdirat}, {@code unlinkat},
 *       {@code renameat} …) resolve a byte path from a starting directory — an open directory
 *       ({@link OpenFile}, as a dirfd) or, given null, the root — and act on what it names in the
 *       same call, with the locks Linux takes: a name is looked up and acted on under its
 *       directory's lock, so {@code openat(CREATE)} either opens the file there or creates it,
 *       never fails because a concurrent create or unlink won, and never opens an inode a
 *       concurrent unlink freed. For java.nio and the CLI.
 *   <li><b>Node calls</b> ({@code lookup}, {@code getattr}, {@code create}, {@code unlink} …) name
 *       an inode by number — one the caller holds a lookup reference on ({@link Lookups}) — and at
 *       most one name in it, as FUSE requests do after the kernel walked the path. For FUSE.
 * </ul>
 *
 * <h2>Lifetimes</h2>
 * An inode in use is pinned (see {@link io.ext4j.fs.inode.InodeCache#pin}): by an open file, a
 * lookup reference, and each call while it runs. The last unpin of an inode without links frees
 * it; until then it is on the orphan list, so a crash frees it at the next open. An inode number
 * alone is only valid while pinned: a {@link FileHandle} (number and generation) names one inode
 * for good, and fails with ESTALE once that inode is gone.
 *
 * <h2>Threads</h2>
 * Thread-safe; calls proceed in parallel as the engine's locks allow. Lookups of names already
 * looked up take no lock ({@link io.ext4j.fs.namespace.DentryCache}).
 */
public final class Vfs {
  private static final byte[] DOTDOT = {'.', '.'};
  private static final int XATTR_NAME_MAX = 255;
  private static final int XATTR_SIZE_MAX = 65536;

  private final Kernel k;
  private final Fs fs;

  /** Made by {@link Ext4FileSystem}; adapters get it from {@link Ext4FileSystem#vfs()}. */
  public Vfs(Kernel k) {
    this.k = k;
    this.fs = k.fs();
  }

  Kernel kernel() {
    return k;
  }

  // ================================================================ pins and lookups

  /** Another pin of {@code i}, which the caller keeps pinned meanwhile (so it cannot fail). */
  Inode pinAgain(Inode i) {
    if (!fs.inodes.pin(i)) {
      throw new IllegalStateException(i + " could not be pinned again while pinned");
    }
    return i;
  }

  /** The root directory, pinned. */
  Inode rootPinned() throws IOException {
    return pinned(Ext4FileSystem.ROOT);
  }

  /** Inode {@code ino}, pinned; ESTALE when it is not in use (freed, or unlinked with nobody holding it). */
  Inode pinned(long ino) throws IOException {
    if (!fs.itable.valid(ino)) {
      throw new Ext4Exception(Errno.ESTALE, ino, null, "no such inode number");
    }
    Inode i = fs.inodes.get(ino);
    try {
      if (!fs.inodes.pin(i)) {
        throw new Ext4Exception(Errno.ESTALE, ino, null, "the inode is not in use");
      }
      return i;
    } finally {
      fs.inodes.put(i);
    }
  }

  /** The inode {@code h} names, pinned; ESTALE when it is gone or its number belongs to another inode now. */
  Inode pinned(FileHandle h) throws IOException {
    Inode i = pinned(h.ino());
    if (i.generation() != h.generation()) {
      k.unpin(i);
      throw new Ext4Exception(Errno.ESTALE, h.ino(), null, "generation " + h.generation() + " is gone (now " + i.generation() + ")");
    }
    return i;
  }

  /**
   * The inode {@code name} names in {@code dir}, pinned; ENOENT when none. A lookup that races an
   * unlink and the reuse of the inode number (the cached entry's generation no longer matches,
   * or the inode can no longer be pinned) looks again: the name is then gone.
   */
  Inode child(Inode dir, byte[] name, String shown) throws IOException {
    for (int attempt = 0; ; attempt++) {
      Dentry d = k.names().lookup(dir, name);
      if (!d.negative()) {
        Inode c = fs.inodes.get(d.ino());
        try {
          if (c.generation() == d.generation() && fs.inodes.pin(c)) {
            return c;
          }
        } finally {
          fs.inodes.put(c);
        }
      }
      if (d.negative() || attempt >= 3) {
        throw new Ext4Exception(Errno.ENOENT, dir.ino, shown, "no entry \"" + Walk.text(name) + "\"");
      }
    }
  }

  /** may_lookup: search permission on a directory walked through; ENOTDIR when it is not one. */
  void mayLookup(Inode dir, Credentials c, String shown) throws IOException {
    if (!dir.isDirectory()) {
      throw new Ext4Exception(Errno.ENOTDIR, dir.ino, shown, "not a directory");
    }
    if (c.kernelChecked() || c.has(Capability.DAC_READ_SEARCH) || c.has(Capability.DAC_OVERRIDE)) {
      return; // allowed whatever the bits say: no need to read them
    }
    check(dir, Permissions.generic(subject(dir, c), Permissions.MAY_EXEC, c), shown, "no search permission");
  }

  /** What the permission rules read of {@code i} for caller {@code c}: the ACL only where it can matter. */
  Permissions.Subject subject(Inode i, Credentials c) throws IOException {
    RawInode r = i.snapshot();
    List<PosixAcl.Entry> acl = null;
    if (!c.kernelChecked() && c.uid() != r.uid() && (r.mode() & 070) != 0 && r.fileType() != RawInode.S_IFLNK) {
      acl = acl(i);
    }
    return new Permissions.Subject(r.mode(), r.uid(), r.gid(), r.flags(), acl);
  }

  /** The access ACL (empty when none), read once until it changes (see {@link Inode#cachedAcl()}). */
  private List<PosixAcl.Entry> acl(Inode i) throws IOException {
    List<PosixAcl.Entry> acl = i.cachedAcl();
    if (acl != null) {
      return acl;
    }
    i.rw.readLock().lock();
    try {
      byte[] v = k.xattrs().get(i, XattrName.ACCESS_ACL);
      acl = v == null ? List.of() : List.copyOf(PosixAcl.parseVfs(v));
      i.cachedAcl(acl); // under the lock every change of the ACL takes
      return acl;
    } finally {
      i.rw.readLock().unlock();
    }
  }

  private static void check(Inode i, Errno e, String shown, String why) throws Ext4Exception {
    if (e != null) {
      throw new Ext4Exception(e, i.ino, shown, e == Errno.EPERM && why.startsWith("no ") ? "the inode is immutable" : why);
    }
  }

  /** The namespace's permission hooks for {@code c}. */
  private Access access(Credentials c) {
    if (c.kernelChecked()) {
      return Access.NONE; // the kernel made these checks; the flag rules are the namespace's own
    }
    return new Access() {
      @Override
      public void mayCreate(Inode dir) throws IOException {
        check(dir, Permissions.mayCreate(subject(dir, c), c), null, "no write and search permission on the directory");
      }

      @Override
      public void mayDelete(Inode dir, Inode victim) throws IOException {
        Errno e = Permissions.mayDelete(subject(dir, c), subject(victim, c), c);
        check(e == Errno.EPERM ? victim : dir, e, null, e == Errno.EPERM ? "the sticky directory is not the caller's, nor the file"
            : "no write and search permission on the directory");
      }

      @Override
      public void mayReparent(Inode dir) throws IOException {
        check(dir, Permissions.permission(subject(dir, c), Permissions.MAY_WRITE, c), null,
            "no write permission on the directory being moved (its \"..\" changes)");
      }
    };
  }

  /** The starting directory of a path call: {@code dirfd}'s, or the root for null. Pinned by the dirfd (or the root is pinned here). */
  private Inode start(OpenFile dirfd) throws IOException {
    if (dirfd == null) {
      return rootPinned();
    }
    return pinAgain(k.inode(dirfd));
  }

  /** A path call: the walk from {@code dirfd}, closed (its pins dropped) when {@code body} returns. */
  private <T> T walking(OpenFile dirfd, byte[] path, Credentials c, boolean retryEnospc, WalkFn<T> body) throws IOException {
    return k.run(c.caller(), retryEnospc, () -> {
      if (path.length == 0) {
        throw new Ext4Exception(Errno.ENOENT, 0, "", "empty path");
      }
      Inode start = start(dirfd);
      try (Walk w = new Walk(this, start, path, c)) {
        return body.apply(w);
      } finally {
        k.unpin(start);
      }
    });
  }

  @FunctionalInterface
  private interface WalkFn<T> {
    T apply(Walk w) throws IOException;
  }

  @FunctionalInterface
  private interface InodeFn<T> {
    T apply(Inode i) throws IOException;
  }

  /** Runs {@code f} on what the walk ends at, pinned for the call. */
  private <T> T atEnd(Walk w, boolean follow, InodeFn<T> f) throws IOException {
    Inode i = w.toEnd(follow);
    try {
      return f.apply(i);
    } finally {
      k.unpin(i);
    }
  }

  /** A node call on inode {@code ino}, pinned for the call. */
  private <T> T onNode(long ino, Credentials c, boolean retryEnospc, InodeFn<T> f) throws IOException {
    return k.run(c.caller(), retryEnospc, () -> {
      Inode i = pinned(ino);
      try {
        return f.apply(i);
      } finally {
        k.unpin(i);
      }
    });
  }

  // ================================================================ stat, handles

  /** fstatat(2): what {@code path} names; a final symbolic link followed when {@code follow}. */
  public Attributes statat(OpenFile dirfd, byte[] path, boolean follow, Credentials c) throws IOException {
    return walking(dirfd, path, c, false, w -> atEnd(w, follow, k.life()::attributes));
  }

  /** fstat(2). */
  public Attributes fstat(OpenFile f) throws IOException {
    return f.attributes();
  }

  /** name_to_handle_at(2): a handle to what {@code path} names. */
  public FileHandle handleat(OpenFile dirfd, byte[] path, boolean follow, Credentials c) throws IOException {
    return walking(dirfd, path, c, false, w -> atEnd(w, follow, i -> new FileHandle(i.ino, i.generation())));
  }

  /** The attributes of the inode a handle names; ESTALE when it is gone. */
  public Attributes stat(FileHandle h) throws IOException {
    return k.run(io.ext4j.fs.Caller.ROOT, false, () -> {
      Inode i = pinned(h);
      try {
        return k.life().attributes(i);
      } finally {
        k.unpin(i);
      }
    });
  }

  /** open_by_handle_at(2): opens the inode a handle names; ESTALE when it is gone. */
  public OpenFile openByHandle(FileHandle h, Set<OpenFlag> flags, Credentials c) throws IOException {
    return k.run(c.caller(), false, () -> finishOpen(pinned(h), flags, c, false, null));
  }

  // ================================================================ open

  /**
   * openat(2). {@code flags} as {@link OpenFlag}: with CREATE the last name is looked up and, when
   * absent, a regular file of {@code mode} (less the umask, unless the directory has a default
   * ACL) created under the directory's lock; with EXCLUSIVE an existing name (a dangling symbolic
   * link too) fails with EEXIST; without NOFOLLOW a final symbolic link is followed, and a dangling
   * one is created through. TRUNCATE truncates the file opened, after the permission checks; a
   * file this call created is opened whatever its mode. TMPFILE makes an unnamed file in the
   * directory {@code path} names.
   */
  public OpenFile openat(OpenFile dirfd, byte[] path, Set<OpenFlag> flags, int mode, Credentials c) throws IOException {
    boolean create = flags.contains(OpenFlag.CREATE);
    if (create && flags.contains(OpenFlag.DIRECTORY)) {
      throw new Ext4Exception(Errno.EINVAL, 0, Walk.text(path), "O_CREAT with O_DIRECTORY");
    }
    if (flags.contains(OpenFlag.TMPFILE)) {
      return tmpfileat(dirfd, path, flags, mode, c);
    }
    return walking(dirfd, path, c, true, w -> {
      if (!create) {
        Inode i = w.toEnd(!flags.contains(OpenFlag.NOFOLLOW));
        return finishOpen(i, flags, c, false, w.shown());
      }
      while (true) {
        byte[] last = w.toLast();
        if (Walk.kind(last) != Walk.Kind.NORMAL || w.trailingSlash()) {
          throw new Ext4Exception(Errno.EISDIR, w.at().ino, w.shown(), "O_CREAT of a directory");
        }
        Inode dir = w.at();
        int bits = Permissions.stripSgid(subject(dir, c), RawInode.S_IFREG | (mode & 07777), c) & 07777;
        Namespace.Opened o = k.names().open(dir, last, bits, c.caller(), c.umask(), flags.contains(OpenFlag.EXCLUSIVE), access(c));
        Inode i = o.inode();
        fs.inodes.put(i); // the pin keeps it
        if (!o.created() && i.fileType() == RawInode.S_IFLNK && !flags.contains(OpenFlag.NOFOLLOW)) {
          try {
            w.followLast(i); // a dangling link is created through: go on with its target
          } finally {
            k.unpin(i);
          }
          continue;
        }
        if (!o.created() && i.isDirectory()) {
          k.unpin(i);
          throw new Ext4Exception(Errno.EISDIR, i.ino, w.shown(), "O_CREAT of a directory");
        }
        return finishOpen(i, flags, c, o.created(), w.shown());
      }
    });
  }

  private OpenFile tmpfileat(OpenFile dirfd, byte[] path, Set<OpenFlag> flags, int mode, Credentials c) throws IOException {
    if (!flags.contains(OpenFlag.WRITE)) {
      throw new Ext4Exception(Errno.EINVAL, 0, Walk.text(path), "O_TMPFILE needs O_WRONLY or O_RDWR");
    }
    return walking(dirfd, path, c, true, w -> atEnd(w, true, dir -> {
      if (!dir.isDirectory()) {
        throw new Ext4Exception(Errno.ENOTDIR, dir.ino, w.shown(), "O_TMPFILE needs a directory");
      }
      return tmpfile(dir, flags, mode, c);
    }));
  }

  private OpenFile tmpfile(Inode dir, Set<OpenFlag> flags, int mode, Credentials c) throws IOException {
    int bits = Permissions.stripSgid(subject(dir, c), RawInode.S_IFREG | (mode & 07777), c) & 07777;
    Inode i = k.names().tmpfile(dir, bits, c.caller(), c.umask(), !flags.contains(OpenFlag.EXCLUSIVE), access(c));
    fs.inodes.put(i);
    return finishOpen(i, flags, c, true, null);
  }

  /**
   * may_open and the open itself, for {@code i} (pinned; the open file takes the pin over, or it
   * is dropped on failure). {@code created}: this call made it, so no permission is checked.
   */
  private OpenFile finishOpen(Inode i, Set<OpenFlag> flags, Credentials c, boolean created, String shown) throws IOException {
    try {
      boolean write = flags.contains(OpenFlag.WRITE) || flags.contains(OpenFlag.APPEND);
      boolean trunc = flags.contains(OpenFlag.TRUNCATE) && !created;
      int type = i.fileType();
      if (flags.contains(OpenFlag.DIRECTORY) && type != RawInode.S_IFDIR) {
        throw new Ext4Exception(Errno.ENOTDIR, i.ino, shown, "not a directory (O_DIRECTORY)");
      }
      EnumSet<OpenFlag> kept = EnumSet.noneOf(OpenFlag.class);
      for (OpenFlag f : flags) {
        if (f != OpenFlag.CREATE && f != OpenFlag.EXCLUSIVE && f != OpenFlag.NOFOLLOW && f != OpenFlag.TMPFILE
            && f != OpenFlag.TRUNCATE) {
          kept.add(f);
        }
      }
      if (flags.contains(OpenFlag.PATH)) {
        return k.open(i, EnumSet.of(OpenFlag.PATH), c.caller(), c);
      }
      if (type == RawInode.S_IFLNK) {
        throw new Ext4Exception(Errno.ELOOP, i.ino, shown, "a symbolic link (O_NOFOLLOW)");
      }
      if (type == RawInode.S_IFDIR && (write || flags.contains(OpenFlag.TRUNCATE))) {
        throw new Ext4Exception(Errno.EISDIR, i.ino, shown, "a directory cannot be opened for writing");
      }
      if (type != RawInode.S_IFREG) {
        trunc = false;
      }
      if ((write || trunc) && !created) {
        fs.checkWritable();
      }
      if (!created) {
        int mask = (flags.contains(OpenFlag.READ) || !write ? Permissions.MAY_READ : 0) | (write || trunc ? Permissions.MAY_WRITE : 0);
        check(i, Permissions.permission(subject(i, c), mask, c), shown, "permission denied");
      }
      int iflags = i.flags();
      if ((iflags & RawInode.FL_APPEND) != 0 && ((write && !flags.contains(OpenFlag.APPEND)) || trunc)) {
        throw new Ext4Exception(Errno.EPERM, i.ino, shown, "the file is append-only: open it for appending, without O_TRUNC");
      }
      if (flags.contains(OpenFlag.NOATIME) && !Permissions.ownerOrCapable(subject(i, c), c)) {
        throw new Ext4Exception(Errno.EPERM, i.ino, shown, "O_NOATIME needs the file's owner or CAP_FOWNER");
      }
      if (!flags.contains(OpenFlag.READ) && !write) {
        kept.add(OpenFlag.READ);
      }
      if (trunc) {
        k.truncate(i, 0, c);
      }
      return k.open(i, kept, c.caller(), c);
    } catch (IOException | RuntimeException e) {
      k.unpin(i);
      throw e;
    }
  }

  // ================================================================ names

  /** mkdirat(2): a directory of {@code mode}'s permission bits and sticky bit, less the umask. */
  public Attributes mkdirat(OpenFile dirfd, byte[] path, int mode, Credentials c) throws IOException {
    return walking(dirfd, path, c, true, w -> {
      byte[] last = w.toLast();
      if (Walk.kind(last) != Walk.Kind.NORMAL) {
        throw new Ext4Exception(Errno.EEXIST, w.at().ino, w.shown(), "exists");
      }
      return mkdir(w.at(), last, mode, c);
    });
  }

  private Attributes mkdir(Inode dir, byte[] name, int mode, Credentials c) throws IOException {
    Inode child = k.names().mkdir(dir, name, mode & 01777, c.caller(), c.umask(), access(c));
    try {
      return k.life().attributes(child);
    } finally {
      fs.inodes.put(child);
    }
  }

  /**
   * mknodat(2): a regular file, fifo, socket or device ({@code mode} holds the type; a device
   * needs CAP_MKNOD). {@code rdev} as {@link Attributes#rdev()}.
   */
  public Attributes mknodat(OpenFile dirfd, byte[] path, int mode, long rdev, Credentials c) throws IOException {
    return walking(dirfd, path, c, true, w -> {
      byte[] last = lastToCreate(w);
      return mknod(w.at(), last, mode, rdev, c);
    });
  }

  /**
   * The last name of a path that creates a non-directory (filename_create): EEXIST for ".", ".."
   * or "/"; with a trailing '/', EEXIST when the name exists, ENOENT when not.
   */
  private byte[] lastToCreate(Walk w) throws IOException {
    byte[] last = w.toLast();
    if (Walk.kind(last) != Walk.Kind.NORMAL) {
      throw new Ext4Exception(Errno.EEXIST, w.at().ino, w.shown(), "exists");
    }
    if (w.trailingSlash()) {
      boolean exists = !k.names().lookup(w.at(), last).negative();
      throw new Ext4Exception(exists ? Errno.EEXIST : Errno.ENOENT, w.at().ino, w.shown(),
          exists ? "exists" : "a trailing '/' names a directory, and only mkdir makes one");
    }
    return last;
  }

  private Attributes mknod(Inode dir, byte[] name, int mode, long rdev, Credentials c) throws IOException {
    int type = mode & RawInode.S_IFMT;
    switch (type) {
      case 0, RawInode.S_IFREG, RawInode.S_IFIFO, RawInode.S_IFSOCK -> {
        // anyone may
      }
      case RawInode.S_IFCHR, RawInode.S_IFBLK -> {
        if (!c.kernelChecked() && !c.has(Capability.MKNOD)) {
          throw new Ext4Exception(Errno.EPERM, dir.ino, Walk.text(name), "a device node needs CAP_MKNOD");
        }
      }
      case RawInode.S_IFDIR -> throw new Ext4Exception(Errno.EPERM, dir.ino, Walk.text(name), "mknod does not make directories");
      default -> throw new Ext4Exception(Errno.EINVAL, dir.ino, Walk.text(name), "mknod of mode 0" + Integer.toOctalString(mode));
    }
    int full = (type == 0 ? RawInode.S_IFREG : type) | (mode & 07777);
    full = Permissions.stripSgid(subject(dir, c), full, c);
    Inode child = k.names().create(dir, name, full, type == RawInode.S_IFCHR || type == RawInode.S_IFBLK ? rdev : 0, null, c.caller(),
        c.umask(), access(c));
    try {
      return k.life().attributes(child);
    } finally {
      fs.inodes.put(child);
    }
  }

  /** symlinkat(2): a symbolic link holding {@code target} as given. */
  public Attributes symlinkat(byte[] target, OpenFile dirfd, byte[] path, Credentials c) throws IOException {
    return walking(dirfd, path, c, true, w -> {
      byte[] last = lastToCreate(w); // walks: the directory is known after it
      return symlink(w.at(), last, target, c);
    });
  }

  private Attributes symlink(Inode dir, byte[] name, byte[] target, Credentials c) throws IOException {
    if (target.length == 0) {
      throw new Ext4Exception(Errno.ENOENT, dir.ino, Walk.text(name), "an empty symbolic link target");
    }
    Inode child = k.names().create(dir, name, RawInode.S_IFLNK | 0777, 0, target, c.caller(), 0, access(c));
    try {
      return k.life().attributes(child);
    } finally {
      fs.inodes.put(child);
    }
  }

  /**
   * linkat(2): a new name {@code newpath} for what {@code oldpath} names (a final symbolic link
   * itself unless {@code follow}, AT_SYMLINK_FOLLOW).
   */
  public Attributes linkat(OpenFile olddir, byte[] oldpath, OpenFile newdir, byte[] newpath, boolean follow, Credentials c)
      throws IOException {
    return walking(olddir, oldpath, c, true, from -> atEnd(from, follow, target -> linkTo(target, newdir, newpath, c)));
  }

  /** linkat(2) with AT_EMPTY_PATH: a name for the open file {@code f} (an O_TMPFILE file's first). */
  public Attributes linkat(OpenFile f, OpenFile newdir, byte[] newpath, Credentials c) throws IOException {
    return k.run(c.caller(), true, () -> linkTo(k.inode(f), newdir, newpath, c));
  }

  private Attributes linkTo(Inode target, OpenFile newdir, byte[] newpath, Credentials c) throws IOException {
    if (newpath.length == 0) {
      throw new Ext4Exception(Errno.ENOENT, 0, "", "empty path");
    }
    Inode start = start(newdir);
    try (Walk w = new Walk(this, start, newpath, c)) {
      byte[] last = lastToCreate(w); // walks: the directory is known after it
      return link(target, w.at(), last, c);
    } finally {
      k.unpin(start);
    }
  }

  private Attributes link(Inode target, Inode dir, byte[] name, Credentials c) throws IOException {
    if (target.isDirectory()) {
      throw new Ext4Exception(Errno.EPERM, target.ino, Walk.text(name), "hard links to directories are not allowed");
    }
    k.names().link(target, dir, name, access(c));
    return k.life().attributes(target);
  }

  /** unlinkat(2): removes a non-directory name, or with {@code removeDir} (AT_REMOVEDIR) an empty directory. */
  public void unlinkat(OpenFile dirfd, byte[] path, boolean removeDir, Credentials c) throws IOException {
    walking(dirfd, path, c, false, w -> {
      byte[] last = w.toLast();
      Walk.Kind kind = Walk.kind(last);
      if (removeDir) {
        switch (kind) {
          case DOT -> throw new Ext4Exception(Errno.EINVAL, w.at().ino, w.shown(), "rmdir of \".\"");
          case DOTDOT -> throw new Ext4Exception(Errno.ENOTEMPTY, w.at().ino, w.shown(), "rmdir of \"..\"");
          case ROOT -> throw new Ext4Exception(Errno.EBUSY, w.at().ino, w.shown(), "rmdir of the root");
          default -> {
          }
        }
      } else if (kind != Walk.Kind.NORMAL) {
        throw new Ext4Exception(Errno.EISDIR, w.at().ino, w.shown(), "is a directory");
      } else if (w.trailingSlash()) {
        Inode victim = child(w.at(), last, w.shown());
        boolean dir = victim.isDirectory();
        k.unpin(victim);
        throw new Ext4Exception(dir ? Errno.EISDIR : Errno.ENOTDIR, w.at().ino, w.shown(), dir ? "is a directory" : "not a directory");
      }
      k.names().unlink(w.at(), last, removeDir, access(c));
      return null;
    });
  }

  /** renameat2(2). */
  public void renameat(OpenFile olddir, byte[] oldpath, OpenFile newdir, byte[] newpath, RenameMode mode, Credentials c)
      throws IOException {
    if (mode.whiteout() && !c.kernelChecked() && !c.has(Capability.MKNOD)) {
      throw new Ext4Exception(Errno.EPERM, 0, Walk.text(oldpath), "RENAME_WHITEOUT needs CAP_MKNOD");
    }
    walking(olddir, oldpath, c, true, from -> {
      byte[] oldLast = from.toLast();
      if (Walk.kind(oldLast) != Walk.Kind.NORMAL) {
        throw new Ext4Exception(Errno.EBUSY, from.at().ino, from.shown(), "renaming \".\", \"..\" or \"/\"");
      }
      if (newpath.length == 0) {
        throw new Ext4Exception(Errno.ENOENT, 0, "", "empty path");
      }
      Inode start = start(newdir);
      try (Walk to = new Walk(this, start, newpath, c)) {
        byte[] newLast = to.toLast();
        if (Walk.kind(newLast) != Walk.Kind.NORMAL) {
          throw new Ext4Exception(mode.noReplace() ? Errno.EEXIST : Errno.EBUSY, to.at().ino, to.shown(),
              "renaming onto \".\", \"..\" or \"/\"");
        }
        if (from.trailingSlash() || (to.trailingSlash() && mode != RenameMode.EXCHANGE)) {
          Inode s = child(from.at(), oldLast, from.shown());
          boolean dir = s.isDirectory();
          k.unpin(s);
          if (!dir) {
            throw new Ext4Exception(Errno.ENOTDIR, from.at().ino, from.shown(), "a trailing '/' names a directory");
          }
        }
        k.names().rename(from.at(), oldLast, to.at(), newLast, mode, c.caller(), access(c));
        return null;
      } finally {
        k.unpin(start);
      }
    });
  }

  /** readlinkat(2): a symbolic link's target; EINVAL for anything else. */
  public byte[] readlinkat(OpenFile dirfd, byte[] path, Credentials c) throws IOException {
    return walking(dirfd, path, c, false, w -> atEnd(w, false, this::readlink));
  }

  private byte[] readlink(Inode i) throws IOException {
    if (i.fileType() != RawInode.S_IFLNK) {
      throw new Ext4Exception(Errno.EINVAL, i.ino, null, "not a symbolic link");
    }
    i.rw.readLock().lock();
    try {
      return k.names().readlink(i);
    } finally {
      i.rw.readLock().unlock();
    }
  }

  /**
   * realpath(3): the absolute path, without symbolic links, "." or "..", of what {@code path} names
   * (a final link followed when {@code follow}; otherwise the link's own path).
   */
  public byte[] realpath(OpenFile dirfd, byte[] path, boolean follow, Credentials c) throws IOException {
    return walking(dirfd, path, c, false, w -> atEnd(w, follow, i -> {
      if (i.isDirectory()) {
        return pathOf(i, c);
      }
      byte[] dir = pathOf(w.at(), c);
      byte[] name = nameIn(w.at(), i);
      byte[] out = new byte[(dir.length == 1 ? 0 : dir.length) + 1 + name.length];
      System.arraycopy(dir, 0, out, 0, dir.length == 1 ? 0 : dir.length);
      out[out.length - name.length - 1] = '/';
      System.arraycopy(name, 0, out, out.length - name.length, name.length);
      return out;
    }));
  }

  /** The path of directory {@code d} from the root, climbing "..". */
  private byte[] pathOf(Inode d, Credentials c) throws IOException {
    Deque<byte[]> names = new ArrayDeque<>();
    Inode at = pinAgain(d);
    try {
      int depth = 0;
      while (at.ino != Ext4FileSystem.ROOT) {
        if (++depth > 1 << 16) {
          throw Ext4Exception.corrupted(fs.lay.name(), d.ino, "no way up to the root through \"..\"");
        }
        mayLookup(at, c, null);
        Inode up = child(at, DOTDOT, null);
        try {
          names.addFirst(nameIn(up, at));
        } catch (IOException | RuntimeException e) {
          k.unpin(up);
          throw e;
        }
        k.unpin(at);
        at = up;
      }
    } finally {
      k.unpin(at);
    }
    if (names.isEmpty()) {
      return new byte[] {'/'};
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (byte[] n : names) {
      out.write('/');
      out.writeBytes(n);
    }
    return out.toByteArray();
  }

  /** The name of {@code child} in {@code dir} (the first entry naming it); ENOENT when none does. */
  private byte[] nameIn(Inode dir, Inode child) throws IOException {
    long cookie = 0;
    while (true) {
      List<DirEntry> page = k.list(dir, cookie, 256, false);
      if (page.isEmpty()) {
        throw new Ext4Exception(Errno.ENOENT, child.ino, null, "no longer named in directory " + dir.ino);
      }
      for (DirEntry e : page) {
        if (e.ino() == child.ino && !e.isDot()) {
          return e.name();
        }
        cookie = e.cookie();
      }
    }
  }

  // ================================================================ directories

  /** Up to {@code max} entries of the open directory {@code dir} from {@code cookie} (0: the start), "." and ".." included. */
  public List<DirEntry> readdir(OpenFile dir, long cookie, int max) throws IOException {
    return k.run(io.ext4j.fs.Caller.ROOT, false, () -> k.list(k.inode(dir), cookie, max, true));
  }

  // ================================================================ attributes

  /**
   * chmod, chown, truncate and utimensat of what {@code path} names (a final link followed when
   * {@code follow}), with {@link #setattr(Inode, AttrChange, Credentials, boolean)}'s rules.
   */
  public Attributes setattrat(OpenFile dirfd, byte[] path, boolean follow, AttrChange change, Credentials c) throws IOException {
    return walking(dirfd, path, c, false, w -> atEnd(w, follow, i -> setattr(i, change, c, false)));
  }

  /** {@link #setattrat} of an open file (fchmod, fchown, ftruncate, futimens). */
  public Attributes setattr(OpenFile f, AttrChange change, Credentials c) throws IOException {
    return k.run(c.caller(), false, () -> setattr(k.inode(f), change, c, true));
  }

  /** The inode flags of an open file (FS_IOC_GETFLAGS, lsattr). */
  public int getflags(OpenFile f) throws IOException {
    return k.inode(f).flags();
  }

  /**
   * FS_IOC_SETFLAGS (chattr): the owner or CAP_FOWNER sets the user-modifiable flags
   * ({@link io.ext4j.fs.namespace.InodeAttrs#USER_MODIFIABLE_FLAGS}); changing immutable or append-only
   * needs CAP_LINUX_IMMUTABLE, and an immutable inode takes no other change until that flag goes.
   * Returns the flags afterwards.
   */
  public int setflags(OpenFile f, int flags, Credentials c) throws IOException {
    return k.run(c.caller(), false, () -> {
      Inode i = k.inode(f);
      fs.checkWritable();
      Permissions.Subject s = subject(i, c);
      if (!Permissions.ownerOrCapable(s, c)) {
        throw new Ext4Exception(Errno.EPERM, i.ino, null, "only the owner may change the inode flags");
      }
      int guarded = RawInode.FL_IMMUTABLE | RawInode.FL_APPEND;
      int old = i.flags();
      if (((old ^ flags) & guarded) != 0 && !c.kernelChecked() && !c.has(Capability.LINUX_IMMUTABLE)) {
        throw new Ext4Exception(Errno.EPERM, i.ino, null, "changing immutable or append-only needs CAP_LINUX_IMMUTABLE");
      }
      int mask = io.ext4j.fs.namespace.InodeAttrs.USER_MODIFIABLE_FLAGS;
      if ((old & RawInode.FL_IMMUTABLE) != 0 && (flags & RawInode.FL_IMMUTABLE) != 0 && ((old ^ flags) & mask) != 0) {
        throw new Ext4Exception(Errno.EPERM, i.ino, null, "the inode is immutable");
      }
      return k.attrs().setFlags(i, flags);
    });
  }

  /**
   * setattr_prepare and notify_change, then the change as one: chown by the owner only to itself
   * and its own groups (else CAP_CHOWN), clearing setuid and setgid of a non-directory; chmod by
   * the owner or CAP_FOWNER, setgid dropped outside the file's group without CAP_FSETID; times
   * set to given values by the owner or CAP_FOWNER, to now also with write permission; a size
   * change with write permission (or through an open file, {@code viaFile}), clearing privileges
   * as a write does. Immutable and append-only inodes refuse all of it (EPERM), except that an
   * append-only inode's times may be set to now (notify_change's rule: utimes(NULL) on an
   * append-only log file works).
   */
  Attributes setattr(Inode i, AttrChange ch, Credentials c, boolean viaFile) throws IOException {
    fs.checkWritable();
    Permissions.Subject s = subject(i, c);
    boolean symlink = i.fileType() == RawInode.S_IFLNK;
    boolean attrs = ch.mode() != null || ch.uid() != null || ch.gid() != null || ch.atime() != null || ch.mtime() != null
        || ch.crtime() != null;
    boolean givenTime = ch.atime() instanceof TimeSpec.At || ch.mtime() instanceof TimeSpec.At || ch.crtime() != null;
    boolean touch = !givenTime && (ch.atime() != null || ch.mtime() != null); // utimes(NULL): both times to now
    if ((ch.mode() != null || ch.uid() != null || ch.gid() != null || givenTime) && (s.immutable() || s.appendOnly())) {
      throw new Ext4Exception(Errno.EPERM, i.ino, null, "the inode is immutable or append-only");
    }
    if (touch && s.immutable()) {
      throw new Ext4Exception(Errno.EPERM, i.ino, null, "the inode is immutable"); // an append-only one may be touched
    }
    if (ch.mode() != null && symlink) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, i.ino, null, "a symbolic link has no mode of its own");
    }
    if (ch.size() != null) {
      if (i.isDirectory()) {
        throw new Ext4Exception(Errno.EISDIR, i.ino, null, "cannot truncate a directory");
      }
      if (i.fileType() != RawInode.S_IFREG) {
        throw new Ext4Exception(Errno.EINVAL, i.ino, null, "only regular files have a settable size");
      }
      if (!viaFile) {
        check(i, Permissions.permission(s, Permissions.MAY_WRITE, c), null, "no write permission");
      }
      if (s.immutable() || s.appendOnly()) {
        throw new Ext4Exception(Errno.EPERM, i.ino, null, "the file is immutable or append-only");
      }
    }
    if (ch.uid() != null && !Permissions.mayChown(s, ch.uid(), c)) {
      throw new Ext4Exception(Errno.EPERM, i.ino, null, "only CAP_CHOWN gives a file away");
    }
    if (ch.gid() != null && !Permissions.mayChgrp(s, ch.gid(), c)) {
      throw new Ext4Exception(Errno.EPERM, i.ino, null, "the owner may change the group only to one of its own");
    }
    if (ch.mode() != null && !Permissions.ownerOrCapable(s, c)) {
      throw new Ext4Exception(Errno.EPERM, i.ino, null, "only the owner (or CAP_FOWNER) changes the mode");
    }
    if (givenTime && !Permissions.ownerOrCapable(s, c)) {
      throw new Ext4Exception(Errno.EPERM, i.ino, null, "only the owner (or CAP_FOWNER) sets times");
    }
    if (touch && !Permissions.ownerOrCapable(s, c)) {
      check(i, Permissions.permission(s, Permissions.MAY_WRITE, c), null, "no write permission to set the times to now");
    }
    if (ch.size() != null) {
      k.truncate(i, ch.size(), c);
    }
    if (!attrs) {
      return k.life().attributes(i);
    }
    i.rw.writeLock().lock(); // the checks above and the change below see one state of the inode
    try {
      Permissions.Subject now = subject(i, c);
      Integer mode = null;
      if (ch.mode() != null) {
        mode = Permissions.chmodBits(ch.mode(), ch.gid() != null ? ch.gid() : now.gid(), c);
      }
      if ((ch.uid() != null || ch.gid() != null) && !now.isDirectory()) {
        int kill = Permissions.killOnChown(mode != null ? new Permissions.Subject(mode, now.uid(), now.gid(), now.flags(), null) : now, c);
        if (kill != 0) {
          mode = (mode != null ? mode : now.mode() & 07777) & ~kill;
        }
      }
      java.time.Instant clock = fs.clock.now();
      io.ext4j.fs.SetAttributes set = io.ext4j.fs.SetAttributes.none()
          .withTimes(instant(ch.atime(), clock), instant(ch.mtime(), clock)).withCrtime(ch.crtime());
      if (mode != null) {
        set = set.withMode(mode);
      }
      if (ch.uid() != null || ch.gid() != null) {
        set = set.withOwner(ch.uid(), ch.gid());
        i.capabilityKnown(Inode.CAPABILITY_UNKNOWN);
      }
      Attributes a = k.attrs().setattr(i, set);
      if ((ch.uid() != null || ch.gid() != null) && i.fileType() == RawInode.S_IFREG) {
        removeCapability(i); // a chown removes security.capability (ATTR_KILL_PRIV)
        a = k.life().attributes(i);
      }
      return a;
    } finally {
      i.rw.writeLock().unlock();
    }
  }

  private void removeCapability(Inode i) throws IOException {
    XattrName cap = XattrName.of(XattrName.SECURITY, "capability");
    if (k.attrs().hasXattr(i, cap)) {
      k.attrs().removexattr(i, cap);
    }
  }

  private static java.time.Instant instant(TimeSpec t, java.time.Instant now) {
    return switch (t) {
      case null -> null;
      case TimeSpec.Now n -> now;
      case TimeSpec.At a -> a.instant();
    };
  }

  /** faccessat(2) with the caller's filesystem ids: {@code mask} of MAY_READ, MAY_WRITE, MAY_EXEC (0: existence). */
  public void accessat(OpenFile dirfd, byte[] path, int mask, boolean follow, Credentials c) throws IOException {
    walking(dirfd, path, c, false, w -> atEnd(w, follow, i -> {
      access(i, mask, c, w.shown());
      return null;
    }));
  }

  private void access(Inode i, int mask, Credentials c, String shown) throws IOException {
    if ((mask & Permissions.MAY_WRITE) != 0 && fs.readOnly) {
      throw new Ext4Exception(Errno.EROFS, i.ino, shown, "read-only file system");
    }
    if (mask != 0) {
      check(i, Permissions.permission(subject(i, c), mask, c), shown, "permission denied");
    }
  }

  // ================================================================ extended attributes

  /** getxattr(2) of what {@code path} names. */
  public byte[] getxattrat(OpenFile dirfd, byte[] path, boolean follow, String name, Credentials c) throws IOException {
    return walking(dirfd, path, c, false, w -> atEnd(w, follow, i -> getxattr(i, name, c)));
  }

  /** setxattr(2) of what {@code path} names; {@code flags} 1 XATTR_CREATE, 2 XATTR_REPLACE. */
  public void setxattrat(OpenFile dirfd, byte[] path, boolean follow, String name, byte[] value, int flags, Credentials c)
      throws IOException {
    walking(dirfd, path, c, true, w -> atEnd(w, follow, i -> {
      setxattr(i, name, value, flags, c);
      return null;
    }));
  }

  /** listxattr(2) of what {@code path} names: the names the caller may see. */
  public List<String> listxattrat(OpenFile dirfd, byte[] path, boolean follow, Credentials c) throws IOException {
    return walking(dirfd, path, c, false, w -> atEnd(w, follow, i -> listxattr(i, c)));
  }

  /** removexattr(2) of what {@code path} names. */
  public void removexattrat(OpenFile dirfd, byte[] path, boolean follow, String name, Credentials c) throws IOException {
    walking(dirfd, path, c, false, w -> atEnd(w, follow, i -> {
      removexattr(i, name, c);
      return null;
    }));
  }

  /**
   * The name as setxattr(2) takes it: ERANGE when empty or over 255 bytes, EINVAL when a known
   * prefix has no name after it, EOPNOTSUPP for a namespace ext4 does not keep.
   */
  private static XattrName xattrName(Inode i, String name) throws Ext4Exception {
    byte[] b = name.getBytes(StandardCharsets.UTF_8);
    if (b.length == 0 || b.length > XATTR_NAME_MAX) {
      throw new Ext4Exception(Errno.ERANGE, i.ino, name, "an attribute name has 1 to " + XATTR_NAME_MAX + " bytes");
    }
    for (String prefix : List.of("user.", "trusted.", "security.")) {
      if (name.equals(prefix)) {
        throw new Ext4Exception(Errno.EINVAL, i.ino, name, "no name after the prefix");
      }
    }
    if (!name.startsWith("user.") && !name.startsWith("trusted.") && !name.startsWith("security.") && !name.startsWith("system.")) {
      throw new Ext4Exception(Errno.EOPNOTSUPP, i.ino, name, "not a namespace ext4 keeps (user., trusted., security., system.)");
    }
    return io.ext4j.fs.namespace.InodeAttrs.xattrName(i.ino, name);
  }

  /**
   * xattr_permission: writes refused on immutable and append-only inodes; trusted.* only with
   * CAP_SYS_ADMIN (reads then see no attribute); user.* only on regular files and directories,
   * and written on a sticky directory only by its owner; otherwise read or write permission on
   * the inode. security.* and system.* have no VFS check here: writing security.* needs
   * CAP_SYS_ADMIN, an ACL needs the owner or CAP_FOWNER.
   */
  private void xattrPermission(Inode i, String name, boolean write, Credentials c) throws IOException {
    Permissions.Subject s = subject(i, c);
    if (write && (s.immutable() || s.appendOnly())) {
      throw new Ext4Exception(Errno.EPERM, i.ino, name, "the inode is immutable or append-only");
    }
    if (name.startsWith("system.")) {
      if (write && !Permissions.ownerOrCapable(s, c)) {
        throw new Ext4Exception(Errno.EPERM, i.ino, name, "only the owner (or CAP_FOWNER) sets an ACL");
      }
      return;
    }
    if (name.startsWith("security.")) {
      if (write && !c.kernelChecked() && !c.has(Capability.SYS_ADMIN)) {
        throw new Ext4Exception(Errno.EPERM, i.ino, name, "security attributes need CAP_SYS_ADMIN");
      }
      return;
    }
    if (name.startsWith("trusted.")) {
      if (!c.kernelChecked() && !c.has(Capability.SYS_ADMIN)) {
        throw new Ext4Exception(write ? Errno.EPERM : Errno.ENODATA, i.ino, name, "trusted attributes need CAP_SYS_ADMIN");
      }
      return;
    }
    int type = i.fileType();
    if (type != RawInode.S_IFREG && type != RawInode.S_IFDIR) {
      throw new Ext4Exception(write ? Errno.EPERM : Errno.ENODATA, i.ino, name, "user attributes are on files and directories only");
    }
    if (type == RawInode.S_IFDIR && (s.mode() & Permissions.S_ISVTX) != 0 && write && !Permissions.ownerOrCapable(s, c)) {
      throw new Ext4Exception(Errno.EPERM, i.ino, name, "a sticky directory's user attributes are its owner's");
    }
    check(i, Permissions.generic(s, write ? Permissions.MAY_WRITE : Permissions.MAY_READ, c), name, "permission denied");
  }

  private byte[] getxattr(Inode i, String name, Credentials c) throws IOException {
    XattrName n = xattrName(i, name);
    xattrPermission(i, name, false, c);
    return k.attrs().getxattr(i, n);
  }

  private void setxattr(Inode i, String name, byte[] value, int flags, Credentials c) throws IOException {
    XattrName n = xattrName(i, name);
    if (value.length > XATTR_SIZE_MAX) {
      throw new Ext4Exception(Errno.E2BIG, i.ino, name, "a value has at most " + XATTR_SIZE_MAX + " bytes");
    }
    if ((flags & ~3) != 0 || flags == 3) {
      throw new Ext4Exception(Errno.EINVAL, i.ino, name, "setxattr flags " + flags);
    }
    fs.checkWritable();
    xattrPermission(i, name, true, c);
    Integer keep = null;
    if (n.equals(XattrName.ACCESS_ACL)) { // posix_acl_update_mode: setgid goes outside the group without CAP_FSETID
      Permissions.Subject s = subject(i, c);
      keep = Permissions.aclUpdateBits(s.mode(), s.gid(), c);
    }
    k.attrs().setxattr(i, n, value, flags, keep);
  }

  private List<String> listxattr(Inode i, Credentials c) throws IOException {
    List<String> out = new ArrayList<>();
    boolean admin = c.kernelChecked() || c.has(Capability.SYS_ADMIN);
    for (String n : k.attrs().listxattr(i)) {
      if (admin || !n.startsWith("trusted.")) {
        out.add(n);
      }
    }
    return out;
  }

  private void removexattr(Inode i, String name, Credentials c) throws IOException {
    XattrName n = xattrName(i, name);
    fs.checkWritable();
    xattrPermission(i, name, true, c);
    k.attrs().removexattr(i, n);
  }

  // ================================================================ the filesystem

  /**
   * FS_IOC_SHUTDOWN by {@code c}: needs CAP_SYS_ADMIN (EPERM otherwise; no kernel checks it for a
   * FUSE ioctl); then {@link Ext4FileSystem#shutdown}: every later call fails with EIO.
   */
  public void shutdown(io.ext4j.fs.ShutdownMode mode, Credentials c) throws IOException {
    if (!c.has(Capability.SYS_ADMIN)) {
      throw new Ext4Exception(Errno.EPERM, 0, null, "shutting the filesystem down needs CAP_SYS_ADMIN");
    }
    k.shutdown(mode);
  }

  // ================================================================ node calls (FUSE)

  /**
   * The entry {@code name} of directory {@code dir}: "." is {@code dir}, ".." its parent. The caller
   * needs search permission on {@code dir}. Takes no reference: see {@code Lookups.lookup}.
   */
  public Attributes lookup(long dir, byte[] name, Credentials c) throws IOException {
    return onNode(dir, c, false, d -> {
      mayLookup(d, c, null);
      if (name.length == 1 && name[0] == '.') {
        return k.life().attributes(d);
      }
      if (name.length == 2 && name[0] == '.' && name[1] == '.' && d.ino == Ext4FileSystem.ROOT) {
        return k.life().attributes(d);
      }
      Inode child = child(d, name, null);
      try {
        return k.life().attributes(child);
      } finally {
        k.unpin(child);
      }
    });
  }

  /** getattr of inode {@code ino}. */
  public Attributes getattr(long ino) throws IOException {
    return onNode(ino, Credentials.root(), false, k.life()::attributes);
  }

  /** setattr of inode {@code ino} (a FUSE SETATTR; {@code viaFile} when the kernel names an open file). */
  public Attributes setattr(long ino, AttrChange change, Credentials c, boolean viaFile) throws IOException {
    return onNode(ino, c, false, i -> setattr(i, change, c, viaFile));
  }

  /** open of inode {@code ino} with {@link #openat}'s checks (may_open). */
  public OpenFile open(long ino, Set<OpenFlag> flags, Credentials c) throws IOException {
    return k.run(c.caller(), true, () -> finishOpen(pinned(ino), flags, c, false, null));
  }

  /** {@link #openat} with CREATE of {@code name} in directory {@code dir} (FUSE CREATE): opens it when it exists, unless EXCLUSIVE. */
  public OpenFile create(long dir, byte[] name, Set<OpenFlag> flags, int mode, Credentials c) throws IOException {
    return onNode(dir, c, true, d -> {
      mayLookup(d, c, null);
      Namespace.checkName(name, dir);
      int bits = Permissions.stripSgid(subject(d, c), RawInode.S_IFREG | (mode & 07777), c) & 07777;
      Namespace.Opened o = k.names().open(d, name, bits, c.caller(), c.umask(), flags.contains(OpenFlag.EXCLUSIVE), access(c));
      fs.inodes.put(o.inode());
      if (!o.created() && o.inode().isDirectory()) {
        k.unpin(o.inode());
        throw new Ext4Exception(Errno.EISDIR, o.inode().ino, Walk.text(name), "O_CREAT of a directory");
      }
      return finishOpen(o.inode(), flags, c, o.created(), Walk.text(name));
    });
  }

  /** O_TMPFILE in directory {@code dir} (FUSE TMPFILE). */
  public OpenFile tmpfile(long dir, Set<OpenFlag> flags, int mode, Credentials c) throws IOException {
    return onNode(dir, c, true, d -> tmpfile(d, flags, mode, c));
  }

  /** mknod in directory {@code dir}. */
  public Attributes mknod(long dir, byte[] name, int mode, long rdev, Credentials c) throws IOException {
    return onNode(dir, c, true, d -> mknod(d, name, mode, rdev, c));
  }

  /** mkdir in directory {@code dir}. */
  public Attributes mkdir(long dir, byte[] name, int mode, Credentials c) throws IOException {
    return onNode(dir, c, true, d -> mkdir(d, name, mode, c));
  }

  /** symlink in directory {@code dir}. */
  public Attributes symlink(long dir, byte[] name, byte[] target, Credentials c) throws IOException {
    return onNode(dir, c, true, d -> symlink(d, name, target, c));
  }

  /** link of inode {@code ino} as {@code name} in directory {@code newDir}. */
  public Attributes link(long ino, long newDir, byte[] name, Credentials c) throws IOException {
    return onNode(ino, c, true, t -> onNode(newDir, c, true, d -> link(t, d, name, c)));
  }

  /** unlink of {@code name} in directory {@code dir}. */
  public void unlink(long dir, byte[] name, Credentials c) throws IOException {
    onNode(dir, c, false, d -> {
      k.names().unlink(d, name, false, access(c));
      return null;
    });
  }

  /** rmdir of {@code name} in directory {@code dir}. */
  public void rmdir(long dir, byte[] name, Credentials c) throws IOException {
    onNode(dir, c, false, d -> {
      k.names().unlink(d, name, true, access(c));
      return null;
    });
  }

  /** rename between directories {@code dir} and {@code newDir}. */
  public void rename(long dir, byte[] name, long newDir, byte[] newName, RenameMode mode, Credentials c) throws IOException {
    if (mode.whiteout() && !c.kernelChecked() && !c.has(Capability.MKNOD)) {
      throw new Ext4Exception(Errno.EPERM, dir, Walk.text(name), "RENAME_WHITEOUT needs CAP_MKNOD");
    }
    onNode(dir, c, true, a -> onNode(newDir, c, true, b -> {
      k.names().rename(a, name, b, newName, mode, c.caller(), access(c));
      return null;
    }));
  }

  /** readlink of inode {@code ino}. */
  public byte[] readlink(long ino, Credentials c) throws IOException {
    return onNode(ino, c, false, this::readlink);
  }

  /** access(2) of inode {@code ino} (FUSE ACCESS, without default_permissions). */
  public void access(long ino, int mask, Credentials c) throws IOException {
    onNode(ino, c, false, i -> {
      access(i, mask, c, null);
      return null;
    });
  }

  /** getxattr of inode {@code ino}. */
  public byte[] getxattr(long ino, String name, Credentials c) throws IOException {
    return onNode(ino, c, false, i -> getxattr(i, name, c));
  }

  /** setxattr of inode {@code ino}. */
  public void setxattr(long ino, String name, byte[] value, int flags, Credentials c) throws IOException {
    onNode(ino, c, true, i -> {
      setxattr(i, name, value, flags, c);
      return null;
    });
  }

  /** listxattr of inode {@code ino}. */
  public List<String> listxattr(long ino, Credentials c) throws IOException {
    return onNode(ino, c, false, i -> listxattr(i, c));
  }

  /** removexattr of inode {@code ino}. */
  public void removexattr(long ino, String name, Credentials c) throws IOException {
    onNode(ino, c, false, i -> {
      removexattr(i, name, c);
      return null;
    });
  }

  /** A table of lookup references (one FUSE session's), each keeping its inode alive until forgotten. */
  public Lookups newLookups() {
    return new Lookups(this);
  }

  /** The dentry cache's hits and misses so far (walks of known names read no directory block). */
  public long[] dentryStats() {
    return new long[] {k.names().dentries().hits(), k.names().dentries().misses()};
  }
}
