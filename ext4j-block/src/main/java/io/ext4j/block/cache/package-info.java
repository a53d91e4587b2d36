/**
 * The one block cache ({@link io.ext4j.block.cache.BlockCache}): pinned, evictable copies of device
 * blocks shared by the journal and the filesystem engine, with read-ahead, invalidation and
 * write-back for caches without a journal. Not here: journal state (the journal attaches it through
 * {@link io.ext4j.block.cache.CacheAttachment}) and any knowledge of what a block holds.
 */
package io.ext4j.block.cache;
