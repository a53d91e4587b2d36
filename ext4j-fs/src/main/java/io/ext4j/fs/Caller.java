package io.ext4j.fs;

/**
 * Who asks for an operation: the owner and group of what it creates. The engine does not check
 * permissions (the kernel's VFS does that for a FUSE mount; java.nio callers own the image).
 *
 * @param uid the owner of new inodes
 * @param gid the group of new inodes (a setgid directory's group wins, as on Linux)
 */
public record Caller(long uid, long gid) {
  public static final Caller ROOT = new Caller(0, 0);
}
