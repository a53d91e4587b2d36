package io.ext4j.block.cache;

/**
 * State an owner (the journal) keeps with a {@link CachedBlock}. While it says the block must stay
 * cached, eviction leaves the block alone even when nobody pins it: a block that belongs to a
 * transaction or waits for its checkpoint exists only in the cache until the journal writes it.
 */
public interface CacheAttachment {
  /**
   * Whether the block must stay cached. Called by eviction without any lock of the owner's; an
   * owner answers from volatile state, and must not let the answer go from false to true for a
   * block nobody pins (it attaches state only to blocks it holds pinned).
   */
  boolean keepsBlockCached();
}
