package io.ext4j.jbd2;

/** How {@link Journal#isCommitted(int)} answers; the "before" is kept for the benchmark. */
public enum CommittedCheck {
  /** Compare with the commit sequence read with acquire semantics; no lock (jbd2 since 2024). */
  LOCK_FREE,
  /** Take the journal state lock and compare with the running and committing tids (jbd2 before 2024). */
  STATE_LOCK
}
