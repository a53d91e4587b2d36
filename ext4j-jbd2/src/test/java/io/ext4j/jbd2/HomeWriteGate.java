package io.ext4j.jbd2;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;

/**
 * A memory device whose writes touching blocks {@code [from, to)} wait, once the gate is shut, until
 * it opens: a checkpoint round stops there, holding the checkpoint lock, so nothing goes home and
 * the log keeps what it holds. The gate shuts once and opens once; {@link #reached} counts down when
 * the first write waits at it.
 */
final class HomeWriteGate implements BlockDevice {
  final CountDownLatch reached = new CountDownLatch(1);
  private final MemoryBlockDevice d;
  private final long from;
  private final long to;
  private final CountDownLatch opened = new CountDownLatch(1);
  private volatile boolean shut; // set by the test thread, read by writing threads

  HomeWriteGate(MemoryBlockDevice d, long from, long to) {
    this.d = d;
    this.from = from;
    this.to = to;
  }

  void shut() {
    shut = true;
  }

  void open() {
    opened.countDown();
  }

  private void pass(long block, long blocks) throws IOException {
    if (shut && block < to && block + blocks > from) {
      reached.countDown();
      try {
        opened.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException(d.name() + ": interrupted at the home-write gate");
      }
    }
  }

  @Override public String name() { return d.name(); }
  @Override public int blockSize() { return d.blockSize(); }
  @Override public long blockCount() { return d.blockCount(); }
  @Override public boolean isReadOnly() { return false; }
  @Override public void read(long block, ByteBuffer dst) throws IOException { d.read(block, dst); }
  @Override public void flush() throws IOException { d.flush(); }
  @Override public void close() { d.close(); }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    pass(block, src.remaining() / blockSize());
    d.write(block, src);
  }

  @Override
  public void write(long block, ByteBuffer... srcs) throws IOException {
    long bytes = 0;
    for (ByteBuffer b : srcs) {
      bytes += b.remaining();
    }
    pass(block, bytes / blockSize());
    d.write(block, srcs);
  }
}
