package io.ext4j.jbd2;

import static io.ext4j.jbd2.JournalFixtures.MAP;
import static io.ext4j.jbd2.JournalFixtures.image;
import static io.ext4j.jbd2.JournalFixtures.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.MemoryBlockDevice;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The journal's API contract, one behaviour per test: handles and nesting, credits, extend and
 * restart, forget and revoke, undo access, commit queries, tid wraparound, and what
 * close and closeWithoutCheckpoint leave on disk.
 */
@Tag("fast")
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JournalApiTest {
  static final long A = 100;
  static final long B = 101;
  static final long C = 102;

  /** No commit or checkpoint happens unless a test asks for it. */
  static JournalOptions quiet() {
    return JournalOptions.builder().commitInterval(Duration.ofHours(1)).checkpointInterval(Duration.ofHours(1)).build();
  }

  static MemoryBlockDevice recover(MemoryBlockDevice dev) throws Exception {
    MemoryBlockDevice copy = dev.snapshot("recovered");
    try (Journal j = Journal.open(copy, MAP, quiet())) {
      assertThat(j.recovery()).isNotNull();
    }
    return copy;
  }

  // ---------------------------------------------------------------- handles

  @Test
  void asyncStop_isCommittedByTheCommitTimerAlone_noEarlierThanTheInterval() throws Exception {
    Duration interval = Duration.ofMillis(150);
    JournalOptions options = JournalOptions.builder().commitInterval(interval).checkpointInterval(Duration.ofHours(1))
        .build();
    MemoryBlockDevice dev = JournalFixtures.device("timer");
    try (Journal j = Journal.create(dev, MAP, options)) {
      // Three rounds: the commit thread is idle (first) or has just committed (later) when the
      // transaction starts; nothing but its timer may commit it.
      for (int round = 0; round < 3; round++) {
        long before = System.nanoTime();
        int tid = JournalFixtures.writeBlock(j, A + round, image(1, round, A + round, false), false);
        assertThat(j.isCommitted(tid)).isFalse();
        j.waitCommit(tid); // no request: returns only when the timer has committed it
        long elapsed = System.nanoTime() - before;
        assertThat(j.isCommitted(tid)).isTrue();
        assertThat(Duration.ofNanos(elapsed)).as("round %d", round).isGreaterThanOrEqualTo(interval);
      }
    }
  }

  @Test
  void syncStop_returnsWithTheTransactionCommitted_andCloseWritesItHome() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[] img = image(1, 1, A, false);
    try (Journal j = Journal.create(dev, MAP, quiet())) {
      int tid = JournalFixtures.writeBlock(j, A, img, true);
      assertThat(j.isCommitted(tid)).isTrue();
      assertThat(read(dev, A)).as("not written home before a checkpoint").isNotEqualTo(img);
    }
    assertThat(read(dev, A)).isEqualTo(img);
  }

  @Test
  void aCommitIsCounted_byTheTimeItsWaitersReturn() throws Exception {
    // The committer once counted a transaction after waking its waiters and telling its listeners,
    // so a snapshot taken as soon as a commit wait returned could miss it (ProviderOracleTest read 0
    // transactions under CI). Here another thread commits, and its listener is held until the
    // waiting thread has taken its snapshot, which makes that window as wide as it can be.
    Thread waiter = Thread.currentThread();
    try (Journal j = Journal.create(JournalFixtures.device("stats"), MAP, quiet())) {
      for (int i = 0; i < 3; i++) {
        CountDownLatch snapshotTaken = new CountDownLatch(1);
        CommitListener hold = tid -> {
          if (Thread.currentThread() != waiter) {
            try {
              snapshotTaken.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
        j.addCommitListener(hold);
        int tid = JournalFixtures.writeBlock(j, A + i, image(1, i, A + i, false), false);
        CompletableFuture<Void> committer = CompletableFuture.runAsync(() -> {
          try {
            j.completeTransaction(tid);
          } catch (JournalException e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        });
        j.waitCommit(tid);
        long counted = j.stats().transactions();
        snapshotTaken.countDown();
        committer.get(30, TimeUnit.SECONDS);
        j.removeCommitListener(hold);
        assertThat(counted).as("transactions counted when the wait for commit %d returned", i + 1).isEqualTo(i + 1);
      }
    }
  }

  @Test
  void plainStop_leavesTheTransactionRunning_untilCompleteTransactionCommitsIt() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    try (Journal j = Journal.create(dev, MAP, quiet())) {
      int tid = JournalFixtures.writeBlock(j, A, image(1, 1, A, false), false);
      assertThat(j.isCommitted(tid)).isFalse();
      assertThat(j.runningTid()).isEqualTo(tid);
      j.completeTransaction(tid);
      assertThat(j.isCommitted(tid)).isTrue();
    }
  }

  @Test
  void nestedStart_returnsTheSameHandle_andTheOuterStopEndsIt() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle outer = j.start(2);
      Handle inner = j.start(1);
      assertThat(inner).isSameAs(outer);
      assertThat(inner.credits()).as("a nested start within what is left adds nothing").isEqualTo(2);
      inner.stop();
      JournalBuffer a = j.buffer(A);
      outer.getWriteAccess(a); // still usable after the inner stop
      a.data().put(0, (byte) 7);
      outer.dirtyMetadata(a);
      a.release();
      outer.stop();
      assertThatThrownBy(outer::stop).isInstanceOf(IllegalStateException.class);
      Handle next = j.start(1);
      assertThat(next).as("a start after the outer stop is a new handle").isNotSameAs(outer);
      next.stop();
    }
  }

  @Test
  void nestedStart_withMoreCreditsThanLeft_extendsTheHandleInItsTransaction() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    try (Journal j = Journal.create(dev, MAP, quiet())) {
      Handle outer = j.start(1);
      int tid = outer.tid();
      Handle inner = j.start(50);
      assertThat(inner).isSameAs(outer);
      assertThat(inner.credits()).isEqualTo(50);
      assertThat(inner.tid()).isEqualTo(tid);
      for (int i = 0; i < 50; i++) {
        try (JournalBuffer b = j.buffer(A + i)) {
          inner.getWriteAccess(b);
          b.data().put(image(1, i, A + i, false));
          inner.dirtyMetadata(b);
        }
      }
      inner.stop();
      outer.setSync(true);
      outer.stop();
      assertThat(j.isCommitted(tid)).isTrue();
    }
    for (int i = 0; i < 50; i++) {
      assertThat(read(dev, A + i)).isEqualTo(image(1, i, A + i, false));
    }
  }

  @Test
  void nestedStart_withMoreRevokeRecordsThanLeft_extendsTheRevokeRecords() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle outer = j.start(0, 1);
      outer.revoke(A);
      assertThatThrownBy(() -> outer.revoke(B)).as("one record declared").isInstanceOf(IllegalStateException.class);
      Handle inner = j.start(0, 3);
      inner.revoke(B);
      inner.revoke(C);
      inner.revoke(C + 1);
      assertThatThrownBy(() -> inner.revoke(C + 2)).isInstanceOf(IllegalStateException.class);
      inner.stop();
      outer.stop();
    }
  }

  @Test
  void nestedStart_needingMoreThanTheTransactionCanGive_throwsAndLeavesTheHandleAsItWas() throws Exception {
    JournalOptions small = quiet().toBuilder().maxTransactionBuffers(64).build();
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, small)) {
      CountDownLatch holding = new CountDownLatch(1);
      CountDownLatch done = new CountDownLatch(1);
      int big = j.maxHandleCredits() - 2;
      CompletableFuture<Void> other = JournalFixtures.asyncRun(() -> {
        try {
          Handle h = j.start(big); // most of the transaction
          holding.countDown();
          done.await();
          h.stop();
        } catch (JournalException | InterruptedException e) {
          throw new RuntimeException(e);
        }
      });
      assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
      Handle outer = j.start(1);
      assertThatThrownBy(() -> j.start(10)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("nested start(10").hasMessageContaining("cannot give");
      assertThat(outer.credits()).isEqualTo(1);
      outer.stop(); // one stop ends it: the failed nested start did not nest
      assertThatThrownBy(outer::stop).isInstanceOf(IllegalStateException.class);
      done.countDown();
      other.get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void nestedStart_withMoreThanAHandleMayHold_throwsIllegalArgument() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle outer = j.start(1);
      assertThatThrownBy(() -> j.start(j.maxHandleCredits() + 1)).isInstanceOf(IllegalArgumentException.class);
      outer.stop();
      assertThatThrownBy(outer::stop).isInstanceOf(IllegalStateException.class);
    }
  }

  @Test
  void dirtyingMoreDistinctBuffersThanCredits_throwsIllegalStateException_butRedirtyingIsFree() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle h = j.start(2);
      for (long block : new long[] {A, B}) {
        try (JournalBuffer b = j.buffer(block)) {
          h.getWriteAccess(b);
          h.dirtyMetadata(b);
        }
      }
      try (JournalBuffer again = j.buffer(A)) {
        h.dirtyMetadata(again); // the same buffer again costs nothing
      }
      assertThat(h.credits()).isZero();
      try (JournalBuffer c = j.buffer(C)) {
        h.getWriteAccess(c);
        assertThatThrownBy(() -> h.dirtyMetadata(c)).isInstanceOf(IllegalStateException.class);
      }
      h.stop();
    }
  }

  @Test
  void startWithMoreCreditsThanAHandleMayHold_throwsIllegalArgumentException() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      assertThatThrownBy(() -> j.start(j.maxHandleCredits() + 1)).isInstanceOf(IllegalArgumentException.class);
      j.start(j.maxHandleCredits()).stop();
    }
  }

  @Test
  void extend_addsCreditsInTheSameTransaction_andRefusesPastTheHandleMaximum() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle h = j.start(1);
      int tid = h.tid();
      assertThat(h.extend(2)).isTrue();
      assertThat(h.credits()).isEqualTo(3);
      assertThat(h.tid()).isEqualTo(tid);
      assertThat(h.extend(j.maxHandleCredits())).as("beyond the per-handle maximum").isFalse();
      assertThat(h.credits()).isEqualTo(3);
      h.stop();
    }
  }

  @Test
  void restart_givesFreshCredits_andLetsTheOldTransactionCommit() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle h = j.start(1);
      JournalBuffer a = j.buffer(A);
      h.getWriteAccess(a);
      a.data().put(image(1, 1, A, false));
      h.dirtyMetadata(a);
      a.release();
      int first = h.tid();
      h.restart(2);
      int second = h.tid();
      int credits = h.credits();
      h.stop();
      assertThat(credits).isEqualTo(2);
      // jbd2 may attach the restarted handle to the old transaction if its commit has not locked it yet
      assertThat(Tid.geq(second, first)).isTrue();
      j.waitCommit(first);
      assertThat(j.isCommitted(first)).isTrue();
    }
  }

  @Test
  void restart_withRevokeRecords_letsTheNewPartRevoke_andRecoveryHonoursTheRevokesOfBothParts() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[] baseA = read(dev, A);
    byte[] baseB = read(dev, B);
    Journal j = Journal.create(dev, MAP, quiet());
    JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
    JournalFixtures.writeBlock(j, B, image(1, 2, B, false), true);
    Handle h = j.start(0, 1); // ext4's truncate: free index blocks, revoking each, restarting between
    h.revoke(A);
    h.restart(0, 2);
    h.revoke(B);
    h.revoke(C);
    assertThatThrownBy(() -> h.revoke(C + 1)).as("two records asked for at restart").isInstanceOf(IllegalStateException.class);
    h.setSync(true);
    h.stop();
    j.closeWithoutCheckpoint();
    MemoryBlockDevice recovered = recover(dev);
    assertThat(read(recovered, A)).as("revoked before the restart").isEqualTo(baseA);
    assertThat(read(recovered, B)).as("revoked after the restart").isEqualTo(baseB);
  }

  @Test
  void restart_withMoreThanAHandleMayHold_throwsAndKeepsTheHandleInItsTransaction() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle h = j.start(1);
      int tid = h.tid();
      assertThatThrownBy(() -> h.restart(j.maxHandleCredits() + 1, 0)).isInstanceOf(IllegalArgumentException.class);
      assertThat(h.tid()).isEqualTo(tid);
      assertThat(h.credits()).isEqualTo(1);
      h.stop();
    }
  }

  @Test
  void waitingForTheCallersOwnTransaction_throwsInsteadOfHanging() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      int committed = JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
      Handle h = j.start(1);
      int tid = h.tid();
      assertThatThrownBy(() -> j.completeTransaction(tid)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("holding a handle");
      assertThatThrownBy(() -> j.waitCommit(tid)).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(j::forceCommit).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(j::flush).isInstanceOf(IllegalStateException.class);
      assertThatThrownBy(j::close).isInstanceOf(IllegalStateException.class);
      j.completeTransaction(committed); // another, committed transaction: returns at once
      h.stop();
      j.completeTransaction(tid); // and once the handle stopped, it commits
      assertThat(j.isCommitted(tid)).isTrue();
    }
  }

  @Test
  void flush_waitsForAHandleStartedWhileItRuns_andReturnsWithTheJournalEmpty() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    Journal j = Journal.create(dev, MAP, quiet());
    CountDownLatch committing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    heldWrite(j, committing, release); // holds the flush's commit
    CompletableFuture<Integer> flush = JournalFixtures.async(() -> {
      try {
        j.flush();
        return JournalFixtures.superblock(dev).start() == 0 ? 0 : 1;
      } catch (java.io.IOException e) {
        throw new RuntimeException(e);
      }
    });
    assertThat(committing.await(10, TimeUnit.SECONDS)).as("the flush's commit began").isTrue();
    // A handle started now (the old transaction is committing, none runs): it must wait for the flush.
    java.util.concurrent.atomic.AtomicReference<Thread> starter = new java.util.concurrent.atomic.AtomicReference<>();
    CountDownLatch stopIt = new CountDownLatch(1);
    CompletableFuture<Integer> late = JournalFixtures.async(() -> {
      starter.set(Thread.currentThread());
      try {
        Handle h2 = j.start(1);
        int tid = h2.tid();
        try (JournalBuffer b = j.buffer(B)) {
          h2.getWriteAccess(b);
          b.data().put(image(2, 2, B, false));
          h2.dirtyMetadata(b);
        }
        stopIt.await();
        h2.stop();
        return tid;
      } catch (java.io.IOException | InterruptedException e) {
        throw new RuntimeException(e);
      }
    });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!late.isDone() && !parkedInStart(starter.get()) && System.nanoTime() < deadline) {
      Thread.onSpinWait(); // bounded: the late start either parks at the flush's barrier or gets its handle
    }
    release.countDown();
    int emptyOnReturn = flush.get(10, TimeUnit.SECONDS);
    stopIt.countDown();
    int lateTid = late.get(10, TimeUnit.SECONDS);
    assertThat(emptyOnReturn).as("s_start == 0 when flush returned").isZero();
    assertThat(read(dev, A)).as("home when flush returned").isEqualTo(image(1, 1, A, false));
    j.completeTransaction(lateTid);
    j.close();
    assertThat(read(dev, B)).isEqualTo(image(2, 2, B, false));
  }

  private static boolean parkedInStart(Thread t) {
    return t != null && (t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
  }

  @Test
  void forget_ofABufferTheTransactionModified_refundsItsCredit() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle h = j.start(1);
      JournalBuffer a = j.buffer(A);
      h.getWriteAccess(a);
      h.dirtyMetadata(a);
      assertThat(h.credits()).isZero();
      h.forget(a);
      a.release();
      assertThat(h.credits()).isEqualTo(1);
      try (JournalBuffer b = j.buffer(B)) {
        h.getWriteAccess(b);
        h.dirtyMetadata(b);
      }
      h.stop();
    }
  }

  // ---------------------------------------------------------------- revoke

  @Test
  void revoke_keepsRecoveryFromReplayingTheOlderCopy() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[] base = read(dev, A);
    Journal j = Journal.create(dev, MAP, quiet());
    JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
    Handle h = j.start(0, 1);
    h.revoke(A);
    h.setSync(true);
    h.stop();
    j.closeWithoutCheckpoint();
    MemoryBlockDevice copy = dev.snapshot("copy");
    try (Journal j2 = Journal.open(copy, MAP, quiet())) {
      assertThat(j2.recovery().revokeHits()).isPositive();
    }
    assertThat(read(copy, A)).as("the revoked copy is not replayed").isEqualTo(base);
  }

  @Test
  void revokeThenReuse_inALaterTransaction_recoveryReplaysTheNewContent() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[] reused = image(3, 3, A, false);
    Journal j = Journal.create(dev, MAP, quiet());
    JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
    Handle h = j.start(0, 1);
    h.revoke(A);
    h.setSync(true);
    h.stop();
    JournalFixtures.writeBlock(j, A, reused, true);
    j.closeWithoutCheckpoint();
    assertThat(read(recover(dev), A)).isEqualTo(reused);
  }

  @Test
  void revokeThenWriteAccess_inTheSameHandle_recoveryReplaysTheNewContent() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[] reused = image(3, 3, A, false);
    Journal j = Journal.create(dev, MAP, quiet());
    JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true); // committed, not yet home
    Handle h = j.start(1, 1);
    h.revoke(A);
    JournalBuffer a = j.buffer(A);
    h.getWriteAccess(a);
    a.data().put(reused);
    h.dirtyMetadata(a);
    a.release();
    h.setSync(true);
    h.stop();
    j.closeWithoutCheckpoint();
    assertThat(read(recover(dev), A)).isEqualTo(reused);
  }

  @Test
  void revokeThenCreateAccess_inTheSameHandle_recoveryReplaysTheNewContent() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[] reused = image(3, 3, A, false);
    Journal j = Journal.create(dev, MAP, quiet());
    JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
    Handle h = j.start(1, 1);
    h.revoke(A);
    JournalBuffer a = j.newBuffer(A);
    h.getCreateAccess(a);
    a.data().put(reused);
    h.dirtyMetadata(a);
    a.release();
    h.setSync(true);
    h.stop();
    j.closeWithoutCheckpoint();
    assertThat(read(recover(dev), A)).isEqualTo(reused);
  }

  @Test
  void revokeThenCreateAccess_inTheSameHandle_cleanCloseWritesTheNewContentHome() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[] reused = image(3, 3, A, false);
    try (Journal j = Journal.create(dev, MAP, quiet())) {
      JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
      Handle h = j.start(1, 1);
      h.revoke(A);
      JournalBuffer a = j.newBuffer(A);
      h.getCreateAccess(a);
      a.data().put(reused);
      h.dirtyMetadata(a);
      a.release();
      h.setSync(true);
      h.stop();
    }
    assertThat(read(dev, A)).isEqualTo(reused);
  }

  /**
   * Writes block A in a handle whose transaction's commit, once begun, counts {@code committing}
   * down and then blocks in its ordered-data submit until {@code release}; stops the handle and
   * returns its tid.
   */
  private static int heldWrite(Journal j, CountDownLatch committing, CountDownLatch release) throws java.io.IOException {
    Handle h = j.start(1);
    try (JournalBuffer a = j.buffer(A)) {
      h.getWriteAccess(a);
      a.data().put(image(1, 1, A, false));
      h.dirtyMetadata(a);
    }
    int tid = h.tid();
    h.addOrderedData(JournalFixtures.blockingOwner(committing, release), 0, 1);
    h.stop();
    return tid;
  }

  /**
   * completeTransaction and forceCommit record their request without waking the commit thread, since
   * the caller commits itself unless a commit is under way; when one is (here a leader held in its
   * ordered-data submit), the request must still be taken up once that commit ends. No commit
   * interval can do it instead: it is an hour.
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
  void aCommitAskedForDuringALeadersCommit_isTakenUpAfterIt(boolean force) throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      CountDownLatch committing = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      int first = heldWrite(j, committing, release);
      CompletableFuture<Void> leader = JournalFixtures.asyncRun(() -> j.completeTransaction(first));
      assertThat(committing.await(10, TimeUnit.SECONDS)).as("the leader began committing").isTrue();
      int second = JournalFixtures.writeBlock(j, B, image(1, 2, B, false), false);
      assertThat(second).isNotEqualTo(first);
      CompletableFuture<Void> asked = new CompletableFuture<>();
      Thread asker = new Thread(() -> {
        try {
          if (force) {
            j.forceCommit();
          } else {
            j.completeTransaction(second);
          }
          asked.complete(null);
        } catch (Throwable t) {
          asked.completeExceptionally(t);
        }
      }, "asker");
      asker.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (asker.getState() != Thread.State.WAITING && !asked.isDone() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(asker.getState()).as("the asker waits for the leader's commit (it could not commit itself)")
          .isEqualTo(Thread.State.WAITING);
      assertThat(j.isCommitted(second)).isFalse();
      release.countDown();
      leader.get(10, TimeUnit.SECONDS);
      asked.get(10, TimeUnit.SECONDS);
      assertThat(j.isCommitted(second)).as("the transaction asked for while the leader committed").isTrue();
    }
  }

  @Test
  void revokeThenReuse_inTheSameTransaction_whileTheBlocksOlderTransactionCommits_keepsTheNewContent() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[] reused = image(3, 3, A, false);
    Journal j = Journal.create(dev, MAP, quiet());
    CountDownLatch committing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Handle h1 = j.start(1);
    JournalBuffer a = j.buffer(A);
    h1.getWriteAccess(a);
    a.data().put(image(1, 1, A, false));
    h1.dirtyMetadata(a);
    int first = h1.tid();
    h1.addOrderedData(JournalFixtures.blockingOwner(committing, release), 0, 1); // holds the commit of `first` after it stopped taking handles
    h1.stop();
    CompletableFuture<Void> commit = JournalFixtures.asyncRun(() -> {
      try {
        j.completeTransaction(first);
      } catch (JournalException e) {
        throw new RuntimeException(e);
      }
    });
    assertThat(committing.await(10, TimeUnit.SECONDS)).as("the first transaction began committing").isTrue();
    Handle h2 = j.start(1, 1);
    assertThat(h2.tid()).isNotEqualTo(first);
    h2.revoke(A);
    h2.getWriteAccess(a);
    a.data().put(reused);
    h2.dirtyMetadata(a);
    a.release();
    int second = h2.tid();
    h2.stop();
    release.countDown();
    commit.get(10, TimeUnit.SECONDS);
    MemoryBlockDevice afterFirst = dev.snapshot("after-first"); // a crash now: the first transaction only
    j.completeTransaction(second);
    assertThat(j.isCommitted(second)).isTrue();
    j.closeWithoutCheckpoint();
    assertThat(read(recover(afterFirst), A)).as("the first transaction's image, frozen before the second changed it")
        .isEqualTo(image(1, 1, A, false));
    assertThat(read(recover(dev), A)).isEqualTo(reused);
  }

  // ---------------------------------------------------------------- undo access

  @Test
  void undoAccess_keepsTheLastCommittedImage_whileTheTransactionChangesTheBuffer() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      byte[] committed = image(1, 1, A, false);
      byte[] changed = image(2, 2, A, false);
      JournalFixtures.writeBlock(j, A, committed, true);
      Handle h = j.start(1);
      JournalBuffer a = j.buffer(A);
      h.getUndoAccess(a);
      a.data().put(changed);
      h.dirtyMetadata(a);
      assertThat(bytes(a.committedData())).isEqualTo(committed);
      assertThat(a.committedData().isReadOnly()).isTrue();
      h.setSync(true);
      h.stop();
      ByteBuffer after = a.committedData();
      assertThat(after == null ? changed : bytes(after)).as("after the commit, nothing older than what committed").isEqualTo(changed);
      a.release();
    }
  }

  @Test
  void committedData_isReleasedOnceTheTransactionThatAskedForUndoAccessCommits() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle h = j.start(1);
      try (JournalBuffer a = j.buffer(A)) {
        h.getUndoAccess(a);
        a.data().put(image(3, 1, A, false));
        h.dirtyMetadata(a);
        assertThat(a.committedData()).isNotNull();
        h.setSync(true);
        h.stop();
        assertThat(a.committedData()).as("no newer undo access wants it").isNull();
      }
    }
  }

  @Test
  void committedData_ofAnUndoAccessWhileTheBlockCommits_isThatCommitsImage_untilTheUndoTransactionCommits() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      byte[] first = image(3, 1, A, false);
      byte[] second = image(3, 2, A, false);
      CountDownLatch committing = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Handle h1 = j.start(1);
      JournalBuffer a = j.buffer(A);
      h1.getUndoAccess(a);
      a.data().put(first);
      h1.dirtyMetadata(a);
      int tid1 = h1.tid();
      h1.addOrderedData(JournalFixtures.blockingOwner(committing, release), 0, 1);
      h1.stop();
      CompletableFuture<Void> commit = JournalFixtures.asyncRun(() -> {
        try {
          j.completeTransaction(tid1);
        } catch (JournalException e) {
          throw new RuntimeException(e);
        }
      });
      assertThat(committing.await(10, TimeUnit.SECONDS)).isTrue();
      Handle h2 = j.start(1);
      h2.getUndoAccess(a); // while tid1 commits
      a.data().put(second);
      h2.dirtyMetadata(a);
      assertThat(bytes(a.committedData())).as("the last durable image: tid1 has not committed yet").containsOnly(0);
      release.countDown();
      commit.get(10, TimeUnit.SECONDS);
      assertThat(bytes(a.committedData())).as("tid1 committed; h2's transaction still needs its image").isEqualTo(first);
      for (int i = 0; i < 8; i++) { // later commits (some escaped) must not reuse that image's array
        JournalFixtures.writeBlock(j, B, image(4, i, B, i % 2 == 0), true);
      }
      assertThat(bytes(a.committedData())).isEqualTo(first);
      h2.setSync(true);
      h2.stop();
      assertThat(a.committedData()).as("released when the undo transaction committed").isNull();
      a.release();
    }
  }

  @Test
  void writeAccessWithoutUndo_hasNoCommittedData() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      Handle h = j.start(1);
      JournalBuffer b = j.buffer(B);
      h.getWriteAccess(b);
      assertThat(b.committedData()).isNull();
      b.release();
      h.stop();
    }
  }

  static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }

  // ---------------------------------------------------------------- commit queries and tids

  @ParameterizedTest
  @EnumSource(CommittedCheck.class)
  void isCommitted_isFalseWhileRunning_andTrueOnceCommitted(CommittedCheck check) throws Exception {
    JournalOptions o = quiet().toBuilder().committedCheck(check).build();
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, o)) {
      int earlier = JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
      Handle h = j.start(1);
      int tid = h.tid();
      assertThat(j.isCommitted(tid)).as("running with an open handle").isFalse();
      h.stop();
      assertThat(j.isCommitted(tid)).as("running").isFalse();
      assertThat(j.isCommitted(earlier)).isTrue();
      j.completeTransaction(tid);
      assertThat(j.isCommitted(tid)).isTrue();
      assertThat(j.isCommitted(earlier)).isTrue();
    }
  }

  @Test
  void lockFreeIsCommitted_ofATidNotYetStarted_isFalse() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("api"), MAP, quiet())) {
      int tid = JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
      assertThat(j.isCommitted(tid + 5)).isFalse();
    }
  }

  @Test
  void tidsWrappingPast2To32_commitCompareAndRecover() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("wrap");
    int firstTid = -20; // 2^32 - 20
    Journal.format(dev, MAP, JournalFixtures.uuid(2), firstTid);
    Journal j = Journal.open(dev, MAP, quiet());
    int previous = 0;
    byte[] last = null;
    boolean crossed = false;
    for (int i = 0; i < 40; i++) {
      last = image(1, i, A, false);
      int tid = JournalFixtures.writeBlock(j, A, last, true);
      assertThat(j.isCommitted(tid)).isTrue();
      if (i > 0) {
        assertThat(Tid.gt(tid, previous)).as("tid %s after %s", Tid.toString(tid), Tid.toString(previous)).isTrue();
        assertThat(j.isCommitted(previous)).isTrue();
        crossed |= tid >= 0 && previous < 0;
      }
      assertThat(j.isCommitted(tid + 1)).isFalse();
      previous = tid;
    }
    assertThat(crossed).as("tids crossed 2^32").isTrue();
    j.closeWithoutCheckpoint();
    MemoryBlockDevice copy = dev.snapshot("copy");
    try (Journal j2 = Journal.open(copy, MAP, quiet())) {
      assertThat(j2.recovery().transactionsReplayed()).isEqualTo(40);
      assertThat(Tid.gt(j2.recovery().nextTid(), previous)).isTrue();
    }
    assertThat(read(copy, A)).isEqualTo(last);
  }

  // ---------------------------------------------------------------- close

  @Test
  void cleanClose_leavesAnEmptyJournal_andEveryBlockHome() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    byte[][] last = new byte[8][];
    try (Journal j = Journal.create(dev, MAP, quiet().toBuilder().maxTransactionBuffers(16).build())) {
      for (int i = 0; i < 300; i++) {
        int k = i % 8;
        last[k] = image(1, i, A + k, i % 11 == 0);
        JournalFixtures.writeBlock(j, A + k, last[k], i % 3 == 0);
      }
    }
    assertThat(JournalFixtures.superblock(dev).start()).as("s_start").isZero();
    for (int k = 0; k < 8; k++) {
      assertThat(read(dev, A + k)).as("block %d", A + k).isEqualTo(last[k]);
    }
    try (Journal j = Journal.open(dev, MAP, quiet())) {
      assertThat(j.recovery().clean()).isTrue();
    }
  }

  @Test
  void flush_writesEveryCommittedTransactionHome_inOneRound() throws Exception {
    // 60 one-block transactions fill 180 of the log's 1024 blocks: under the quarter that wakes
    // the home writer, so all of them wait for the flush below.
    int n = 60;
    MemoryBlockDevice dev = JournalFixtures.device("round");
    byte[][] images = new byte[n][];
    try (Journal j = Journal.create(dev, MAP, quiet())) {
      for (int k = 0; k < n; k++) {
        images[k] = image(1, k, A + k, false);
        JournalFixtures.writeBlock(j, A + k, images[k], true);
      }
      JournalStats before = j.stats();
      j.flush();
      JournalStats after = j.stats();
      assertThat(after.homeWrites() - before.homeWrites()).as("blocks written home").isEqualTo(n);
      assertThat(after.deviceFlushes() - before.deviceFlushes())
          .as("flushes: one after the home writes, one for the superblock with the new tail, one marking the log empty")
          .isEqualTo(3);
    }
    for (int k = 0; k < n; k++) {
      assertThat(read(dev, A + k)).as("block %d", A + k).isEqualTo(images[k]);
    }
  }

  @Test
  void closeWithoutCheckpoint_thenOpen_replaysEveryTransaction() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("api");
    Journal j = Journal.create(dev, MAP, quiet());
    byte[][] last = new byte[7][];
    for (int i = 0; i < 50; i++) {
      int k = i % 7;
      last[k] = image(1, i, A + k, i % 9 == 0);
      JournalFixtures.writeBlock(j, A + k, last[k], i % 5 == 0);
    }
    j.closeWithoutCheckpoint();
    assertThat(JournalFixtures.superblock(dev).start()).as("s_start of a journal left for recovery").isNotZero();
    for (int k = 0; k < 7; k++) {
      assertThat(read(dev, A + k)).as("block %d not home yet", A + k).isNotEqualTo(last[k]);
    }
    MemoryBlockDevice copy = dev.snapshot("copy");
    try (Journal j2 = Journal.open(copy, MAP, quiet())) {
      assertThat(j2.recovery().transactionsReplayed()).isPositive();
      assertThat(j2.recovery().clean()).isFalse();
    }
    for (int k = 0; k < 7; k++) {
      assertThat(read(copy, A + k)).as("block %d", A + k).isEqualTo(last[k]);
    }
    assertThat(JournalFixtures.superblock(copy).start()).isZero();
  }
}
