package io.ext4j.fs;

import java.time.Instant;

/**
 * What {@code stat} reports of an inode.
 *
 * @param ino the inode number
 * @param mode file type and permission bits (S_IFREG | 0644 …)
 * @param nlink link count (1 for a directory past 65,000 links, as dir_nlink stores it)
 * @param uid owner
 * @param gid group
 * @param size size in bytes (a symlink: its target's length)
 * @param blocks 512-byte units allocated (data, tree and attribute blocks)
 * @param atime last access
 * @param mtime last content change
 * @param ctime last inode change
 * @param crtime creation (EPOCH where the inode has no room for it)
 * @param rdev device number of a character or block device, else 0
 * @param flags the inode flags (EXT4_*_FL)
 * @param generation i_generation
 * @param blockSize the filesystem block size (st_blksize)
 */
public record Attributes(long ino, int mode, int nlink, long uid, long gid, long size, long blocks, Instant atime,
    Instant mtime, Instant ctime, Instant crtime, long rdev, int flags, int generation, int blockSize) {

  /** The file type bits of {@link #mode()}; {@link #fileType()} is one of the S_IF* values below. */
  public static final int S_IFMT = 0xF000;
  /** A fifo. */
  public static final int S_IFIFO = 0x1000;
  /** A character device. */
  public static final int S_IFCHR = 0x2000;
  /** A directory. */
  public static final int S_IFDIR = 0x4000;
  /** A block device. */
  public static final int S_IFBLK = 0x6000;
  /** A regular file. */
  public static final int S_IFREG = 0x8000;
  /** A symbolic link. */
  public static final int S_IFLNK = 0xA000;
  /** A socket. */
  public static final int S_IFSOCK = 0xC000;

  public int fileType() {
    return mode & S_IFMT;
  }

  public boolean isDirectory() {
    return fileType() == S_IFDIR;
  }

  public boolean isRegularFile() {
    return fileType() == S_IFREG;
  }

  public boolean isSymlink() {
    return fileType() == S_IFLNK;
  }

  /** A character or block device. */
  public boolean isDevice() {
    return fileType() == S_IFCHR || fileType() == S_IFBLK;
  }

  /** The permission bits (including setuid, setgid and sticky). */
  public int permissions() {
    return mode & 07777;
  }

  /** A device number from its major and minor, in Linux's 32-bit encoding (new_encode_dev), as {@link #rdev()} holds it. */
  public static long rdev(int major, int minor) {
    return Integer.toUnsignedLong((minor & 0xFF) | (major << 8) | ((minor & ~0xFF) << 12));
  }

  /** The major number of a device number {@link #rdev(int, int)} made. */
  public static int major(long rdev) {
    return (int) ((rdev & 0xFFF00) >> 8);
  }

  /** The minor number of a device number {@link #rdev(int, int)} made. */
  public static int minor(long rdev) {
    return (int) ((rdev & 0xFF) | ((rdev >> 12) & 0xFFF00));
  }
}
