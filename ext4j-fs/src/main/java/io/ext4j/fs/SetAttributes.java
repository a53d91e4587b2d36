package io.ext4j.fs;

import java.time.Instant;

/**
 * Changes to an inode's attributes ({@code setattr}); null fields stay as they are. ctime is set to
 * now by any change, as the kernel does; an explicit {@code ctime} is honoured only by tools that
 * restore trees (put, mkfs -d).
 *
 * @param mode new permission bits (the file type cannot change; only the bits under 07777 are used)
 * @param uid new owner
 * @param gid new group
 * @param size new size (truncate or extend)
 * @param atime new access time
 * @param mtime new modification time
 * @param ctime new change time (restoring trees only)
 * @param crtime new creation time (restoring trees only)
 */
public record SetAttributes(Integer mode, Long uid, Long gid, Long size, Instant atime, Instant mtime, Instant ctime,
    Instant crtime) {

  public static SetAttributes none() {
    return new SetAttributes(null, null, null, null, null, null, null, null);
  }

  public SetAttributes withMode(int m) {
    return new SetAttributes(m, uid, gid, size, atime, mtime, ctime, crtime);
  }

  public SetAttributes withOwner(Long u, Long g) {
    return new SetAttributes(mode, u, g, size, atime, mtime, ctime, crtime);
  }

  public SetAttributes withSize(long s) {
    return new SetAttributes(mode, uid, gid, s, atime, mtime, ctime, crtime);
  }

  public SetAttributes withTimes(Instant a, Instant m) {
    return new SetAttributes(mode, uid, gid, size, a, m, ctime, crtime);
  }

  public SetAttributes withCtime(Instant c) {
    return new SetAttributes(mode, uid, gid, size, atime, mtime, c, crtime);
  }

  public SetAttributes withCrtime(Instant c) {
    return new SetAttributes(mode, uid, gid, size, atime, mtime, ctime, c);
  }
}
