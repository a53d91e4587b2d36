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
  private final long block; // the block concerned, or 0
  private final String detail; // may be null
  private boolean metadata; // set once by metadataIo, before the exception is thrown
  private final java.util.concurrent.atomic.AtomicBoolean recorded = new java.util.concurrent.atomic.AtomicBoolean();

  public Ext4Exception(Errno errno, long inode, String path, String detail) {
    this(errno, inode, 0, path, detail);
  }

  private Ext4Exception(Errno errno, long inode, long block, String path, String detail) {
    super(message(errno, inode, path, detail));
    this.errno = errno;
    this.inode = inode;
    this.block = block;
    this.path = path;
    this.detail = detail;
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

  /** What went wrong beyond the errno (the evidence), or null. */
  public String detail() {
    return detail;
  }

  public Errno errno() {
    return errno;
  }

  /** The inode concerned, or 0. */
  public long inode() {
    return inode;
  }

  /** The block concerned (recorded in the superblock's error fields), or 0. */
  public long block() {
    return block;
  }

  /**
   * Whether this is an error of the filesystem rather than of the call: a corrupted structure, a
   * checksum mismatch, or a metadata block that could not be read or written. ext4 answers those
   * with errors=remount-ro; the engine does the same ({@link io.ext4j.fs.context.Fs#error}).
   */
  public boolean isFilesystemError() {
    return errno == Errno.EFSCORRUPTED || errno == Errno.EFSBADCRC || (errno == Errno.EIO && metadata);
  }

  /**
   * Marks this error as recorded in the superblock; true the first time only, so that an error
   * passing through nested operations is counted once.
   */
  public boolean markRecorded() {
    return recorded.compareAndSet(false, true);
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
    return new Ext4Exception(Errno.EFSCORRUPTED, inode, 0, null, device + ": " + what);
  }

  /** A corrupted structure in {@code block}: EFSCORRUPTED naming the device, the structure and the evidence. */
  public static Ext4Exception corrupted(String device, long inode, long block, String what) {
    return new Ext4Exception(Errno.EFSCORRUPTED, inode, block, null, device + ": " + what);
  }

  /**
   * A metadata block that the device failed to read or write: EIO, an error of the filesystem (the
   * kernel's ext4_error on a failed bitmap, inode table or directory read), unlike a failed data read.
   */
  public static Ext4Exception metadataIo(String device, long block, IOException cause) {
    Ext4Exception e = new Ext4Exception(Errno.EIO, 0, block, null, device + ": metadata block " + block + ": " + cause.getMessage());
    e.metadata = true;
    e.initCause(cause);
    return e;
  }
}
