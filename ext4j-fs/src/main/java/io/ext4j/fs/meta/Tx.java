package io.ext4j.fs.meta;

import java.io.IOException;

/**
 * One atomic metadata update: a jbd2 handle on a journaled filesystem, or a set of cached changes
 * written back later on one without a journal. Every engine change of a metadata block happens in a
 * Tx: {@link #modify} (or {@link #create}) before the first byte changes, {@link #dirty} after.
 * A Tx belongs to the thread that began it.
 *
 * <h2>Durability</h2>
 * With a journal: nothing is durable when a call returns; the changes commit with the handle's
 * transaction ({@link #tid()}), which {@link MetaStore#commit(int)} and fsync wait for. Without a
 * journal: changes are in the cache until {@link MetaStore#sync()}; a crash may leave any subset.
 */
public interface Tx extends AutoCloseable {
  /** The transaction id, or {@link MetaStore#NO_TID} without a journal. */
  int tid();

  /** A block read through the cache, pinned (close it). */
  Buf read(long block) throws IOException;

  /** A block about to be written whole: pinned, create access taken, contents zeroed. Dirty it when filled. */
  Buf create(long block) throws IOException;

  /** Declares the intent to change {@code b}; must precede the change. */
  void modify(Buf b) throws IOException;

  /** Files {@code b}'s changes in this update. */
  void dirty(Buf b) throws IOException;

  /**
   * {@code block} stopped being metadata (freed): its cached copy must not be written home, and
   * older journal copies of it must not be replayed over whatever it holds next.
   */
  void forget(long block) throws IOException;

  /**
   * Makes sure at least {@code credits} more distinct blocks may be dirtied, extending the handle.
   * Returns false when the journal cannot give them in this transaction (the caller must finish at
   * a consistent point and continue in a new Tx).
   */
  boolean ensureCredits(int credits) throws IOException;

  /** Blocks that may still be dirtied for the first time in this update. */
  int creditsLeft();

  /** Makes {@link #close()} wait for durability (O_SYNC and dirsync semantics). */
  void setSync();

  /** Ends the update; with {@link #setSync()}, returns when it is durable. */
  @Override
  void close() throws IOException;
}
