package io.ext4j.jbd2;

import java.nio.ByteBuffer;

/**
 * A cached metadata block that changes only through the journal. Obtain one from
 * {@link Journal#buffer(long)} (read from the device if not cached) or {@link Journal#newBuffer(long)}
 * (a fresh block that need not be read), then in a handle: get write, create or undo access, change
 * the contents through {@link #data()}, and call {@link Handle#dirtyMetadata(JournalBuffer)}. Each
 * of those two calls pins the block in the block cache and needs one {@link #release()}; the
 * handle's calls need the caller's pin ({@code try (JournalBuffer b = journal.buffer(n)) { … }}).
 *
 * <p>The journal owns the block until it is checkpointed home; the caller owns <em>mutual
 * exclusion</em> of concurrent changes to the same buffer by several handles of one transaction
 * (as ext4 holds its own locks around bitmap and inode-table edits). Contents change only between a
 * successful access call and the end of the handle.
 */
public interface JournalBuffer extends AutoCloseable {
  /** The home block number on the device. */
  long block();

  /**
   * The live contents, a heap buffer of one block whose position is 0 and limit the block size,
   * shared with the journal. A new view is returned per call; the bytes are the same.
   */
  ByteBuffer data();

  /**
   * The last committed image of the block while undo access is active (see
   * {@link Handle#getUndoAccess}), else {@code null}. Read-only.
   */
  ByteBuffer committedData();

  /**
   * Drops the pin {@link Journal#buffer(long)} or {@link Journal#newBuffer(long)} took; each of those
   * calls needs one release, and the reference must not be used after it (get the buffer again).
   * The journal keeps a buffer cached for as long as a transaction or a pending checkpoint needs it,
   * whether or not anyone holds it pinned; a released buffer without journal state may be evicted.
   *
   * @throws IllegalStateException if the block was released more often than it was pinned
   */
  void release();

  /** {@link #release()}, for try-with-resources. */
  @Override
  default void close() {
    release();
  }
}
