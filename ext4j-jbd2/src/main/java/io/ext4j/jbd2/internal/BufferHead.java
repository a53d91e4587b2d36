package io.ext4j.jbd2.internal;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.cache.CacheAttachment;
import io.ext4j.block.cache.CachedBlock;
import io.ext4j.jbd2.JournalBuffer;
import java.nio.ByteBuffer;

/**
 * The journal's state for one block of the shared {@link io.ext4j.block.cache.BlockCache} (Linux's
 * journal_head), attached to its {@link CachedBlock} once ({@link JournalBuffers}); its bytes are
 * the cached block's array. Handed out pinned by {@code Journal.buffer}/{@code newBuffer}; every
 * such reference is dropped with {@link #release()}.
 *
 * <h2>Guards</h2>
 * {@code lock} (this object's monitor) guards every journal field; {@code transaction} and
 * {@code nextTransaction} are also volatile so the write-access fast path can read them without the
 * lock. Writers store {@code modified} and {@code frozen} before publishing a transaction pointer
 * (volatile write = release), so a fast-path reader that sees its transaction (volatile read =
 * acquire) also sees them. {@code cpTransaction} is guarded by the journal's list lock.
 * {@code frozen}, {@code committedData} and {@code cpTransaction} are volatile as well, for
 * {@link #keepsBlockCached()}.
 *
 * <h2>Staying cached</h2>
 * The cache evicts an unpinned block only while {@link #keepsBlockCached()} is false, and reads it
 * from the device again on the next use: so a block the journal still needs — owned by a running or
 * committing transaction, waiting for its checkpoint, or holding a frozen or committed image — must
 * never be evicted. The answer goes from false to true only in a handle's access or forget call,
 * whose caller holds the block pinned (internal lookups without the caller's pin, such as a
 * revoke's, pin it while they work), so eviction — which claims only unpinned blocks and then asks
 * again — can never drop a block that is just gaining journal state. While a block moves between
 * transactions and checkpoint lists, the next holder is set before the previous is cleared, so the
 * answer never drops to false in between.
 */
final class BufferHead implements JournalBuffer, CacheAttachment {
  /** Which list of its transaction the buffer is on (jbd2's {@code b_jlist}). */
  enum JList { NONE, RESERVED, METADATA, FORGET, LOGGED }

  final JournalBuffers owner; // the journal's buffer table this belongs to
  final CachedBlock cached;
  final long block;
  final byte[] data; // the cached block's live contents; changed by handle owners between access and stop

  volatile Transaction transaction; // lock; published last
  volatile Transaction nextTransaction; // lock; published last
  @GuardedBy("this") boolean modified; // written before transaction pointers are published
  @GuardedBy("this") JList jlist = JList.NONE;
  volatile byte[] frozen; // lock: the image the committing transaction logs, when a newer one changed the live data
  volatile byte[] committedData; // lock: undo access, the last committed image
  @GuardedBy("this") Transaction undoTransaction; // the newest transaction that asked for undo access
  @GuardedBy("this") boolean freed; // forgotten by nextTransaction while the committing one still owned it
  volatile boolean forgotten; // lock (volatile for the fast path): forgotten by the transaction that now holds it
  volatile Transaction cpTransaction; // list lock: the transaction whose checkpoint must write this block home

  BufferHead(JournalBuffers owner, CachedBlock cached) {
    this.owner = owner;
    this.cached = cached;
    this.block = cached.block();
    this.data = cached.array();
  }

  @Override
  public long block() {
    return block;
  }

  @Override
  public ByteBuffer data() {
    return ByteBuffer.wrap(data);
  }

  @Override
  public ByteBuffer committedData() {
    byte[] c = committedData; // volatile read; the array is never written after it is published
    return c == null ? null : ByteBuffer.wrap(c).asReadOnlyBuffer();
  }

  /** Unpins the cached block: one release per {@code Journal.buffer}/{@code newBuffer} call. */
  @Override
  public void release() {
    cached.release();
  }

  /** Volatile reads only; see the class doc. */
  @Override
  public boolean keepsBlockCached() {
    return transaction != null || nextTransaction != null || cpTransaction != null || frozen != null
        || committedData != null;
  }

  @Override
  public String toString() {
    return "Buffer[" + block + "]";
  }
}
