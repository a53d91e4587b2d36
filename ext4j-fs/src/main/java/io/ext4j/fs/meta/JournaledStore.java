package io.ext4j.fs.meta;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.jbd2.Handle;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalBuffer;
import java.io.IOException;

/**
 * Metadata through a jbd2 journal: every {@link Tx} is a handle, every block a journal buffer.
 *
 * <h2>Durability</h2>
 * A change is durable when its transaction commits ({@link #commit(int)}, a synchronous Tx, the
 * commit interval). {@link #close()} commits and checkpoints everything home and leaves the journal
 * empty. A journal failure aborts it; every later call fails with the cause.
 */
public final class JournaledStore implements MetaStore {
  private final BlockDevice device;
  private final BlockCache cache;
  private final Journal journal;
  /** Revoke records every Tx may use: a few hundred fit in one revoke block, so this costs one credit. */
  static final int MIN_REVOKES = 64;

  public JournaledStore(BlockDevice device, BlockCache cache, Journal journal) {
    this.device = device;
    this.cache = cache;
    this.journal = journal;
  }

  public Journal journal() {
    return journal;
  }

  @Override
  public BlockDevice device() {
    return device;
  }

  @Override
  public BlockCache cache() {
    return cache;
  }

  @Override
  public boolean journaled() {
    return true;
  }

  @Override
  public Buf read(long block) throws IOException {
    try {
      return new JBuf(journal.buffer(block));
    } catch (io.ext4j.block.BlockDeviceException e) {
      throw MetaStore.readFailed(device, block, e);
    }
  }

  @Override
  public void readAhead(long first, int count) throws IOException {
    cache.readAhead(first, count); // the journal's buffers live in the same cache
  }

  @Override
  public Tx begin(int credits, int revokes) throws IOException {
    int c = Math.min(credits, journal.maxHandleCredits() - 8);
    int r = Math.max(revokes, MIN_REVOKES); // any change may free extent-tree blocks (a rebuild, a collapse)
    return new JTx(journal.start(c, r), r);
  }

  @Override
  public java.util.OptionalInt runningTid() {
    Integer t = journal.runningTid();
    return t == null ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(t);
  }

  @Override
  public boolean isCommitted(int tid) {
    return journal.isCommitted(tid);
  }

  /**
   * Commits {@code tid} (or waits for it) and flushes the device unless that commit's flush, not yet
   * issued when this was called, covers the data written before the call (the journal's
   * {@code commitWillFlush}, jbd2's trans_will_send_data_barrier). The engine writes file data
   * before it stops the handle that records it, so a transaction's own data always precedes its
   * commit's flush. A tid the journal already reports committed ({@code isCommitted}: with the
   * default {@code CommittedCheck} one acquire read, no lock) needs only the flush.
   */
  @Override
  public void commit(int tid) throws IOException {
    if (journal.isCommitted(tid)) {
      device.flush(); // long committed (an overwrite's fsync): only data written since needs a flush, and no journal lock
      return;
    }
    boolean covered = journal.commitWillFlush(tid); // asked first: data written before now is then in its flush
    journal.completeTransaction(tid);
    if (!covered) {
      device.flush(); // tid's commit flushed before our data (or long ago): flush it ourselves
    }
  }

  @Override
  public void sync() throws IOException {
    journal.forceCommit();
    device.flush();
  }

  @Override
  public void abort(Throwable cause) {
    journal.abort(cause);
  }

  @Override
  public void shutdown(Throwable cause) {
    journal.abortAsShutdown(cause);
  }

  @Override
  public Throwable abortCause() {
    return journal.abortCause();
  }

  @Override
  public int maxCredits() {
    return journal.maxHandleCredits() - 8;
  }

  @Override
  public void close() throws IOException {
    journal.close();
  }

  private static final class JBuf implements Buf {
    final JournalBuffer jb;
    final byte[] array;

    JBuf(JournalBuffer jb) {
      this.jb = jb;
      this.array = jb.data().array();
    }

    @Override
    public long block() {
      return jb.block();
    }

    @Override
    public byte[] array() {
      return array;
    }

    @Override
    public void close() {
      jb.release();
    }
  }

  private final class JTx implements Tx {
    private final Handle handle;
    private int revokesLeft;

    JTx(Handle handle, int revokes) {
      this.handle = handle;
      this.revokesLeft = revokes;
    }

    @Override
    public int tid() {
      return handle.tid();
    }

    @Override
    public Buf read(long block) throws IOException {
      return JournaledStore.this.read(block);
    }

    @Override
    public Buf create(long block) throws IOException {
      JBuf b = new JBuf(journal.newBuffer(block));
      try {
        handle.getCreateAccess(b.jb);
      } catch (IOException | RuntimeException e) {
        b.close();
        throw e;
      }
      java.util.Arrays.fill(b.array, (byte) 0);
      return b;
    }

    @Override
    public void modify(Buf b) throws IOException {
      handle.getWriteAccess(((JBuf) b).jb);
    }

    @Override
    public void dirty(Buf b) throws IOException {
      if (handle.credits() <= 0) {
        handle.extend(4);
      }
      handle.dirtyMetadata(((JBuf) b).jb);
    }

    @Override
    public void forget(long block) throws IOException {
      if (revokesLeft <= 0) {
        throw new IllegalStateException(device.name() + ": transaction frees more metadata blocks than it declared (block " + block + ")");
      }
      revokesLeft--;
      handle.revoke(block);
    }

    @Override
    public boolean ensureCredits(int credits) throws IOException {
      int have = handle.credits();
      return have >= credits || handle.extend(credits - have);
    }

    @Override
    public int creditsLeft() {
      return handle.credits();
    }

    @Override
    public void setSync() {
      handle.setSync(true);
    }

    @Override
    public void close() throws IOException {
      handle.stop();
    }
  }
}
