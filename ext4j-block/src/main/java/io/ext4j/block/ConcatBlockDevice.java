package io.ext4j.block;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Two devices of one block size seen as one: blocks {@code [0, first.blockCount())} are the
 * first's, the blocks after them the second's. For a filesystem with an external journal: the
 * filesystem's device first, the journal device after it, so that one block address space holds
 * both the log and the home blocks its transactions name.
 *
 * <h2>Durability</h2>
 * Each block is exactly as durable as on the device holding it; {@link #flush()} flushes both (the
 * second first, so that a log is durable before the home writes after it are promised).
 *
 * <p>Thread-safe as the two devices are.
 */
public final class ConcatBlockDevice implements BlockDevice {
  private final BlockDevice first;
  private final BlockDevice second;
  private final long split;

  public ConcatBlockDevice(BlockDevice first, BlockDevice second) {
    if (first.blockSize() != second.blockSize()) {
      throw new IllegalArgumentException(first.name() + " has " + first.blockSize() + "-byte blocks but " + second.name()
          + " has " + second.blockSize());
    }
    this.first = first;
    this.second = second;
    this.split = first.blockCount();
  }

  /**
   * Opens the files (or block devices) {@code first} and {@code second} with {@code blockSize}-byte
   * blocks as one device, each locked exclusively when {@code lock} (see
   * {@link FileBlockDevice#lockExclusive}); whatever was opened is closed again if a step fails.
   */
  public static ConcatBlockDevice open(Path first, Path second, int blockSize, FileBlockDevice.Options options, boolean lock)
      throws IOException {
    FileBlockDevice a = FileBlockDevice.open(first, blockSize, options);
    FileBlockDevice b = null;
    try {
      b = FileBlockDevice.open(second, blockSize, options);
      if (lock) {
        a.lockExclusive();
        b.lockExclusive();
      }
      return new ConcatBlockDevice(a, b);
    } catch (IOException | RuntimeException e) {
      for (FileBlockDevice d : new FileBlockDevice[] {b, a}) {
        if (d != null) {
          try {
            d.close();
          } catch (IOException | RuntimeException suppressed) {
            e.addSuppressed(suppressed);
          }
        }
      }
      throw e;
    }
  }

  /** Where the second device's block 0 is. */
  public long secondStart() {
    return split;
  }

  @Override
  public String name() {
    return first.name();
  }

  @Override
  public int blockSize() {
    return first.blockSize();
  }

  @Override
  public long blockCount() {
    return split + second.blockCount();
  }

  @Override
  public boolean isReadOnly() {
    return first.isReadOnly() || second.isReadOnly();
  }

  @Override
  public void read(long block, ByteBuffer dst) throws IOException {
    int blocks = BlockDevice.checkTransfer(this, block, dst);
    transfer(block, blocks, dst, false);
  }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    int blocks = BlockDevice.checkTransfer(this, block, src);
    transfer(block, blocks, src, true);
  }

  private void transfer(long block, int blocks, ByteBuffer buf, boolean write) throws IOException {
    int bs = blockSize();
    long end = block + blocks;
    long at = block;
    while (at < end) {
      boolean inFirst = at < split;
      long stop = inFirst ? Math.min(end, split) : end;
      int n = (int) (stop - at);
      ByteBuffer part = buf.slice(buf.position(), n * bs);
      BlockDevice d = inFirst ? first : second;
      long local = inFirst ? at : at - split;
      if (write) {
        d.write(local, part);
      } else {
        d.read(local, part);
      }
      buf.position(buf.position() + n * bs);
      at = stop;
    }
  }

  @Override
  public void zeroOut(long block, long count) throws IOException {
    BlockDevice.checkRange(this, block, count);
    long end = block + count;
    if (block < split) {
      first.zeroOut(block, Math.min(end, split) - block);
    }
    if (end > split) {
      long from = Math.max(block, split);
      second.zeroOut(from - split, end - from);
    }
  }

  @Override
  public void flush() throws IOException {
    second.flush();
    first.flush();
  }

  /** Closes both devices. */
  @Override
  public void close() throws IOException {
    try {
      second.close();
    } finally {
      first.close();
    }
  }

  @Override
  public String toString() {
    return "ConcatBlockDevice[" + first + " + " + second + "]";
  }
}
