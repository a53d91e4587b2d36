package io.ext4j.fs.meta;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.cache.BlockCache;
import java.io.IOException;

/**
 * Where the engine's metadata blocks live and how changes to them become durable: through a jbd2
 * journal ({@link JournaledStore}) or written back from the cache ({@link UnjournaledStore}, for
 * filesystems without has_journal and for mkfs). Both read through the one {@link BlockCache}.
 *
 * <h2>Durability</h2>
 * See {@link #sync()}, {@link #commit(int)}: with a journal, a change is durable once the
 * transaction that made it has committed; without, once {@code sync()} returns.
 */
public interface MetaStore extends AutoCloseable {
  /** The tid of every update without a journal: meaningless, never waited for. */
  int NO_TID = 0;

  BlockDevice device();

  BlockCache cache();

  /** Whether changes go through a journal. */
  boolean journaled();

  /** A block, pinned (close it). For reading; changes need a {@link Tx}. */
  Buf read(long block) throws IOException;

  /** Reads blocks {@code [first, first + count)} into the cache ahead of use. */
  void readAhead(long first, int count) throws IOException;

  /**
   * Begins an update that may dirty {@code credits} distinct blocks and free (revoke)
   * {@code revokes} metadata blocks. May wait (a transaction being committed, log space).
   */
  Tx begin(int credits, int revokes) throws IOException;

  /** The running transaction's tid, if one runs (always empty without a journal). */
  java.util.OptionalInt runningTid();

  /** Whether {@code tid} is durable (lock-free with a journal; always true without). */
  boolean isCommitted(int tid);

  /**
   * ext4's fsync of an inode last changed in {@code tid}: commit it if it runs, wait if it commits,
   * then flush the device if that commit did not already flush after data written before this call.
   * Returns when the transaction and the data written before the call are durable. Without a
   * journal: writes back every dirty block and flushes.
   */
  void commit(int tid) throws IOException;

  /** Commits everything (directory fsync, syncfs) and returns when it is durable. */
  void sync() throws IOException;

  /**
   * Stops all further changes after an error that leaves the running transaction untrustworthy: the
   * journal aborts (nothing more commits; what committed before stays). No-op without a journal.
   */
  void abort(Throwable cause);

  /**
   * Stops all further writes for a shutdown: as {@link #abort}, but the journal records no error
   * (its log is left as a power cut would leave it). Without a journal, as {@link #abort}.
   */
  default void shutdown(Throwable cause) {
    abort(cause);
  }

  /** What aborted the journal — {@link #abort} or a failed commit or checkpoint — or null. */
  default Throwable abortCause() {
    return null;
  }

  /**
   * The error for a metadata block the device would not read: EFSCORRUPTED when the block lies
   * beyond the device (a pointer the checks let through), else a metadata EIO; both are errors of
   * the filesystem ({@link io.ext4j.fs.Ext4Exception#isFilesystemError}).
   */
  static io.ext4j.fs.Ext4Exception readFailed(BlockDevice device, long block, io.ext4j.block.BlockDeviceException e) {
    if (e instanceof io.ext4j.block.BlockOutOfRangeException) {
      io.ext4j.fs.Ext4Exception c = io.ext4j.fs.Ext4Exception.corrupted(device.name(), 0, block,
          "metadata block " + block + " is beyond the end of the device");
      c.initCause(e);
      return c;
    }
    return io.ext4j.fs.Ext4Exception.metadataIo(device.name(), block, e);
  }

  /** The largest number of credits one update may ask for. */
  int maxCredits();

  /** Flushes, checkpoints and releases the journal (not the device or cache). */
  @Override
  void close() throws IOException;
}
