package io.ext4j.testkit.block.cache;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.BlockOutOfRangeException;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.block.cache.CachedBlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.testkit.FaultyBlockDevice;
import io.ext4j.testkit.InjectedFaultException;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class BlockCacheTest {
  private static final int BS = 1024;

  /** Counts device reads (calls, not blocks). */
  static final class CountingDevice extends ForwardingDevice {
    final AtomicInteger reads = new AtomicInteger();

    CountingDevice(BlockDevice d) {
      super(d);
    }

    @Override
    public void read(long block, ByteBuffer dst) throws IOException {
      reads.incrementAndGet();
      super.read(block, dst);
    }
  }

  private static MemoryBlockDevice device(int blocks) throws IOException {
    MemoryBlockDevice d = new MemoryBlockDevice("mem", BS, blocks);
    for (int b = 0; b < blocks; b++) {
      ByteBuffer buf = ByteBuffer.allocate(BS);
      buf.putLong(0, b * 31L + 7);
      d.write(b, buf);
    }
    return d;
  }

  @Test
  void get_readsOnce_andReturnsTheSameObjectWhileCached() throws IOException {
    CountingDevice dev = new CountingDevice(device(64));
    BlockCache cache = new BlockCache(dev, new BlockCache.Options(32, 8));
    CachedBlock a = cache.get(5);
    CachedBlock b = cache.get(5);
    assertThat(b).isSameAs(a);
    assertThat(a.le().order(java.nio.ByteOrder.BIG_ENDIAN).getLong(0)).isEqualTo(5 * 31L + 7);
    assertThat(dev.reads.get()).isEqualTo(1);
    a.release();
    b.release();
    assertThatThrownBy(a::release).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void eviction_takesLeastRecentlyReleasedUnpinnedBlocks_andNeverPinnedOrDirtyOrKeptOnes() throws IOException {
    BlockCache cache = new BlockCache(device(256), new BlockCache.Options(16, 4));
    CachedBlock pinned = cache.get(0);
    CachedBlock dirty = cache.get(1);
    dirty.markDirty();
    dirty.release();
    CachedBlock kept = cache.get(2);
    kept.attachIfAbsent(() -> true);
    kept.release();
    for (int b = 3; b < 200; b++) {
      cache.get(b).release();
    }
    assertThat(cache.size()).isLessThanOrEqualTo(16);
    assertThat(cache.peek(0)).isSameAs(pinned);
    pinned.release(); // the peek's pin
    CachedBlock d = cache.peek(1);
    assertThat(d).isSameAs(dirty);
    d.release();
    CachedBlock k = cache.peek(2);
    assertThat(k).isSameAs(kept);
    k.release();
    assertThat(cache.peek(3)).as("an old unpinned block").isNull();
    CachedBlock recent = cache.peek(199);
    assertThat(recent).as("the most recently released block").isNotNull();
    recent.release();
    pinned.release();
    assertThat(cache.stats().evictions()).isGreaterThan(150);
  }

  @Test
  void overCapacityWithNothingEvictable_growsAndCallsThePressureListener() throws IOException {
    BlockCache cache = new BlockCache(device(64), new BlockCache.Options(16, 4));
    AtomicInteger calls = new AtomicInteger();
    cache.addPressureListener(calls::incrementAndGet);
    List<CachedBlock> held = new ArrayList<>();
    for (int b = 0; b < 40; b++) {
      held.add(cache.get(b));
    }
    assertThat(cache.size()).isEqualTo(40);
    assertThat(calls.get()).isPositive();
    AtomicInteger other = new AtomicInteger();
    Runnable second = other::incrementAndGet;
    cache.addPressureListener(second);
    held.add(cache.get(40));
    assertThat(other.get()).as("every listener is called").isOne();
    cache.removePressureListener(second);
    held.add(cache.get(41));
    assertThat(other.get()).as("a removed listener is not called again").isOne();
    held.forEach(CachedBlock::release);
  }

  @Test
  void getNew_ofAnUncachedBlock_isZeroFilledAndNotRead() throws IOException {
    CountingDevice dev = new CountingDevice(device(64));
    BlockCache cache = new BlockCache(dev, new BlockCache.Options(32, 8));
    CachedBlock b = cache.getNew(9);
    assertThat(b.array()).containsOnly(0);
    assertThat(dev.reads.get()).isZero();
    b.release();
  }

  @Test
  void invalidate_makesTheNextGetReadTheDeviceAgain_butRefusesDirtyOrKeptBlocks() throws IOException {
    MemoryBlockDevice mem = device(64);
    BlockCache cache = new BlockCache(mem, new BlockCache.Options(32, 8));
    CachedBlock old = cache.get(4);
    old.release();
    ByteBuffer fresh = ByteBuffer.allocate(BS);
    fresh.putLong(0, 424242L);
    mem.write(4, fresh);
    cache.invalidate(4);
    CachedBlock again = cache.get(4);
    assertThat(again).isNotSameAs(old);
    assertThat(again.be().getLong(0)).isEqualTo(424242L);
    again.markDirty();
    assertThatThrownBy(() -> cache.invalidate(4)).isInstanceOf(IllegalStateException.class).hasMessageContaining("block 4");
    again.release();
    CachedBlock k = cache.get(5);
    k.attachIfAbsent(() -> true);
    k.release();
    assertThatThrownBy(() -> cache.invalidate(5)).isInstanceOf(IllegalStateException.class).hasMessageContaining("journal");
  }

  @Test
  void readAhead_readsEachRunOfMissingBlocksWithOneDeviceRead() throws IOException {
    CountingDevice dev = new CountingDevice(device(64));
    BlockCache cache = new BlockCache(dev, new BlockCache.Options(64, 16));
    cache.get(10).release(); // splits [8, 16) into two runs
    int before = dev.reads.get();
    cache.readAhead(8, 8);
    assertThat(dev.reads.get() - before).isEqualTo(2);
    for (int b = 8; b < 16; b++) {
      CachedBlock c = cache.peek(b);
      assertThat(c).isNotNull();
      assertThat(c.be().getLong(0)).isEqualTo(b * 31L + 7);
      c.release();
    }
    assertThat(dev.reads.get() - before).isEqualTo(2);
  }

  @Test
  void writeBack_writesDirtyBlocks_andLeavesBlocksDirtiedAgainDirty() throws IOException {
    MemoryBlockDevice mem = device(64);
    BlockCache cache = new BlockCache(mem, new BlockCache.Options(32, 8));
    for (int b = 20; b < 24; b++) {
      CachedBlock c = cache.get(b);
      c.be().putLong(8, 1000 + b);
      c.markDirty();
      c.release();
    }
    assertThat(cache.dirtyBlocks()).isEqualTo(4);
    assertThat(cache.writeBack()).isEqualTo(4);
    assertThat(cache.dirtyBlocks()).isZero();
    for (int b = 20; b < 24; b++) {
      ByteBuffer r = ByteBuffer.allocate(BS);
      mem.read(b, r);
      assertThat(r.getLong(8)).isEqualTo(1000 + b);
    }
  }

  @Test
  void failedRead_failsTheCaller_andTheNextGetReadsAgain() throws IOException {
    FaultyBlockDevice faulty = new FaultyBlockDevice(device(64), FaultyBlockDevice.Fault.onNthRead(1));
    BlockCache cache = new BlockCache(faulty, new BlockCache.Options(32, 8));
    assertThatThrownBy(() -> cache.get(3)).isInstanceOf(InjectedFaultException.class);
    CachedBlock b = cache.get(3);
    assertThat(b.be().getLong(0)).isEqualTo(3 * 31L + 7);
    b.release();
    assertThatThrownBy(() -> cache.get(64)).isInstanceOf(BlockOutOfRangeException.class);
  }

  @Test
  void concurrentGetsAndEvictions_neverHandOutTwoCopiesOfABlockAtOnce() throws Exception {
    long seed = Seeds.seed();
    MemoryBlockDevice mem = device(512);
    BlockCache cache = new BlockCache(mem, new BlockCache.Options(32, 8));
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Integer>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      SplittableRandom r = new SplittableRandom(Seeds.derive(seed, "thread" + t));
      results.add(pool.submit(() -> {
        start.await();
        int checked = 0;
        for (int i = 0; i < 20000; i++) {
          int block = r.nextInt(48); // a hot set larger than the capacity: constant eviction
          CachedBlock a = cache.get(block);
          CachedBlock b = cache.get(block);
          if (a != b || a.be().getLong(0) != block * 31L + 7) {
            throw new AssertionError("block " + block + ": two objects or wrong contents");
          }
          a.release();
          b.release();
          checked++;
        }
        return checked;
      }));
    }
    start.countDown();
    int total = 0;
    for (Future<Integer> f : results) {
      total += f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    assertThat(total).isEqualTo(threads * 20000);
    assertThat(cache.stats().evictions()).isPositive();
  }
}
