package io.ext4j.fs.meta;

import java.nio.ByteBuffer;

/**
 * A pinned metadata block: the cache's (or the journal's) live bytes of one filesystem block.
 * Obtained from {@link MetaStore#read} or a {@link Tx}; {@link #close()} drops the pin, after which
 * the reference must not be used. Changes happen only inside a {@link Tx} between
 * {@link Tx#modify(Buf)} (or {@link Tx#create(long)}) and {@link Tx#dirty(Buf)}, under the lock of
 * the structure the block belongs to.
 */
public interface Buf extends AutoCloseable {
  long block();

  /** The live bytes (not a copy). */
  byte[] array();

  /** A little-endian view of {@link #array()}. */
  default ByteBuffer le() {
    return ByteBuffer.wrap(array()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
  }

  /** Drops the pin. */
  @Override
  void close();
}
