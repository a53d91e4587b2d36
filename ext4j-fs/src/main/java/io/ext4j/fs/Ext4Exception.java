package io.ext4j.fs;

import java.io.IOException;

/**
 * An engine operation failed with an {@link Errno}. Carries the inode (or 0), the path or name
 * concerned when known, and the evidence in the message: one type for every failure, so that
 * adapters map the errno and show the message.
 */
public final class Ext4Exception extends IOException {
  private static final long serialVersionUID = 1L;
  private final Errno errno;
  private final long inode;
  private final String path; // may be null

  public Ext4Exception(Errno errno, long inode, String path, String detail) {
    super(message(errno, inode, path, detail));
    this.errno = errno;
    this.inode = inode;
    this.path = path;
  }

  public Ext4Exception(Errno errno, long inode, String path, String detail, Throwable cause) {
    this(errno, inode, path, detail);
    initCause(cause);
  }

  private static String message(Errno errno, long inode, String path, String detail) {
    StringBuilder m = new StringBuilder(errno.name()).append(" (").append(errno.description()).append(')');
    if (path != null) {
      m.append(": ").append(path);
    }
    if (inode != 0) {
      m.append(path != null ? " (inode " : ": inode ").append(inode).append(path != null ? ")" : "");
    }
    if (detail != null && !detail.isEmpty()) {
      m.append(": ").append(detail);
    }
    return m.toString();
  }

  public Errno errno() {
    return errno;
  }

  /** The inode concerned, or 0. */
  public long inode() {
    return inode;
  }

  /** The path or name concerned, or null. */
  public String path() {
    return path;
  }

  public static Ext4Exception of(Errno errno, long inode, String detail) {
    return new Ext4Exception(errno, inode, null, detail);
  }

  /** A corrupted structure: EFSCORRUPTED naming the device, the structure and the evidence. */
  public static Ext4Exception corrupted(String device, long inode, String what) {
    return new Ext4Exception(Errno.EFSCORRUPTED, inode, null, device + ": " + what);
  }
}
