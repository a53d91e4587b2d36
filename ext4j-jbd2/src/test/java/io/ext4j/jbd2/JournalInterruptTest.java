package io.ext4j.jbd2;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Journal waits are uninterruptible (as jbd2's) but keep the caller's interrupt status. */
@Tag("fast")
class JournalInterruptTest {
  private static final Duration BATCH = Duration.ofMillis(500);

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void syncStop_byAnInterruptedThread_commitsAndKeepsTheInterrupt() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("interrupt");
    JournalOptions o = JournalOptions.builder().commitInterval(Duration.ofHours(1))
        .batchingPolicy(BatchingPolicies.JBD2).minBatchTime(BATCH).maxBatchTime(BATCH).build();
    try (Journal j = Journal.create(dev, JournalFixtures.MAP, o)) {
      // Another thread's synchronous stop: this thread is then not the last sync writer, so the jbd2
      // policy sleeps in its stop: the transaction is younger than the batch time, which is long
      // (500 ms) so that a slow, loaded machine cannot age it past the floor before its stop.
      JournalFixtures.asyncRun(() -> {
        Handle warm = j.start(1);
        warm.setSync(true);
        warm.stop();
      }).get(30, TimeUnit.SECONDS);
      long waitsBefore = j.stats().batchWaits();
      int tid;
      long slept;
      Thread.currentThread().interrupt();
      try {
        Handle h = j.start(1);
        try (JournalBuffer b = j.buffer(100)) {
          h.getWriteAccess(b);
          b.data().put(0, (byte) 7);
          h.dirtyMetadata(b);
        }
        h.setSync(true);
        tid = h.tid();
        long before = System.nanoTime();
        h.stop();
        slept = System.nanoTime() - before;
        assertThat(Thread.currentThread().isInterrupted()).as("interrupt status kept").isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(j.stats().batchWaits() - waitsBefore).as("the stop went through the policy's sleep").isOne();
      assertThat(Duration.ofNanos(slept)).as("an interrupted sleep still sleeps the batch time").isGreaterThanOrEqualTo(
          BATCH);
      assertThat(j.isCommitted(tid)).isTrue();
    }
    assertThat(dev.block(100)[0]).isEqualTo((byte) 7);
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void waitCommit_byAnInterruptedThread_returnsOnceCommittedAndKeepsTheInterrupt() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("interrupt-wait"), JournalFixtures.MAP, JournalApiTest.quiet())) {
      Handle h = j.start(1);
      try (JournalBuffer b = j.buffer(101)) {
        h.getWriteAccess(b);
        h.dirtyMetadata(b);
      }
      int tid = h.tid();
      h.stop();
      Thread.currentThread().interrupt();
      try {
        j.completeTransaction(tid);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(j.isCommitted(tid)).isTrue();
    }
  }
}
