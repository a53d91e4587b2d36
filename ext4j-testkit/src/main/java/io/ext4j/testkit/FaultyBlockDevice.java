package io.ext4j.testkit;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.BlockDevice;
import io.ext4j.block.BlockOutOfRangeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Objects;

/**
 * Wraps a device and fails chosen operations with {@link InjectedFaultException}. It starts healthy
 * or with a {@link Fault}; {@link #inject(Fault)} switches a fault on mid-run (to make a journal
 * abort) and {@link #heal()} switches it off. A failed operation never reaches the wrapped device,
 * unless {@link #tearWrites} is on: a failed write then lands a prefix, as a torn write does.
 * A scattered write is one operation per run of contiguous entries (as the SPI's default submits it),
 * so a fault may fail a later run after earlier ones landed; a zero-out is one {@link Kind#ZERO_OUT}.
 * Faults compose: {@code Fault.onNthWrite(3).or(Fault.onNthFlush(1)).sticky()}.
 *
 * <h2>Durability</h2>
 * Exactly the wrapped device's, for operations that pass. A failed write wrote nothing and a failed
 * flush flushed nothing; a caller must in any case treat both as "contents unknown", as the SPI says.
 */
public final class FaultyBlockDevice implements BlockDevice {

  /** The kinds of operation a {@link Fault} sees. */
  public enum Kind {
    READ,
    WRITE,
    /** {@link BlockDevice#zeroOut}: a write of zeros over {@code blocks} blocks. */
    ZERO_OUT,
    FLUSH
  }

  /**
   * One operation about to run: {@code blocks} blocks from {@code block} for transfers; for a flush
   * {@code block} is -1 and {@code blocks} 0.
   */
  public record Op(Kind kind, long block, int blocks) {
    /** True when this is a transfer covering {@code b}. */
    public boolean covers(long b) {
      return kind != Kind.FLUSH && b >= block && b < block + blocks;
    }
  }

  /**
   * Decides whether an operation fails. A fault may keep state (counters); the device calls
   * {@link #fails(Op)} under its own lock, once per operation, in the order operations start, and
   * only while the fault is injected, so counts run from injection.
   */
  @FunctionalInterface
  public interface Fault {
    /** True to fail {@code op}. Called under the device's lock. */
    boolean fails(Op op);

    /** Fails the {@code n}th write after injection (1-based) and no other. */
    static Fault onNthWrite(long n) {
      return nth(Kind.WRITE, n);
    }

    /** Fails the {@code n}th flush after injection (1-based) and no other. */
    static Fault onNthFlush(long n) {
      return nth(Kind.FLUSH, n);
    }

    /** Fails the {@code n}th read after injection (1-based) and no other. */
    static Fault onNthRead(long n) {
      return nth(Kind.READ, n);
    }

    /** Fails every write or zero-out covering {@code block} (both change its contents). */
    static Fault onWriteTo(long block) {
      return op -> (op.kind() == Kind.WRITE || op.kind() == Kind.ZERO_OUT) && op.covers(block);
    }

    /** Fails the {@code n}th zero-out after injection (1-based) and no other. */
    static Fault onNthZeroOut(long n) {
      return nth(Kind.ZERO_OUT, n);
    }

    /** Fails every operation of the kind. */
    static Fault onEvery(Kind kind) {
      return op -> op.kind() == kind;
    }

    /** Fails every operation. */
    static Fault always() {
      return op -> true;
    }

    /** Fails when either fault fails; both see every operation (their counters both advance). */
    default Fault or(Fault other) {
      return op -> {
        boolean mine = this.fails(op);
        boolean theirs = other.fails(op);
        return mine || theirs;
      };
    }

    /** After this fault first fires, every later operation fails too: a device that died. */
    default Fault sticky() {
      boolean[] fired = {false}; // guarded by the device's lock, like every fault's state
      return op -> fired[0] || (fired[0] = this.fails(op));
    }

    /** This fault, armed only once {@code trigger} has fired (the triggering operation succeeds). */
    default Fault after(Fault trigger) {
      boolean[] armed = {false}; // guarded by the device's lock
      return op -> {
        if (armed[0]) {
          return this.fails(op);
        }
        armed[0] = trigger.fails(op);
        return false;
      };
    }

    private static Fault nth(Kind kind, long n) {
      if (n < 1) {
        throw new IllegalArgumentException("operations count from 1, not " + n);
      }
      long[] seen = {0}; // guarded by the device's lock
      return op -> op.kind() == kind && ++seen[0] == n;
    }
  }

  private static final Fault HEALTHY = op -> false;

  private final BlockDevice delegate;
  private final Object lock = new Object();
  @GuardedBy("lock") private Fault fault;
  @GuardedBy("lock") private long injected;
  @GuardedBy("lock") private boolean tearing;

  /** A healthy wrapper; {@link #inject(Fault)} makes it fail. */
  public FaultyBlockDevice(BlockDevice delegate) {
    this(delegate, HEALTHY);
  }

  /** A wrapper failing as {@code fault} says from the start. */
  public FaultyBlockDevice(BlockDevice delegate, Fault fault) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.fault = Objects.requireNonNull(fault, "fault");
  }

  /** Replaces the current fault; its counters start at this call. */
  public void inject(Fault fault) {
    Objects.requireNonNull(fault, "fault");
    synchronized (lock) {
      this.fault = fault;
    }
  }

  /**
   * With {@code on}, a write the fault fails is torn instead of dropped: before the failure is
   * thrown, the first half of its blocks (rounded up) lands — of a one-block write, the first
   * 512-byte sector over the block's old contents — as a power cut in the middle of the write leaves
   * it. Off by default.
   */
  public void tearWrites(boolean on) {
    synchronized (lock) {
      tearing = on;
    }
  }

  /** Stops injecting faults. */
  public void heal() {
    inject(HEALTHY);
  }

  /** How many operations have failed by injection so far. */
  public long injectedCount() {
    synchronized (lock) {
      return injected;
    }
  }

  /** The wrapped device. */
  public BlockDevice delegate() {
    return delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public int blockSize() {
    return delegate.blockSize();
  }

  @Override
  public long blockCount() {
    return delegate.blockCount();
  }

  @Override
  public boolean isReadOnly() {
    return delegate.isReadOnly();
  }

  @Override
  public void read(long block, ByteBuffer dst) throws IOException {
    check(Kind.READ, block, dst);
    delegate.read(block, dst);
  }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    try {
      check(Kind.WRITE, block, src);
    } catch (InjectedFaultException e) {
      tear(block, src);
      throw e;
    }
    delegate.write(block, src);
  }

  /** Lands the torn prefix of a failed write when tearing is on (see {@link #tearWrites}). */
  private void tear(long block, ByteBuffer src) throws IOException {
    synchronized (lock) {
      if (!tearing) {
        return;
      }
    }
    int bs = blockSize();
    int blocks = src.remaining() / bs;
    if (blocks > 1) {
      int half = (blocks + 1) / 2;
      delegate.write(block, src.slice(src.position(), half * bs));
    } else if (blocks == 1) {
      ByteBuffer old = ByteBuffer.allocate(bs);
      delegate.read(block, old);
      old.put(0, src, src.position(), Math.min(512, bs));
      old.clear();
      delegate.write(block, old);
    }
  }

  /** One operation for the fault, covering all the buffers' blocks. */
  @Override
  public void write(long block, ByteBuffer... srcs) throws IOException {
    long at = block;
    for (ByteBuffer src : srcs) {
      at += BlockDevice.checkTransfer(this, at, src);
    }
    try {
      maybeFail(new Op(Kind.WRITE, block, Math.toIntExact(at - block)));
    } catch (InjectedFaultException e) {
      if (srcs.length > 0) {
        tear(block, srcs[0]);
      }
      throw e;
    }
    delegate.write(block, srcs);
  }

  @Override
  public void zeroOut(long block, long count) throws IOException {
    BlockDevice.checkRange(this, block, count);
    maybeFail(new Op(Kind.ZERO_OUT, block, (int) Math.min(Integer.MAX_VALUE, count)));
    delegate.zeroOut(block, count);
  }

  @Override
  public int alignment() {
    return delegate.alignment();
  }

  @Override
  public ByteBuffer allocateAligned(int bytes) {
    return delegate.allocateAligned(bytes);
  }

  @Override
  public void flush() throws IOException {
    maybeFail(new Op(Kind.FLUSH, -1, 0));
    delegate.flush();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  @Override
  public String toString() {
    return "Faulty(" + delegate + ")";
  }

  /** Bad shapes and ranges fail as the SPI says before the fault sees anything: faults see valid transfers. */
  private void check(Kind kind, long block, ByteBuffer buffer) throws BlockOutOfRangeException, InjectedFaultException {
    maybeFail(new Op(kind, block, BlockDevice.checkTransfer(this, block, buffer)));
  }

  private void maybeFail(Op op) throws InjectedFaultException {
    synchronized (lock) {
      if (fault.fails(op)) {
        injected++;
        throw new InjectedFaultException(delegate.name(), op.block(), op.kind().name().toLowerCase(Locale.ROOT));
      }
    }
  }
}
