package io.ext4j.jbd2;

import static io.ext4j.jbd2.JournalFixtures.MAP;
import static io.ext4j.jbd2.JournalFixtures.image;
import static io.ext4j.jbd2.JournalFixtures.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.block.cache.CachedBlock;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The journal's buffers in the shared block cache: pins, eviction of what the journal no longer
 * needs (and never of what it does), contents that follow the device, the newBuffer contract, and
 * cache pressure waking the checkpointer.
 */
@Tag("fast")
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JournalCacheTest {
  static final long A = 100;
  /** Home blocks the tests touch: far more than the small cache holds. */
  static final int MANY = 60;

  static BlockCache small(MemoryBlockDevice dev) {
    return new BlockCache(dev, new BlockCache.Options(16, 4));
  }

  /** Reads {@code count} other blocks through the journal and releases them: pressure on the cache. */
  static void churn(Journal j, long first, int count) throws Exception {
    for (long b = first; b < first + count; b++) {
      j.buffer(b).release();
    }
  }

  @Test
  void open_withACacheOfAnotherDevice_isRefused() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("cache");
    BlockCache other = small(JournalFixtures.device("other"));
    assertThatThrownBy(() -> Journal.create(dev, MAP, JournalApiTest.quiet(), other))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("other");
  }

  @Test
  void buffersWithJournalState_areNeverEvicted_andCleanCheckpointedOnesAre() throws Exception {
    HomeWriteGate dev = new HomeWriteGate(JournalFixtures.device("cache"), A, A + MANY);
    dev.shut();
    BlockCache cache = new BlockCache(dev, new BlockCache.Options(16, 4));
    try (Journal j = Journal.create(dev, MAP, JournalApiTest.quiet(), cache)) {
      List<JournalBuffer> owned = new ArrayList<>(); // references kept past release, for identity only
      Handle h = j.start(MANY);
      for (int i = 0; i < MANY; i++) {
        JournalBuffer b = j.buffer(A + i);
        h.getWriteAccess(b);
        b.data().put(image(1, i, A + i, false));
        h.dirtyMetadata(b);
        b.release();
        owned.add(b);
      }
      h.stop();
      churn(j, 400, 3 * MANY);
      assertThat(cache.size()).as("kept blocks make the cache grow past its capacity").isGreaterThanOrEqualTo(MANY);
      assertSameBuffers(j, owned, "owned by the running transaction");

      j.completeTransaction(h.tid());
      churn(j, 400, 3 * MANY); // the pressure wakes the checkpointer, whose home writes wait at the gate
      assertThat(dev.reached.await(10, TimeUnit.SECONDS)).as("the checkpointer began writing home").isTrue();
      churn(j, 400, 3 * MANY);
      assertSameBuffers(j, owned, "committed, waiting for their checkpoint");

      dev.open();
      j.flush(); // written home: no journal state left
      long evictionsBefore = cache.stats().evictions();
      churn(j, 400, 3 * MANY);
      assertThat(cache.stats().evictions() - evictionsBefore).as("clean buffers evicted").isGreaterThan(MANY);
      assertThat(cache.size()).isLessThanOrEqualTo(cache.options().capacityBlocks());
      for (int i = 0; i < MANY; i++) {
        try (JournalBuffer b = j.buffer(A + i)) {
          assertThat(b.data().array()).as("block %d, read again from home", A + i).isEqualTo(image(1, i, A + i, false));
        }
      }
    }
  }

  private static void assertSameBuffers(Journal j, List<JournalBuffer> owned, String why) throws Exception {
    for (JournalBuffer b : owned) {
      try (JournalBuffer again = j.buffer(b.block())) {
        assertThat(again).as("block %d (%s) still cached", b.block(), why).isSameAs(b);
      }
    }
  }

  @Test
  void aPinnedBuffer_staysCached_withoutJournalState() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("cache");
    try (Journal j = Journal.create(dev, MAP, JournalApiTest.quiet(), small(dev))) {
      JournalBuffer pinned = j.buffer(A);
      churn(j, 400, 3 * MANY);
      try (JournalBuffer again = j.buffer(A)) {
        assertThat(again).isSameAs(pinned);
      }
      pinned.release();
    }
  }

  @Test
  void handleCalls_onAReleasedBuffer_areRefused() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("cache"), MAP, JournalApiTest.quiet())) {
      JournalBuffer b = j.buffer(A);
      b.release();
      Handle h = j.start(1);
      assertThatThrownBy(() -> h.getWriteAccess(b)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("release");
      assertThatThrownBy(b::release).as("released twice").isInstanceOf(IllegalStateException.class);
      h.stop();
    }
  }

  @Test
  void buffer_ofABlockFreedAndRewrittenAsDataThroughTheCache_holdsTheData() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("cache");
    BlockCache cache = small(dev);
    byte[] data = image(7, 7, A, false);
    try (Journal j = Journal.create(dev, MAP, JournalApiTest.quiet(), cache)) {
      freeAfterMetadataUse(j);
      // The file system writes the block as file data, through the shared cache (write-back).
      CachedBlock page = cache.get(A);
      System.arraycopy(data, 0, page.array(), 0, data.length);
      page.markDirty();
      page.release();
      cache.writeBack();
      try (JournalBuffer b = j.buffer(A)) {
        assertThat(b.data().array()).as("the data, not the freed metadata").isEqualTo(data);
      }
    }
    assertThat(read(dev, A)).isEqualTo(data);
  }

  @Test
  void buffer_ofABlockFreedAndRewrittenAsDataPastTheCache_holdsTheDataOnceInvalidated() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("cache");
    byte[] data = image(8, 8, A, false);
    try (Journal j = Journal.create(dev, MAP, JournalApiTest.quiet())) {
      freeAfterMetadataUse(j);
      dev.write(A, ByteBuffer.wrap(data)); // direct I/O of file data
      j.cache().invalidate(A);
      try (JournalBuffer b = j.buffer(A)) {
        assertThat(b.data().array()).as("the data, not the freed metadata").isEqualTo(data);
      }
    }
  }

  /** Block A: metadata, committed and home, then forgotten and revoked, committed and home. */
  private static void freeAfterMetadataUse(Journal j) throws Exception {
    JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true);
    j.flush();
    Handle h = j.start(1, 1);
    try (JournalBuffer b = j.buffer(A)) {
      h.forget(b);
    }
    h.revoke(A);
    h.setSync(true);
    h.stop();
    j.flush();
  }

  @Test
  void newBuffer_ofACachedBlockWithoutJournalState_isZeros_notWhatTheCacheHeld() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("cache");
    dev.write(A, ByteBuffer.wrap(image(2, 2, A, false)));
    try (Journal j = Journal.create(dev, MAP, JournalApiTest.quiet())) {
      j.buffer(A).release(); // cached with the old contents
      try (JournalBuffer b = j.newBuffer(A)) {
        assertThat(b.data().array()).containsOnly(0);
      }
    }
  }

  @Test
  void newBuffer_ofABlockACommittingTransactionHasNotCopiedYet_keepsItsImage() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("cache");
    byte[] first = image(3, 1, A, false);
    byte[] second = image(3, 2, A, false);
    Journal j = Journal.create(dev, MAP, JournalApiTest.quiet());
    CountDownLatch committing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Handle h1 = j.start(1);
    try (JournalBuffer a = j.buffer(A)) {
      h1.getWriteAccess(a);
      a.data().put(first);
      h1.dirtyMetadata(a);
    }
    int tid1 = h1.tid();
    h1.addOrderedData(JournalFixtures.blockingOwner(committing, release), 0, 1); // holds tid1's commit before its log writes
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
    try (JournalBuffer a = j.newBuffer(A)) {
      assertThat(a.data().array()).as("a block the committing transaction owns is not zeroed").isEqualTo(first);
      h2.getCreateAccess(a);
      a.data().put(second);
      h2.dirtyMetadata(a);
    }
    h2.stop();
    release.countDown();
    commit.get(10, TimeUnit.SECONDS);
    MemoryBlockDevice afterFirst = dev.snapshot("after-first");
    j.closeWithoutCheckpoint();
    assertThat(read(JournalApiTest.recover(afterFirst), A)).as("the first commit logged its own image").isEqualTo(first);
  }

  @Test
  void open_ofAJournalNeedingRecovery_invalidatesTheReplayedBlocksInTheSharedCache() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("cache");
    byte[] logged = image(4, 4, A, false);
    Journal first = Journal.create(dev, MAP, JournalApiTest.quiet());
    JournalFixtures.writeBlock(first, A, logged, true);
    first.closeWithoutCheckpoint();
    BlockCache cache = small(dev);
    cache.get(A).release(); // the file system read the block before opening the journal
    try (Journal j = Journal.open(dev, MAP, JournalApiTest.quiet(), cache)) {
      assertThat(j.recovery().blocksReplayed()).isPositive();
      try (JournalBuffer b = j.buffer(A)) {
        assertThat(b.data().array()).as("the replayed contents").isEqualTo(logged);
      }
    }
  }

  @Test
  void cachePressure_wakesTheCheckpointer_whichMakesCommittedBuffersEvictable() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("cache");
    BlockCache cache = small(dev);
    // No checkpoint by interval, and too little logged to wake it after the commit (a quarter of the log).
    try (Journal j = Journal.create(dev, MAP, JournalApiTest.quiet(), cache)) {
      Handle h = j.start(MANY);
      for (int i = 0; i < MANY; i++) {
        try (JournalBuffer b = j.buffer(A + i)) {
          h.getWriteAccess(b);
          b.data().put(image(5, i, A + i, false));
          h.dirtyMetadata(b);
        }
      }
      h.setSync(true);
      h.stop();
      churn(j, 400, 4); // over capacity with nothing evictable: the pressure listener runs
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (j.stats().homeWrites() < MANY && System.nanoTime() < deadline) {
        Thread.onSpinWait(); // the checkpointer runs in its own thread; this waits for it, bounded
      }
      assertThat(j.stats().homeWrites()).as("blocks the woken checkpointer wrote home").isEqualTo(MANY);
    }
    for (int i = 0; i < MANY; i++) {
      assertThat(read(dev, A + i)).isEqualTo(image(5, i, A + i, false));
    }
  }
}
