package io.ext4j.fs;

/** How a file is opened (the open(2) flags the engine acts on). */
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
  /** Truncate to 0 on open. */
  TRUNCATE
}
