package io.ext4j.block;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A device of fixed-size blocks addressed from 0, read and written by position.
 *
 * <h2>Obligations of every implementation</h2>
 * <ul>
 *   <li>Transfers are whole blocks: a buffer's {@code remaining()} must be a positive multiple of
 *       {@link #blockSize()}, else {@link IllegalArgumentException}. A transfer of {@code k} blocks at
 *       {@code block} covers blocks {@code [block, block + k)}; any of them outside
 *       {@code [0, blockCount())} fails with {@link BlockOutOfRangeException} before anything moves.
 *   <li>A read returns the contents of the latest completed write of each block, or zeros for a block
 *       never written. On return the buffer's position has advanced by the bytes transferred.
 *   <li>Methods are safe to call from many threads at once. Concurrent writes to the same block land
 *       in some order; a reader sees one of them whole (per block; devices do not tear in memory).
 *   <li>Callers must not interrupt threads blocked in these methods: interrupting a thread in
 *       {@code FileChannel} I/O closes the channel for every user.
 * </ul>
 *
 * <h2>Durability</h2>
 * A completed {@code write} may still sit in a volatile cache (the OS page cache, a disk's write
 * cache). {@link #flush()} returns only when every write that completed before the call began is on
 * stable storage; otherwise it throws, and the caller must assume any of those writes may be lost.
 * A crash may lose, or keep, any subset of unflushed writes, and a block being written at the
 * moment of a crash may be torn at 512-byte sector granularity. Writes are never reordered across a
 * flush.
 */
public interface BlockDevice extends AutoCloseable {

  /** A human-readable name for error messages: the file path, or a label for memory devices. */
  String name();

  /** The block size in bytes: a power of two from 512 to 65536. */
  int blockSize();

  /** The number of blocks; constant for the life of the device. */
  long blockCount();

  /** True when writes and flushes are refused with {@link ReadOnlyDeviceException}. */
  boolean isReadOnly();

  /**
   * Reads {@code dst.remaining() / blockSize()} consecutive blocks starting at {@code block} into
   * {@code dst}.
   *
   * @throws BlockOutOfRangeException if a block is outside the device
   * @throws IOException if the device fails; {@code dst}'s contents are then unspecified
   */
  void read(long block, ByteBuffer dst) throws IOException;

  /**
   * Writes {@code src.remaining() / blockSize()} consecutive blocks starting at {@code block}. Not
   * durable until a later {@link #flush()} returns.
   *
   * @throws BlockOutOfRangeException if a block is outside the device
   * @throws ReadOnlyDeviceException if the device is read-only
   * @throws IOException if the device fails; the blocks' contents are then unspecified
   */
  void write(long block, ByteBuffer src) throws IOException;

  /**
   * Writes the buffers, in order, to consecutive blocks starting at {@code block}: a vectored form of
   * {@link #write(long, ByteBuffer)} with the same obligations for each buffer. Every buffer's shape and range is
   * checked before any block is written, so a bad buffer anywhere leaves the device untouched.
   * Implementations may submit it as one operation.
   */
  default void write(long block, ByteBuffer... srcs) throws IOException {
    long at = block;
    for (ByteBuffer src : srcs) { // check every buffer first: nothing may move if one is out of range
      at += checkTransfer(this, at, src);
    }
    at = block;
    for (ByteBuffer src : srcs) {
      int blocks = src.remaining() / blockSize();
      write(at, src);
      at += blocks;
    }
  }

  /**
   * Makes every write that completed before this call durable. Returns only when they are on stable
   * storage.
   *
   * @throws ReadOnlyDeviceException if the device is read-only
   * @throws IOException if durability cannot be confirmed; the caller must treat every unflushed
   *     write as possibly lost (a journal aborts)
   */
  void flush() throws IOException;

  /** Releases the device. Does not flush. Later calls fail with {@link java.nio.channels.ClosedChannelException}. */
  @Override
  void close() throws IOException;

  /** Checks a transfer's shape and range; implementations call it first. Returns the block count. */
  static int checkTransfer(BlockDevice device, long block, ByteBuffer buffer) throws BlockOutOfRangeException {
    int bs = device.blockSize();
    int bytes = buffer.remaining();
    if (bytes <= 0 || bytes % bs != 0) {
      throw new IllegalArgumentException(
          "transfer of " + bytes + " bytes on " + device.name() + " is not a positive multiple of the block size " + bs);
    }
    int blocks = bytes / bs;
    if (block < 0 || block > device.blockCount() - blocks) {
      throw new BlockOutOfRangeException(device.name(), block, blocks, device.blockCount());
    }
    return blocks;
  }
}
