package io.ext4j.jbd2.internal;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.BlockOutOfRangeException;
import io.ext4j.jbd2.JournalBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The journal's metadata cache: one {@link BufferHead} per home block, created on first use and
 * kept for the journal's life (no eviction yet: a buffer may carry journal state at any time, and
 * evicting only clean, unowned, unclaimed buffers is left for when the filesystem engine needs a
 * bounded cache). Thread-safe; two threads asking for the same block get the same buffer.
 */
final class BufferCache {
  private final BlockDevice device;
  private final ConcurrentHashMap<Long, BufferHead> buffers = new ConcurrentHashMap<>();

  BufferCache(BlockDevice device) {
    this.device = device;
  }

  /** The buffer of {@code block}, read from the device on first use. */
  BufferHead read(long block) throws IOException {
    BufferHead b = buffers.get(block);
    if (b != null) {
      return b;
    }
    checkHomeBlock(block);
    byte[] data = new byte[device.blockSize()];
    device.read(block, ByteBuffer.wrap(data));
    BufferHead fresh = new BufferHead(block, data);
    BufferHead raced = buffers.putIfAbsent(block, fresh);
    return raced == null ? fresh : raced;
  }

  /** The buffer of {@code block}; zero-filled and not read when not cached (for create access). */
  BufferHead create(long block) throws IOException {
    checkHomeBlock(block);
    return buffers.computeIfAbsent(block, b -> new BufferHead(b, new byte[device.blockSize()]));
  }

  /** The cached buffer of {@code block}, or null. */
  BufferHead cached(long block) {
    return buffers.get(block);
  }

  /** This journal's buffer behind the API type. */
  static BufferHead cast(JournalBuffer b) {
    if (b instanceof BufferHead bh) {
      return bh;
    }
    throw new IllegalArgumentException("not a buffer of this journal: " + b);
  }

  private void checkHomeBlock(long block) throws BlockOutOfRangeException {
    if (block < 0 || block >= device.blockCount()) {
      throw new BlockOutOfRangeException(device.name(), block, 1, device.blockCount());
    }
  }
}
