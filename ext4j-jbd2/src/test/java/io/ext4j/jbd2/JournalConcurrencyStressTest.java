package io.ext4j.jbd2;

import static io.ext4j.jbd2.JournalFixtures.MAP;
import static io.ext4j.jbd2.JournalFixtures.image;
import static io.ext4j.jbd2.JournalFixtures.read;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.testkit.CrashState;
import io.ext4j.testkit.CrashStates;
import io.ext4j.testkit.Recording;
import io.ext4j.testkit.RecordingBlockDevice;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Many threads on few, overlapping buffers, so that a handle of the running transaction often asks
 * for a buffer the committing transaction is still logging (frozen copies) and several handles of
 * one transaction ask for the same buffer at once (the write-access fast path under contention).
 *
 * <p>Blocks come in pairs {@code (A, B)} always written together, in one handle, with the same
 * counter: after any crash and recovery, {@code A}'s counter must equal {@code B}'s (each
 * transaction's log image was atomic and frozen), both images must be exactly the ones written, and
 * the counter must be at least the last one whose synchronous stop returned before the crash.
 * Meanwhile reader threads call {@link Journal#isCommitted} on tids they saw and check it never goes
 * from true back to false. Failures in workers surface through their futures in the test thread.
 */
@Tag("crash")
@Timeout(value = 300, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JournalConcurrencyStressTest {
  static final long HOME0 = 200;
  static final int PAIRS = 6;

  @ParameterizedTest
  @EnumSource(WriteAccessPath.class)
  void pairsWrittenTogether_stayConsistentInEveryCrashState(WriteAccessPath path) throws Exception {
    long seed = Seeds.seed();
    int threads = JournalFixtures.SOAK ? 16 : 12;
    int handles = JournalFixtures.SOAK ? 400 : 120;
    MemoryBlockDevice base = JournalFixtures.device("stress");
    Journal.format(base, MAP, JournalFixtures.uuid(seed), 1);
    for (int p = 0; p < PAIRS; p++) {
      JournalFixtures.write(base, a(p), image(p, 0, a(p), false));
      JournalFixtures.write(base, b(p), image(p, 0, b(p), false));
    }
    RecordingBlockDevice rec = new RecordingBlockDevice(base);
    JournalOptions options = JournalOptions.builder().maxTransactionBuffers(16).writeAccessPath(path)
        .commitInterval(Duration.ofMillis(20)).checkpointInterval(Duration.ofMillis(10)).build();
    Journal j = Journal.open(rec, MAP, options);
    ReentrantLock[] pairLocks = new ReentrantLock[PAIRS];
    int[] counters = new int[PAIRS]; // guarded by pairLocks[p]
    for (int p = 0; p < PAIRS; p++) {
      pairLocks[p] = new ReentrantLock();
    }
    AtomicBoolean writersDone = new AtomicBoolean();
    List<Integer> seenTids = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(threads + 2);
    List<Future<?>> writers = new ArrayList<>();
    record Seen(long checks, boolean anyCommitted) {}
    List<Future<Seen>> readers = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int writer = t;
        writers.add(pool.submit(() -> {
          SplittableRandom r = new SplittableRandom(Seeds.derive(seed, writer));
          for (int n = 0; n < handles; n++) {
            int p = r.nextInt(PAIRS);
            Handle h = j.start(2);
            JournalBuffer ba = j.buffer(a(p));
            JournalBuffer bb = j.buffer(b(p));
            h.getWriteAccess(ba); // outside the pair lock: concurrent access calls on one buffer
            h.getWriteAccess(bb);
            int c;
            pairLocks[p].lock();
            try {
              c = ++counters[p];
              ba.data().put(image(p, c, a(p), magicA(c)));
              h.dirtyMetadata(ba);
              bb.data().put(image(p, c, b(p), false));
              h.dirtyMetadata(bb);
            } finally {
              pairLocks[p].unlock();
            }
            ba.release();
            bb.release();
            int tid = h.tid();
            seenTids.add(tid);
            boolean sync = r.nextInt(4) == 0;
            h.setSync(sync);
            h.stop();
            if (sync) {
              rec.mark(p + ":" + c); // pair p holds at least counter c from now on
              assertThat(j.isCommitted(tid)).isTrue();
            }
          }
          return null;
        }));
      }
      for (int t = 0; t < 2; t++) {
        readers.add(pool.submit(() -> {
          long checks = 0;
          boolean anyCommitted = false;
          boolean last = false;
          while (!last) {
            last = writersDone.get(); // one more pass after the writers finished: their sync stops committed
            Integer[] tids;
            synchronized (seenTids) {
              tids = seenTids.toArray(Integer[]::new);
            }
            for (int i = last ? 0 : Math.max(0, tids.length - 64); i < tids.length; i++) { // the last pass: every tid
              int tid = tids[i];
              boolean first = j.isCommitted(tid);
              boolean second = j.isCommitted(tid);
              checks++;
              if (first && !second) {
                throw new AssertionError("isCommitted(" + tid + ") went from true to false");
              }
              anyCommitted |= first;
            }
            Thread.onSpinWait();
          }
          return new Seen(checks, anyCommitted);
        }));
      }
      for (Future<?> f : writers) {
        f.get();
      }
      writersDone.set(true);
      long checks = 0;
      for (Future<Seen> f : readers) {
        Seen seen = f.get();
        checks += seen.checks();
        assertThat(seen.anyCommitted()).as("a reader saw a committed tid (the writers' sync stops had returned)").isTrue();
      }
      assertThat(checks).as("isCommitted checks made by readers").isPositive();
    } finally {
      writersDone.set(true);
      pool.shutdown();
    }
    j.closeWithoutCheckpoint();
    Recording recording = rec.crash();

    // Every pair after a full replay holds its last counter.
    MemoryBlockDevice full = recording.latest();
    JournalRecovery.recover(full, MAP, JournalFixtures.superblock(full));
    for (int p = 0; p < PAIRS; p++) {
      assertThat(read(full, a(p))).as("pair %d A after replay", p).isEqualTo(image(p, counters[p], a(p), magicA(counters[p])));
      assertThat(read(full, b(p))).as("pair %d B after replay", p).isEqualTo(image(p, counters[p], b(p), false));
    }

    // And in every crash state: consistent pairs, nothing acknowledged lost.
    CrashStates states = CrashStates.of(recording, seed, new CrashStates.Options(6, 8, true));
    List<String> failures = new ArrayList<>();
    long count = 0;
    for (CrashState cs : (Iterable<CrashState>) states.stream()::iterator) {
      count++;
      MemoryBlockDevice d = cs.materialize();
      JournalRecovery.recover(d, MAP, JournalFixtures.superblock(d));
      int[] floor = new int[PAIRS];
      for (RecordingBlockDevice.Mark m : cs.acknowledgedMarks()) {
        String[] pc = m.label().split(":", 0);
        int p = Integer.parseInt(pc[0]);
        floor[p] = Math.max(floor[p], Integer.parseInt(pc[1]));
      }
      for (int p = 0; p < PAIRS; p++) {
        String problem = checkPair(d, p, floor[p]);
        if (problem != null) {
          failures.add(cs + ": " + problem);
        }
      }
    }
    System.out.printf("stress %s (seed %d): %d crash states, %d failures%n", path, seed, count, failures.size());
    assertThat(count).isGreaterThan(100);
    if (!failures.isEmpty()) {
      org.junit.jupiter.api.Assertions.fail(String.format("seed %d: %d pair violations; first 5:%n%s", seed,
          failures.size(), String.join("\n", failures.stream().limit(5).toList())));
    }
  }

  /** The pair's two images, or a description of why they are not a consistent, acknowledged pair. */
  static String checkPair(BlockDevice d, int p, int floor) {
    byte[] ia = read(d, a(p));
    byte[] ib = read(d, b(p));
    int ca = ByteBuffer.wrap(ia).getInt(8);
    int cb = ByteBuffer.wrap(ib).getInt(8);
    if (ca != cb) {
      return "pair " + p + " torn apart: A holds counter " + ca + ", B " + cb;
    }
    if (!Arrays.equals(ia, image(p, ca, a(p), magicA(ca))) || !Arrays.equals(ib, image(p, cb, b(p), false))) {
      return "pair " + p + " counter " + ca + ": images are not the ones written";
    }
    if (ca < floor) {
      return "pair " + p + " lost acknowledged counter " + floor + " (holds " + ca + ")";
    }
    return null;
  }

  @ParameterizedTest
  @EnumSource(CommitWakeup.class)
  void manyThreadsOnOneBuffer_eachIncrementIsCommittedExactlyOnce(CommitWakeup wakeup) throws Exception {
    long seed = Seeds.seed();
    int threads = 16;
    int perThread = JournalFixtures.SOAK ? 1000 : 150;
    MemoryBlockDevice dev = JournalFixtures.device("counter");
    JournalOptions options = JournalOptions.builder().maxTransactionBuffers(16).commitWakeup(wakeup)
        .commitInterval(Duration.ofMillis(5)).checkpointInterval(Duration.ofMillis(5)).build();
    ReentrantLock lock = new ReentrantLock();
    try (Journal j = Journal.create(dev, MAP, options)) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int writer = t;
          fs.add(pool.submit(() -> {
            SplittableRandom r = new SplittableRandom(Seeds.derive(seed, writer));
            for (int n = 0; n < perThread; n++) {
              Handle h = j.start(1);
              JournalBuffer buf = j.buffer(HOME0);
              h.getWriteAccess(buf);
              lock.lock();
              try {
                ByteBuffer data = buf.data();
                data.putLong(0, data.getLong(0) + 1);
                h.dirtyMetadata(buf);
              } finally {
                lock.unlock();
              }
              buf.release();
              h.setSync(r.nextInt(8) == 0);
              h.stop();
            }
            return null;
          }));
        }
        for (Future<?> f : fs) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }
    }
    assertThat(ByteBuffer.wrap(read(dev, HOME0)).getLong(0)).isEqualTo((long) threads * perThread);
  }

  /** Some A images start with the jbd2 magic, so their log copies are escaped. */
  static boolean magicA(int counter) {
    return counter > 0 && counter % 7 == 0;
  }

  static long a(int p) {
    return HOME0 + 2L * p;
  }

  static long b(int p) {
    return HOME0 + 2L * p + 1;
  }
}
