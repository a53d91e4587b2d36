package io.ext4j.fs.vfs;

/**
 * The Linux capabilities the VFS consults (capabilities(7)); a caller holding one is exempt from
 * the rule it names. Root, in this VFS, is a caller with all of them, not uid 0 by itself.
 */
public enum Capability {
  /** Change a file's owner, and its group to any group (chown(2)). */
  CHOWN,
  /** Bypass read, write and execute permission checks (execute only where some x bit is set, or on a directory). */
  DAC_OVERRIDE,
  /** Bypass read permission on files and read and search permission on directories. */
  DAC_READ_SEARCH,
  /** Act as the owner of any file: chmod, utimes to a given time, sticky-directory deletes, O_NOATIME, ACLs, file flags. */
  FOWNER,
  /** Keep setuid and setgid on writes and chmod; set setgid on a file outside one's groups. */
  FSETID,
  /** Create device nodes and whiteouts (mknod(2)). */
  MKNOD,
  /** Set and clear the immutable and append-only flags (FS_IOC_SETFLAGS). */
  LINUX_IMMUTABLE,
  /** Read and write trusted.* extended attributes; shut the filesystem down (FS_IOC_SHUTDOWN). */
  SYS_ADMIN
}
