package io.ext4j.block.cache;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One block's bytes in a {@link BlockCache}, with a pin count, a dirty flag for write-back, and a
 * slot where a journal attaches its per-block state.
 *
 * <h2>References and pins</h2>
 * Every {@code get}/{@code getNew}/{@code peek} of the cache returns the block pinned once; the
 * caller calls {@link #release()} exactly once for each. A pinned block is never evicted, so its
 * bytes stay the cache's bytes for that block. An unpinned block may be evicted when it is not dirty
 * and its attachment (if any) does not {@linkplain CacheAttachment#keepsBlockCached() keep it}; a
 * reference kept past {@code release()} is then stale and must not be used.
 *
 * <h2>Contents</h2>
 * {@link #array()} is the live bytes, shared by every user of the block. Writers serialize their own
 * changes (the filesystem holds its structure locks; the journal owns commit images), and take this
 * object's monitor for the moment of a change that a concurrent snapshot ({@link BlockCache#writeBack()},
 * a journal commit) must not see half-done.
 *
 * <h2>Guards</h2>
 * {@code pins} is atomic (a value of {@link #EVICTED} ends the block's life); {@code dirty} and
 * {@code dirtyGeneration} are written under this object's monitor; {@code attachment} is volatile,
 * set once by the journal through {@link #attachIfAbsent}; {@code lastUse} is a racy recency hint.
 */
public final class CachedBlock {
  static final int EVICTED = -1;

  private final BlockCache cache;
  private final long block;
  private final byte[] data;
  final AtomicInteger pins = new AtomicInteger(1); // born pinned by its creator
  private volatile CacheAttachment attachment; // set once (attachIfAbsent)
  @GuardedBy("this") private boolean dirty;
  @GuardedBy("this") private long dirtyGeneration; // bumped by every markDirty
  volatile long lastUse; // recency hint for eviction; racy by design
  private volatile Object loadState; // null when loaded; a Latch while the creator reads; an IOException if that failed

  CachedBlock(BlockCache cache, long block, int blockSize, boolean loading) {
    this.cache = cache;
    this.block = block;
    this.data = new byte[blockSize];
    this.loadState = loading ? new Latch() : null;
  }

  /** The block number on the device. */
  public long block() {
    return block;
  }

  /** The live bytes (shared; see the class doc). */
  public byte[] array() {
    return data;
  }

  /** A little-endian view of the live bytes, position 0, limit the block size (ext4's byte order). */
  public ByteBuffer le() {
    return ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** A big-endian view of the live bytes (jbd2's byte order). */
  public ByteBuffer be() {
    return ByteBuffer.wrap(data);
  }

  /** Adds a pin for a second holder of this reference; each pin needs its own {@link #release()}. */
  public CachedBlock retain() {
    int p = pins.getAndIncrement();
    if (p <= 0) {
      pins.getAndDecrement();
      throw new IllegalStateException("retain of block " + block + " that its holder had already released");
    }
    return this;
  }

  /**
   * Whether some holder has this block pinned (a hint for owners checking that state is attached
   * only to pinned blocks; another holder's pin counts too).
   */
  public boolean isPinned() {
    return pins.get() > 0;
  }

  /** Drops one pin. */
  public void release() {
    int left = pins.decrementAndGet();
    if (left < 0) {
      pins.incrementAndGet();
      throw new IllegalStateException("block " + block + " released more often than it was pinned");
    }
    if (left == 0) {
      lastUse = cache.tick();
      cache.unpinned();
    }
  }

  /** The journal's (or another owner's) state for this block, or null. */
  public CacheAttachment attachment() {
    return attachment;
  }

  /**
   * Attaches {@code a} unless an attachment exists; returns the attachment now in place (this one or
   * the earlier). Attachments are never removed: one that no longer holds state says so through
   * {@link CacheAttachment#keepsBlockCached()}.
   */
  public synchronized CacheAttachment attachIfAbsent(CacheAttachment a) {
    if (attachment == null) {
      attachment = a;
    }
    return attachment;
  }

  /** Marks the block as changed and to be written by {@link BlockCache#writeBack()} (a cache without a journal). */
  public synchronized void markDirty() {
    if (!dirty) {
      dirty = true;
      cache.dirtied();
    }
    dirtyGeneration++;
  }

  /** Whether the block waits for {@link BlockCache#writeBack()}. */
  public synchronized boolean isDirty() {
    return dirty;
  }

  /** A copy of the bytes and the dirty generation it belongs to, for write-back. */
  synchronized Snapshot snapshotIfDirty() {
    return dirty ? new Snapshot(this, data.clone(), dirtyGeneration) : null;
  }

  /** Clears the dirty flag if nothing dirtied the block since {@code generation}'s snapshot. */
  synchronized boolean cleanIfUnchanged(long generation) {
    if (dirty && dirtyGeneration == generation) {
      dirty = false;
      return true;
    }
    return false;
  }

  /** Clears the dirty flag whatever the generation; returns whether it was set. */
  synchronized boolean cleanIfDirty() {
    boolean was = dirty;
    dirty = false;
    return was;
  }

  /**
   * Whether the cache must keep this block: it is dirty, or its attachment keeps it (the journal
   * still owes the device a write of it). Such a block cannot be evicted or invalidated.
   */
  public boolean held() {
    CacheAttachment a = attachment;
    return isDirty() || (a != null && a.keepsBlockCached());
  }

  /** Whether eviction may take this block now (ignoring pins, which eviction checks by CAS). */
  boolean evictable() {
    return loadState == null && !held();
  }

  // ------------------------------------------------------------------ loading

  boolean isLoaded() {
    return loadState == null;
  }

  void loaded() {
    Object s = loadState;
    loadState = null;
    if (s instanceof Latch l) {
      l.open();
    }
  }

  void loadFailed(java.io.IOException e) {
    Object s = loadState;
    loadState = e;
    if (s instanceof Latch l) {
      l.open();
    }
  }

  /** Waits until the creator finished reading; rethrows its failure. */
  void awaitLoaded() throws java.io.IOException {
    Object s = loadState;
    if (s instanceof Latch l) {
      l.await();
      s = loadState;
    }
    if (s instanceof java.io.IOException e) {
      throw new java.io.IOException("reading block " + block + " failed in another thread", e);
    }
  }

  /** A one-shot gate for threads that found the block while its creator was reading it. */
  private static final class Latch {
    @GuardedBy("this") private boolean open;

    synchronized void open() {
      open = true;
      notifyAll();
    }

    synchronized void await() {
      boolean interrupted = false;
      while (!open) {
        try {
          wait();
        } catch (InterruptedException e) {
          interrupted = true; // a block read is not abandoned halfway; the interrupt is kept
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A dirty block's bytes as of one moment. */
  record Snapshot(CachedBlock block, byte[] bytes, long generation) {}

  @Override
  public String toString() {
    return "CachedBlock[" + block + ", pins=" + pins.get() + "]";
  }
}
