package io.ext4j.fs.engine;

import io.ext4j.block.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device that proves writes overlap: once {@link #arm} is called with a set of threads, the first
 * write each of them makes waits inside the device until all of them are inside at once (a barrier),
 * or gives up after the timeout. If the engine serialized those threads — a lock held across the
 * write — the first one in would wait alone, the barrier would time out, and {@link #metAll()}
 * would say so. Other threads and later writes pass straight through.
 */
final class GatedDevice implements BlockDevice {
  private final BlockDevice inner;
  private volatile Gate gate; // set by arm, read by writers

  /** One arming: who must meet, and what happened. */
  private record Gate(Set<Thread> parties, Set<Thread> arrived, CyclicBarrier barrier, long timeoutMillis,
      AtomicInteger broken, AtomicInteger inside, AtomicInteger maxInside) {}

  GatedDevice(BlockDevice inner) {
    this.inner = inner;
  }

  /** From now on, the first write of each of {@code parties} waits until all of them are inside. */
  void arm(Set<Thread> parties, long timeoutMillis) {
    gate = new Gate(parties, ConcurrentHashMap.newKeySet(), new CyclicBarrier(parties.size()), timeoutMillis,
        new AtomicInteger(), new AtomicInteger(), new AtomicInteger());
  }

  /** Whether every party was inside a write at the same time. */
  boolean metAll() {
    Gate g = gate;
    return g != null && g.broken.get() == 0 && g.arrived.size() == g.parties.size() && g.maxInside.get() == g.parties.size();
  }

  /** The most parties that were inside a write at once. */
  int maxInside() {
    Gate g = gate;
    return g == null ? 0 : g.maxInside.get();
  }

  private void gate() {
    Gate g = gate;
    Thread me = Thread.currentThread();
    if (g == null || !g.parties.contains(me) || !g.arrived.add(me)) {
      return;
    }
    g.maxInside.accumulateAndGet(g.inside.incrementAndGet(), Math::max);
    try {
      g.barrier.await(g.timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | BrokenBarrierException e) {
      g.broken.incrementAndGet();
    } catch (InterruptedException e) {
      g.broken.incrementAndGet();
      Thread.currentThread().interrupt();
    } finally {
      g.inside.decrementAndGet();
    }
  }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    gate();
    inner.write(block, src);
  }

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public int blockSize() {
    return inner.blockSize();
  }

  @Override
  public long blockCount() {
    return inner.blockCount();
  }

  @Override
  public boolean isReadOnly() {
    return inner.isReadOnly();
  }

  @Override
  public void read(long block, ByteBuffer dst) throws IOException {
    inner.read(block, dst);
  }

  @Override
  public void flush() throws IOException {
    inner.flush();
  }

  @Override
  public void close() throws IOException {
    inner.close();
  }
}
