package io.ext4j.jbd2;

/**
 * Told about each transaction once its commit block is durable ({@link Journal#addCommitListener}).
 * The ext4 allocator uses it: blocks a transaction freed become reusable once that transaction has
 * committed.
 *
 * <h2>When and where it runs</h2>
 * Once per committed transaction, in tid order (commits are serial), after the transaction is
 * published ({@link Journal#isCommitted} and {@link Journal#lastCommittedTid} already say so) and its
 * waiters are woken — so a waiter may return before the listener has run. It runs on the thread
 * that committed: the journal's commit thread, or a caller's thread that committed in place (a
 * synchronous {@link Handle#stop()}, {@link Journal#completeTransaction}, {@link Journal#forceCommit},
 * a {@link Journal#start} waiting for log space), which may hold filesystem locks; the next commit
 * waits until it returns.
 *
 * <h2>What it must not do</h2>
 * Block on the journal: start a handle, wait for a commit, flush or close the journal. It should
 * take only locks that are never held while waiting for the journal, and be quick. A listener that
 * throws aborts the journal (the transaction stays committed; later operations fail).
 */
@FunctionalInterface
public interface CommitListener {
  /** Transaction {@code tid} is committed (durable). */
  void committed(int tid);
}
