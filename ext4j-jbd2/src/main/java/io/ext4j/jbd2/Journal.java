package io.ext4j.jbd2;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.BlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.jbd2.internal.JournalEngine;
import io.ext4j.jbd2.internal.Recovery;
import java.io.IOException;
import java.util.Objects;
import java.util.UUID;

/**
 * A jbd2 journal, format-compatible with Linux: ext4j and the kernel (or e2fsck) can each recover
 * what the other wrote.
 *
 * <h2>Transaction lifecycle</h2>
 * Handles ({@link #start(int)}) join the one <em>running</em> transaction. A commit request (a
 * synchronous handle's stop, {@link #completeTransaction}, a full transaction, the commit interval)
 * makes the commit thread lock it (no new handles), wait for its open handles to stop, and switch:
 * a new running transaction may now start while the old one is written to the log (flush → commit
 * → commit block → flush). Once its commit block is durable it is <em>committed</em>
 * ({@link #isCommitted}), and it stays in the log until every block it logged is written home
 * (checkpointed). At most one transaction runs and one commits at a time.
 *
 * <h2>Log layout</h2>
 * Journal block 0 is the superblock; blocks {@code [s_first, s_maxlen)} are a circular log of
 * transactions (with {@code journal_fast_commit}, {@code [s_first, s_maxlen - s_num_fc_blks)}: the
 * fast-commit area after it belongs to the filesystem, which writes and replays it; this journal
 * never writes there), each {@code [revoke blocks][descriptor, data…]…[commit block]} with the same tid,
 * tids consecutive. The superblock's {@code s_start}/{@code s_sequence} name the oldest transaction
 * still needed; {@code s_start == 0} means the journal is empty. Where the journal lives (the ext4
 * journal inode's extents, or a contiguous region) is a {@link JournalMap}.
 *
 * <h2>Buffers and the block cache</h2>
 * The journal keeps its buffers in a {@link BlockCache} of the device: the filesystem's, passed to
 * {@link #open(BlockDevice, JournalMap, JournalOptions, BlockCache)}, so that metadata, file pages and
 * the journal share one cache; or one of its own ({@link #cache()}). {@link #buffer} and
 * {@link #newBuffer} return the buffer <em>pinned</em>: each call needs one
 * {@link JournalBuffer#release()}, after which the reference must not be used. The cache evicts
 * released buffers, least recently released first, except those the journal still needs (owned by a
 * running or committing transaction, waiting to be checkpointed, or holding a frozen or committed
 * image); when it runs over capacity with nothing evictable it wakes the checkpointer, which writes
 * committed buffers home so that they can go. Whoever writes the device past the cache must
 * {@linkplain BlockCache#invalidate invalidate} the blocks it wrote (the journal itself does so for
 * the blocks recovery replays), so that a buffer always holds what the device holds or what the
 * journal put there since.
 *
 * <h2>Threads and locks</h2>
 * Two private workers: the commit thread and the checkpointer (home writer). Callers' threads start
 * and stop handles, may commit in place (a synchronous stop, {@link #completeTransaction} or
 * {@link #forceCommit} that finds no commit under way) and may checkpoint themselves when log space
 * runs out. Whatever thread commits runs the transaction's {@link OrderedData} and then the
 * {@link CommitListener}s, which therefore must never take filesystem locks or wait for the journal.
 * A thread holding a handle must not wait for its own transaction: {@link #waitCommit},
 * {@link #completeTransaction} of it, {@link #forceCommit}, {@link #flush()} and {@link #close()}
 * throw {@link IllegalStateException} there instead of hanging. Locks and their order are
 * documented on {@link io.ext4j.jbd2.internal.JournalEngine}. {@link #isCommitted},
 * {@link #lastCommittedTid()} and the write-access fast path take no lock (see
 * {@link CommittedCheck}, {@link WriteAccessPath}).
 *
 * <h2>Durability</h2>
 * A synchronous handle's {@link Handle#stop()}, {@link #waitCommit}, {@link #completeTransaction}
 * and {@link #forceCommit} return only after the device flush that makes the transaction's commit
 * block durable; a transaction {@link #isCommitted} reports is durable, and so is every tid up to
 * {@link #lastCommittedTid()}. {@link #commitWillFlush} says whether a transaction's commit still
 * has ahead of it a flush that covers data written now (ext4's fsync then needs no flush of its
 * own). {@link #flush()} (waiting for open handles, holding new ones off) and {@link #close()} return
 * after every committed block is written home and flushed and the journal is marked empty.
 * {@link #closeWithoutCheckpoint()} commits and flushes but leaves the log for the next recovery.
 * An I/O error on any of these paths aborts the journal: every later call fails with
 * {@link JournalAbortedException} carrying the cause, and nothing unflushed is reported durable.
 * As jbd2 does, the abort is then recorded in the superblock's {@code s_errno} (−5, EIO), best
 * effort and without touching the log, so that e2fsck and the next user see that the journal
 * failed; {@link #recordedErrno()} reads it and {@link #clearRecordedErrno()} clears it.
 *
 * <h2>Recovery</h2>
 * {@link #open} replays a journal that needs recovery (scan, revoke and replay passes, as jbd2) before
 * anything else, flushes, then starts with an empty log. Checksums are verified as jbd2 does — v2/v3
 * (crc32c) and the legacy v1 ({@code COMPAT_CHECKSUM}, crc32 in the commit block). A failed commit (a
 * transaction that fails its checks although a later one, or its own flushed commit block, shows it
 * was complete) makes {@code open} throw {@link JournalFailedCommitException} after replaying what
 * came before, as the kernel refuses to mount.
 */
public final class Journal implements AutoCloseable {
  private final JournalEngine engine;
  private final RecoveryResult recovery;
  @GuardedBy("this") private boolean closed;

  private Journal(JournalEngine engine, RecoveryResult recovery) {
    this.engine = engine;
    this.recovery = recovery;
  }

  /**
   * Opens an existing journal: validates its superblock, recovers it if needed, sets the features
   * the options ask for (checksum v3, 64-bit, async commit) while it is empty, and starts the
   * commit thread and checkpointer.
   *
   * @throws JournalCorruptException if the superblock or the log fails a check
   * @throws UnsupportedJournalFeatureException if the journal uses a feature ext4j cannot handle
   */
  public static Journal open(BlockDevice device, JournalMap map, JournalOptions options) throws IOException {
    return openWith(device, map, options, null);
  }

  /**
   * {@link #open(BlockDevice, JournalMap, JournalOptions)} keeping the journal's buffers in
   * {@code cache}, a cache of {@code device} shared with the filesystem (one journal per cache). The
   * journal adds a pressure listener to it (removed at close) that wakes its checkpointer. Blocks that
   * recovery replays are invalidated in the cache, so a holder who pinned one of them before this
   * call keeps a stale copy: open the journal before pinning blocks it may replay.
   *
   * @throws IllegalArgumentException if {@code cache} is not a cache of {@code device}
   * @throws IllegalStateException if a block recovery replays is dirty in the cache
   */
  public static Journal open(BlockDevice device, JournalMap map, JournalOptions options, BlockCache cache)
      throws IOException {
    return openWith(device, map, options, Objects.requireNonNull(cache, "cache"));
  }

  private static Journal openWith(BlockDevice device, JournalMap map, JournalOptions options, BlockCache cache)
      throws IOException {
    Objects.requireNonNull(options, "options");
    if (device.isReadOnly()) {
      throw new io.ext4j.block.ReadOnlyDeviceException(device.name());
    }
    if (cache != null && cache.device() != device) {
      throw new IllegalArgumentException("the block cache is of " + cache.device().name() + ", not of " + device.name());
    }
    JournalSuperblock sb = JournalRecovery.readSuperblock(device, map);
    RecoveryResult result = Recovery.run(device, map, sb, cache == null ? b -> {} : cache::invalidate);
    int nextTid = result.nextTid();
    JournalSuperblock ready = sb.withFeatures(compatFor(sb, options), incompatFor(sb, options), 0).withTail(nextTid, 0);
    return new Journal(new JournalEngine(device, map, ready, options, cache), result);
  }

  /**
   * Writes a new, empty journal over {@code map}'s blocks (a standalone journal: a region or file of
   * its own), then opens it.
   */
  public static Journal create(BlockDevice device, JournalMap map, JournalOptions options) throws IOException {
    formatNew(device, map);
    return open(device, map, options);
  }

  /** {@link #create(BlockDevice, JournalMap, JournalOptions)} with its buffers in {@code cache} (see {@link #open(BlockDevice, JournalMap, JournalOptions, BlockCache)}). */
  public static Journal create(BlockDevice device, JournalMap map, JournalOptions options, BlockCache cache)
      throws IOException {
    formatNew(device, map);
    return open(device, map, options, cache);
  }

  private static void formatNew(BlockDevice device, JournalMap map) throws IOException {
    UUID u = UUID.randomUUID();
    byte[] uuid = java.nio.ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    format(device, map, uuid, 1);
  }

  /** Writes an empty v2 journal superblock (no features yet; {@link #open} sets them) and flushes. */
  public static void format(BlockDevice device, JournalMap map, byte[] uuid, int firstTid) throws IOException {
    if (map.length() < JournalSuperblock.MIN_JOURNAL_BLOCKS) {
      throw new IllegalArgumentException("a journal needs at least " + JournalSuperblock.MIN_JOURNAL_BLOCKS
          + " blocks; the map has " + map.length());
    }
    JournalSuperblock sb = JournalSuperblock.create(device.blockSize(), map.length(), uuid, firstTid, 0);
    byte[] block = new byte[device.blockSize()];
    System.arraycopy(sb.encode(), 0, block, 0, JournalSuperblock.SIZE);
    device.write(map.deviceBlock(0), java.nio.ByteBuffer.wrap(block));
    device.flush();
  }

  private static int compatFor(JournalSuperblock sb, JournalOptions o) {
    int compat = sb.featureCompat();
    if (o.checksumV3()) {
      compat &= ~JournalFeature.CHECKSUM.mask(); // v1 checksums never together with v2/v3
    }
    return compat;
  }

  private static int incompatFor(JournalSuperblock sb, JournalOptions o) {
    int incompat = sb.featureIncompat() | JournalFeature.REVOKE.mask();
    if (o.bit64()) {
      incompat |= JournalFeature.BIT64.mask();
    }
    if (o.checksumV3() && (incompat & JournalFeature.CSUM_V2.mask()) == 0) {
      incompat |= JournalFeature.CSUM_V3.mask();
    }
    if (o.asyncCommit()) {
      incompat |= JournalFeature.ASYNC_COMMIT.mask();
    } else {
      incompat &= ~JournalFeature.ASYNC_COMMIT.mask();
    }
    return incompat;
  }

  /** What recovery did at open (a clean result when the journal was empty). */
  public RecoveryResult recovery() {
    return recovery;
  }

  /**
   * Starts a handle with {@code credits} buffer credits in the running transaction, waiting while
   * the transaction is being locked, is full, the log needs checkpointing, or a {@link #flush()}
   * runs. A nested start by a thread that already holds a handle returns that handle, extended in its
   * transaction to at least {@code credits} credits left (see {@link Handle}).
   *
   * @throws JournalAbortedException if the journal was aborted
   * @throws IllegalArgumentException if {@code credits} exceeds {@link #maxHandleCredits()}
   * @throws IllegalStateException if a nested start needs more credits than the transaction can give
   */
  public Handle start(int credits) throws JournalException {
    return engine.start(credits, 0);
  }

  /** {@link #start(int)} that may also {@link Handle#revoke} up to {@code revokeRecords} blocks. */
  public Handle start(int credits, int revokeRecords) throws JournalException {
    return engine.start(credits, revokeRecords);
  }

  /**
   * The buffer of home block {@code block}, pinned ({@link JournalBuffer#release()} once when done),
   * read from the device if it is not cached: it holds what the device holds, or what the journal
   * put there since.
   *
   * @throws io.ext4j.block.BlockOutOfRangeException if the block is outside the device
   * @throws IOException if the read fails
   */
  public JournalBuffer buffer(long block) throws IOException {
    return engine.buffer(block);
  }

  /**
   * The buffer of {@code block} for create access, pinned ({@link JournalBuffer#release()} once),
   * not read from the device. Its contents are zeros when the block carries no journal state — no
   * running or committing transaction owns it, it waits for no checkpoint, and it has no frozen or
   * committed image — whatever the cache held before. Otherwise they are the contents the journal
   * holds for it, which must not be zeroed behind a committing transaction's back: the caller gets
   * create access and then writes every byte it needs (as ext4 clears a new block after
   * {@code get_create_access}). The caller must own the block (just allocated it): nobody else may
   * be using it.
   */
  public JournalBuffer newBuffer(long block) throws IOException {
    return engine.newBuffer(block);
  }

  /**
   * The block cache holding the journal's buffers: the one given to {@code open}/{@code create}, or
   * the journal's own (about one block per log block, at most 32 MiB). Invalidate in it every block
   * written to the device past the cache.
   */
  public BlockCache cache() {
    return engine.cache();
  }

  /**
   * The filesystem shrinks {@code owner} to {@code fromBlock} blocks: drops the owner's ordered ranges
   * at or past it from the running transaction, and waits until the committing transaction has
   * committed if it still has ranges there (its metadata maps those blocks, so their data must be
   * written first; afterwards the caller may drop that data). Safe to call while holding a handle and
   * the owner's locks. Ranges of the running transaction are not waited for: the caller's own
   * truncate, in that transaction, unmaps them.
   *
   * @throws JournalAbortedException if the journal aborted while waiting
   */
  public void cancelOrderedData(OrderedData owner, long fromBlock) throws JournalException {
    engine.cancelOrderedData(owner, fromBlock);
  }

  /** Whether transaction {@code tid} is committed (durable). Lock-free by default. */
  public boolean isCommitted(int tid) {
    return engine.isCommitted(tid);
  }

  /**
   * The tid of the last committed (durable) transaction: one volatile read, no lock. Before the first
   * commit it is the tid before the first this journal hands out.
   */
  public int lastCommittedTid() {
    return engine.lastCommittedTid();
  }

  /**
   * Whether the commit of {@code tid} still has ahead of it a device flush that covers every write
   * completed before this call (jbd2's {@code jbd2_trans_will_send_data_barrier}): true while
   * {@code tid} runs (its commit will flush), while it commits and has not begun writing its commit
   * block, and for a tid not yet started; false once it is committed, or once its commit block is
   * being written (its last flush may have begun before the caller's write). ext4's fsync writes the
   * file's data, asks this, waits with {@link #completeTransaction}, and flushes the device itself
   * only if the answer was false.
   */
  public boolean commitWillFlush(int tid) {
    return engine.commitWillFlush(tid);
  }

  /**
   * Adds a listener told about each commit, in tid order, on the committing thread; see
   * {@link CommitListener} for what it must not do.
   */
  public void addCommitListener(CommitListener listener) {
    engine.addCommitListener(Objects.requireNonNull(listener, "listener"));
  }

  /** Removes a listener {@link #addCommitListener} added; does nothing if absent. */
  public void removeCommitListener(CommitListener listener) {
    engine.removeCommitListener(listener);
  }

  /**
   * Waits until {@code tid} has committed.
   *
   * @throws IllegalStateException if the calling thread holds a handle in {@code tid}: its commit
   *     waits for that handle to stop, so the wait would never end
   */
  public void waitCommit(int tid) throws JournalException {
    engine.waitCommit(tid);
  }

  /**
   * ext4's fsync: if {@code tid} runs, commit it and wait; if it commits, wait; otherwise return at
   * once.
   *
   * @throws IllegalStateException if the calling thread holds a handle in {@code tid} (see
   *     {@link #waitCommit})
   */
  public void completeTransaction(int tid) throws JournalException {
    engine.completeTransaction(tid);
  }

  /**
   * Commits whatever is running and waits.
   *
   * @throws IllegalStateException if the calling thread holds a handle: it is in the running
   *     transaction, whose commit would wait for it
   */
  public void forceCommit() throws JournalException {
    engine.forceCommit();
  }

  /** The running transaction's tid, or null when none runs. */
  public Integer runningTid() {
    return engine.runningTid();
  }

  /** The most credits one handle may hold. */
  public int maxHandleCredits() {
    return engine.maxHandleCredits();
  }

  /**
   * The commit wake-up in use: {@link JournalOptions#commitWakeup()}, except that
   * {@link CommitWakeup#FUTEX_BROADCAST} falls back to {@link CommitWakeup#UNPARK_EACH} where futexes
   * cannot be called (see there).
   */
  public CommitWakeup commitWakeup() {
    return engine.commitWakeup();
  }

  /** Runtime statistics (like {@code /proc/fs/jbd2/<dev>/info}). */
  public JournalStats stats() {
    return engine.stats();
  }

  /** Aborts the journal (as after an I/O error): later operations fail with {@code cause}. */
  public void abort(Throwable cause) {
    engine.abort(cause);
  }

  /**
   * Aborts the journal as a file system shutdown does: later operations fail with {@code cause} and
   * nothing more is written — no commit, no checkpoint, and unlike {@link #abort} no errno in the
   * superblock — so the device holds what a power cut at this instant would leave, and the next
   * open recovers the log as after one. What committed before stays committed.
   */
  public void abortAsShutdown(Throwable cause) {
    engine.abort(cause, false);
  }

  public boolean isAborted() {
    return engine.isAborted();
  }

  /** What aborted the journal (the first failure), or null while it runs. */
  public Throwable abortCause() {
    return engine.abortCause();
  }

  /**
   * The superblock's {@code s_errno}: 0, or the negated errno of an abort recorded in this or an
   * earlier session (−5, EIO, for ext4j's aborts). Opening a journal keeps it, as jbd2's load does;
   * a file system clears it once it has recorded the error in its own superblock (e2fsck and ext4
   * set the file system's "errors" state).
   */
  public int recordedErrno() {
    return engine.recordedErrno();
  }

  /**
   * Writes the superblock with {@code s_errno = 0} and flushes; returns once that is durable.
   *
   * @throws JournalAbortedException if the journal has aborted (its errno stays)
   */
  public void clearRecordedErrno() throws IOException {
    engine.clearRecordedErrno();
  }

  /**
   * Commits, writes everything home and marks the journal empty; the journal stays open. It
   * <em>waits</em> for open handles: new handles wait in {@link #start} from the moment it is called
   * until it returns, and the handles already open are waited for (their transaction's commit waits
   * for them to stop). So on return the journal is empty ({@code s_start = 0}) and everything
   * committed, including the transactions of those handles, is durable at home.
   *
   * @throws IllegalStateException if the calling thread holds a handle (it would wait for itself)
   * @throws JournalAbortedException if a write or flush failed (the journal aborts)
   */
  public void flush() throws IOException {
    engine.checkNoHandle("flush");
    engine.flush();
  }

  /**
   * Commits what is running and stops, leaving committed transactions in the log (the superblock
   * still names them): the next open — by ext4j, the kernel or e2fsck — replays them. Waits for open
   * handles as {@link #close()} does.
   *
   * @throws IllegalStateException if the calling thread holds a handle
   */
  public synchronized void closeWithoutCheckpoint() throws IOException {
    if (closed) {
      return;
    }
    engine.checkNoHandle("closeWithoutCheckpoint");
    closed = true;
    engine.shutdown(false);
  }

  /**
   * Commits, checkpoints everything, marks the journal empty and stops the threads. Does not close
   * the device. Open handles are waited for (the final commit waits for them to stop, as a jbd2
   * unmount does); handles started meanwhile wait and then fail, the journal being closed.
   *
   * @throws IllegalStateException if the calling thread holds a handle (it would wait for itself)
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    engine.checkNoHandle("close");
    closed = true;
    engine.shutdown(true);
  }
}
