package io.ext4j.jbd2;

import static io.ext4j.jbd2.JournalFixtures.MAP;
import static io.ext4j.jbd2.JournalFixtures.image;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.format.JournalHeader;
import io.ext4j.testkit.RecordingBlockDevice;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the journal tells the filesystem about commits: the commit listener (each commit once, in
 * tid order, once durable), {@link Journal#lastCommittedTid()}, and {@link Journal#commitWillFlush}
 * across a transaction's life.
 */
@Tag("fast")
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CommitNotificationTest {
  static final long A = 100;

  @Test
  void commitListener_isToldEveryCommitOnce_inTidOrder_afterItsCommitBlockIsDurable() throws Exception {
    long seed = Seeds.seed();
    MemoryBlockDevice base = JournalFixtures.device("listener");
    Journal.format(base, MAP, JournalFixtures.uuid(seed), 1);
    RecordingBlockDevice rec = new RecordingBlockDevice(base);
    List<Integer> told = Collections.synchronizedList(new ArrayList<>());
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    Set<Integer> handed = ConcurrentHashMap.newKeySet();
    JournalOptions options = JournalApiTest.quiet().toBuilder().maxTransactionBuffers(16).build();
    try (Journal j = Journal.open(rec, MAP, options)) {
      j.addCommitListener(tid -> {
        told.add(tid);
        if (!j.isCommitted(tid) || Tid.gt(tid, j.lastCommittedTid())) {
          problems.add("tid " + tid + " told before it was published");
        }
        if (!flushedAfterCommitBlock(rec.recording().events(), tid)) {
          problems.add("tid " + tid + " told before a flush after its commit block");
        }
      });
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          int writer = t;
          fs.add(pool.submit(() -> {
            SplittableRandom r = new SplittableRandom(Seeds.derive(seed, writer));
            for (int n = 0; n < 60; n++) {
              handed.add(JournalFixtures.writeBlock(j, A + writer, image(writer, n, A + writer, false), r.nextInt(3) == 0));
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
    assertThat(problems).isEmpty();
    List<Integer> order = new ArrayList<>(told);
    for (int i = 1; i < order.size(); i++) {
      assertThat(order.get(i)).as("the commit after %d", order.get(i - 1)).isEqualTo(order.get(i - 1) + 1);
    }
    assertThat(order).as("every transaction a handle joined was told, once").containsAll(handed).doesNotHaveDuplicates();
  }

  /** Whether the log holds tid's commit block followed by a flush. */
  static boolean flushedAfterCommitBlock(List<RecordingBlockDevice.Event> events, int tid) {
    int commit = -1;
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i) instanceof RecordingBlockDevice.Write w && w.block() > MAP.deviceBlock(0)
          && w.block() < MAP.deviceBlock(0) + MAP.length()) {
        ByteBuffer b = ByteBuffer.wrap(w.bytes());
        if (b.getInt(0) == JournalHeader.MAGIC && b.getInt(4) == JournalHeader.TYPE_COMMIT && b.getInt(8) == tid) {
          commit = i;
        }
      }
    }
    if (commit < 0) {
      return false;
    }
    for (int i = commit + 1; i < events.size(); i++) {
      if (events.get(i) instanceof RecordingBlockDevice.Flush) {
        return true;
      }
    }
    return false;
  }

  @Test
  void aThrowingCommitListener_abortsTheJournal() throws Exception {
    Journal j = Journal.create(JournalFixtures.device("listener"), MAP, JournalApiTest.quiet());
    j.addCommitListener(tid -> {
      throw new IllegalStateException("listener bug");
    });
    assertThatThrownBy(() -> JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true))
        .isInstanceOf(JournalAbortedException.class).hasRootCauseMessage("listener bug");
    assertThat(j.isAborted()).isTrue();
    assertThatThrownBy(j::close).isInstanceOf(JournalAbortedException.class);
  }

  @Test
  void removedCommitListener_isNotToldAgain() throws Exception {
    List<Integer> told = Collections.synchronizedList(new ArrayList<>());
    try (Journal j = Journal.create(JournalFixtures.device("listener"), MAP, JournalApiTest.quiet())) {
      CommitListener l = told::add;
      j.addCommitListener(l);
      int first = JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
      j.removeCommitListener(l);
      JournalFixtures.writeBlock(j, A, image(1, 2, A, false), true);
      assertThat(told).containsExactly(first);
    }
  }

  @Test
  void lastCommittedTid_followsTheCommits_andNotTheRunningTransaction() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("last");
    Journal.format(dev, MAP, JournalFixtures.uuid(5), 77);
    try (Journal j = Journal.open(dev, MAP, JournalApiTest.quiet())) {
      int before = j.lastCommittedTid();
      int tid = JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
      assertThat(Tid.gt(tid, before)).as("a fresh journal has committed nothing it handed out").isTrue();
      assertThat(j.lastCommittedTid()).isEqualTo(tid);
      int running = JournalFixtures.writeBlock(j, A, image(1, 2, A, false), false);
      assertThat(j.lastCommittedTid()).as("while %d runs", running).isEqualTo(tid);
      j.completeTransaction(running);
      assertThat(j.lastCommittedTid()).isEqualTo(running);
    }
  }

  /** A device whose flushes, once armed, each wait for a permit after announcing themselves. */
  static final class SteppedFlushes implements BlockDevice {
    final MemoryBlockDevice d;
    final Semaphore entered = new Semaphore(0);
    final Semaphore permits = new Semaphore(0);
    volatile boolean armed; // set by the test thread, read by flushing threads

    SteppedFlushes(MemoryBlockDevice d) {
      this.d = d;
    }

    @Override public String name() { return d.name(); }
    @Override public int blockSize() { return d.blockSize(); }
    @Override public long blockCount() { return d.blockCount(); }
    @Override public boolean isReadOnly() { return false; }
    @Override public void read(long block, ByteBuffer dst) throws IOException { d.read(block, dst); }
    @Override public void write(long block, ByteBuffer src) throws IOException { d.write(block, src); }
    @Override public void close() { d.close(); }

    @Override
    public void flush() throws IOException {
      if (armed) {
        entered.release();
        permits.acquireUninterruptibly();
      }
      d.flush();
    }
  }

  @Test
  void commitWillFlush_isTrueWhileRunningAndBeforeTheCommitBlock_falseOnceItsLastFlushMayHaveBegun() throws Exception {
    SteppedFlushes dev = new SteppedFlushes(JournalFixtures.device("will-flush"));
    Journal j = Journal.create(dev, MAP, JournalApiTest.quiet());
    try {
      JournalFixtures.writeBlock(j, A, image(1, 0, A, false), true); // the superblock is in use from here on
      assertThat(j.commitWillFlush(j.lastCommittedTid())).as("committed").isFalse();
      Handle h = j.start(1);
      int tid = h.tid();
      assertThat(j.commitWillFlush(tid)).as("running, with an open handle").isTrue();
      try (JournalBuffer b = j.buffer(A)) {
        h.getWriteAccess(b);
        b.data().put(image(1, 1, A, false));
        h.dirtyMetadata(b);
      }
      h.stop();
      assertThat(j.commitWillFlush(tid)).as("running").isTrue();
      assertThat(j.commitWillFlush(tid + 1)).as("not started yet").isTrue();

      dev.armed = true;
      CompletableFuture<Void> commit = JournalFixtures.asyncRun(() -> {
        try {
          j.completeTransaction(tid);
        } catch (JournalException e) {
          throw new RuntimeException(e);
        }
      });
      assertThat(dev.entered.tryAcquire(10, TimeUnit.SECONDS)).as("the flush after the log writes began").isTrue();
      assertThat(j.commitWillFlush(tid)).as("committing, its commit block not yet written").isTrue();
      dev.permits.release();
      assertThat(dev.entered.tryAcquire(10, TimeUnit.SECONDS)).as("the flush after the commit block began").isTrue();
      assertThat(j.commitWillFlush(tid)).as("committing, in its last flush").isFalse();
      dev.armed = false;
      dev.permits.release();
      commit.get(10, TimeUnit.SECONDS);
      assertThat(j.commitWillFlush(tid)).as("committed").isFalse();
    } finally {
      dev.armed = false;
      dev.permits.release(8);
      j.close();
    }
  }
}
