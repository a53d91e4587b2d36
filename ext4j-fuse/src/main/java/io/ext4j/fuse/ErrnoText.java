package io.ext4j.fuse;

/**
 * The text a FUSE mount's error messages give for an errno: strerror-like, with a hint for the
 * errnos a mount meets (who may mount, whether the kernel has FUSE).
 */
final class ErrnoText {
  private ErrnoText() {}

  /** strerror-like text for the errnos a mount meets; "errno N" for the others. */
  static String describe(int errno) {
    return switch (errno) {
      case 1 -> "EPERM: operation not permitted (mounting needs root, or CAP_SYS_ADMIN)";
      case 2 -> "ENOENT: no such file or directory";
      case 13 -> "EACCES: permission denied";
      case 16 -> "EBUSY: busy (something is already mounted there, or a file on it is open)";
      case 19 -> "ENODEV: no such device (the kernel has no FUSE support loaded)";
      case 20 -> "ENOTDIR: not a directory";
      case 22 -> "EINVAL: invalid argument";
      default -> "errno " + errno;
    };
  }
}
