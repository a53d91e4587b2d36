package io.ext4j.block.cache;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.BlockOutOfRangeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one block cache of an open filesystem: metadata blocks (with or without a journal), file pages,
 * and the blocks mkfs writes. One {@link CachedBlock} per cached device block; two threads asking
 * for the same block get the same object.
 *
 * <h2>Pins and eviction</h2>
 * {@link #get}, {@link #getNew} and {@link #peek} return the block pinned; {@link CachedBlock#release()}
 * unpins. The cache holds about {@link Options#capacityBlocks()} blocks: inserting past that evicts,
 * least recently released first, blocks that are unpinned, not dirty, and not kept by their
 * {@link CacheAttachment} (a journal's transaction or checkpoint state). When nothing more can be
 * evicted the cache grows past its capacity rather than fail, and calls the
 * {@linkplain #addPressureListener pressure listeners} so that the owners of the kept blocks can
 * release them (the journal checkpoints; a cache without a journal writes back).
 *
 * <h2>Races handled here</h2>
 * A pin is a CAS on the block's pin count; eviction claims an unpinned block by CAS from 0 to
 * {@code EVICTED}, re-checks that it is still evictable, and only then removes it, so a thread that
 * looked the block up concurrently either pins it first (and eviction skips it) or sees
 * {@code EVICTED} and looks again, finding a fresh copy. A block missing from the cache is inserted
 * before it is read; threads that find it meanwhile wait for that one read instead of issuing
 * their own, and a failed read removes it again and fails every waiter.
 *
 * <h2>Durability</h2>
 * The cache itself writes only in {@link #writeBack()} (and {@link #readAhead} only reads): a block
 * marked dirty is on the device once {@code writeBack} returns, durable after the caller's next
 * {@link BlockDevice#flush()}. Blocks a journal owns are never marked dirty here; the journal writes
 * them (log and checkpoint).
 *
 * <p>Thread-safe.
 */
public final class BlockCache {

  /**
   * Cache settings.
   *
   * @param capacityBlocks about how many blocks stay cached (at least 16); the cache may exceed it
   *     while blocks are pinned, dirty or kept by the journal
   * @param readAheadLimit the most blocks one {@link #readAhead} reads (at least 1)
   */
  public record Options(int capacityBlocks, int readAheadLimit) {
    public Options {
      if (capacityBlocks < 16) {
        throw new IllegalArgumentException("a block cache needs a capacity of at least 16 blocks, not " + capacityBlocks);
      }
      if (readAheadLimit < 1) {
        throw new IllegalArgumentException("readAheadLimit must be positive: " + readAheadLimit);
      }
    }

    /** A cache of {@code bytes} bytes of blocks of {@code blockSize} bytes, reading ahead up to 128 KiB. */
    public static Options ofBytes(long bytes, int blockSize) {
      int blocks = (int) Math.max(16, Math.min(Integer.MAX_VALUE, bytes / blockSize));
      return new Options(blocks, Math.max(1, Math.min(blocks / 4, 131072 / blockSize)));
    }
  }

  /** Counters since the cache was made. */
  public record Stats(long hits, long misses, long evictions, long readAheadBlocks, long writtenBack, int cached, int dirty) {}

  private final BlockDevice device;
  private final int blockSize;
  private final Options options;
  private final ConcurrentHashMap<Long, CachedBlock> blocks = new ConcurrentHashMap<>();
  private final ReentrantLock evictLock = new ReentrantLock(); // one sweep at a time
  private final AtomicInteger dirtyCount = new AtomicInteger();
  private final CopyOnWriteArrayList<Runnable> pressureListeners = new CopyOnWriteArrayList<>(); // called without locks
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder evictions = new LongAdder();
  private final LongAdder readAhead = new LongAdder();
  private final LongAdder writtenBack = new LongAdder();

  public BlockCache(BlockDevice device, Options options) {
    this.device = Objects.requireNonNull(device, "device");
    this.options = Objects.requireNonNull(options, "options");
    this.blockSize = device.blockSize();
  }

  public BlockDevice device() {
    return device;
  }

  public int blockSize() {
    return blockSize;
  }

  public Options options() {
    return options;
  }

  /**
   * Adds what to call when the cache is over capacity and nothing more is evictable (a journal
   * wakes its checkpointer; a filesystem its write-back). It runs in the thread that inserted a
   * block, which may hold any of its caller's locks: it must not block (wake a worker instead), and
   * may be called often.
   */
  public void addPressureListener(Runnable listener) {
    pressureListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Removes a listener {@link #addPressureListener} added (the same object); does nothing if absent. */
  public void removePressureListener(Runnable listener) {
    pressureListeners.remove(listener);
  }

  /**
   * The block, pinned, read from the device if it is not cached.
   *
   * @throws BlockOutOfRangeException if the block is outside the device
   * @throws IOException if the read fails (in this thread, or in the thread that was reading it)
   */
  public CachedBlock get(long block) throws IOException {
    checkRange(block);
    while (true) {
      CachedBlock b = blocks.get(block);
      if (b != null) {
        if (!tryPin(b)) {
          Thread.onSpinWait(); // being evicted; it leaves the map next
          continue;
        }
        hits.increment();
        if (!b.isLoaded()) {
          try {
            b.awaitLoaded();
          } catch (IOException e) {
            b.release();
            throw e;
          }
        }
        return b;
      }
      CachedBlock fresh = new CachedBlock(this, block, blockSize, true);
      if (blocks.putIfAbsent(block, fresh) != null) {
        continue;
      }
      misses.increment();
      try {
        device.read(block, ByteBuffer.wrap(fresh.array()));
      } catch (IOException | RuntimeException e) {
        blocks.remove(block, fresh);
        fresh.loadFailed(e instanceof IOException io ? io : new IOException(e));
        throw e;
      }
      fresh.loaded();
      maybeEvict();
      return fresh;
    }
  }

  /**
   * The block, pinned, without reading it: a block that is not cached is added zero-filled (for a
   * block about to be written whole). A cached block is returned as it is.
   */
  public CachedBlock getNew(long block) throws IOException {
    checkRange(block);
    while (true) {
      CachedBlock b = blocks.get(block);
      if (b != null) {
        if (!tryPin(b)) {
          Thread.onSpinWait();
          continue;
        }
        if (!b.isLoaded()) {
          try {
            b.awaitLoaded();
          } catch (IOException e) {
            b.release();
            continue; // the read failed and the block left the cache: add it fresh
          }
        }
        return b;
      }
      CachedBlock fresh = new CachedBlock(this, block, blockSize, false);
      if (blocks.putIfAbsent(block, fresh) == null) {
        maybeEvict();
        return fresh;
      }
    }
  }

  /** The block, pinned, if it is cached (waiting for a read in progress); else null. */
  public CachedBlock peek(long block) throws IOException {
    while (true) {
      CachedBlock b = blocks.get(block);
      if (b == null) {
        return null;
      }
      if (!tryPin(b)) {
        Thread.onSpinWait();
        continue;
      }
      if (!b.isLoaded()) {
        try {
          b.awaitLoaded();
        } catch (IOException e) {
          b.release();
          return null;
        }
      }
      return b;
    }
  }

  /**
   * Reads the blocks of {@code [first, first + count)} that are not cached, one device read per run
   * of missing blocks, and leaves them cached unpinned. Blocks outside the device are skipped.
   * {@code count} is capped at {@link Options#readAheadLimit()}.
   */
  public void readAhead(long first, int count) throws IOException {
    long end = Math.min(device.blockCount(), first + Math.min(count, options.readAheadLimit()));
    long at = Math.max(0, first);
    while (at < end) {
      if (blocks.containsKey(at)) {
        at++;
        continue;
      }
      List<CachedBlock> run = new ArrayList<>();
      while (at < end) {
        CachedBlock fresh = new CachedBlock(this, at, blockSize, true);
        if (blocks.putIfAbsent(at, fresh) != null) {
          break;
        }
        run.add(fresh);
        at++;
      }
      if (run.isEmpty()) {
        continue;
      }
      ByteBuffer buf = ByteBuffer.allocate(run.size() * blockSize);
      try {
        device.read(run.getFirst().block(), buf);
      } catch (IOException | RuntimeException e) {
        IOException io = e instanceof IOException x ? x : new IOException(e);
        for (CachedBlock b : run) {
          blocks.remove(b.block(), b);
          b.loadFailed(io);
          b.pins.decrementAndGet();
        }
        throw e;
      }
      for (int i = 0; i < run.size(); i++) {
        CachedBlock b = run.get(i);
        System.arraycopy(buf.array(), i * blockSize, b.array(), 0, blockSize);
        b.loaded();
        b.lastUse = System.nanoTime();
        b.pins.decrementAndGet(); // born pinned by its creator: read-ahead leaves it unpinned
      }
      readAhead.add(run.size());
      maybeEvict();
    }
  }

  /**
   * Forgets the cached copy of {@code block} (its contents on the device changed behind the cache,
   * or it stopped being what was cached), so the next {@link #get} reads it again. Holders of a pin
   * keep their (now detached) object. Does nothing if the block is not cached.
   *
   * @throws IllegalStateException if the block is dirty or its attachment keeps it: dropping it
   *     would lose a write the cache or the journal still owes the device
   */
  public void invalidate(long block) {
    CachedBlock b = blocks.get(block);
    if (b == null) {
      return;
    }
    if (b.isDirty()) {
      throw new IllegalStateException(device.name() + ": cannot invalidate block " + block + ": it has unwritten changes");
    }
    CacheAttachment a = b.attachment();
    if (a != null && a.keepsBlockCached()) {
      throw new IllegalStateException(device.name() + ": cannot invalidate block " + block + ": the journal still holds it (" + a + ")");
    }
    blocks.remove(block, b);
  }

  /**
   * Forgets {@code block} together with any unwritten change (it was freed: what it held no longer
   * matters and must not be written back over what it holds next). Holders of a pin keep their
   * detached object.
   *
   * @throws IllegalStateException if its attachment keeps it (the journal decides when its blocks go)
   */
  public void discard(long block) {
    CachedBlock b = blocks.get(block);
    if (b == null) {
      return;
    }
    CacheAttachment a = b.attachment();
    if (a != null && a.keepsBlockCached()) {
      throw new IllegalStateException(device.name() + ": cannot discard block " + block + ": the journal still holds it (" + a + ")");
    }
    if (blocks.remove(block, b) && b.cleanIfDirty()) {
      dirtyCount.decrementAndGet();
    }
  }

  /**
   * Writes every dirty block to the device (sorted, contiguous runs as one vectored write) and marks
   * it clean unless it was dirtied again meanwhile. Does not flush. Returns the blocks written.
   */
  public int writeBack() throws IOException {
    if (dirtyCount.get() == 0) {
      return 0;
    }
    List<CachedBlock.Snapshot> dirty = new ArrayList<>();
    for (CachedBlock b : blocks.values()) {
      CachedBlock.Snapshot s = b.snapshotIfDirty();
      if (s != null) {
        dirty.add(s);
      }
    }
    dirty.sort(Comparator.comparingLong(s -> s.block().block()));
    int i = 0;
    while (i < dirty.size()) {
      int j = i + 1;
      while (j < dirty.size() && j - i < 256 && dirty.get(j).block().block() == dirty.get(j - 1).block().block() + 1) {
        j++;
      }
      ByteBuffer[] run = new ByteBuffer[j - i];
      for (int k = i; k < j; k++) {
        run[k - i] = ByteBuffer.wrap(dirty.get(k).bytes());
      }
      device.write(dirty.get(i).block().block(), run);
      i = j;
    }
    for (CachedBlock.Snapshot s : dirty) {
      if (s.block().cleanIfUnchanged(s.generation())) {
        dirtyCount.decrementAndGet();
      }
    }
    writtenBack.add(dirty.size());
    return dirty.size();
  }

  /** Blocks currently cached. */
  public int size() {
    return blocks.size();
  }

  /** Blocks waiting for {@link #writeBack()}. */
  public int dirtyBlocks() {
    return dirtyCount.get();
  }

  public Stats stats() {
    return new Stats(hits.sum(), misses.sum(), evictions.sum(), readAhead.sum(), writtenBack.sum(), blocks.size(), dirtyCount.get());
  }

  // ------------------------------------------------------------------ internals

  long tick() {
    return System.nanoTime();
  }

  void unpinned() {
    // eviction runs on insertion; nothing to do per release
  }

  void dirtied() {
    dirtyCount.incrementAndGet();
  }

  private static boolean tryPin(CachedBlock b) {
    while (true) {
      int p = b.pins.get();
      if (p == CachedBlock.EVICTED) {
        return false;
      }
      if (b.pins.compareAndSet(p, p + 1)) {
        return true;
      }
    }
  }

  private void checkRange(long block) throws BlockOutOfRangeException {
    if (block < 0 || block >= device.blockCount()) {
      throw new BlockOutOfRangeException(device.name(), block, 1, device.blockCount());
    }
  }

  /** Evicts down to 7/8 of capacity when over it; one sweep at a time, skipped if one runs. */
  private void maybeEvict() {
    int capacity = options.capacityBlocks();
    if (blocks.size() <= capacity || !evictLock.tryLock()) {
      return;
    }
    boolean short_;
    try {
      int target = capacity - capacity / 8;
      int excess = blocks.size() - target;
      if (excess <= 0) {
        return;
      }
      record Candidate(CachedBlock block, long lastUse) {} // lastUse read once: it changes under the sort
      List<Candidate> candidates = new ArrayList<>();
      for (CachedBlock b : blocks.values()) {
        if (b.pins.get() == 0 && b.evictable()) {
          candidates.add(new Candidate(b, b.lastUse));
        }
      }
      candidates.sort(Comparator.comparingLong(Candidate::lastUse));
      int evicted = 0;
      for (Candidate c : candidates) {
        CachedBlock b = c.block();
        if (evicted >= excess) {
          break;
        }
        if (!b.pins.compareAndSet(0, CachedBlock.EVICTED)) {
          continue;
        }
        if (!b.evictable()) { // dirtied or attached before our CAS
          b.pins.set(0);
          continue;
        }
        blocks.remove(b.block(), b);
        evicted++;
      }
      evictions.add(evicted);
      short_ = blocks.size() > capacity;
    } finally {
      evictLock.unlock();
    }
    if (short_) {
      for (Runnable l : pressureListeners) {
        l.run();
      }
    }
  }
}
