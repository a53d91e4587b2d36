package io.ext4j.block;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A block device held in memory, for tests and for engines that want a journal without a disk.
 *
 * <p>Each block is an immutable {@code byte[]} replaced whole on write (copy-on-write), so a reader
 * sees a block either before or after a concurrent write, never a mix, without locks; and
 * {@link #snapshot(String)} is cheap because snapshots share the unchanged arrays. Blocks never written
 * read as zeros and take no memory.
 *
 * <p>{@link #zeroOut} drops the blocks (they read as zeros and take no memory again).
 *
 * <h2>Durability</h2>
 * Every completed write is as durable as this device ever gets: there is no cache, {@link #flush()}
 * does nothing but check the device is open and writable, and everything is lost with the object.
 * Crash behaviour is simulated by wrapping it in the test kit's recording device.
 */
public final class MemoryBlockDevice implements BlockDevice {
  private final String name;
  private final int blockSize;
  private final boolean readOnly;
  private final AtomicReferenceArray<byte[]> blocks; // each element published by the array's volatile set
  private volatile boolean closed; // written once by close()

  private MemoryBlockDevice(String name, int blockSize, AtomicReferenceArray<byte[]> blocks, boolean readOnly) {
    checkBlockSize(blockSize);
    this.name = name;
    this.blockSize = blockSize;
    this.blocks = blocks;
    this.readOnly = readOnly;
  }

  /** A zero-filled writable device of {@code blockCount} blocks. */
  public MemoryBlockDevice(String name, int blockSize, long blockCount) {
    this(name, blockSize, new AtomicReferenceArray<>(toIntCount(blockCount)), false);
  }

  /** A writable device holding a copy of {@code image}, whose length must be a multiple of {@code blockSize}. */
  public static MemoryBlockDevice of(String name, int blockSize, byte[] image) {
    if (image.length % blockSize != 0) {
      throw new IllegalArgumentException("image of " + image.length + " bytes is not a multiple of " + blockSize);
    }
    MemoryBlockDevice d = new MemoryBlockDevice(name, blockSize, image.length / blockSize);
    for (int i = 0; i < image.length / blockSize; i++) {
      if (!isZero(image, i * blockSize, blockSize)) {
        byte[] b = new byte[blockSize];
        System.arraycopy(image, i * blockSize, b, 0, blockSize);
        d.blocks.set(i, b);
      }
    }
    return d;
  }

  /** A copy of every block's current contents, as a new writable device named {@code name}. */
  public MemoryBlockDevice snapshot(String name) {
    AtomicReferenceArray<byte[]> copy = new AtomicReferenceArray<>(blocks.length());
    for (int i = 0; i < blocks.length(); i++) {
      copy.set(i, blocks.get(i)); // arrays are never mutated after publication
    }
    return new MemoryBlockDevice(name, blockSize, copy, false);
  }

  /** The same blocks, shared, refusing writes. */
  public MemoryBlockDevice readOnlyView() {
    return new MemoryBlockDevice(name, blockSize, blocks, true);
  }

  /** The whole device as one array (for comparisons in tests). */
  public byte[] toByteArray() {
    byte[] out = new byte[Math.multiplyExact(blocks.length(), blockSize)];
    for (int i = 0; i < blocks.length(); i++) {
      byte[] b = blocks.get(i);
      if (b != null) {
        System.arraycopy(b, 0, out, i * blockSize, blockSize);
      }
    }
    return out;
  }

  /** A copy of one block. */
  public byte[] block(long block) {
    byte[] b = blocks.get(Math.toIntExact(block));
    return b == null ? new byte[blockSize] : b.clone();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int blockSize() {
    return blockSize;
  }

  @Override
  public long blockCount() {
    return blocks.length();
  }

  @Override
  public boolean isReadOnly() {
    return readOnly;
  }

  @Override
  public void read(long block, ByteBuffer dst) throws IOException {
    ensureOpen();
    int n = BlockDevice.checkTransfer(this, block, dst);
    for (int i = 0; i < n; i++) {
      byte[] b = blocks.get((int) block + i);
      if (b == null) {
        int end = dst.position() + blockSize;
        while (dst.position() < end) {
          dst.put((byte) 0);
        }
      } else {
        dst.put(b);
      }
    }
  }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    ensureOpen();
    if (readOnly) {
      throw new ReadOnlyDeviceException(name);
    }
    int n = BlockDevice.checkTransfer(this, block, src);
    for (int i = 0; i < n; i++) {
      byte[] b = new byte[blockSize];
      src.get(b);
      blocks.set((int) block + i, b);
    }
  }

  /** Drops the blocks: they read as zeros again and take no memory. */
  @Override
  public void zeroOut(long block, long count) throws IOException {
    ensureOpen();
    if (readOnly) {
      throw new ReadOnlyDeviceException(name);
    }
    BlockDevice.checkRange(this, block, count);
    for (long b = block; b < block + count; b++) {
      blocks.set((int) b, null);
    }
  }

  @Override
  public void flush() throws IOException {
    ensureOpen();
    if (readOnly) {
      throw new ReadOnlyDeviceException(name);
    }
  }

  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "MemoryBlockDevice[" + name + ", " + blocks.length() + " x " + blockSize + "]";
  }

  private void ensureOpen() throws ClosedChannelException {
    if (closed) {
      throw new ClosedChannelException();
    }
  }

  static void checkBlockSize(int blockSize) {
    if (blockSize < 512 || blockSize > 65536 || Integer.bitCount(blockSize) != 1) {
      throw new IllegalArgumentException("block size " + blockSize + " is not a power of two in [512, 65536]");
    }
  }

  private static int toIntCount(long blockCount) {
    if (blockCount < 0 || blockCount > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("memory device of " + blockCount + " blocks is out of range");
    }
    return (int) blockCount;
  }

  private static boolean isZero(byte[] a, int off, int len) {
    for (int i = off; i < off + len; i++) {
      if (a[i] != 0) {
        return false;
      }
    }
    return true;
  }
}
