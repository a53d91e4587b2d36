package io.ext4j.jbd2.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.jbd2.Handle;
import io.ext4j.jbd2.JournalBuffer;
import io.ext4j.jbd2.JournalException;
import io.ext4j.jbd2.OrderedData;
import io.ext4j.jbd2.WriteAccessPath;

/**
 * A handle: the calling thread's share of the running transaction. Confined to the thread that
 * started it; every field except {@code transaction} (read by the engine under its state lock) is
 * touched only by that thread.
 */
public final class HandleImpl implements Handle {
  private final JournalEngine engine;
  private final Thread owner;
  Transaction transaction; // owner thread; read by the engine while attaching/detaching
  int credits; // owner thread: buffer credits left
  private int revokeRecordsLeft; // owner thread
  private int revokeBlockCredits; // owner thread: credits taken for revoke blocks
  private int revokesUsed; // owner thread
  int ref = 1; // owner thread: nesting depth
  private boolean sync; // owner thread
  private boolean stopped; // owner thread

  HandleImpl(JournalEngine engine, int credits, int revokeRecords, int revokeBlocks) {
    this.engine = engine;
    this.owner = Thread.currentThread();
    this.credits = credits;
    this.revokeRecordsLeft = revokeRecords;
    this.revokeBlockCredits = revokeBlocks;
  }

  @Override
  public int tid() {
    return transaction.tid;
  }

  @Override
  public int credits() {
    return credits;
  }

  @Override
  public void getWriteAccess(JournalBuffer buffer) throws JournalException {
    access(engine.buffers.cast(buffer), false, false);
  }

  @Override
  public void getCreateAccess(JournalBuffer buffer) throws JournalException {
    access(engine.buffers.cast(buffer), false, true);
  }

  @Override
  public void getUndoAccess(JournalBuffer buffer) throws JournalException {
    BufferHead b = engine.buffers.cast(buffer);
    access(b, true, false);
    synchronized (b) {
      b.undoTransaction = transaction; // kept for this transaction until it commits
      if (b.committedData == null) {
        b.committedData = b.data.clone(); // the live data is still the last committed (or committing) image
      }
    }
  }

  /**
   * jbd2's do_get_write_access, with its lock-free fast path first. After it returns, the buffer
   * belongs to this handle's transaction (as owner or as next owner), its last committed image is
   * safe from the changes this handle is about to make, and no revoke of the block is pending in
   * this transaction.
   */
  private void access(BufferHead b, boolean undo, boolean create) throws JournalException {
    checkUsable();
    Transaction t = transaction;
    if (engine.options.writeAccessPath() == WriteAccessPath.LOCK_FREE_FAST_PATH && !undo) {
      // Volatile (acquire) reads. Once a buffer is attached to T it stays attached until T
      // commits, and T cannot commit while this handle is open; writers store modified/frozen
      // before publishing the pointer, so a positive answer is never stale. A buffer forgotten in
      // T (freed, perhaps revoked) needs the slow path to be taken back; so does any negative.
      if ((b.transaction == t || b.nextTransaction == t) && !b.forgotten) {
        if (create) {
          t.cancelRevoke(b.block);
        }
        return;
      }
    }
    checkPinned(b);
    synchronized (b) {
      if (b.transaction == t || b.nextTransaction == t) {
        // Already t's. If t forgot it, it is being reused: dirtyMetadata files it again.
        b.forgotten = false;
        b.freed = false;
      } else {
        b.modified = false; // first touch by t
        b.forgotten = false;
        b.freed = false;
        if (b.transaction == null) {
          b.jlist = BufferHead.JList.RESERVED;
          engine.listLock.lock();
          try {
            t.reserved.add(b);
          } finally {
            engine.listLock.unlock();
          }
          b.transaction = t; // volatile publish, after modified
        } else {
          // Owned by the committing transaction. If commit has not taken its image yet, freeze the
          // current contents for it: t may now change the live data.
          freezeForCommit(b);
          b.nextTransaction = t; // volatile publish, after modified and frozen
        }
      }
    }
    t.cancelRevoke(b.block); // a block journaled again must not stay revoked in t
  }

  /**
   * {@code b.modified} read without b's monitor, on the fast path only: after a volatile read of a
   * transaction pointer that showed the caller's transaction, it sees the value written before that
   * pointer was published (the class doc of {@link BufferHead}).
   */
  @SuppressWarnings("GuardedBy") // the documented lock-free read, ordered by the pointer's volatile read
  private static boolean modifiedSeenAfterPointer(BufferHead b) {
    return b.modified;
  }

  /** Keeps the committing transaction's image if commit has not copied it yet. Caller holds b's monitor. */
  @GuardedBy("b")
  private static void freezeForCommit(BufferHead b) {
    if (b.frozen == null && b.jlist == BufferHead.JList.METADATA) {
      b.frozen = b.data.clone();
    }
  }

  @Override
  public void dirtyMetadata(JournalBuffer buffer) throws JournalException {
    checkUsable();
    BufferHead b = engine.buffers.cast(buffer);
    Transaction t = transaction;
    if ((b.transaction == t || b.nextTransaction == t) && modifiedSeenAfterPointer(b)) {
      return; // acquire read of the pointer first, then modified: both were set by t's writers
    }
    synchronized (b) {
      if (b.transaction != t && b.nextTransaction != t) {
        throw new IllegalStateException("dirtyMetadata of " + b + " without write access in transaction " + t.tid);
      }
      if (!b.modified) {
        if (credits <= 0) {
          throw new IllegalStateException(engine.device.name() + ": handle in transaction "
              + Integer.toUnsignedString(t.tid) + " ran out of credits dirtying block " + b.block);
        }
        credits--;
        b.modified = true;
        if (b.transaction != t) {
          b.freed = false; // forgotten earlier in t while the committing transaction owned it, now reused
          b.forgotten = false;
        }
      }
      if (b.transaction == t && b.jlist != BufferHead.JList.METADATA) {
        engine.listLock.lock();
        try {
          t.reserved.remove(b);
          t.forget.remove(b);
          t.metadata.add(b);
        } finally {
          engine.listLock.unlock();
        }
        b.jlist = BufferHead.JList.METADATA;
        b.forgotten = false;
      }
      // Owned by the committing transaction with nextTransaction == t: commit refiles it to t.
    }
  }

  @Override
  public void forget(JournalBuffer buffer) throws JournalException {
    checkUsable();
    BufferHead b = engine.buffers.cast(buffer);
    checkPinned(b);
    Transaction t = transaction;
    synchronized (b) {
      if ((b.transaction == t || b.nextTransaction == t) && b.modified) {
        credits++; // t had charged for it
      }
      b.modified = false; // whoever set it, the buffer carries no change of t any more
      if (b.transaction == t) {
        engine.listLock.lock();
        try {
          t.metadata.remove(b);
          t.reserved.remove(b);
          if (b.cpTransaction != null) {
            t.forget.add(b); // t's commit drops the older checkpoint claim
            b.jlist = BufferHead.JList.FORGET;
            b.forgotten = true;
          } else {
            b.jlist = BufferHead.JList.NONE;
            b.forgotten = false;
            b.transaction = null;
          }
        } finally {
          engine.listLock.unlock();
        }
      } else if (b.transaction != null) {
        // The committing transaction owns it; its image must not change under it if t reuses the
        // block. Commit files it on t's forget list.
        freezeForCommit(b);
        b.freed = true;
        b.forgotten = true;
        b.nextTransaction = t;
      } else {
        engine.listLock.lock();
        try {
          if (b.cpTransaction != null) {
            t.forget.add(b);
            b.jlist = BufferHead.JList.FORGET;
            b.forgotten = true;
            b.transaction = t;
          }
        } finally {
          engine.listLock.unlock();
        }
      }
    }
  }

  @Override
  public void revoke(long block) throws JournalException {
    checkUsable();
    if (revokeRecordsLeft <= 0) {
      throw new IllegalStateException("handle revokes more blocks than declared at start");
    }
    revokeRecordsLeft--;
    revokesUsed++;
    transaction.addRevoke(block);
    BufferHead b = peekPinned(block); // pinned while it works: forget may attach state
    if (b != null) {
      try {
        forget(b);
      } finally {
        b.release();
      }
    }
  }

  @Override
  public boolean extend(int more) throws JournalException {
    checkUsable();
    if (more < 0) {
      throw new IllegalArgumentException("negative credits " + more);
    }
    if (engine.extend(this, more)) {
      credits += more;
      return true;
    }
    return false;
  }

  @Override
  public void restart(int newCredits) throws JournalException {
    restart(newCredits, 0);
  }

  @Override
  public void restart(int newCredits, int revokeRecords) throws JournalException {
    checkUsable();
    if (ref != 1) {
      throw new IllegalStateException("restart of a nested handle");
    }
    int revokeBlocks = engine.checkHandleCredits(newCredits, revokeRecords);
    engine.detach(this, unusedCredits(), true, true); // and ask the commit thread to commit the old transaction
    credits = newCredits;
    revokeBlockCredits = revokeBlocks;
    revokeRecordsLeft = revokeRecords;
    revokesUsed = 0;
    try {
      engine.attach(this, newCredits + revokeBlocks);
    } catch (JournalException | RuntimeException failure) {
      stopped = true; // detached from the old transaction and not attached to a new one
      engine.currentHandle.remove();
      throw failure;
    }
  }

  @Override
  public void setSync(boolean sync) {
    this.sync = sync;
  }

  @Override
  public void addOrderedData(OrderedData owner, long first, long count) {
    if (stopped) {
      throw new IllegalStateException("addOrderedData on a stopped handle: its transaction may have committed already");
    }
    if (engine.options.asyncCommit()) {
      throw new UnsupportedOperationException("ordered data is refused with async commit: the commit block could"
          + " become durable before the data it depends on");
    }
    java.util.Objects.requireNonNull(owner, "owner");
    new OrderedData.Range(first, count); // validates
    transaction.addOrdered(owner, first, count); // attached: the transaction has not reached FLUSH
  }

  @Override
  public void stop() throws JournalException {
    if (Thread.currentThread() != owner) {
      throw new IllegalStateException("handle stopped by " + Thread.currentThread().getName() + ", started by " + owner.getName());
    }
    if (stopped) {
      throw new IllegalStateException("handle already stopped");
    }
    if (--ref > 0) {
      return;
    }
    stopped = true;
    engine.currentHandle.remove();
    Transaction t = transaction;
    boolean waitForCommit = sync;
    if (sync && !engine.isAborted()) {
      engine.options.batchingPolicy().onSyncStop(engine.batchContext(t));
    }
    boolean queued = engine.detach(this, unusedCredits(), sync, false);
    if (waitForCommit) {
      engine.commits.commitNowOrWait(t.tid, true, queued);
    } else {
      engine.checkNotAborted();
    }
  }

  /** The cached buffer of {@code block}, pinned, or null when it is not cached. */
  private BufferHead peekPinned(long block) {
    try {
      return engine.buffers.peek(block);
    } catch (java.io.IOException e) {
      return null; // a read of it failed in another thread: it is not cached, so there is nothing to forget
    }
  }

  /**
   * Journal state goes only on pinned blocks (see {@link BufferHead}): an unpinned one may be evicted
   * at any moment, taking the state with it. A caller that released its buffer must get it again.
   */
  private static void checkPinned(BufferHead b) {
    if (!b.cached.isPinned()) {
      throw new IllegalStateException(b + " is used after its release(): get it again with Journal.buffer");
    }
  }

  /**
   * A nested start asking for {@code wanted} credits and {@code wantedRevokes} revoke records: makes
   * sure this handle has at least that many left, extending it in its transaction, then nests.
   *
   * @throws IllegalStateException if the transaction cannot give the missing credits (full, or its
   *     commit has locked it); the handle is left as it was
   */
  void nest(int wanted, int wantedRevokes) {
    int perBlock = engine.format.revokeRecordsPerBlock();
    int moreCredits = Math.max(0, wanted - credits);
    int newRevokesLeft = Math.max(revokeRecordsLeft, wantedRevokes);
    int revokeBlocksNeeded = (revokesUsed + newRevokesLeft + perBlock - 1) / perBlock;
    int moreRevokeBlocks = Math.max(0, revokeBlocksNeeded - revokeBlockCredits);
    int more = moreCredits + moreRevokeBlocks;
    if (more > 0 && !engine.extend(this, more)) {
      throw new IllegalStateException(engine.device.name() + ": nested start(" + wanted + ", " + wantedRevokes
          + ") inside a handle with " + credits + " credits and " + revokeRecordsLeft + " revoke records left needs "
          + more + " more credits, which transaction " + Integer.toUnsignedString(transaction.tid)
          + " cannot give (it is full, or its commit has begun); start the outer handle with enough credits");
    }
    credits += moreCredits;
    revokeBlockCredits += moreRevokeBlocks;
    revokeRecordsLeft = newRevokesLeft;
    ref++;
  }

  /** Credits this handle holds in its transaction: buffer credits plus those taken for revoke blocks. */
  int heldCredits() {
    return credits + revokeBlockCredits;
  }

  private int unusedCredits() {
    int perBlock = engine.format.revokeRecordsPerBlock();
    int usedRevokeBlocks = (revokesUsed + perBlock - 1) / perBlock;
    return credits + Math.max(0, revokeBlockCredits - usedRevokeBlocks);
  }

  private void checkUsable() throws JournalException {
    if (stopped) {
      throw new IllegalStateException("handle already stopped");
    }
    engine.checkNotAborted();
  }
}
