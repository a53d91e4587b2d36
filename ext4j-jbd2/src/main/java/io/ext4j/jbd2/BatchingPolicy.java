package io.ext4j.jbd2;

/**
 * Decides how long synchronous commits wait for other handles to join their transaction (group
 * commit). Named variants live in {@link BatchingPolicies}; the journal calls the hooks at two
 * points and policies override the one they use.
 *
 * <p>Waiting in {@link #onSyncStop} keeps the caller's handle open, so the transaction cannot
 * commit meanwhile (that is how jbd and jbd2 batch). Waiting in {@link #beforeCommit} happens in the
 * commit thread, with no handle held, after a commit was requested and before the running
 * transaction is locked.
 */
public interface BatchingPolicy {
  /** The name used on the command line and in reports. */
  String name();

  /** Called by a synchronous handle's thread at stop, before it requests the commit. */
  default void onSyncStop(BatchContext context) {}

  /** Called by the commit thread before it locks the running transaction for commit. */
  default void beforeCommit(BatchContext context) {}
}
