package io.ext4j.jbd2;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The journal's writer counts, which the adaptive policy batches on, over a real journal: a thread
 * counts once per transaction however many handles it starts, and the recent writers are the
 * threads of the running transaction and of the two committed before it, so two threads whose
 * commits alternate count two.
 */
@Tag("fast")
class BatchWritersTest {
  /** Records what {@code beforeCommit} saw: {writerCount, recentWriters, handleCount} per commit. */
  private static final class Recording implements BatchingPolicy {
    final List<int[]> seen = new CopyOnWriteArrayList<>();

    @Override
    public String name() {
      return "recording";
    }

    @Override
    public void beforeCommit(BatchContext c) {
      seen.add(new int[] {c.writerCount(), c.recentWriters(), c.handleCount()});
    }
  }

  /** A new journal on a memory device that commits only when asked, batching with {@code policy}. */
  private static Journal journal(String name, BatchingPolicy policy) throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device(name);
    return Journal.create(dev, JournalFixtures.MAP,
        JournalOptions.builder().commitInterval(Duration.ofHours(1)).batchingPolicy(policy).build());
  }

  /** One update from the calling thread, committed and waited for. */
  private static void commitOne(Journal j, int block, int handles) throws Exception {
    int tid = 0;
    for (int i = 0; i < handles; i++) {
      Handle h = j.start(1);
      try (JournalBuffer b = j.buffer(block)) {
        h.getWriteAccess(b);
        b.data().put(i, (byte) 1);
        h.dirtyMetadata(b);
      }
      tid = h.tid();
      h.stop();
    }
    j.completeTransaction(tid);
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void alternatingThreads_countTwoRecentWriters_andSeveralHandlesOfOneThreadCountOnce() throws Exception {
    Recording policy = new Recording();
    ExecutorService other = Executors.newSingleThreadExecutor(); // one other thread, the same each time
    try (Journal j = journal("writers", policy)) {
      commitOne(j, 100, 3); // this thread, three handles in one transaction
      other.submit(() -> {
        commitOne(j, 101, 1); // the other thread alone
        return null;
      }).get(30, TimeUnit.SECONDS);
      commitOne(j, 102, 1); // this thread again: the two alternate
      other.submit(() -> {
        commitOne(j, 103, 1);
        return null;
      }).get(30, TimeUnit.SECONDS);
    } finally {
      other.shutdownNow();
    }
    assertThat(policy.seen).hasSizeGreaterThanOrEqualTo(4);
    assertThat(policy.seen.get(0)).as("3 handles of one thread").containsExactly(1, 1, 3);
    assertThat(policy.seen.get(1)).as("the other thread, after one commit of the first").containsExactly(1, 2, 1);
    assertThat(policy.seen.get(2)).containsExactly(1, 2, 1);
    assertThat(policy.seen.get(3)).containsExactly(1, 2, 1);
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aThreadThatStopsWriting_isForgottenAfterTwoCommits() throws Exception {
    Recording policy = new Recording();
    try (Journal j = journal("writers-gone", policy)) {
      JournalFixtures.asyncRun(() -> commitOne(j, 100, 1)).get(30, TimeUnit.SECONDS); // a thread that then ends
      for (int i = 0; i < 3; i++) {
        commitOne(j, 101 + i, 1);
      }
    }
    assertThat(policy.seen.subList(0, 4)).extracting(s -> s[1]).as("recent writers per commit").containsExactly(1, 2, 2, 1);
  }
}
