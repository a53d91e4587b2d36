package io.ext4j.jbd2;

/**
 * What a {@link BatchingPolicy} sees of the journal, and the only ways it may wait. The journal
 * implements it over its real state and clock; tests implement it with a scripted clock.
 */
public interface BatchContext {
  /** Monotonic now. */
  long nanoTime();

  /** Handles that have joined the running transaction so far. */
  int handleCount();

  /** How long the running transaction has existed. */
  long transactionAgeNanos();

  /** The journal's weighted average commit time (jbd2's EWMA, ¼ weight per new sample); 0 before the first commit. */
  long averageCommitNanos();

  /** Handles that joined the most recently committed transaction; 0 before the first commit. */
  int previousCommitHandles();

  /**
   * Records the calling thread as the last synchronous writer and tells whether it already was
   * (jbd2's {@code j_last_sync_writer} test). Only meaningful in {@link BatchingPolicy#onSyncStop}.
   */
  boolean swapLastSyncWriter();

  /** The configured floor of a batching wait (jbd2 {@code min_batch_time}). */
  long minBatchNanos();

  /** The configured ceiling of a batching wait (jbd2 {@code max_batch_time}); 0 disables jbd2's sleep. */
  long maxBatchNanos();

  /** The length of one scheduler tick ("jiffy") for the historical policies. */
  long tickNanos();

  /** Sleeps, uninterruptibly from the policy's point of view. */
  void sleepNanos(long nanos);

  /** Yields the processor once. */
  void yieldThread();

  /**
   * Distinct threads that have joined the running transaction so far (a thread with several
   * handles in it counts once).
   */
  int writerCount();

  /**
   * Distinct threads that joined the running transaction or either of the two transactions
   * committed before it: the writers active now. Two fsync callers whose commits alternate (each
   * transaction holding one of them) count two here, where the previous commit alone shows one.
   */
  int recentWriters();

  /**
   * Waits until {@code writerCount() >= target}, or {@code nanoTime() >= deadline}, or no thread
   * joined for {@code quietNanos} — counted from the later of the last join and the start of this
   * wait, so a transaction whose last join is already old still gives the others one quiet gap to
   * arrive. Woken early by the join that reaches the target (other joins do not wake the waiter: it
   * re-checks the quiet gap on its own timer). Returns the writer count.
   */
  int awaitWriters(int target, long deadlineNanos, long quietNanos);
}
