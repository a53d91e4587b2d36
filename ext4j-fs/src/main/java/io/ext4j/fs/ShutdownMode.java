package io.ext4j.fs;

/**
 * How a file system shutdown ({@code FS_IOC_SHUTDOWN}, xfstests' {@code godown}, {@code xfs_io -c
 * shutdown}) treats what is not yet durable, as ext4's three {@code EXT4_GOING_FLAGS_*}: after any of
 * them every operation fails with EIO until the file system is closed, and nothing more is written,
 * so the image holds what a power cut at that instant would leave and the next open recovers the
 * journal as after one.
 */
public enum ShutdownMode {
  /** {@code EXT4_GOING_FLAGS_DEFAULT} (0): everything written so far made durable first, as syncfs. */
  FULL_SYNC,
  /** {@code EXT4_GOING_FLAGS_LOGFLUSH} (1): the running transaction committed first (with its ordered data). */
  LOG_FLUSH,
  /** {@code EXT4_GOING_FLAGS_NOLOGFLUSH} (2): at once; what has not committed is lost. */
  NO_LOG_FLUSH;

  /** The mode of the ioctl's flag word; EINVAL for another value. */
  public static ShutdownMode ofFlags(int flags) throws Ext4Exception {
    return switch (flags) {
      case 0 -> FULL_SYNC;
      case 1 -> LOG_FLUSH;
      case 2 -> NO_LOG_FLUSH;
      default -> throw new Ext4Exception(Errno.EINVAL, 0, null, "shutdown flags " + flags + " (0, 1 or 2)");
    };
  }
}
