package io.ext4j.jbd2.internal;

/** A transaction's lifecycle, in order (jbd2's {@code t_state}). */
public enum TransactionState {
  /** Accepts handles. */
  RUNNING,
  /** The commit thread took it: no new handles; waiting for open handles to stop. */
  LOCKED,
  /** Its last handle stopped; its reserved buffers are released. */
  SWITCH,
  /** Committing: a new running transaction may exist; ordered data and revoke records are written. */
  FLUSH,
  /** Metadata blocks are being written to the log (ordered data is being written too). */
  COMMIT,
  /** Log writes and ordered data done; the flush that covers them runs (sync commit only). */
  COMMIT_DFLUSH,
  /**
   * The commit block is written and the commit's last flush runs: data written before a thread saw
   * this state may not be covered by it (see {@code Journal.commitWillFlush}).
   */
  COMMIT_JFLUSH,
  /** The commit block is durable; buffers are moved to the checkpoint list. */
  COMMIT_CALLBACK,
  /** Committed; lives on only while it has buffers to checkpoint. */
  FINISHED
}
