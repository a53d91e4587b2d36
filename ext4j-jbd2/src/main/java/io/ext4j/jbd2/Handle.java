package io.ext4j.jbd2;

/**
 * One atomic update: every buffer dirtied through a handle commits in the same transaction as every
 * other buffer of that transaction, or none of them does. Obtain with {@link Journal#start(int)};
 * a handle belongs to the thread that started it, and a thread that starts again while holding one
 * gets the same handle back (nesting), which then needs one more {@link #stop()}. A nested start
 * that asks for more credits (or revoke records) than the handle has left extends the handle to
 * them in its transaction, or throws {@link IllegalStateException} if the transaction cannot give
 * them (the outer start must then ask for enough).
 *
 * <h2>Credits</h2>
 * A handle's credits are the number of distinct buffers it may newly add to the transaction: the
 * first {@link #dirtyMetadata} of a buffer in a transaction costs one, {@link #forget} of a buffer
 * this transaction modified refunds one. Unused credits return to the transaction at stop.
 *
 * <h2>Durability</h2>
 * Nothing is durable when a method other than {@link #stop()} returns. {@code stop()} of a handle
 * marked {@link #setSync(boolean) synchronous} returns only when its transaction's commit block is
 * on stable storage (after the device flush that covers it); a plain stop promises nothing, and the
 * transaction commits within the commit interval, on a synchronous stop, or when waited for with
 * {@link Journal#completeTransaction(int)}.
 */
public interface Handle extends AutoCloseable {
  /** The transaction this handle belongs to. */
  int tid();

  /** Credits left. */
  int credits();

  /** Declares the intent to modify an existing block; must precede the first change to its contents. */
  void getWriteAccess(JournalBuffer buffer) throws JournalException;

  /** Like write access for a block that is new to the filesystem: its old contents are irrelevant. */
  void getCreateAccess(JournalBuffer buffer) throws JournalException;

  /**
   * Write access that also keeps the last committed image in {@link JournalBuffer#committedData()}
   * until this transaction commits (allocators use it not to reuse what a not-yet-committed
   * transaction freed).
   */
  void getUndoAccess(JournalBuffer buffer) throws JournalException;

  /** Files a buffer this handle has access to as modified metadata of the transaction. */
  void dirtyMetadata(JournalBuffer buffer) throws JournalException;

  /** The block is no longer metadata (freed): drop it from the journal without writing it home. */
  void forget(JournalBuffer buffer) throws JournalException;

  /**
   * Records that older log copies of {@code block} must not be replayed (the block was freed and may
   * be reused as data). Consumes one of the revoke records declared at start.
   */
  void revoke(long block) throws JournalException;

  /**
   * Asks for more credits in the same transaction. Returns false when the transaction is full (or
   * no longer running): then {@link #restart(int)}.
   */
  boolean extend(int credits) throws JournalException;

  /**
   * Ends this handle's part of its transaction, asks for that transaction's commit, and continues with
   * {@code credits} and no revoke records in the running transaction — as in jbd2, that may still be
   * the same one if its commit has not locked it yet. Same as {@code restart(credits, 0)}.
   */
  void restart(int credits) throws JournalException;

  /**
   * {@link #restart(int)} with {@code revokeRecords} revoke records for the new part (ext4's truncate
   * restarts while it frees index blocks, revoking them). Credits and revoke records left unused
   * return to the old transaction (as at stop).
   *
   * @throws IllegalArgumentException if the credits and the revoke blocks they need exceed
   *     {@link Journal#maxHandleCredits()} (the handle is left as it was)
   * @throws IllegalStateException if the handle is nested or stopped
   */
  void restart(int credits, int revokeRecords) throws JournalException;

  /** Makes {@link #stop()} wait until the transaction is durable (O_SYNC behaviour). */
  void setSync(boolean sync);

  /**
   * Records that blocks {@code [first, first + count)} of {@code owner}'s data (in its own
   * numbering) must reach the device before this transaction's commit block (data=ordered); merged
   * with the owner's other ranges in the transaction. See {@link OrderedData} for when and on which
   * thread the commit writes them, and what the owner must never do there.
   *
   * @throws IllegalStateException if the handle was stopped
   * @throws UnsupportedOperationException with async commit, which cannot order data
   * @throws IllegalArgumentException if the range is not positive
   */
  void addOrderedData(OrderedData owner, long first, long count);

  /** Ends the handle (or one nesting level). See Durability. */
  void stop() throws JournalException;

  @Override
  default void close() throws JournalException {
    stop();
  }
}
