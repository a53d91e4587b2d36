package io.ext4j.block;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;

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
 *   <li>Any buffer works for any transfer. A buffer from {@link #allocateAligned(int)} (address
 *       aligned to {@link #alignment()}) is transferred without a copy where the device needs
 *       alignment (direct I/O); others may be copied through one.
 * </ul>
 *
 * <h2>Durability</h2>
 * A completed {@code write} may still sit in a volatile cache (the OS page cache, a disk's write
 * cache). {@link #flush()} returns only when every write that completed before the call began is on
 * stable storage; otherwise it throws, and the caller must assume any of those writes may be lost.
 * A crash may lose, or keep, any subset of unflushed writes, and a block being written at the
 * moment of a crash may be torn at 512-byte sector granularity. Writes are never reordered across a
 * flush. Every method that changes blocks ({@code write} in all its forms, {@link #zeroOut}) is a
 * write in this sense: a crash may lose it, or keep any subset of its blocks, until a flush returns.
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
   * Writes each {@code srcs[i]} at {@code blocks[i]} (as {@link #write(long, ByteBuffer)}), the
   * blocks in any order and not necessarily contiguous: the checkpoint's scattered home writes in
   * one call. Entries are applied in array order, so of two entries covering the same block the later
   * wins. Every entry's shape and range is checked before any block is written. Implementations
   * submit runs of entries that continue each other ({@code blocks[i + 1] == blocks[i] +
   * srcs[i].remaining() / blockSize()}) as one vectored write; callers that sort by block get the
   * fewest operations.
   *
   * @throws IllegalArgumentException if the arrays differ in length, or a buffer's shape is wrong
   * @throws BlockOutOfRangeException if an entry is outside the device
   * @throws ReadOnlyDeviceException if the device is read-only
   * @throws IOException if the device fails; the blocks' contents are then unspecified
   */
  default void write(long[] blocks, ByteBuffer[] srcs) throws IOException {
    checkScattered(this, blocks, srcs);
    int i = 0;
    while (i < blocks.length) {
      int j = i + 1;
      long next = blocks[i] + srcs[i].remaining() / blockSize();
      while (j < blocks.length && blocks[j] == next) {
        next += srcs[j].remaining() / blockSize();
        j++;
      }
      if (j == i + 1) {
        write(blocks[i], srcs[i]);
      } else {
        write(blocks[i], java.util.Arrays.copyOfRange(srcs, i, j));
      }
      i = j;
    }
  }

  /**
   * Makes blocks {@code [block, block + count)} read as zeros: a write of zeros, which a device may
   * do without moving the bytes (a memory device drops the blocks; a file or disk may discard them or
   * punch a hole). Durable like any write, after the next {@link #flush()}. The default writes zeros
   * in batches of up to 256 KiB from one zero buffer per call.
   *
   * @throws IllegalArgumentException if {@code count} is not positive
   * @throws BlockOutOfRangeException if a block is outside the device (nothing is changed)
   * @throws ReadOnlyDeviceException if the device is read-only
   * @throws IOException if the device fails; the blocks' contents are then unspecified
   */
  default void zeroOut(long block, long count) throws IOException {
    checkRange(this, block, count);
    int bs = blockSize();
    int batch = (int) Math.min(count, Math.max(1, ZERO_BATCH_BYTES / bs));
    ByteBuffer zeros = allocateAligned(batch * bs); // fresh: zero-filled
    long at = block;
    long left = count;
    while (left > 0) {
      int n = (int) Math.min(left, batch);
      write(at, zeros.duplicate().clear().limit(n * bs));
      at += n;
      left -= n;
    }
  }

  /**
   * The alignment, in bytes, of buffer addresses that this device transfers without a copy: 1 when
   * any buffer will do (memory devices, buffered files), else a power of two that divides the block
   * size (direct I/O: the file store's logical block size). Device positions and lengths are whole
   * blocks, so they are always aligned. Constant for the life of the device.
   */
  default int alignment() {
    return 1;
  }

  /**
   * A zero-filled buffer of {@code bytes} bytes (position 0, limit and capacity {@code bytes},
   * big-endian) that this device transfers without a copy: a direct buffer whose address is a
   * multiple of {@link #alignment()} when the device needs alignment, else a heap buffer. Engines
   * doing direct I/O allocate through here instead of knowing the device's type.
   *
   * @throws IllegalArgumentException if {@code bytes} is negative
   */
  default ByteBuffer allocateAligned(int bytes) {
    return alignedBuffer(bytes, alignment());
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

  /** Bytes of zeros the default {@link #zeroOut} writes per call. */
  int ZERO_BATCH_BYTES = 256 * 1024;

  /**
   * A zero-filled buffer of {@code bytes} bytes at an address that is a multiple of
   * {@code alignment}: a heap buffer when {@code alignment <= 1}, else a direct buffer.
   */
  static ByteBuffer alignedBuffer(int bytes, int alignment) {
    if (bytes < 0) {
      throw new IllegalArgumentException("negative buffer size " + bytes);
    }
    if (alignment <= 1) {
      return ByteBuffer.allocate(bytes);
    }
    if (Integer.bitCount(alignment) != 1) {
      throw new IllegalArgumentException("alignment " + alignment + " is not a power of two");
    }
    return ByteBuffer.allocateDirect(bytes + alignment).alignedSlice(alignment).slice(0, bytes);
  }

  /** Checks that {@code [block, block + count)} is a positive run inside the device. */
  static void checkRange(BlockDevice device, long block, long count) throws BlockOutOfRangeException {
    if (count <= 0) {
      throw new IllegalArgumentException("a range of " + count + " blocks on " + device.name() + " is not positive");
    }
    if (block < 0 || block > device.blockCount() - count) {
      throw new BlockOutOfRangeException(device.name(), block, (int) Math.min(Integer.MAX_VALUE, count), device.blockCount());
    }
  }

  /** Checks a scattered write's arrays and every entry, before anything moves. */
  static void checkScattered(BlockDevice device, long[] blocks, ByteBuffer[] srcs) throws BlockOutOfRangeException {
    Objects.requireNonNull(blocks, "blocks");
    Objects.requireNonNull(srcs, "srcs");
    if (blocks.length != srcs.length) {
      throw new IllegalArgumentException("scattered write on " + device.name() + " of " + blocks.length
          + " block numbers and " + srcs.length + " buffers");
    }
    for (int i = 0; i < blocks.length; i++) {
      checkTransfer(device, blocks[i], srcs[i]);
    }
  }

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
