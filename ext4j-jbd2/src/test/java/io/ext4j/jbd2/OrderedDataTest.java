package io.ext4j.jbd2;

import static io.ext4j.jbd2.JournalFixtures.MAP;
import static io.ext4j.jbd2.JournalFixtures.image;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.OrderedData.Range;
import io.ext4j.jbd2.format.JournalHeader;
import io.ext4j.testkit.RecordingBlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * data=ordered: submit and wait split around the log writes, per-owner ranges merged within a
 * transaction, cancellation on truncate (trimming the running transaction, waiting for the
 * committing one), and the handle-lifecycle and async-commit refusals.
 */
@Tag("fast")
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class OrderedDataTest {
  static final long A = 100;

  /** An owner that logs its calls (with the device's event count at that moment) and writes its data in await. */
  static final class LoggingOwner implements OrderedData {
    final String name;
    @GuardedBy("log") final List<String> log; // shared by the owners of a test
    final RecordingBlockDevice dev; // null: write nothing
    final long dataBlock;
    final List<List<Range>> submitted = Collections.synchronizedList(new ArrayList<>());

    LoggingOwner(String name, List<String> log, RecordingBlockDevice dev, long dataBlock) {
      this.name = name;
      this.log = log;
      this.dev = dev;
      this.dataBlock = dataBlock;
    }

    @Override
    public void submit(List<Range> ranges) {
      submitted.add(List.copyOf(ranges));
      synchronized (log) {
        log.add("submit " + name + " @" + (dev == null ? 0 : dev.eventCount()));
      }
    }

    @Override
    public void await() throws IOException {
      synchronized (log) {
        log.add("await " + name + " @" + (dev == null ? 0 : dev.eventCount()));
      }
      if (dev != null) {
        dev.write(dataBlock, ByteBuffer.wrap(image(9, 9, dataBlock, false)));
      }
    }
  }

  static void dirty(Journal j, Handle h, long block) throws Exception {
    try (JournalBuffer b = j.buffer(block)) {
      h.getWriteAccess(b);
      b.data().put(image(1, 1, block, false));
      h.dirtyMetadata(b);
    }
  }

  @Test
  void commit_submitsEveryOwnerBeforeAwaitingAny_writesTheLogBetween_andFlushesBothBeforeTheCommitBlock() throws Exception {
    MemoryBlockDevice base = JournalFixtures.device("ordered");
    Journal.format(base, MAP, JournalFixtures.uuid(1), 1);
    RecordingBlockDevice rec = new RecordingBlockDevice(base);
    List<String> log = new ArrayList<>();
    LoggingOwner x = new LoggingOwner("x", log, rec, 500);
    LoggingOwner y = new LoggingOwner("y", log, rec, 501);
    try (Journal j = Journal.open(rec, MAP, JournalApiTest.quiet())) {
      Handle h = j.start(2);
      dirty(j, h, A);
      dirty(j, h, A + 1);
      h.addOrderedData(x, 0, 1);
      h.addOrderedData(y, 0, 1);
      h.setSync(true);
      h.stop();
    }
    assertThat(log).extracting(l -> l.substring(0, l.indexOf(" @"))).containsExactly("submit x", "submit y", "await x", "await y");
    int lastSubmit = at(log.get(1));
    int firstAwait = at(log.get(2));
    List<RecordingBlockDevice.Event> events = rec.recording().events();
    assertThat(events.subList(lastSubmit, firstAwait)).as("the log blocks are written between submit and await")
        .anyMatch(e -> e instanceof RecordingBlockDevice.Write w && w.block() >= MAP.deviceBlock(1));
    long commitSeq = -1;
    for (RecordingBlockDevice.Event e : events) {
      if (e instanceof RecordingBlockDevice.Write w && w.block() > MAP.deviceBlock(0)
          && ByteBuffer.wrap(w.bytes()).getInt(0) == JournalHeader.MAGIC
          && ByteBuffer.wrap(w.bytes()).getInt(4) == JournalHeader.TYPE_COMMIT) {
        commitSeq = w.seq();
        break;
      }
    }
    int lastData = -1;
    for (RecordingBlockDevice.Event e : events) {
      if (e instanceof RecordingBlockDevice.Write w && (w.block() == 500 || w.block() == 501)) {
        lastData = (int) w.seq();
      }
    }
    assertThat(lastData).as("ordered data written").isNotNegative();
    assertThat(commitSeq).as("commit block written after the data").isGreaterThan(lastData);
    assertThat(events.subList(lastData, (int) commitSeq)).as("a flush between the data and the commit block")
        .anyMatch(e -> e instanceof RecordingBlockDevice.Flush);
  }

  private static int at(String entry) {
    return Integer.parseInt(entry.substring(entry.indexOf('@') + 1));
  }

  @Test
  void rangesOfOneOwner_mergeAcrossHandlesOfATransaction_andOwnersStaySeparate() throws Exception {
    List<String> log = new ArrayList<>();
    LoggingOwner x = new LoggingOwner("x", log, null, 0);
    LoggingOwner y = new LoggingOwner("y", log, null, 0);
    try (Journal j = Journal.create(JournalFixtures.device("ordered"), MAP, JournalApiTest.quiet())) {
      Handle h1 = j.start(1);
      int tid = h1.tid();
      h1.addOrderedData(x, 0, 4);
      h1.addOrderedData(x, 10, 2);
      h1.addOrderedData(y, 7, 1);
      h1.stop();
      Handle h2 = j.start(1);
      assertThat(h2.tid()).isEqualTo(tid);
      h2.addOrderedData(x, 4, 4); // continues [0, 4)
      h2.addOrderedData(x, 2, 3); // inside what is there
      h2.stop();
      j.completeTransaction(tid);
    }
    assertThat(x.submitted).containsExactly(List.of(new Range(0, 8), new Range(10, 2)));
    assertThat(y.submitted).containsExactly(List.of(new Range(7, 1)));
  }

  @Test
  void cancel_trimsTheOwnersRangesInTheRunningTransaction_andDropsAnOwnerLeftWithNone() throws Exception {
    List<String> log = new ArrayList<>();
    LoggingOwner x = new LoggingOwner("x", log, null, 0);
    LoggingOwner y = new LoggingOwner("y", log, null, 0);
    LoggingOwner z = new LoggingOwner("z", log, null, 0);
    try (Journal j = Journal.create(JournalFixtures.device("ordered"), MAP, JournalApiTest.quiet())) {
      Handle h = j.start(1);
      int tid = h.tid();
      h.addOrderedData(x, 0, 10);
      h.addOrderedData(x, 20, 5);
      h.addOrderedData(y, 3, 4);
      h.addOrderedData(z, 0, 2);
      j.cancelOrderedData(x, 5); // from a thread holding a handle of that transaction: no wait
      j.cancelOrderedData(y, 0);
      j.cancelOrderedData(z, 2); // nothing at or past 2
      h.stop();
      j.completeTransaction(tid);
    }
    assertThat(x.submitted).containsExactly(List.of(new Range(0, 5)));
    assertThat(y.submitted).as("an owner with nothing left is not called").isEmpty();
    assertThat(z.submitted).containsExactly(List.of(new Range(0, 2)));
  }

  @Test
  void cancel_ofRangesTheCommittingTransactionStillWrites_returnsOnlyOnceThatCommitIsDurable() throws Exception {
    CountDownLatch submitting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    OrderedData owner = JournalFixtures.blockingOwner(submitting, release);
    Journal j = Journal.create(JournalFixtures.device("ordered"), MAP, JournalApiTest.quiet());
    try {
      Handle h = j.start(1);
      int tid = h.tid();
      dirty(j, h, A);
      h.addOrderedData(owner, 0, 10);
      h.stop();
      CompletableFuture<Void> commit = JournalFixtures.asyncRun(() -> {
        try {
          j.completeTransaction(tid);
        } catch (JournalException e) {
          throw new RuntimeException(e);
        }
      });
      assertThat(submitting.await(10, TimeUnit.SECONDS)).as("the commit is writing the owner's data").isTrue();

      AtomicReference<Thread> canceller = new AtomicReference<>();
      AtomicBoolean committedWhenReturned = new AtomicBoolean();
      CompletableFuture<Void> cancel = JournalFixtures.asyncRun(() -> {
        canceller.set(Thread.currentThread());
        try (Handle truncate = j.start(1)) { // the truncate's own handle, in the next transaction
          j.cancelOrderedData(owner, 4);
          committedWhenReturned.set(j.isCommitted(tid));
        } catch (JournalException e) {
          throw new RuntimeException(e);
        }
      });
      // Wait (bounded) until the canceller has either returned or is parked waiting; then let the commit go.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!cancel.isDone() && !parked(canceller.get()) && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      release.countDown();
      commit.get(10, TimeUnit.SECONDS);
      cancel.get(10, TimeUnit.SECONDS);
      assertThat(committedWhenReturned).as("cancel returned only after the committing transaction committed").isTrue();
    } finally {
      release.countDown();
      j.close();
    }
  }

  private static boolean parked(Thread t) {
    return t != null && (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
  }

  @Test
  void addOrderedData_afterStop_throws_insteadOfDroppingTheData() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("ordered"), MAP, JournalApiTest.quiet())) {
      Handle h = j.start(1);
      h.stop();
      assertThatThrownBy(() -> h.addOrderedData(new LoggingOwner("x", new ArrayList<>(), null, 0), 0, 1))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("stopped");
    }
  }

  @Test
  void aFailingAwait_abortsTheJournal_andTheTransactionIsNotCommitted() throws Exception {
    OrderedData failing = new OrderedData() {
      @Override
      public void submit(List<Range> ranges) {}

      @Override
      public void await() throws IOException {
        throw new IOException("data write failed");
      }
    };
    Journal j = Journal.create(JournalFixtures.device("ordered"), MAP, JournalApiTest.quiet());
    Handle h = j.start(1);
    int tid = h.tid();
    dirty(j, h, A);
    h.addOrderedData(failing, 0, 1);
    h.setSync(true);
    assertThatThrownBy(h::stop).isInstanceOf(JournalAbortedException.class).hasRootCauseMessage("data write failed");
    assertThat(j.isCommitted(tid)).isFalse();
    assertThatThrownBy(j::close).isInstanceOf(JournalAbortedException.class);
  }

  @Test
  void asyncCommit_refusesOrderedData() throws Exception {
    JournalOptions async = JournalApiTest.quiet().toBuilder().asyncCommit(true).build();
    try (Journal j = Journal.create(JournalFixtures.device("ordered"), MAP, async)) {
      Handle h = j.start(1);
      assertThatThrownBy(() -> h.addOrderedData(new LoggingOwner("x", new ArrayList<>(), null, 0), 0, 1))
          .isInstanceOf(UnsupportedOperationException.class);
      h.stop();
    }
  }
}
