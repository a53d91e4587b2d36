package io.ext4j.jbd2;

/**
 * Recovery found a failed commit: a transaction that is not the last one written yet fails its
 * checks — a bad commit block after a flush (sync commit), or with v1 checksums a transaction whose
 * blocks do not match its commit block's CRC. jbd2 calls this {@code j_failed_commit}. Recovery
 * stops the log before that transaction, replays and flushes the transactions before it
 * ({@link #replayed()}), and does not mark the journal empty.
 *
 * <p>The kernel then refuses to mount the file system, and {@link Journal#open} refuses likewise.
 * e2fsck instead marks the journal empty after the replayed part and records the error in the file
 * system's state; {@code ext4j journal recover} does the same.
 */
public final class JournalFailedCommitException extends JournalCorruptException {
  private static final long serialVersionUID = 1L;
  private final int failedTid;
  private final transient RecoveryResult replayed;

  /**
   * @param failedTid the transaction whose commit failed
   * @param replayed what recovery replayed and flushed before it
   */
  public JournalFailedCommitException(String device, long journalBlock, String what, String evidence, int failedTid,
      RecoveryResult replayed) {
    super(device, journalBlock, what, evidence);
    this.failedTid = failedTid;
    this.replayed = replayed;
  }

  /** The tid of the transaction whose commit failed (unsigned 32-bit, as every tid). */
  public int failedTid() {
    return failedTid;
  }

  /** The transactions replayed (and flushed) before the failed one; {@code endTid() == failedTid()}. */
  public RecoveryResult replayed() {
    return replayed;
  }
}
