package io.ext4j.jbd2;

import java.io.IOException;
import java.util.List;

/**
 * Data of one owner (ext4: an inode's file blocks) whose writes must be on the device before the
 * commit block of a transaction whose metadata points at it (ext4 data=ordered). A handle records
 * ranges with {@link Handle#addOrderedData(OrderedData, long, long)}; the transaction merges each
 * owner's ranges (owners are told apart by {@code equals}, so one object per inode, as jbd2's
 * {@code jbd2_inode}); {@link Journal#cancelOrderedData} trims them when the file shrinks.
 *
 * <h2>When the commit calls it</h2>
 * Once the transaction stops taking handles, its commit calls {@link #submit} for every owner, in the
 * order the owners were first added, then writes the transaction's metadata to the log, then calls
 * {@link #await} for every owner, and only then issues the flush that precedes the commit block: so
 * the data writes overlap the log writes, and the commit's flush covers both. Nothing of a commit
 * touches an owner after its {@code await} returns.
 *
 * <h2>Threads and locks: what an implementation must never do</h2>
 * {@code submit} and {@code await} run on whichever thread commits: the journal's commit thread; a
 * thread whose synchronous {@link Handle#stop()}, {@link Journal#completeTransaction} or
 * {@link Journal#forceCommit} finds no commit under way and commits in its own thread; or a thread
 * whose {@link Journal#start} waits for log space and commits the transaction a checkpoint waits
 * for. That thread may hold any filesystem lock — this owner's inode lock included. So an
 * implementation must never take a filesystem lock (inode, page, allocator, directory), never start
 * a handle, and never wait for the journal (a commit, a checkpoint, {@link Journal#flush()}); it may
 * only issue device I/O for data it can reach without those locks (e.g. a snapshot of the dirty
 * pages taken under a lock that is never held while waiting for the journal) and wait for the I/O it
 * issued. Then nothing the commit waits for can be waiting for the committer, and commits cannot
 * deadlock with the filesystem.
 *
 * <h2>Durability</h2>
 * When {@code await} returns the writes {@code submit} started must have completed on the device
 * (not necessarily flushed); the commit's flush then makes them durable before its commit block can
 * be. Either method throwing aborts the journal: the transaction is not committed.
 */
public interface OrderedData {
  /**
   * Blocks {@code [first, first + count)} of an owner, in the owner's own numbering (ext4: file
   * block numbers).
   */
  record Range(long first, long count) {
    public Range {
      if (first < 0 || count <= 0 || first + count < first) {
        throw new IllegalArgumentException("ordered range [" + first + ", +" + count + ") is not a positive range");
      }
    }

    /** One past the last block. */
    public long end() {
      return first + count;
    }
  }

  /**
   * Starts writing this owner's data in {@code ranges} (sorted, disjoint, not adjacent) and may
   * return before the writes complete. The owner writes what it has for them (data truncated away
   * since is simply not there). See the class doc for what it must never do.
   *
   * @throws IOException aborts the journal
   */
  void submit(List<Range> ranges) throws IOException;

  /**
   * Returns when every write the last {@link #submit} of this commit started has completed on the
   * device.
   *
   * @throws IOException aborts the journal
   */
  void await() throws IOException;
}
