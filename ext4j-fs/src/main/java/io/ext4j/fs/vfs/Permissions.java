package io.ext4j.fs.vfs;

import io.ext4j.fs.Errno;
import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.format.RawInode;
import java.util.List;

/**
 * The permission rules of Linux's VFS, in one place and pure: given what an inode says of itself
 * ({@link Subject}) and who asks ({@link Credentials}), each answers with the errno the kernel
 * would give, or null where it allows. The model is fs/namei.c ({@code generic_permission},
 * {@code may_delete}, {@code may_open}), fs/attr.c ({@code setattr_prepare},
 * {@code setattr_should_drop_suidgid}) and fs/posix_acl.c ({@code posix_acl_permission}).
 *
 * <p>Credentials the kernel already checked ({@link Credentials#kernelChecked()}) pass every
 * permission and ownership rule here; the inode flags (immutable, append-only) and the rules that
 * change attributes (which privileges a write or chown clears) still apply.
 */
public final class Permissions {
  private Permissions() {}

  public static final int MAY_EXEC = 1;
  public static final int MAY_WRITE = 2;
  public static final int MAY_READ = 4;

  public static final int S_ISUID = 04000;
  public static final int S_ISGID = 02000;
  public static final int S_ISVTX = 01000;
  private static final int S_IXGRP = 0010;
  private static final int S_IXUGO = 0111;
  private static final int S_IRWXG = 0070;

  /**
   * What the rules read of an inode: its mode (type and bits), owner, group, inode flags and access
   * ACL (null or empty when it has none).
   */
  public record Subject(int mode, long uid, long gid, int flags, List<PosixAcl.Entry> acl) {
    public boolean isDirectory() {
      return (mode & RawInode.S_IFMT) == RawInode.S_IFDIR;
    }

    public boolean isRegular() {
      return (mode & RawInode.S_IFMT) == RawInode.S_IFREG;
    }

    public boolean immutable() {
      return (flags & RawInode.FL_IMMUTABLE) != 0;
    }

    public boolean appendOnly() {
      return (flags & RawInode.FL_APPEND) != 0;
    }
  }

  /**
   * inode_permission: may {@code c} access {@code s} for {@code mask} (MAY_READ, MAY_WRITE,
   * MAY_EXEC bits)? A write to an immutable inode is EPERM whoever asks; the rest is
   * {@link #generic}.
   */
  public static Errno permission(Subject s, int mask, Credentials c) {
    if ((mask & MAY_WRITE) != 0 && s.immutable()) {
      return Errno.EPERM;
    }
    return generic(s, mask, c);
  }

  /**
   * generic_permission: the owner class when the caller owns the inode; otherwise, when the inode
   * has an access ACL and group bits, the ACL (named users and groups, limited by its mask); else
   * the group class for a member of the inode's group, else the other class. Then the
   * capabilities: on a directory DAC_READ_SEARCH allows what does not write and DAC_OVERRIDE
   * everything; on anything else DAC_READ_SEARCH allows a plain read and DAC_OVERRIDE everything
   * but executing a file no x bit allows.
   */
  public static Errno generic(Subject s, int mask, Credentials c) {
    if (c.kernelChecked()) {
      return null;
    }
    mask &= MAY_READ | MAY_WRITE | MAY_EXEC;
    if (classAllows(s, mask, c)) {
      return null;
    }
    if (s.isDirectory()) {
      if ((mask & MAY_WRITE) == 0 && c.has(Capability.DAC_READ_SEARCH)) {
        return null;
      }
      return c.has(Capability.DAC_OVERRIDE) ? null : Errno.EACCES;
    }
    if (mask == MAY_READ && c.has(Capability.DAC_READ_SEARCH)) {
      return null;
    }
    if (((mask & MAY_EXEC) == 0 || (s.mode() & S_IXUGO) != 0) && c.has(Capability.DAC_OVERRIDE)) {
      return null;
    }
    return Errno.EACCES;
  }

  private static boolean classAllows(Subject s, int want, Credentials c) {
    int mode = s.mode();
    if (c.uid() == s.uid()) {
      return ((mode >> 6) & want) == want;
    }
    List<PosixAcl.Entry> acl = s.acl();
    if (acl != null && !acl.isEmpty() && (mode & S_IRWXG) != 0) {
      return aclAllows(s, acl, want, c);
    }
    if (c.inGroup(s.gid())) {
      return ((mode >> 3) & want) == want;
    }
    return (mode & want) == want;
  }

  /** posix_acl_permission for a caller that does not own the inode. */
  static boolean aclAllows(Subject s, List<PosixAcl.Entry> acl, int want, Credentials c) {
    int mask = 07;
    for (PosixAcl.Entry e : acl) {
      if (e.tag() == PosixAcl.MASK) {
        mask = e.perm();
      }
    }
    boolean found = false;
    for (PosixAcl.Entry e : acl) {
      switch (e.tag()) {
        case PosixAcl.USER_OBJ -> {
          if (c.uid() == s.uid()) {
            return (e.perm() & want) == want;
          }
        }
        case PosixAcl.USER -> {
          if (Integer.toUnsignedLong(e.id()) == c.uid()) {
            return (e.perm() & mask & want) == want;
          }
        }
        case PosixAcl.GROUP_OBJ -> {
          if (c.inGroup(s.gid())) {
            found = true;
            if ((e.perm() & want) == want) {
              return (e.perm() & mask & want) == want;
            }
          }
        }
        case PosixAcl.GROUP -> {
          if (c.inGroup(Integer.toUnsignedLong(e.id()))) {
            found = true;
            if ((e.perm() & want) == want) {
              return (e.perm() & mask & want) == want;
            }
          }
        }
        case PosixAcl.OTHER -> {
          return !found && (e.perm() & want) == want;
        }
        default -> {
          // MASK: read above
        }
      }
    }
    return false;
  }

  /** inode_owner_or_capable: the caller owns the inode, or has CAP_FOWNER. */
  public static boolean ownerOrCapable(Subject s, Credentials c) {
    return c.kernelChecked() || c.uid() == s.uid() || c.has(Capability.FOWNER);
  }

  /** may_create's permission part: write and search on the directory. */
  public static Errno mayCreate(Subject dir, Credentials c) {
    return permission(dir, MAY_WRITE | MAY_EXEC, c);
  }

  /**
   * may_delete's part that depends on the caller, for removing (or renaming away, or over)
   * {@code victim}'s entry in {@code dir}: write and search on the directory, then EPERM when the
   * directory is sticky and the caller owns neither it nor the victim (without CAP_FOWNER). The
   * append-only and immutable rules hold for every caller: the namespace checks them.
   */
  public static Errno mayDelete(Subject dir, Subject victim, Credentials c) {
    Errno e = permission(dir, MAY_WRITE | MAY_EXEC, c);
    if (e != null) {
      return e;
    }
    return sticky(dir, victim, c) ? Errno.EPERM : null;
  }

  /** check_sticky: in a sticky directory only the victim's owner, the directory's owner or CAP_FOWNER may remove it. */
  static boolean sticky(Subject dir, Subject victim, Credentials c) {
    if (c.kernelChecked() || (dir.mode() & S_ISVTX) == 0) {
      return false;
    }
    return c.uid() != victim.uid() && c.uid() != dir.uid() && !c.has(Capability.FOWNER);
  }

  /**
   * The mode a new inode of {@code mode} gets in {@code dir} before ACL inheritance
   * (vfs_prepare_mode's sgid part): a non-directory that would be setgid and group-executable
   * in a group the caller is not in (and the caller lacks CAP_FSETID) loses setgid. The group is the
   * directory's when it is setgid, else the caller's.
   */
  public static int stripSgid(Subject dir, int mode, Credentials c) {
    boolean directory = (mode & RawInode.S_IFMT) == RawInode.S_IFDIR;
    if (directory || (mode & (S_ISGID | S_IXGRP)) != (S_ISGID | S_IXGRP)) {
      return mode;
    }
    long group = (dir.mode() & S_ISGID) != 0 ? dir.gid() : c.gid();
    if (c.inGroup(group) || c.has(Capability.FSETID)) {
      return mode;
    }
    return mode & ~S_ISGID;
  }

  /**
   * The bits a data change (write, truncate, fallocate) by {@code c} clears from a regular file,
   * as setattr_should_drop_suidgid: setuid; setgid when group-executable, or when the caller is
   * outside the file's group; nothing when the caller has CAP_FSETID. (security.capability goes
   * whoever writes: {@link io.ext4j.fs.vfs} removes it separately.)
   */
  public static int killOnWrite(Subject s, Credentials c) {
    if (!s.isRegular()) {
      return 0;
    }
    int kill = s.mode() & S_ISUID;
    kill |= dropSgid(s, c);
    return kill != 0 && !c.has(Capability.FSETID) ? kill : 0;
  }

  /** setattr_should_drop_sgid: setgid goes when group-executable, or when the caller is outside the group without CAP_FSETID. */
  static int dropSgid(Subject s, Credentials c) {
    if ((s.mode() & S_ISGID) == 0) {
      return 0;
    }
    if ((s.mode() & S_IXGRP) != 0) {
      return S_ISGID;
    }
    return c.inGroup(s.gid()) || c.has(Capability.FSETID) ? 0 : S_ISGID;
  }

  /**
   * The bits a chown of a non-directory clears (chown_common: setuid always, setgid as
   * {@link #dropSgid}), whoever makes it and whether or not the owner changes; nothing for a
   * directory.
   */
  public static int killOnChown(Subject s, Credentials c) {
    if (s.isDirectory()) {
      return 0;
    }
    return (s.mode() & S_ISUID) | dropSgid(s, c);
  }

  /** chown_ok: may {@code c} make {@code uid} the owner? Only the owner to itself, or CAP_CHOWN. */
  public static boolean mayChown(Subject s, long uid, Credentials c) {
    return c.kernelChecked() || (c.uid() == s.uid() && uid == s.uid()) || c.has(Capability.CHOWN);
  }

  /** chgrp_ok: may {@code c} make {@code gid} the group? The owner to the current group or one of its own; or CAP_CHOWN. */
  public static boolean mayChgrp(Subject s, long gid, Credentials c) {
    if (c.kernelChecked() || c.has(Capability.CHOWN)) {
      return true;
    }
    return c.uid() == s.uid() && (gid == s.gid() || c.inGroup(gid));
  }

  /**
   * The permission bits a chmod to {@code mode} leaves (setattr_prepare): setgid is dropped when
   * the caller is outside the file's group ({@code gid}, the new group when the same call changes
   * it) and lacks CAP_FSETID; where the kernel checked permissions it applied this rule itself.
   */
  public static int chmodBits(int mode, long gid, Credentials c) {
    return c.kernelChecked() ? mode & 07777 : aclUpdateBits(mode, gid, c);
  }

  /**
   * posix_acl_update_mode's setgid rule for a new access ACL: {@link #chmodBits}' rule, applied
   * also where the kernel checked permissions, since the kernel leaves it to the file system's
   * set_acl.
   */
  public static int aclUpdateBits(int mode, long gid, Credentials c) {
    if ((mode & S_ISGID) != 0 && !c.inGroup(gid) && !c.has(Capability.FSETID)) {
      return mode & 07777 & ~S_ISGID;
    }
    return mode & 07777;
  }
}
