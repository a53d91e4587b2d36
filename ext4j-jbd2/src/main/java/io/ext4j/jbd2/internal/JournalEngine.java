package io.ext4j.jbd2.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.BlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.jbd2.BatchContext;
import io.ext4j.jbd2.JournalAbortedException;
import io.ext4j.jbd2.JournalException;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.jbd2.JournalStats;
import io.ext4j.jbd2.Tid;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.jbd2.format.LogFormat;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The running journal: transactions, handles, the commit thread and the checkpointer, over one
 * device. {@link io.ext4j.jbd2.Journal} is its public face; see that class for the overview.
 *
 * <h2>Who writes what</h2>
 * The engine's mutable state is private here and changes only through its methods, each of which
 * asserts the lock that guards it: the running and committing slots, tids, commit requests, log
 * cursors, the barrier and batch-waiter counts (state lock). Elsewhere: the superblock image in
 * {@link SuperblockWriter} (checkpoint mutex), the checkpoint list in {@link Checkpointer} (list
 * lock), the commit-time averages in {@link CommitProcess} (the commit mutex holder), the commit
 * sequence in {@link CommitWaits}.
 *
 * <h2>Locks, in the only order they are taken</h2>
 * {@code commitMutex} → {@code checkpointMutex} → {@code stateLock} → a buffer's monitor →
 * {@code listLock}.
 * <ul>
 *   <li>{@code commitMutex}: one transaction commits at a time, in the commit thread or in a
 *       synchronous caller that found no commit under way (a leader: the lone writer's commit runs
 *       in its own thread, saving two thread hand-offs per operation).
 *   <li>{@code stateLock}: running/committing transactions, tids and commit requests, the log cursors
 *       ({@link LogSpace}), transaction states and their handle counts and credits.
 *   <li>buffer monitor: the journal fields of one {@link BufferHead}.
 *   <li>{@code listLock}: every transaction's buffer lists and the checkpoint list.
 *   <li>{@code checkpointMutex}: home writes, tail moves and every journal superblock write.
 * </ul>
 */
public final class JournalEngine {
  final BlockDevice device;
  final JournalMap map;
  final JournalOptions options;
  final LogFormat format;
  final int maxTransactionBuffers;
  final int overheadBuffers;
  final int maxHandleCredits;

  final ReentrantLock stateLock = new ReentrantLock();
  final Condition commitWake = stateLock.newCondition(); // commit thread sleeps here
  final Condition transactionUnlocked = stateLock.newCondition(); // handles waiting for LOCKED -> FLUSH
  final Condition updatesDone = stateLock.newCondition(); // commit waiting for open handles
  final Condition handleJoined = stateLock.newCondition(); // batching waits
  final Condition spaceFreed = stateLock.newCondition(); // handles waiting for log space
  final ReentrantLock listLock = new ReentrantLock();
  final ReentrantLock checkpointMutex = new ReentrantLock();
  final ReentrantLock commitMutex = new ReentrantLock(); // held by whoever commits: the commit thread or a leader

  @GuardedBy("stateLock") private Transaction running;
  @GuardedBy("stateLock") private Transaction committing;
  @GuardedBy("stateLock") private int nextTid; // the tid the next new transaction gets
  @GuardedBy("stateLock") private int commitRequest;
  private final LogSpace log; // stateLock (its cursors; its size is constant)
  @GuardedBy("stateLock") private int tailSequence; // tid of the oldest transaction still in the log
  @GuardedBy("stateLock") private int batchWaiters; // threads in awaitWriters
  /** Each thread that joined a recent transaction → the tid it last joined (the older ones forgotten after each commit). */
  @GuardedBy("stateLock")
  private final java.util.IdentityHashMap<Thread, Integer> lastJoined = new java.util.IdentityHashMap<>();
  @GuardedBy("stateLock") private boolean closing;
  @GuardedBy("stateLock") private int barriers; // flushes and closes under way; new handles wait while > 0

  /** Every superblock write (checkpoint mutex). */
  final SuperblockWriter superblock;

  /** The s_errno ext4j records on abort: -EIO, as ext4 passes to jbd2 for I/O errors. */
  static final int ABORT_ERRNO = -5;

  private volatile Thread lastSyncWriter; // heuristic only, racy by design (as in jbd2): swapLastSyncWriter
  private volatile Throwable abortCause; // first failure wins, under stateLock
  private volatile boolean abortUnrecorded; // the abort was a shutdown: s_errno is left as it is; set with abortCause, under stateLock

  final JournalBuffers buffers;
  private final Runnable onCachePressure; // registered with the cache while the engine runs
  @SuppressWarnings("ThreadLocalUsage") // per journal on purpose: a thread may hold handles of two journals
  final ThreadLocal<HandleImpl> currentHandle = new ThreadLocal<>();
  /** Called by the committer after each publish, in tid order (see {@link io.ext4j.jbd2.CommitListener}). */
  final java.util.concurrent.CopyOnWriteArrayList<io.ext4j.jbd2.CommitListener> commitListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  final StatsCollector stats;
  final CommitProcess commitProcess;
  final CommitWaits commits;
  final Checkpointer checkpointer;
  private final Thread commitThread;
  private final Thread checkpointThread;

  /**
   * Starts an engine over a journal whose log is empty (clean, or just recovered).
   *
   * @param sb the superblock as it should stand: clean ({@code s_start == 0}), with the features
   *     this engine will write, {@code s_sequence} the first tid to use; it is written and flushed
   *     before this constructor returns
   * @param cache the block cache of {@code device} the engine keeps its buffers in, or null for one
   *     of its own ({@link JournalBuffers#ownCache})
   */
  public JournalEngine(BlockDevice device, JournalMap map, JournalSuperblock sb, JournalOptions options, BlockCache cache)
      throws IOException {
    this.device = device;
    this.map = map;
    this.options = options;
    this.format = sb.logFormat();
    this.log = new LogSpace(sb.first(), sb.logEnd());
    log.reset(sb.first()); // jbd2 without JBD2_CYCLE_RECORD: an empty log starts at s_first
    int defaultMax = (int) Math.min(Integer.MAX_VALUE, log.size() / 4);
    this.maxTransactionBuffers = options.maxTransactionBuffers() == 0 ? defaultMax : Math.min(defaultMax, options.maxTransactionBuffers());
    int tagsPerDescriptor = format.tagsPerDescriptor();
    this.overheadBuffers = 1 + (maxTransactionBuffers + tagsPerDescriptor - 1) / tagsPerDescriptor;
    this.maxHandleCredits = maxTransactionBuffers - overheadBuffers;
    if (maxHandleCredits < 8) {
      throw new IllegalArgumentException("journal of " + log.size() + " log blocks leaves handles only " + maxHandleCredits + " credits");
    }
    this.nextTid = sb.sequence();
    this.commitRequest = nextTid - 1;
    this.commits = new CommitWaits(this, nextTid - 1, options.commitWakeup());
    this.tailSequence = nextTid;
    this.stats = new StatsCollector(maxTransactionBuffers);
    if (cache != null && cache.device() != device) {
      throw new IllegalArgumentException("the block cache is of " + cache.device().name() + ", not of the journal's device "
          + device.name());
    }
    this.buffers = new JournalBuffers(cache != null ? cache : JournalBuffers.ownCache(device, log.size()));
    this.superblock = new SuperblockWriter(device, map, checkpointMutex, sb); // writes it
    flushDevice();
    this.commitProcess = new CommitProcess(this);
    this.checkpointer = new Checkpointer(this);
    this.commitThread = Thread.ofPlatform().name("ext4j-jbd2-commit-" + device.name()).daemon().unstarted(commitProcess::run);
    this.checkpointThread = Thread.ofPlatform().name("ext4j-jbd2-checkpoint-" + device.name()).daemon().unstarted(checkpointer::run);
    commitThread.start();
    checkpointThread.start();
    this.onCachePressure = checkpointer::wake; // non-blocking: a volatile write and an unpark
    buffers.cache().addPressureListener(onCachePressure);
  }

  // ---------------------------------------------------------------- handles

  /** Starts (or nests) a handle for the calling thread. */
  public HandleImpl start(int credits, int revokeRecords) throws JournalException {
    int revokeBlocks = checkHandleCredits(credits, revokeRecords);
    HandleImpl current = currentHandle.get();
    if (current != null) {
      current.nest(credits, revokeRecords);
      return current;
    }
    HandleImpl h = new HandleImpl(this, credits, revokeRecords, revokeBlocks);
    attach(h, credits + revokeBlocks);
    currentHandle.set(h);
    return h;
  }

  /**
   * Checks a handle's request against the per-handle maximum; returns the revoke blocks it needs.
   *
   * @throws IllegalArgumentException if negative or too many
   */
  int checkHandleCredits(int credits, int revokeRecords) {
    if (credits < 0 || revokeRecords < 0) {
      throw new IllegalArgumentException("negative credits " + credits + "/" + revokeRecords);
    }
    int revokeBlocks = (int) (((long) revokeRecords + format.revokeRecordsPerBlock() - 1) / format.revokeRecordsPerBlock());
    if ((long) credits + revokeBlocks > maxHandleCredits) {
      throw new IllegalArgumentException(device.name() + ": a handle of " + ((long) credits + revokeBlocks)
          + " credits exceeds the journal's per-handle maximum of " + maxHandleCredits);
    }
    return revokeBlocks;
  }

  /** Attaches {@code h} to the running transaction, creating it or waiting as needed. */
  // handleCount and writers are written only under stateLock (held where they are bumped); they are
  // volatile for the batching policies' lock-free reads, so the ++ needs no atomicity.
  @SuppressWarnings("NonAtomicVolatileUpdate")
  void attach(HandleImpl h, int total) throws JournalException {
    long startWait = options.clock().nanoTime();
    stateLock.lock();
    try {
      while (true) {
        checkNotAborted();
        if (closing) {
          throw new JournalException(device.name() + ": journal is closed");
        }
        if (barriers > 0) {
          awaitUninterruptibly(transactionUnlocked); // a flush or close wants the journal to itself
          continue;
        }
        if (running == null) {
          long now = options.clock().nanoTime();
          running = new Transaction(nextTid++, now, now + options.commitInterval().toNanos());
          running.outstandingCredits = overheadBuffers;
          // No signal to the commit thread: its current sleep ends no later than this transaction
          // expires (it sleeps one commit interval when idle, or until the expiry of an earlier
          // transaction), and it re-reads the running transaction when it wakes. Waking it here cost
          // a lone writer a futex wake and a lock hand-off on every transaction.
        }
        Transaction t = running;
        if (t.state() != TransactionState.RUNNING) {
          awaitUninterruptibly(transactionUnlocked);
          continue;
        }
        if (t.outstandingCredits + total > maxTransactionBuffers) {
          requestCommitLocked(t.tid); // full: commit it and join the next
          awaitUninterruptibly(transactionUnlocked);
          continue;
        }
        if (logSpaceLeftLocked() < maxTransactionBuffers) {
          stateLock.unlock();
          try {
            checkpointer.waitForSpace();
          } finally {
            stateLock.lock();
          }
          continue;
        }
        t.outstandingCredits += total;
        t.updates++;
        t.handleCount++;
        Integer before = lastJoined.put(Thread.currentThread(), t.tid);
        if (before == null || before != t.tid) {
          t.writers++;
        }
        long now = options.clock().nanoTime();
        t.lastJoinNanos = now;
        t.maxWaitNanos.accumulateAndGet(now - startWait, Math::max);
        if (batchWaiters > 0 && t.writers >= t.batchTarget) {
          handleJoined.signalAll(); // only the join that completes the batch wakes the waiter
        }
        h.transaction = t;
        return;
      }
    } finally {
      stateLock.unlock();
    }
  }

  /**
   * Detaches a handle from its transaction, returning {@code unused} credits; the transaction may
   * commit as soon as this returns, so the caller must not touch it after. Returns whether the
   * caller was queued on the transaction to wait for its commit (see {@link CommitWaits#queuesWaiter}).
   */
  boolean detach(HandleImpl h, int unused, boolean requestCommit, boolean wakeCommitThread) {
    Transaction t = h.transaction;
    boolean queued = false;
    stateLock.lock();
    try {
      if (requestCommit) {
        requestCommitLocked(t.tid, wakeCommitThread);
        if (!wakeCommitThread) {
          // The caller will commit or wait next: choose how to wait, and queue, in the same lock hold.
          queued = commits.queuesWaiter(t);
          if (queued) {
            t.waiters.add(Thread.currentThread());
          }
        }
      } else if (options.clock().nanoTime() - t.expiresNanos >= 0) {
        requestCommitLocked(t.tid, true);
      }
      t.outstandingCredits -= unused;
      if (--t.updates == 0) {
        updatesDone.signalAll();
      }
    } finally {
      stateLock.unlock();
    }
    return queued;
  }

  /** Extends a handle within its transaction; false if the transaction is full or no longer running. */
  boolean extend(HandleImpl h, int credits) {
    stateLock.lock();
    try {
      Transaction t = h.transaction;
      if (t.state() != TransactionState.RUNNING || t.outstandingCredits + credits > maxTransactionBuffers
          || h.heldCredits() + credits > maxHandleCredits) {
        return false;
      }
      t.outstandingCredits += credits;
      return true;
    } finally {
      stateLock.unlock();
    }
  }

  /**
   * Drops {@code owner}'s ordered ranges at or past block {@code from} from the running transaction
   * (the filesystem is truncating: that data will not be written), and, if the committing
   * transaction has ranges of the owner there, waits until it has committed — its metadata still
   * maps those blocks, so its data must be written; afterwards the caller may drop it. Deadlock-free
   * even when the caller holds a handle and inode locks: the committing transaction waits for no
   * handle, and its ordered data takes no filesystem lock ({@link io.ext4j.jbd2.OrderedData}).
   */
  public void cancelOrderedData(io.ext4j.jbd2.OrderedData owner, long from) throws JournalException {
    java.util.Objects.requireNonNull(owner, "owner");
    Transaction wait = null;
    stateLock.lock();
    try {
      // Under the state lock a running transaction has not reached FLUSH, where its commit reads the
      // map: the trim happens before that read.
      Transaction r = running;
      if (r != null) {
        synchronized (r.ordered) {
          OrderedRanges ranges = r.ordered.get(owner);
          if (ranges != null) {
            ranges.trimFrom(from);
            if (ranges.isEmpty()) {
              r.ordered.remove(owner);
            }
          }
        }
      }
      Transaction c = committing;
      if (c != null) {
        synchronized (c.ordered) {
          OrderedRanges ranges = c.ordered.get(owner);
          if (ranges != null && ranges.reaches(from)) {
            wait = c;
          }
        }
      }
    } finally {
      stateLock.unlock();
    }
    if (wait != null) {
      commits.waitCommit(wait.tid);
    }
  }

  /** Moves {@code t} to state {@code s}; the caller holds stateLock. */
  @GuardedBy("stateLock")
  void advanceLocked(Transaction t, TransactionState s) {
    t.advance(s, stateLock);
  }

  /** Moves {@code t} to state {@code s} under stateLock (commitWillFlush reads states under it). */
  void advance(Transaction t, TransactionState s) {
    stateLock.lock();
    try {
      t.advance(s, stateLock);
    } finally {
      stateLock.unlock();
    }
  }

  /** A context for batching policies over the transaction {@code t}. */
  BatchContext batchContext(Transaction t) {
    return new EngineBatchContext(this, t);
  }

  // ---------------------------------------------------------------- commits

  /** Asks the commit thread to commit {@code tid} if it is the running transaction. Caller holds stateLock. */
  @GuardedBy("stateLock")
  boolean requestCommitLocked(int tid) {
    return requestCommitLocked(tid, true);
  }

  /**
   * Records a commit request for {@code tid}; wakes the commit thread only if {@code wake} (a
   * synchronous stopper that will try to commit itself passes false, and wakes it only if it cannot).
   */
  @GuardedBy("stateLock")
  boolean requestCommitLocked(int tid, boolean wake) {
    assert stateLock.isHeldByCurrentThread();
    if (commitRequest == tid) {
      return false;
    }
    if (running != null && running.tid == tid) {
      commitRequest = tid;
      if (running.requestedNanos == 0) {
        running.requestedNanos = options.clock().nanoTime();
      }
      if (wake) {
        commitWake.signal();
      }
      return true;
    }
    return false;
  }

  /**
   * Throws if the calling thread holds a handle in {@code tid} that is not committed: waiting for
   * that commit would wait for the caller's own stop.
   */
  private void checkNotOwnTransaction(int tid, String what) {
    HandleImpl h = currentHandle.get();
    if (h != null && h.transaction != null && h.transaction.tid == tid && !commits.isCommittedLockFree(tid)) {
      throw new IllegalStateException(device.name() + ": " + what + "(" + Integer.toUnsignedString(tid)
          + ") by a thread holding a handle in that transaction would wait forever (its commit waits for the handle"
          + " to stop); stop the handle first, or setSync(true) and stop it");
    }
  }

  /** Throws if the calling thread holds a handle ({@code what} would wait for it). */
  public void checkNoHandle(String what) {
    HandleImpl h = currentHandle.get();
    if (h != null) {
      throw new IllegalStateException(device.name() + ": " + what + " by a thread holding a handle (in transaction "
          + Integer.toUnsignedString(h.transaction.tid) + ") would wait for that handle to stop; stop it first");
    }
  }

  /** Keeps new handles from starting until {@link #unblockHandles()}; nests. */
  private void blockHandles() {
    stateLock.lock();
    try {
      barriers++;
    } finally {
      stateLock.unlock();
    }
  }

  private void unblockHandles() {
    stateLock.lock();
    try {
      if (--barriers == 0) {
        transactionUnlocked.signalAll();
      }
    } finally {
      stateLock.unlock();
    }
  }

  /**
   * {@link io.ext4j.jbd2.Journal#flush()}: with new handles held off, commits the running transaction
   * (waiting for its open handles), checkpoints everything and marks the journal empty.
   */
  public void flush() throws IOException {
    blockHandles();
    try {
      forceCommitNoCheck();
      checkpointer.checkpointAll();
      if (!markEmpty()) {
        throw new IllegalStateException(device.name() + ": the journal is not idle after a flush held off new handles");
      }
    } finally {
      unblockHandles();
    }
  }

  /** Whether {@code tid} has committed (see {@link CommitWaits#isCommitted}). */
  public boolean isCommitted(int tid) {
    return commits.isCommitted(tid);
  }

  public void addCommitListener(io.ext4j.jbd2.CommitListener l) {
    commitListeners.add(l);
  }

  public void removeCommitListener(io.ext4j.jbd2.CommitListener l) {
    commitListeners.remove(l);
  }

  /** The tid of the last committed transaction (see {@link CommitWaits#lastCommitted}). */
  public int lastCommittedTid() {
    return commits.lastCommitted();
  }

  /**
   * Whether the commit of {@code tid} will still issue a device flush that begins after this call
   * (jbd2's {@code jbd2_trans_will_send_data_barrier}): false once committed, or once its commit block
   * is being written (its last flush may have begun); true while it runs, while it commits before that
   * point, and for a tid not started yet.
   */
  public boolean commitWillFlush(int tid) {
    stateLock.lock();
    try {
      // Under the lock: the commit sequence is published, and the state moved to COMMIT_JFLUSH, under
      // it too, so a state read before COMMIT_JFLUSH happens before that last flush begins.
      if (Tid.geq(commits.lastCommitted(), tid)) {
        return false;
      }
      if (committing != null && committing.tid == tid) {
        return committing.state().compareTo(TransactionState.COMMIT_JFLUSH) < 0;
      }
      return true;
    } finally {
      stateLock.unlock();
    }
  }

  /** Waits until {@code tid} has committed (see {@link CommitWaits#waitCommit}); not from inside {@code tid}. */
  public void waitCommit(int tid) throws JournalException {
    checkNotOwnTransaction(tid, "waitCommit");
    commits.waitCommit(tid);
  }

  /** ext4's fsync path (see {@link CommitWaits#completeTransaction}); not from inside {@code tid}. */
  public void completeTransaction(int tid) throws JournalException {
    checkNotOwnTransaction(tid, "completeTransaction");
    commits.completeTransaction(tid);
  }

  /** Commits the running transaction and waits (see {@link CommitWaits#forceCommit}); not while holding a handle. */
  public void forceCommit() throws JournalException {
    checkNoHandle("forceCommit");
    commits.forceCommit();
  }

  private void forceCommitNoCheck() throws JournalException {
    commits.forceCommit();
  }

  /** The commit wake-up in use (see {@link io.ext4j.jbd2.Journal#commitWakeup()}). */
  public io.ext4j.jbd2.CommitWakeup commitWakeup() {
    return commits.wakeup();
  }

  /** The running transaction's tid, or null when no transaction runs. */
  public Integer runningTid() {
    stateLock.lock();
    try {
      return running == null ? null : running.tid;
    } finally {
      stateLock.unlock();
    }
  }

  // ---------------------------------------------------------------- state, for the engine's parts

  @GuardedBy("stateLock")
  private void checkState() {
    assert stateLock.isHeldByCurrentThread() : "journal state read or written without the state lock";
  }

  /** The running transaction, or null. Caller holds stateLock. */
  @GuardedBy("stateLock")
  Transaction runningLocked() {
    checkState();
    return running;
  }

  /** The committing transaction, or null. Caller holds stateLock. */
  @GuardedBy("stateLock")
  Transaction committingLocked() {
    checkState();
    return committing;
  }

  /** The highest tid whose commit was requested. Caller holds stateLock. */
  @GuardedBy("stateLock")
  int commitRequestLocked() {
    checkState();
    return commitRequest;
  }

  /** The tid the next new transaction gets. Caller holds stateLock. */
  @GuardedBy("stateLock")
  int nextTidLocked() {
    checkState();
    return nextTid;
  }

  @GuardedBy("stateLock")
  boolean closingLocked() {
    checkState();
    return closing;
  }

  /** Records that {@code tid} (the running transaction) is being committed now. Caller holds stateLock. */
  @GuardedBy("stateLock")
  void markCommitRequestedLocked(int tid) {
    checkState();
    commitRequest = tid;
  }

  /**
   * FLUSH: {@code t}, the running transaction with no handles left, becomes the committing one; a new
   * running transaction may start; its log starts at the head. Caller holds stateLock.
   */
  @GuardedBy("stateLock")
  void switchToCommittingLocked(Transaction t) {
    checkState();
    assert running == t && committing == null : running + " / " + committing;
    committing = t;
    running = null;
    t.logStart = log.head;
    t.reserve = t.outstandingCredits;
  }

  /** {@code t}'s commit is durable: no transaction commits any more. Caller holds stateLock. */
  @GuardedBy("stateLock")
  void finishCommittingLocked(Transaction t) {
    checkState();
    assert committing == t;
    committing = null;
    t.reserve = 0;
  }

  /** Takes {@code total} log blocks from the head for {@code t}, charging its reserve. Caller holds stateLock. */
  @GuardedBy("stateLock")
  long[] takeLogBlocksLocked(Transaction t, int total) {
    checkState();
    if (total > t.reserve) {
      throw new IllegalStateException("transaction " + Integer.toUnsignedString(t.tid) + " needs " + total
          + " log blocks but reserved " + t.reserve);
    }
    long[] where = new long[total];
    for (int i = 0; i < total; i++) {
      where[i] = log.next();
    }
    t.reserve -= total;
    return where;
  }

  /** Blocks in the circular log (constant). */
  long logSize() {
    return log.size();
  }

  /** Log blocks between tail and head. Caller holds stateLock. */
  @GuardedBy("stateLock")
  long logUsedLocked() {
    checkState();
    return log.size() - log.free;
  }

  /** The next log block to write. Caller holds stateLock. */
  @GuardedBy("stateLock")
  long logHeadLocked() {
    checkState();
    return log.head;
  }

  /** Whether the tail may move to {@code tid}. Caller holds stateLock. */
  @GuardedBy("stateLock")
  boolean tailCanAdvanceLocked(int tid) {
    checkState();
    return Tid.gt(tid, tailSequence);
  }

  /**
   * The superblock naming {@code tid} at {@code block} is durable: frees the log before it and wakes
   * handles waiting for space. Caller holds stateLock (and the checkpoint mutex, as the tail's writer).
   */
  @GuardedBy("stateLock")
  void advanceTailLocked(int tid, long block) {
    checkState();
    assert checkpointMutex.isHeldByCurrentThread();
    log.advanceTail(block);
    tailSequence = tid;
    spaceFreed.signalAll();
  }

  /**
   * Distinct threads whose last join was {@code t} or one of the two transactions before it (the
   * older ones are forgotten after each commit: {@link #forgetOldWritersLocked}).
   */
  @GuardedBy("stateLock")
  int recentWritersLocked(Transaction t) {
    checkState();
    int n = 0;
    for (int last : lastJoined.values()) { // every commit asks: a loop, not a stream
      if (t.tid - last <= 2) {
        n++;
      }
    }
    return n;
  }

  /** After {@code tid} committed: forgets the threads that joined nothing from two transactions before it on. */
  @GuardedBy("stateLock")
  void forgetOldWritersLocked(int tid) {
    checkState();
    lastJoined.values().removeIf(last -> tid - last >= 2);
  }

  /** A batching policy waits for {@code target} writers of {@code t}. Caller holds stateLock. */
  @GuardedBy("stateLock")
  void batchWaitBeginLocked(Transaction t, int target) {
    checkState();
    batchWaiters++;
    t.batchTarget = target;
  }

  @GuardedBy("stateLock")
  void batchWaitEndLocked(Transaction t) {
    checkState();
    batchWaiters--;
    t.batchTarget = Integer.MAX_VALUE;
  }

  /** Whether the caller was the last synchronous writer, making it so (a racy heuristic, as in jbd2). */
  boolean swapLastSyncWriter() {
    Thread me = Thread.currentThread();
    boolean was = lastSyncWriter == me;
    lastSyncWriter = me;
    return was;
  }

  // ---------------------------------------------------------------- space

  /** Log blocks a new transaction may still count on. Caller holds stateLock. */
  @GuardedBy("stateLock")
  long logSpaceLeftLocked() {
    long left = log.free - LogSpace.SLACK - (committing == null ? 0 : committing.reserve);
    return Math.max(0, left);
  }

  // ---------------------------------------------------------------- buffers

  /** The buffer of {@code block}, pinned, read from the device if not cached. */
  public BufferHead buffer(long block) throws IOException {
    return buffers.get(block);
  }

  /** The buffer of {@code block}, pinned, not read; zero-filled unless it carries journal state. */
  public BufferHead newBuffer(long block) throws IOException {
    return buffers.getNew(block);
  }

  /** The block cache the buffers live in. */
  public BlockCache cache() {
    return buffers.cache();
  }

  // ---------------------------------------------------------------- I/O helpers

  void flushDevice() throws IOException {
    device.flush();
    stats.deviceFlushes.increment();
  }


  /** Writes log blocks (journal block numbers) through the map, merging contiguous device runs. */
  void writeLog(long[] journalBlocks, ByteBuffer[] images, int count) throws IOException {
    int i = 0;
    while (i < count) {
      long dev = map.deviceBlock(journalBlocks[i]);
      long contiguous = map.contiguousRun(journalBlocks[i], count - i);
      int j = i + 1;
      while (j < count && j - i < contiguous && journalBlocks[j] == journalBlocks[j - 1] + 1) {
        j++;
      }
      ByteBuffer[] run = new ByteBuffer[j - i];
      for (int k = i; k < j; k++) {
        run[k - i] = images[k].duplicate().clear();
      }
      device.write(dev, run);
      i = j;
    }
  }

  // ---------------------------------------------------------------- abort & lifecycle

  /** Aborts the journal: every later operation fails with {@link JournalAbortedException}. */
  public void abort(Throwable cause) {
    abort(cause, true);
  }

  /**
   * Aborts the journal; with {@code record} false nothing more is written at all, not even the
   * abort's errno in the superblock (a shutdown: the log is left as a power cut leaves it).
   */
  public void abort(Throwable cause, boolean record) {
    stateLock.lock();
    try {
      if (abortCause != null) {
        return;
      }
      abortUnrecorded = !record;
      abortCause = cause;
      commitWake.signalAll();
      commits.wakeAll(running, committing);
      transactionUnlocked.signalAll();
      updatesDone.signalAll();
      handleJoined.signalAll();
      spaceFreed.signalAll();
    } finally {
      stateLock.unlock();
    }
    checkpointer.wake();
  }

  public boolean isAborted() {
    return abortCause != null;
  }

  /**
   * Records an abort in the superblock's s_errno ({@link #ABORT_ERRNO}) and flushes, once, as jbd2
   * does on abort; the log fields are those last written, so recovery sees the same log. Best
   * effort: the device may be what failed, and a failure here is attached to the abort cause as a
   * suppressed exception rather than thrown. Called by the home writer as it stops after an abort,
   * holding no lock.
   */
  void recordAbortInSuperblock() {
    Throwable cause = abortCause;
    if (cause == null || abortUnrecorded) {
      return;
    }
    checkpointMutex.lock();
    try {
      if (superblock.recordAbort(ABORT_ERRNO)) {
        flushDevice();
      }
    } catch (IOException | RuntimeException e) {
      cause.addSuppressed(new IOException(device.name() + ": could not record the abort in the journal superblock", e));
    } finally {
      checkpointMutex.unlock();
    }
  }

  /** s_errno of the superblock as last written (see {@link io.ext4j.jbd2.Journal#recordedErrno()}). */
  public int recordedErrno() {
    checkpointMutex.lock();
    try {
      return superblock.current().errno();
    } finally {
      checkpointMutex.unlock();
    }
  }

  /** Writes the superblock with s_errno = 0 and flushes. */
  public void clearRecordedErrno() throws IOException {
    checkpointMutex.lock();
    try {
      checkNotAborted();
      if (superblock.current().errno() == 0) {
        return;
      }
      superblock.writeErrno(0);
      flushDevice();
    } catch (JournalException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      abort(e);
      throw new JournalAbortedException(device.name(), e);
    } finally {
      checkpointMutex.unlock();
    }
  }

  public Throwable abortCause() {
    return abortCause;
  }

  void checkNotAborted() throws JournalAbortedException {
    Throwable c = abortCause;
    if (c != null) {
      throw new JournalAbortedException(device.name(), c);
    }
  }

  /**
   * Stops the threads. With {@code checkpoint}, commits everything, writes every block home and
   * marks the journal empty; without, commits everything and leaves the log for recovery.
   */
  public void shutdown(boolean checkpoint) throws IOException {
    IOException failure = null;
    blockHandles(); // handles started from here on wait, then find the journal closing
    try {
      forceCommitNoCheck();
      if (checkpoint) {
        checkpointer.checkpointAll();
        markEmpty();
      }
    } catch (IOException e) {
      failure = e;
    }
    stateLock.lock();
    try {
      closing = true;
      commitWake.signalAll();
    } finally {
      stateLock.unlock();
    }
    unblockHandles(); // the waiting starts now throw: closing
    checkpointer.stop();
    joinQuietly(commitThread);
    joinQuietly(checkpointThread);
    buffers.cache().removePressureListener(onCachePressure);
    if (failure != null) {
      throw failure;
    }
    checkNotAborted();
  }

  /**
   * Writes the superblock with {@code s_start = 0}, then flushes. Caller has checkpointed everything.
   * Returns false, writing nothing, if the journal is not idle (a handle or commit is active, or a
   * transaction still waits for its checkpoint).
   */
  boolean markEmpty() throws IOException {
    try {
      return markEmptyOrThrow();
    } catch (JournalException ex) {
      throw ex;
    } catch (IOException | RuntimeException ex) {
      abort(ex);
      throw new JournalAbortedException(device.name(), ex);
    }
  }

  private boolean markEmptyOrThrow() throws IOException {
    checkpointMutex.lock();
    try {
      int seq;
      long head;
      stateLock.lock();
      try {
        boolean idle = (running == null || running.handleCount == 0) && committing == null;
        listLock.lock();
        try {
          idle &= checkpointer.isEmptyLocked();
        } finally {
          listLock.unlock();
        }
        if (!idle) {
          return false; // handles are active: the log is not empty, and the superblock must keep saying so
        }
        seq = nextTid;
        head = log.head;
        log.reset(head);
        tailSequence = seq;
      } finally {
        stateLock.unlock();
      }
      // No flush before: every home write was flushed at the end of its checkpoint round, under
      // the checkpointMutex held here.
      superblock.writeEmpty(seq, head);
      flushDevice();
      return true;
    } finally {
      checkpointMutex.unlock();
    }
  }

  private static void joinQuietly(Thread t) {
    boolean interrupted = false;
    while (t.isAlive()) {
      try {
        t.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits on a condition of stateLock, deferring any interrupt (journal waits must not abort halfway). */
  @SuppressWarnings("WaitNotInLoop") // a wrapper: every caller loops on its own predicate
  static void awaitUninterruptibly(Condition c) {
    c.awaitUninterruptibly();
  }

  @SuppressWarnings("WaitNotInLoop") // a wrapper: every caller loops on its own predicate
  static boolean awaitNanos(Condition c, long nanos) throws InterruptedIOException {
    try {
      return c.await(nanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting in the journal");
    }
  }

  public JournalStats stats() {
    return stats.snapshot(commitProcess.averageCommitNanos());
  }

  public LogFormat format() {
    return format;
  }

  public int maxTransactionBuffers() {
    return maxTransactionBuffers;
  }

  public int maxHandleCredits() {
    return maxHandleCredits;
  }

  public BlockDevice device() {
    return device;
  }
}
