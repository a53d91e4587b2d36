package io.ext4j.jbd2.internal;

import io.ext4j.jbd2.JournalBuffer;
import java.nio.ByteBuffer;

/**
 * A cached block and its journal state (Linux's buffer_head and journal_head in one).
 *
 * <h2>Guards</h2>
 * {@code lock} (this object's monitor) guards every journal field; {@code transaction} and
 * {@code nextTransaction} are also volatile so the write-access fast path can read them without the
 * lock. Writers store {@code modified} and {@code frozen} before publishing a transaction pointer
 * (volatile write = release), so a fast-path reader that sees its transaction (volatile read =
 * acquire) also sees them. {@code cpTransaction} is guarded by the journal's list lock.
 */
final class BufferHead implements JournalBuffer {
  /** Which list of its transaction the buffer is on (jbd2's {@code b_jlist}). */
  enum JList { NONE, RESERVED, METADATA, FORGET, LOGGED }

  final long block;
  final byte[] data; // live contents; changed by handle owners between access and stop

  volatile Transaction transaction; // lock; published last
  volatile Transaction nextTransaction; // lock; published last
  boolean modified; // lock; written before transaction pointers are published
  JList jlist = JList.NONE; // lock
  byte[] frozen; // lock: the image the committing transaction logs, when a newer one changed the live data
  byte[] committedData; // lock: undo access
  boolean freed; // lock: forgotten by nextTransaction while the committing one still owned it
  volatile boolean forgotten; // lock (volatile for the fast path): forgotten by the transaction that now holds it
  Transaction cpTransaction; // list lock: the transaction whose checkpoint must write this block home

  BufferHead(long block, byte[] data) {
    this.block = block;
    this.data = data;
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
    synchronized (this) {
      return committedData == null ? null : ByteBuffer.wrap(committedData).asReadOnlyBuffer();
    }
  }

  @Override
  public String toString() {
    return "Buffer[" + block + "]";
  }
}
