package io.ext4j.fs;

/**
 * How a file is opened: the open(2) flags the engine acts on. The inode-level
 * {@link Ext4FileSystem#open} uses the first seven; the VFS's path and handle opens
 * ({@link io.ext4j.fs.vfs.Vfs}) all of them.
 */
public enum OpenFlag {
  READ,
  WRITE,
  /** Every write goes to the end of file. */
  APPEND,
  /** Every write returns only when data and all metadata are durable (O_SYNC). */
  SYNC,
  /** Every write returns only when data and the metadata needed to read it are durable (O_DSYNC). */
  DSYNC,
  /** Transfers bypass the cache, with the direct-I/O locking of the filesystem's {@link DioLocking}. */
  DIRECT,
  /** Truncate to 0 on open (O_TRUNC). */
  TRUNCATE,
  /** Create the file if the name is free (O_CREAT). */
  CREATE,
  /** With CREATE: fail with EEXIST if the name exists, even as a dangling symbolic link (O_EXCL). */
  EXCLUSIVE,
  /** Fail with ELOOP if the last component is a symbolic link (O_NOFOLLOW). */
  NOFOLLOW,
  /** Fail with ENOTDIR unless a directory is opened (O_DIRECTORY). */
  DIRECTORY,
  /**
   * Make an unnamed regular file in the directory the path names (O_TMPFILE), freed at its last
   * close unless linkat names it (never, with EXCLUSIVE).
   */
  TMPFILE,
  /** Reads do not update the access time (O_NOATIME; the owner or CAP_FOWNER only). */
  NOATIME,
  /** A handle only: no reading or writing, no permission but search on the way (O_PATH). */
  PATH
}
