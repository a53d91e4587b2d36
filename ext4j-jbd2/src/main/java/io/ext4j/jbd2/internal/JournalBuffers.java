package io.ext4j.jbd2.internal;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.block.cache.CacheAttachment;
import io.ext4j.block.cache.CachedBlock;
import io.ext4j.jbd2.JournalBuffer;
import java.io.IOException;
import java.util.Arrays;

/**
 * The journal's view of the shared {@link BlockCache}: one {@link BufferHead} per cached block,
 * attached on first use and found again through the block's attachment. Every method returns the
 * buffer pinned (one {@link BufferHead#release()} each). Thread-safe; two threads asking for the same
 * block get the same buffer while it stays cached.
 *
 * <h2>Contents</h2>
 * {@link #get} returns the cached bytes, which follow the device as long as everyone who writes the
 * device past the cache invalidates it ({@link BlockCache#invalidate}); {@link #getNew} does not read,
 * and zeroes a block that carries no journal state (see {@code Journal.newBuffer}).
 */
final class JournalBuffers {
  private final BlockCache cache;

  JournalBuffers(BlockCache cache) {
    this.cache = cache;
  }

  /**
   * A cache for a journal that was not given one: about one block per log block, which covers what
   * the log can keep pinned for checkpointing, capped at 32 MiB (and at least 256 blocks).
   */
  static BlockCache ownCache(BlockDevice device, long logBlocks) {
    int bs = device.blockSize();
    long cap = Math.max(256, Math.min(logBlocks, (32L << 20) / bs));
    return new BlockCache(device, BlockCache.Options.ofBytes(cap * bs, bs));
  }

  BlockCache cache() {
    return cache;
  }

  /** The buffer of {@code block}, pinned, read from the device if not cached. */
  BufferHead get(long block) throws IOException {
    return head(cache.get(block));
  }

  /**
   * The buffer of {@code block}, pinned, not read from the device: zero-filled unless the block
   * carries journal state, when it keeps the contents the journal holds (zeroing those could
   * change an image a committing transaction has not copied yet).
   */
  BufferHead getNew(long block) throws IOException {
    BufferHead b = head(cache.getNew(block));
    synchronized (b) {
      if (!b.keepsBlockCached()) {
        Arrays.fill(b.data, (byte) 0); // no transaction, checkpoint or frozen image refers to these bytes
      }
    }
    return b;
  }

  /** The buffer of {@code block}, pinned, if it is cached; else null. */
  BufferHead peek(long block) throws IOException {
    CachedBlock c = cache.peek(block);
    return c == null ? null : head(c);
  }

  /** This journal's buffer behind the API type. */
  BufferHead cast(JournalBuffer b) {
    if (b instanceof BufferHead bh && bh.owner == this) {
      return bh;
    }
    throw new IllegalArgumentException("not a buffer of this journal: " + b);
  }

  private BufferHead head(CachedBlock c) {
    CacheAttachment a = c.attachment();
    if (a == null) {
      a = c.attachIfAbsent(new BufferHead(this, c));
    }
    if (a instanceof BufferHead bh && bh.owner == this) {
      return bh;
    }
    c.release();
    throw new IllegalStateException(cache.device().name() + ": block " + c.block()
        + " of the shared cache carries another owner's state (" + a + "); one journal per cache");
  }
}
