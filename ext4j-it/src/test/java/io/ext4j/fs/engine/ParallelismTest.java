package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.DioLocking;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Proofs that operations which should run in parallel do: the {@link GatedDevice} holds each
 * worker's first data write until all workers are inside a write at once, which can only happen if
 * no lock the engine holds across the write is shared between them. Each proof has its negative:
 * with the always-exclusive direct-I/O strategy the same gate cannot be met, which shows the gate
 * detects serialization.
 */
@Tag("fast")
@Timeout(120)
class ParallelismTest {
  static final int N = 4;
  static final long MEET_MILLIS = 20_000; // generous: a met gate opens at once, so only a failure waits this long
  static final long NEGATIVE_MILLIS = 1_500; // how long the negative control's first writer waits alone

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** N threads, N files, buffered overwrites: the files' locks are per inode, the journal handles concurrent. */
  @Test
  void bufferedWrites_toDifferentFiles_areInsideTheDeviceTogether() throws Exception {
    long seed = Seeds.seed();
    GatedDevice dev = new GatedDevice(MemoryImages.format(32 << 20, 4096, "", seed));
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      long[] inos = new long[N];
      for (int i = 0; i < N; i++) {
        inos[i] = fs.create(Ext4FileSystem.ROOT, b("f" + i), 0644, Caller.ROOT).ino();
        try (OpenFile f = fs.open(inos[i], EnumSet.of(OpenFlag.WRITE))) {
          f.write(0, ByteBuffer.wrap(fill(64 << 10, i)));
        }
      }
      List<Callable<Void>> work = new ArrayList<>();
      for (int i = 0; i < N; i++) {
        int k = i;
        work.add(() -> {
          try (OpenFile f = fs.open(inos[k], EnumSet.of(OpenFlag.READ, OpenFlag.WRITE))) {
            f.write(8192, ByteBuffer.wrap(fill(16 << 10, 100 + k)));
          }
          return null;
        });
      }
      runGated(dev, work, MEET_MILLIS);
      assertThat(dev.metAll()).as("all %d writers inside the device at once (most at once: %d)", N, dev.maxInside()).isTrue();
      for (int i = 0; i < N; i++) {
        byte[] want = fill(64 << 10, i);
        System.arraycopy(fill(16 << 10, 100 + i), 0, want, 8192, 16 << 10);
        assertThat(readAll(fs, inos[i], 64 << 10)).as("file %d after the parallel writes", i).isEqualTo(want);
      }
    }
  }

  /** N threads, one file, aligned direct overwrites of written blocks: the inode's lock is taken shared. */
  @Test
  void directOverwrites_ofOneFile_runUnderTheSharedLockTogether() throws Exception {
    assertThat(directOverwritesMeet(DioLocking.SHARED_OVERWRITE, false, MEET_MILLIS)).as("SHARED_OVERWRITE").isTrue();
    assertThat(directOverwritesMeet(DioLocking.SHARED_WITH_UNWRITTEN, false, MEET_MILLIS)).as("SHARED_WITH_UNWRITTEN").isTrue();
  }

  /** Into unwritten extents (fallocated): only SHARED_WITH_UNWRITTEN writes them under the shared lock. */
  @Test
  void directWrites_intoUnwrittenExtents_runInParallelOnlyWithSharedWithUnwritten() throws Exception {
    assertThat(directOverwritesMeet(DioLocking.SHARED_WITH_UNWRITTEN, true, MEET_MILLIS)).as("SHARED_WITH_UNWRITTEN").isTrue();
    assertThat(directOverwritesMeet(DioLocking.SHARED_OVERWRITE, true, NEGATIVE_MILLIS))
        .as("SHARED_OVERWRITE takes the exclusive lock for unwritten extents, so the writers cannot meet").isFalse();
  }

  /** The negative control: always-exclusive serializes the writers, and the gate sees it. */
  @Test
  void alwaysExclusive_serializesDirectOverwrites_andTheGateSeesIt() throws Exception {
    assertThat(directOverwritesMeet(DioLocking.ALWAYS_EXCLUSIVE, false, NEGATIVE_MILLIS)).isFalse();
  }

  /**
   * N direct writers of disjoint aligned ranges of one file, each writer's first write gated; returns
   * whether all were inside the device at once. The file's contents are checked either way.
   */
  static boolean directOverwritesMeet(DioLocking strategy, boolean unwritten, long waitMillis) throws Exception {
    long seed = Seeds.seed();
    int bs = 4096;
    int per = 4 * bs;
    MemoryBlockDevice mem = MemoryImages.format(32 << 20, bs, "", seed);
    GatedDevice dev = new GatedDevice(mem);
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.builder().dioLocking(strategy).build(), false)) {
      long ino = fs.create(Ext4FileSystem.ROOT, b("shared"), 0644, Caller.ROOT).ino();
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
        if (unwritten) {
          f.fallocate(0, 0, (long) N * per);
        } else {
          f.write(0, ByteBuffer.wrap(fill(N * per, 7)));
        }
      }
      List<Callable<Void>> work = new ArrayList<>();
      for (int i = 0; i < N; i++) {
        int k = i;
        work.add(() -> {
          try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE, OpenFlag.DIRECT))) {
            ByteBuffer src = dev.allocateAligned(per);
            src.put(fill(per, 50 + k)).flip();
            assertThat(f.write((long) k * per, src)).isEqualTo(per);
          }
          return null;
        });
      }
      runGated(dev, work, waitMillis);
      byte[] want = new byte[N * per];
      for (int i = 0; i < N; i++) {
        System.arraycopy(fill(per, 50 + i), 0, want, i * per, per);
      }
      assertThat(readAll(fs, ino, N * per)).as("file after parallel direct writes with %s", strategy).isEqualTo(want);
      boolean met = dev.metAll();
      System.out.printf("%s%s: %d of %d direct writers inside the device at once%n", strategy, unwritten ? " (unwritten)" : "", dev.maxInside(), N);
      return met;
    }
  }

  /** Runs {@code work} on N threads with the gate armed for exactly those threads; rethrows the first failure. */
  static void runGated(GatedDevice dev, List<Callable<Void>> work, long waitMillis) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(work.size());
    try {
      Set<Thread> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
      CountDownLatch known = new CountDownLatch(work.size());
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Void>> fut = new ArrayList<>();
      for (Callable<Void> w : work) {
        fut.add(pool.submit(() -> {
          threads.add(Thread.currentThread());
          known.countDown();
          go.await();
          return w.call();
        }));
      }
      assertThat(known.await(30, TimeUnit.SECONDS)).as("workers started").isTrue();
      dev.arm(new HashSet<>(threads), waitMillis);
      go.countDown();
      for (Future<Void> f : fut) {
        f.get(90, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  static byte[] fill(int len, int seed) {
    byte[] a = new byte[len];
    for (int i = 0; i < len; i++) {
      a[i] = (byte) (seed * 37 + i / 512 + i);
    }
    return a;
  }

  static byte[] readAll(Ext4FileSystem fs, long ino, int len) throws Exception {
    byte[] out = new byte[len];
    try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ))) {
      ByteBuffer dst = ByteBuffer.wrap(out);
      while (dst.hasRemaining() && f.read(dst.position(), dst) > 0) {
        // keep reading until full or end of file
      }
      return Arrays.copyOf(out, dst.position());
    }
  }
}
