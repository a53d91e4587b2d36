package io.ext4j.jbd2;

/** How {@link Handle#getWriteAccess} handles a buffer already in the running transaction. */
public enum WriteAccessPath {
  /** Return after two acquire reads when the buffer already belongs to the handle's transaction (jbd2 since 2015). */
  LOCK_FREE_FAST_PATH,
  /** Always take the buffer's state lock (jbd2 before 2015). */
  ALWAYS_LOCKED
}
