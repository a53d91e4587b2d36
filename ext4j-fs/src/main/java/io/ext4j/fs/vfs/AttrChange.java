package io.ext4j.fs.vfs;

import java.time.Instant;

/**
 * What a setattr through the VFS asks to change (chmod, chown, truncate, utimensat at once, as a
 * FUSE SETATTR may); null fields stay as they are. The VFS applies the rules of who may change
 * what and what else changes with it (setuid and setgid cleared by a chown or a truncate, setgid by
 * a chmod outside the group), then makes the change as one.
 *
 * @param mode permission bits (07777; the file type cannot change)
 * @param uid new owner
 * @param gid new group
 * @param size new size (truncate or extend)
 * @param atime access time
 * @param mtime modification time
 * @param crtime creation time (restoring trees; owner or CAP_FOWNER)
 */
public record AttrChange(Integer mode, Long uid, Long gid, Long size, TimeSpec atime, TimeSpec mtime, Instant crtime) {
  public static AttrChange none() {
    return new AttrChange(null, null, null, null, null, null, null);
  }

  public static AttrChange chmod(int mode) {
    return none().withMode(mode);
  }

  public static AttrChange chown(Long uid, Long gid) {
    return none().withOwner(uid, gid);
  }

  public static AttrChange truncate(long size) {
    return none().withSize(size);
  }

  public static AttrChange times(TimeSpec atime, TimeSpec mtime) {
    return none().withTimes(atime, mtime);
  }

  public AttrChange withMode(int m) {
    return new AttrChange(m, uid, gid, size, atime, mtime, crtime);
  }

  public AttrChange withOwner(Long u, Long g) {
    return new AttrChange(mode, u, g, size, atime, mtime, crtime);
  }

  public AttrChange withSize(long s) {
    return new AttrChange(mode, uid, gid, s, atime, mtime, crtime);
  }

  public AttrChange withTimes(TimeSpec a, TimeSpec m) {
    return new AttrChange(mode, uid, gid, size, a, m, crtime);
  }

  public AttrChange withCrtime(Instant c) {
    return new AttrChange(mode, uid, gid, size, atime, mtime, c);
  }

  /** Whether nothing is asked. */
  public boolean isEmpty() {
    return equals(none());
  }
}
