package io.ext4j.jbd2;

import static io.ext4j.jbd2.JournalFixtures.MAP;
import static io.ext4j.jbd2.JournalFixtures.image;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The two ways a committer wakes its waiters ({@link CommitWakeup}): which one runs, and that with
 * either every synchronous stop and every waiter returns — after its commit, or after an abort. A
 * lost wake-up shows as a test that never finishes (the class timeout fails it).
 */
@Tag("fast")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CommitWakeupTest {

  @Test
  void futexBroadcast_runsOnLinuxWithNativeAccess_asTheTestsAreLaunched() throws Exception {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch");
    assumeTrue(os.startsWith("linux") && (arch.equals("amd64") || arch.equals("aarch64")), "futex needs Linux");
    try (Journal j = Journal.create(JournalFixtures.device("wakeup-default"), MAP, JournalOptions.defaults())) {
      assertThat(j.commitWakeup()).as("the default, with --enable-native-access in the test JVM")
          .isEqualTo(CommitWakeup.FUTEX_BROADCAST);
    }
    JournalOptions unpark = JournalOptions.builder().commitWakeup(CommitWakeup.UNPARK_EACH).build();
    try (Journal j = Journal.create(JournalFixtures.device("wakeup-unpark"), MAP, unpark)) {
      assertThat(j.commitWakeup()).isEqualTo(CommitWakeup.UNPARK_EACH);
    }
  }

  @ParameterizedTest
  @EnumSource(CommitWakeup.class)
  void everySynchronousStopReturns_committed_underManyThreads(CommitWakeup wakeup) throws Exception {
    int threads = 32;
    int perThread = 60;
    JournalOptions options = JournalOptions.builder().commitWakeup(wakeup).build();
    try (Journal j = Journal.create(JournalFixtures.device("wakeup-many"), MAP, options)) {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<List<Integer>>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          long block = 100L + t;
          int writer = t;
          fs.add(pool.submit(() -> {
            List<Integer> tids = new ArrayList<>();
            for (int n = 0; n < perThread; n++) {
              int tid = JournalFixtures.writeBlock(j, block, image(writer, n, block, false), true);
              assertThat(j.isCommitted(tid)).as("tid %d right after its synchronous stop", tid).isTrue();
              tids.add(tid);
            }
            return tids;
          }));
        }
        int done = 0;
        for (Future<List<Integer>> f : fs) {
          done += f.get().size();
        }
        assertThat(done).isEqualTo(threads * perThread);
      } finally {
        pool.shutdown();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CommitWakeup.class)
  void virtualThreads_manyMoreThanCarriers_allGetTheirCommits(CommitWakeup wakeup) throws Exception {
    // 64 virtual threads on the default scheduler (one carrier per core): were a waiter to sleep in
    // the futex it would pin its carrier, and with every carrier pinned no committer could run.
    int threads = 64;
    int perThread = 20;
    JournalOptions options = JournalOptions.builder().commitWakeup(wakeup).build();
    try (Journal j = Journal.create(JournalFixtures.device("wakeup-virtual"), MAP, options);
        ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Integer>> fs = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long block = 100L + t;
        int writer = t;
        fs.add(pool.submit(() -> {
          int done = 0;
          for (int n = 0; n < perThread; n++) {
            int tid = JournalFixtures.writeBlock(j, block, image(writer, n, block, false), true);
            assertThat(j.isCommitted(tid)).isTrue();
            done++;
          }
          return done;
        }));
      }
      int done = 0;
      for (Future<Integer> f : fs) {
        done += f.get();
      }
      assertThat(done).isEqualTo(threads * perThread);
    }
  }

  @ParameterizedTest
  @EnumSource(CommitWakeup.class)
  void abort_wakesEveryThreadWaitingForACommit(CommitWakeup wakeup) throws Exception {
    JournalOptions options = JournalOptions.builder().commitWakeup(wakeup).commitInterval(Duration.ofHours(1))
        .checkpointInterval(Duration.ofHours(1)).build();
    Journal j = Journal.create(JournalFixtures.device("wakeup-abort"), MAP, options);
    // Eight async handles (nothing commits them): a group large enough for the futex (FUTEX_MIN_GROUP).
    int tid = 0;
    for (int i = 0; i < 8; i++) {
      tid = JournalFixtures.writeBlock(j, 100 + i, image(1, i, 100 + i, false), false);
    }
    int waitedTid = tid;
    int waiters = 8;
    ExecutorService pool = Executors.newFixedThreadPool(waiters);
    try {
      List<Thread> sleeping = java.util.Collections.synchronizedList(new ArrayList<>());
      List<Future<?>> fs = new ArrayList<>();
      for (int i = 0; i < waiters; i++) {
        fs.add(pool.submit(() -> {
          sleeping.add(Thread.currentThread());
          j.waitCommit(waitedTid);
          return null;
        }));
      }
      // Wait (by looking, not by sleeping a guess) until every waiter is inside its wait.
      long deadline = System.nanoTime() + 60_000_000_000L;
      String waitFrame = j.commitWakeup() == CommitWakeup.FUTEX_BROADCAST ? "sleepUntilCommitted" : "park";
      while (sleeping.size() < waiters || !sleeping.stream().allMatch(t -> isIn(t, waitFrame))) {
        assertThat(System.nanoTime() - deadline).as("waiters reach their wait").isNegative();
        Thread.onSpinWait();
      }
      j.abort(new IllegalStateException("abort for the test"));
      for (Future<?> f : fs) {
        try {
          f.get();
          throw new AssertionError("waitCommit returned normally after an abort");
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOf(JournalAbortedException.class);
        }
      }
    } finally {
      pool.shutdown();
      try {
        j.close();
      } catch (JournalException expected) {
        // aborted
      }
    }
  }

  /** Whether the thread is inside a method of that name (the futex sleep, or a park). */
  private static boolean isIn(Thread t, String method) {
    return Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals(method));
  }
}
