package io.ext4j.fs;

import java.time.Duration;
import java.time.Instant;

/**
 * When reading a file or listing a directory updates its access time: the kernel's atime mount
 * options (its {@code atime_needs_update}, Documentation/filesystems/vfs.rst and mount(8)). Files
 * opened with {@link OpenFlag#NOATIME}, inodes with the noatime flag ({@code chattr +A}) and
 * read-only filesystems are never updated.
 */
public enum AtimeUpdates {
  /** {@code noatime}: never. */
  NOATIME,
  /**
   * {@code relatime} (the kernel's default): when the access time is not after the modification or
   * change time, or is a day old or more — so that tools asking "read since last written?" still
   * get an answer, at one inode write per change instead of one per read.
   */
  RELATIME,
  /** {@code strictatime}: on every access that moves the time. */
  STRICTATIME;

  private static final Duration DAY = Duration.ofDays(1);

  /** Whether an access at {@code now} updates an inode with these times. */
  public boolean needsUpdate(Instant atime, Instant mtime, Instant ctime, Instant now) {
    return switch (this) {
      case NOATIME -> false;
      case STRICTATIME -> !atime.equals(now);
      case RELATIME -> !atime.equals(now)
          && (!atime.isAfter(mtime) || !atime.isAfter(ctime) || !atime.plus(DAY).isAfter(now));
    };
  }
}
