package io.ext4j.jbd2.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.jbd2.JournalAbortedException;
import io.ext4j.jbd2.OrderedData;
import io.ext4j.jbd2.format.BlockTag;
import io.ext4j.jbd2.format.CommitBlock;
import io.ext4j.jbd2.format.DescriptorBlock;
import io.ext4j.jbd2.format.JournalHeader;
import io.ext4j.jbd2.format.RevokeBlock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The commit thread's work: wait for a commit request or the commit interval, then take the running
 * transaction through LOCKED → SWITCH → FLUSH → COMMIT → COMMIT_JFLUSH → COMMIT_CALLBACK → FINISHED.
 *
 * <h2>Durability</h2>
 * A transaction's log blocks are written, then (sync commit) the device is flushed, the commit block
 * written and the device flushed again — the two flushes stand in for jbd2's PREFLUSH|FUA commit
 * write; or (async commit) the commit block is written with the log blocks and one flush follows,
 * relying on checksums to expose a commit block that landed without its transaction. Only after
 * that final flush returns is the tid published as committed and its waiters released. Ordered data
 * is submitted at FLUSH, overlaps the log writes, and is awaited before the first flush, so it is
 * durable before the commit block can be (see {@link io.ext4j.jbd2.OrderedData} for the contract its
 * owners keep: no filesystem locks, no handles, no journal waits).
 *
 * <h2>Frozen images</h2>
 * Commit copies each buffer's image under the buffer's monitor and marks it LOGGED; a newer
 * transaction that asks for write access before that copy freezes the old contents for commit to
 * use, and one that asks after needs nothing, because the log I/O reads commit's private copy. This
 * replaces jbd2's BH_Shadow wait with one block copy.
 */
final class CommitProcess {
  private final JournalEngine e;
  /**
   * Block arrays of earlier commits, reused for log images, descriptors and commit blocks (commit
   * mutex): fresh arrays cost a cache miss per line on every commit, which a lone writer pays right
   * after waking from its flush.
   */
  private final ArrayDeque<byte[]> spare = new ArrayDeque<>();
  private static final int SPARE_LIMIT = 256;
  /** EWMA of commit times, as jbd2's j_average_commit_time; written by the commit mutex holder, read bare. */
  private volatile long averageCommitNanos;
  /** Handles of the last committed transaction (for batching); written by the commit mutex holder, read bare. */
  private volatile int previousCommitHandles;

  CommitProcess(JournalEngine engine) {
    this.e = engine;
  }

  long averageCommitNanos() {
    return averageCommitNanos;
  }

  int previousCommitHandles() {
    return previousCommitHandles;
  }

  private byte[] block() {
    byte[] b = spare.poll();
    return b != null ? b : new byte[e.device.blockSize()];
  }

  private void recycle(byte[] b) {
    if (b != null && spare.size() < SPARE_LIMIT) {
      spare.push(b);
    }
  }

  /** The commit thread's loop. */
  void run() {
    while (awaitWork()) {
      e.commitMutex.lock(); // a leader may be committing right now; then there may be nothing left
      try {
        Transaction t = pickWork();
        if (t != null) {
          commit(t);
        }
      } catch (Throwable failure) {
        e.abort(failure);
        return;
      } finally {
        e.commitMutex.unlock();
      }
    }
  }

  /** Waits until a commit is requested or the running transaction expires; false when closing or aborted. */
  private boolean awaitWork() {
    e.stateLock.lock();
    try {
      while (true) {
        if (e.isAborted()) {
          return false;
        }
        Transaction r = e.runningLocked();
        long now = e.options.clock().nanoTime();
        if (r != null && (e.commitRequestLocked() == r.tid || (r.handleCount > 0 && now - r.expiresNanos >= 0))) {
          return true;
        }
        if (e.closingLocked() && (r == null || r.handleCount == 0)) {
          return false;
        }
        // Sleep until the running transaction expires, or one commit interval: never past the expiry
        // of a transaction that starts while we sleep (attach does not wake this thread).
        long wait = r != null && now - r.expiresNanos < 0 ? r.expiresNanos - now : e.options.commitInterval().toNanos();
        try {
          JournalEngine.awaitNanos(e.commitWake, Math.max(wait, 1_000_000L));
        } catch (java.io.InterruptedIOException ignored) {
          Thread.interrupted(); // the commit thread is never interrupted by ext4j; keep serving
        }
      }
    } finally {
      e.stateLock.unlock();
    }
  }

  /** The running transaction if it was requested or has expired, marking the request; else null. */
  private Transaction pickWork() {
    e.stateLock.lock();
    try {
      Transaction r = e.runningLocked();
      long now = e.options.clock().nanoTime();
      if (r != null && r.state() == TransactionState.RUNNING
          && (e.commitRequestLocked() == r.tid || (r.handleCount > 0 && now - r.expiresNanos >= 0))) {
        e.markCommitRequestedLocked(r.tid);
        return r;
      }
      return null;
    } finally {
      e.stateLock.unlock();
    }
  }

  /** Commits {@code t}, the running transaction. Caller holds the commit mutex and no handle. */
  void commit(Transaction t) throws IOException {
    assert e.commitMutex.isHeldByCurrentThread();
    e.options.batchingPolicy().beforeCommit(e.batchContext(t));
    Switched switched = lockAndSwitch(t);
    pointSuperblockAt(t);
    // Ordered data: start every owner's writes now, wait for them after the log writes (below).
    Map<OrderedData, List<OrderedData.Range>> ordered = submitOrderedData(t);
    long commitAt = e.options.clock().nanoTime();
    e.advance(t, TransactionState.COMMIT);

    List<BufferHead> buffers = metadataBuffers(t);
    LogImages log = encodeLog(t, buffers);
    if (e.options.asyncCommit()) { // no ordered data: refused with async commit
      writeLogAndCommitBlock(t, log);
    } else {
      writeLogBlocks(log);
      awaitOrderedData(ordered.keySet());
      flushBeforeCommitBlock(t);
      writeCommitBlockAndFlush(t, log);
    }
    t.loggedBlocks = log.total();
    t.metadataBlocks = buffers.size();

    // Durable. Move buffers to this transaction's checkpoint list and on to their next owner.
    boolean[] kept = checkpointAndRefile(t, buffers, log.unescaped());
    recycleLogImages(log, kept);
    refileForgotten(t);
    queueForCheckpoint(t);

    publishCommitted(t, switched, commitAt);
    notifyCommitted(t);
    e.advance(t, TransactionState.FINISHED);
    e.checkpointer.afterCommit();
  }

  /** When {@code t} reached LOCKED and SWITCH, and when it left the state lock at FLUSH (clock nanos). */
  private record Switched(long lockedAt, long switchedAt, long flushAt) {}

  /**
   * A commit's log blocks: where each goes and its image — the revoke blocks, then each descriptor
   * followed by its buffers' images, then the commit block — and each buffer's image before escaping.
   */
  private record LogImages(long[] where, ByteBuffer[] images, byte[][] unescaped, int revokeBlocks, int perDescriptor,
      int descriptors) {
    int total() {
      return images.length;
    }
  }

  /**
   * LOCKED → SWITCH → FLUSH under the state lock: waits until no handle updates {@code t}, drops its
   * reserved buffers, makes it the committing transaction and wakes handles waiting for LOCKED → FLUSH.
   */
  private Switched lockAndSwitch(Transaction t) throws JournalAbortedException {
    long lockedAt;
    long switchedAt;
    e.stateLock.lock();
    try {
      e.advanceLocked(t, TransactionState.LOCKED);
      lockedAt = e.options.clock().nanoTime();
      while (t.updates > 0) {
        JournalEngine.awaitUninterruptibly(e.updatesDone);
      }
      e.checkNotAborted();
      e.advanceLocked(t, TransactionState.SWITCH);
      switchedAt = e.options.clock().nanoTime();
      releaseReserved(t);
      e.advanceLocked(t, TransactionState.FLUSH);
      e.switchToCommittingLocked(t);
      e.transactionUnlocked.signalAll();
    } finally {
      e.stateLock.unlock();
    }
    long flushAt = e.options.clock().nanoTime();
    return new Switched(lockedAt, switchedAt, flushAt);
  }

  private void pointSuperblockAt(Transaction t) throws IOException {
    // A clean superblock must point at this transaction before its commit block can matter; the
    // commit's flush makes the two durable together.
    e.checkpointMutex.lock();
    try {
      e.superblock.beginUse(t.tid, t.logStart);
    } finally {
      e.checkpointMutex.unlock();
    }
  }

  /** Starts every ordered-data owner's writes; returns the owners and their ranges. */
  private static Map<OrderedData, List<OrderedData.Range>> submitOrderedData(Transaction t) throws IOException {
    Map<OrderedData, List<OrderedData.Range>> ordered = t.orderedSnapshot();
    for (Map.Entry<OrderedData, List<OrderedData.Range>> o : ordered.entrySet()) {
      o.getKey().submit(o.getValue());
    }
    return ordered;
  }

  /** A copy of {@code t}'s metadata list, in commit order. */
  private List<BufferHead> metadataBuffers(Transaction t) {
    e.listLock.lock();
    try {
      return new ArrayList<>(t.metadata);
    } finally {
      e.listLock.unlock();
    }
  }

  /** Takes the log blocks {@code t} needs and encodes the revoke, descriptor, metadata and commit blocks. */
  private LogImages encodeLog(Transaction t, List<BufferHead> buffers) {
    long[] revoked = t.revokedBlocks();
    int perRevoke = e.format.revokeRecordsPerBlock();
    int revokeBlocks = (revoked.length + perRevoke - 1) / perRevoke;
    int perDescriptor = e.format.tagsPerDescriptor();
    int descriptors = (buffers.size() + perDescriptor - 1) / perDescriptor;
    int total = revokeBlocks + descriptors + buffers.size() + 1;

    long[] where = allocate(t, total);
    ByteBuffer[] images = new ByteBuffer[total];
    int at = encodeRevokeBlocks(t, revoked, perRevoke, images);
    byte[][] unescaped = new byte[buffers.size()][];
    at = encodeMetadataBlocks(t, buffers, perDescriptor, images, at, unescaped);
    images[at++] = encodeCommitBlock(t);
    assert at == total;
    return new LogImages(where, images, unescaped, revokeBlocks, perDescriptor, descriptors);
  }

  /** Encodes {@code t}'s revoke records into {@code images} from slot 0; returns the next free slot. */
  private int encodeRevokeBlocks(Transaction t, long[] revoked, int perRevoke, ByteBuffer[] images) {
    int at = 0;
    for (int i = 0; i < revoked.length; i += perRevoke) {
      images[at++] = RevokeBlock.encode(e.format, t.tid, revoked, i, Math.min(revoked.length, i + perRevoke));
    }
    return at;
  }

  /**
   * Encodes each descriptor followed by its (up to {@code perDescriptor}) buffers' log images into
   * {@code images} from slot {@code at}, escaping an image that starts with the journal magic, and keeps each unescaped image
   * in {@code unescaped}; returns the next free slot.
   */
  private int encodeMetadataBlocks(Transaction t, List<BufferHead> buffers, int perDescriptor, ByteBuffer[] images,
      int at, byte[][] unescaped) {
    for (int first = 0; first < buffers.size(); first += perDescriptor) {
      int last = Math.min(buffers.size(), first + perDescriptor);
      int descriptorSlot = at++;
      List<BlockTag> tags = new ArrayList<>(last - first);
      for (int i = first; i < last; i++) {
        BufferHead b = buffers.get(i);
        byte[] image = takeImage(b, t);
        unescaped[i] = image;
        int flags = 0;
        byte[] logged = image;
        if (ByteBuffer.wrap(image).getInt(0) == JournalHeader.MAGIC) {
          logged = block();
          System.arraycopy(image, 0, logged, 0, logged.length);
          logged[0] = logged[1] = logged[2] = logged[3] = 0;
          flags = BlockTag.FLAG_ESCAPE;
        }
        ByteBuffer img = ByteBuffer.wrap(logged);
        int checksum = e.format.checksummed() ? e.format.dataBlockChecksum(t.tid, img) : 0;
        tags.add(new BlockTag(b.block, flags, checksum));
        images[at++] = img;
      }
      images[descriptorSlot] = DescriptorBlock.encode(e.format, t.tid, tags, block());
    }
    return at;
  }

  /** {@code t}'s commit block, stamped with the clock's time now. */
  private ByteBuffer encodeCommitBlock(Transaction t) {
    Instant now = e.options.clock().now();
    return CommitBlock.encode(e.format, t.tid, now.getEpochSecond(), now.getNano(), block());
  }

  /** Async commit: every log block and the commit block written, then the one flush. */
  private void writeLogAndCommitBlock(Transaction t, LogImages log) throws IOException {
    e.writeLog(log.where(), log.images(), log.total()); // the commit block goes with the rest, in one vectored write when contiguous
    e.advance(t, TransactionState.COMMIT_JFLUSH); // before the one flush: it covers only what was written before it began
    e.flushDevice();
  }

  /** Sync commit: every log block but the commit block. */
  private void writeLogBlocks(LogImages log) throws IOException {
    e.writeLog(log.where(), log.images(), log.total() - 1);
  }

  /** Sync commit: waits for each ordered-data owner's writes. */
  private static void awaitOrderedData(Set<OrderedData> owners) throws IOException {
    for (OrderedData owner : owners) {
      owner.await(); // its data is on the device before the pre-commit flush, which precedes the commit block
    }
  }

  /** Sync commit: the flush that makes the log blocks and ordered data durable before the commit block is written. */
  private void flushBeforeCommitBlock(Transaction t) throws IOException {
    e.advance(t, TransactionState.COMMIT_DFLUSH);
    e.flushDevice();
  }

  /** Sync commit: the commit block, then the flush that makes it durable. */
  private void writeCommitBlockAndFlush(Transaction t, LogImages log) throws IOException {
    int total = log.total();
    e.advance(t, TransactionState.COMMIT_JFLUSH); // before the last flush begins (commitWillFlush)
    e.writeLog(new long[] {log.where()[total - 1]}, new ByteBuffer[] {log.images()[total - 1]}, 1);
    e.flushDevice();
  }

  /**
   * Moves each logged buffer's checkpoint claim to {@code t}, settles its undo image and refiles it;
   * returns which unescaped images are kept as committed data.
   */
  private boolean[] checkpointAndRefile(Transaction t, List<BufferHead> buffers, byte[][] unescaped) {
    boolean[] kept = new boolean[buffers.size()];
    for (int i = 0; i < buffers.size(); i++) {
      BufferHead b = buffers.get(i);
      synchronized (b) {
        claimCheckpoint(b, t);
        if (b.committedData != null) {
          if (b.undoTransaction != null && b.undoTransaction != t) {
            // A newer transaction asked for undo access: it needs the image that just became durable.
            b.committedData = unescaped[i]; // kept: recycleLogImages leaves it
            kept[i] = true;
          } else {
            releaseUndo(b, t); // nobody newer wants it: the live data is the committed image now
          }
        }
        refile(b, t);
      }
    }
    return kept;
  }

  private void recycleLogImages(LogImages log, boolean[] kept) {
    byte[][] unescaped = log.unescaped();
    ByteBuffer[] images = log.images();
    int revokeBlocks = log.revokeBlocks();
    int perDescriptor = log.perDescriptor();
    // The device has the log images (writes are synchronous); their arrays serve the next commit,
    // except an image kept as committed data.
    for (int i = 0; i < unescaped.length; i++) {
      byte[] logged = images[revokeBlocks + 1 + i + i / perDescriptor].array();
      if (logged != unescaped[i]) {
        recycle(logged); // an escaped copy
      }
      if (!kept[i]) {
        recycle(unescaped[i]);
      }
    }
    for (int d = 0; d < log.descriptors(); d++) {
      recycle(images[revokeBlocks + d * (perDescriptor + 1)].array());
    }
    recycle(images[log.total() - 1].array());
  }

  /** Takes {@code t}'s forget list: each buffer loses its undo image and its checkpoint claim, and is refiled. */
  private void refileForgotten(Transaction t) {
    List<BufferHead> forgotten;
    e.listLock.lock();
    try {
      forgotten = new ArrayList<>(t.forget);
      t.forget.clear();
    } finally {
      e.listLock.unlock();
    }
    for (BufferHead b : forgotten) {
      synchronized (b) {
        releaseUndo(b, t);
        e.listLock.lock();
        try {
          if (b.cpTransaction != null) {
            b.cpTransaction.checkpoint.remove(b);
            if (b.cpTransaction.checkpoint.isEmpty()) {
              e.checkpointer.removeLocked(b.cpTransaction);
            }
            b.cpTransaction = null;
          }
        } finally {
          e.listLock.unlock();
        }
        refile(b, t);
      }
    }
  }

  /** Hands {@code t} to the checkpointer if it has buffers to write home. */
  private void queueForCheckpoint(Transaction t) {
    e.listLock.lock();
    try {
      if (!t.checkpoint.isEmpty()) {
        e.checkpointer.queueLocked(t);
      }
    } finally {
      e.listLock.unlock();
    }
  }

  /**
   * COMMIT_CALLBACK under the state lock: ends the commit, updates the averages and statistics and
   * publishes {@code t} as committed.
   */
  private void publishCommitted(Transaction t, Switched switched, long commitAt) {
    long doneAt;
    e.stateLock.lock();
    try {
      e.advanceLocked(t, TransactionState.COMMIT_CALLBACK);
      e.finishCommittingLocked(t);
      doneAt = e.options.clock().nanoTime();
      long commitTime = doneAt - switched.flushAt();
      long avg = averageCommitNanos;
      averageCommitNanos = avg == 0 ? commitTime : (commitTime + 3 * avg) / 4;
      previousCommitHandles = t.handleCount;
      e.forgetOldWritersLocked(t.tid);
      // counted before it is published: a snapshot taken once a commit wait or check returns includes it
      e.stats.commit(t, switched.lockedAt(), switched.switchedAt(), switched.flushAt(), commitAt, doneAt); // the stats lock nests inside
      e.commits.publish(t);
      e.spaceFreed.signalAll();
    } finally {
      e.stateLock.unlock();
    }
  }

  /** Wakes {@code t}'s commit waiters, then tells the commit listeners. */
  private void notifyCommitted(Transaction t) {
    e.commits.wake(t);
    for (io.ext4j.jbd2.CommitListener l : e.commitListeners) {
      l.committed(t.tid); // in tid order: commits are serial (commit mutex); a throw aborts the journal
    }
  }

  /** Takes {@code total} consecutive-in-log blocks from the head, charging the transaction's reserve. */
  private long[] allocate(Transaction t, int total) {
    e.stateLock.lock();
    try {
      return e.takeLogBlocksLocked(t, total);
    } finally {
      e.stateLock.unlock();
    }
  }

  /** Buffers that got write access but were never dirtied leave the transaction at SWITCH. */
  private void releaseReserved(Transaction t) {
    List<BufferHead> reserved;
    e.listLock.lock();
    try {
      reserved = new ArrayList<>(t.reserved);
      t.reserved.clear();
    } finally {
      e.listLock.unlock();
    }
    for (BufferHead b : reserved) {
      synchronized (b) {
        if (b.transaction == t && b.jlist == BufferHead.JList.RESERVED) {
          releaseUndo(b, t); // undo access that t never used
          b.jlist = BufferHead.JList.NONE;
          b.transaction = null;
        }
      }
    }
  }

  /**
   * Drops the buffer's committed image if {@code t} was the newest transaction that wanted it (jbd2
   * frees b_committed_data at commit unless a newer transaction holds a frozen copy). Caller holds
   * the buffer's monitor.
   */
  @GuardedBy("b")
  private static void releaseUndo(BufferHead b, Transaction t) {
    if (b.undoTransaction == t || b.undoTransaction == null) {
      b.committedData = null;
      b.undoTransaction = null;
    }
  }

  /** The image to log: the frozen copy if a newer transaction made one, else a copy of the live data. */
  private byte[] takeImage(BufferHead b, Transaction t) {
    synchronized (b) {
      byte[] image = b.frozen;
      if (image == null) {
        image = block();
        System.arraycopy(b.data, 0, image, 0, image.length);
      }
      b.frozen = null;
      if (b.transaction == t) {
        b.jlist = BufferHead.JList.LOGGED;
      }
      return image;
    }
  }

  /** Moves the buffer's checkpoint claim to {@code t}. Caller holds the buffer's monitor. */
  @GuardedBy("b")
  private void claimCheckpoint(BufferHead b, Transaction t) {
    e.listLock.lock();
    try {
      Transaction old = b.cpTransaction;
      if (old != null && old != t) {
        old.checkpoint.remove(b);
        if (old.checkpoint.isEmpty()) {
          e.checkpointer.removeLocked(old);
        }
      }
      b.cpTransaction = t;
      t.checkpoint.add(b);
    } finally {
      e.listLock.unlock();
    }
  }

  /** Hands the buffer to its next transaction, or unfiles it. Caller holds the buffer's monitor. */
  @GuardedBy("b")
  private void refile(BufferHead b, Transaction t) {
    if (b.transaction != t) {
      return;
    }
    Transaction next = b.nextTransaction;
    if (next == null) {
      b.jlist = BufferHead.JList.NONE;
      b.forgotten = false;
      b.transaction = null;
      return;
    }
    e.listLock.lock();
    try {
      if (b.freed) {
        next.forget.add(b);
        b.jlist = BufferHead.JList.FORGET;
      } else if (b.modified) {
        next.metadata.add(b);
        b.jlist = BufferHead.JList.METADATA;
      } else {
        next.reserved.add(b);
        b.jlist = BufferHead.JList.RESERVED;
      }
    } finally {
      e.listLock.unlock();
    }
    b.forgotten = b.freed; // forgotten by next: stays on next's forget list until taken back
    b.freed = false;
    b.transaction = next; // publish the new owner before clearing next (a racing fast path sees one of them)
    b.nextTransaction = null;
  }
}
