package io.ext4j.testkit;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.BlockDevice;
import io.ext4j.block.BlockDeviceException;
import io.ext4j.block.MemoryBlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A memory device that logs every write and flush, in completion order, so a test can later ask
 * what a crash at any point could have left on disk ({@link CrashStates}). It behaves as a normal
 * device meanwhile: reads see the latest writes.
 *
 * <h2>The log</h2>
 * One {@link Write} per block written (a multi-block or vectored write logs its blocks in order,
 * contiguously; a {@link #zeroOut} logs a write of zeros per block, since a crash may keep or lose
 * each of them like any write; a scattered write logs each run of contiguous entries contiguously),
 * one {@link Flush} per flush, and a {@link Mark} whenever the harness calls
 * {@link #mark(String)} — it does so when a synchronous commit or fsync <em>returns</em>, so the
 * mark stands for "everything acknowledged so far". Each event's {@code seq} is its index in the
 * log. Appending to the log and applying to the live image happen together under {@code logLock},
 * so the log order is the order in which writes became visible, and a flush follows every write that
 * completed before it began.
 *
 * <h2>Durability</h2>
 * In memory nothing is lost; what a crash would lose is what this device exists to compute:
 * {@link #crash()} stops the device and returns the {@link Recording}, from which
 * {@link CrashStates} builds every state the SPI allows (any subset of the writes after the last
 * flush, in order, with torn sectors). A flush here is instantaneous and always succeeds.
 *
 * <p>Thread-safe: engine threads may write, flush and mark concurrently.
 */
public final class RecordingBlockDevice implements BlockDevice {

  /** One logged event; {@code seq} is its index in the log. */
  public sealed interface Event permits Write, Flush, Mark {
    long seq();
  }

  /**
   * A write of one whole block. The array is shared with the log and must not be modified;
   * {@link #data()} returns a copy.
   */
  public record Write(long seq, long block, byte[] bytes) implements Event {
    /** A copy of the block's new contents. */
    public byte[] data() {
      return bytes.clone();
    }

    @Override
    public String toString() {
      return "Write[seq=" + seq + ", block=" + block + "]";
    }
  }

  /** A completed flush: every earlier write is durable. */
  public record Flush(long seq) implements Event {}

  /** A harness mark: an fsync or synchronous commit returned. */
  public record Mark(long seq, String label) implements Event {}

  private final String name;
  private final MemoryBlockDevice base; // never written: the durable image before the first event
  private final MemoryBlockDevice live; // written only under logLock; read freely (copy-on-write blocks)
  private final ReentrantLock logLock = new ReentrantLock();
  @GuardedBy("logLock") private final List<Event> events = new ArrayList<>();
  private volatile boolean crashed; // written under logLock (so no event follows a crash); read() reads it bare
  private volatile boolean closed; // written once by close()

  /**
   * Records on top of a snapshot of {@code base}'s current contents, which stands for the durable
   * image when recording starts. {@code base} itself is not changed.
   */
  public RecordingBlockDevice(MemoryBlockDevice base) {
    Objects.requireNonNull(base, "base");
    this.name = base.name();
    this.base = base.snapshot(base.name());
    this.live = base.snapshot(base.name());
  }

  /** A zero-filled recording device (a convenience for {@code new RecordingBlockDevice(new MemoryBlockDevice(...))}). */
  public RecordingBlockDevice(String name, int blockSize, long blockCount) {
    this(new MemoryBlockDevice(name, blockSize, blockCount));
  }

  /**
   * Logs a mark: call it when an fsync or synchronous commit returns to the workload.
   *
   * @throws BlockDeviceException if the device has crashed
   */
  public void mark(String label) throws BlockDeviceException {
    Objects.requireNonNull(label, "label");
    logLock.lock();
    try {
      ensureNotCrashed();
      events.add(new Mark(events.size(), label));
    } finally {
      logLock.unlock();
    }
  }

  /** The log so far, frozen; the device keeps running. */
  public Recording recording() {
    logLock.lock();
    try {
      return new Recording(name, base, List.copyOf(events));
    } finally {
      logLock.unlock();
    }
  }

  /**
   * Simulates power loss: every later call on this device fails with a {@link BlockDeviceException}
   * (threads still running find the device gone), and the log up to now is returned.
   */
  public Recording crash() {
    logLock.lock();
    try {
      crashed = true;
      return new Recording(name, base, List.copyOf(events));
    } finally {
      logLock.unlock();
    }
  }

  /** The number of events logged so far. */
  public int eventCount() {
    logLock.lock();
    try {
      return events.size();
    } finally {
      logLock.unlock();
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int blockSize() {
    return live.blockSize();
  }

  @Override
  public long blockCount() {
    return live.blockCount();
  }

  @Override
  public boolean isReadOnly() {
    return false;
  }

  @Override
  public void read(long block, ByteBuffer dst) throws IOException {
    ensureOpen();
    BlockDevice.checkTransfer(this, block, dst);
    if (crashed) {
      throw gone();
    }
    live.read(block, dst);
  }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    ensureOpen();
    BlockDevice.checkTransfer(this, block, src);
    logLock.lock();
    try {
      ensureNotCrashed();
      append(block, src);
    } finally {
      logLock.unlock();
    }
  }

  /** Logged as one contiguous run: no other thread's events fall between the buffers. */
  @Override
  public void write(long block, ByteBuffer... srcs) throws IOException {
    ensureOpen();
    long at = block;
    for (ByteBuffer src : srcs) {
      at += BlockDevice.checkTransfer(this, at, src);
    }
    logLock.lock();
    try {
      ensureNotCrashed();
      at = block;
      for (ByteBuffer src : srcs) {
        at += append(at, src);
      }
    } finally {
      logLock.unlock();
    }
  }

  /** Logged as one contiguous run of writes of zeros, one per block. */
  @Override
  public void zeroOut(long block, long count) throws IOException {
    ensureOpen();
    BlockDevice.checkRange(this, block, count);
    int bs = live.blockSize();
    logLock.lock();
    try {
      ensureNotCrashed();
      live.zeroOut(block, count);
      for (long b = block; b < block + count; b++) {
        events.add(new Write(events.size(), b, new byte[bs]));
      }
    } finally {
      logLock.unlock();
    }
  }

  @Override
  public void flush() throws IOException {
    ensureOpen();
    logLock.lock();
    try {
      ensureNotCrashed();
      events.add(new Flush(events.size()));
    } finally {
      logLock.unlock();
    }
  }

  /** Refuses later calls with {@link ClosedChannelException}; the log is kept. */
  @Override
  public void close() {
    closed = true;
  }

  @Override
  public String toString() {
    return "RecordingBlockDevice[" + name + ", " + eventCount() + " events]";
  }

  /** Applies and logs one transfer; returns its block count. */
  @GuardedBy("logLock")
  private int append(long block, ByteBuffer src) throws IOException {
    assert logLock.isHeldByCurrentThread();
    int bs = live.blockSize();
    int n = src.remaining() / bs;
    for (int i = 0; i < n; i++) {
      byte[] bytes = new byte[bs];
      src.get(bytes);
      live.write(block + i, ByteBuffer.wrap(bytes));
      events.add(new Write(events.size(), block + i, bytes));
    }
    return n;
  }

  private void ensureNotCrashed() throws BlockDeviceException {
    assert logLock.isHeldByCurrentThread();
    if (crashed) {
      throw gone();
    }
  }

  private BlockDeviceException gone() {
    return new BlockDeviceException(name, -1, "simulated crash: the device is gone");
  }

  private void ensureOpen() throws ClosedChannelException {
    if (closed) {
      throw new ClosedChannelException();
    }
  }
}
