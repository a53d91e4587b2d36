package io.ext4j.jbd2;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.jbd2.format.JournalHeader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

/**
 * Shared geometry and helpers for the journal tests: a 2048-block device of 1 KiB whose upper half
 * ({@link #MAP}) is the journal, and recognisable block images.
 */
final class JournalFixtures {
  static final int BLOCK_SIZE = 1024;
  static final long DEVICE_BLOCKS = 2048;
  /** Journal blocks 0..1023 at device blocks 1024..2047. */
  static final JournalMap MAP = JournalMap.contiguous(1024, 1024);

  /** Heavier variants run with {@code -Dext4j.soak=true}. */
  static final boolean SOAK = Boolean.getBoolean("ext4j.soak");

  private JournalFixtures() {}

  static MemoryBlockDevice device(String name) {
    return new MemoryBlockDevice(name, BLOCK_SIZE, DEVICE_BLOCKS);
  }

  static byte[] uuid(long seed) {
    return ByteBuffer.allocate(16).putLong(seed).putLong(~seed).array();
  }

  /**
   * A whole-block image that names its writer: {@code (writer, counter)} in the first bytes (or the
   * jbd2 magic first when {@code magicFirst}, to exercise escaping), the rest pseudo-random from
   * both, so that a torn or mixed block never equals any image written.
   */
  static byte[] image(int writer, int counter, long block, boolean magicFirst) {
    byte[] b = new byte[BLOCK_SIZE];
    SplittableRandom r = new SplittableRandom(((long) writer << 40) ^ ((long) counter << 8) ^ block * 0x9E3779B97F4A7C15L);
    r.nextBytes(b);
    ByteBuffer bb = ByteBuffer.wrap(b);
    bb.putInt(0, magicFirst ? JournalHeader.MAGIC : 0x45585434); // "EXT4"
    bb.putInt(4, writer);
    bb.putInt(8, counter);
    bb.putLong(12, block);
    return b;
  }

  static byte[] read(BlockDevice d, long block) {
    byte[] b = new byte[d.blockSize()];
    try {
      d.read(block, ByteBuffer.wrap(b));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b;
  }

  static void write(BlockDevice d, long block, byte[] data) throws IOException {
    d.write(block, ByteBuffer.wrap(data));
  }

  static JournalSuperblock superblock(BlockDevice d) throws IOException {
    return JournalRecovery.readSuperblock(d, MAP);
  }

  /** A body for {@link #asyncRun}. */
  @FunctionalInterface
  interface Body {
    void run() throws Exception;
  }

  /**
   * Runs {@code body} in a new platform thread. Not {@code CompletableFuture.runAsync}: on 2 cores
   * the common pool has one worker, so two blocking tasks would run one after the other.
   */
  static CompletableFuture<Void> asyncRun(Body body) {
    return async(() -> {
      body.run();
      return null;
    });
  }

  /** {@link #asyncRun} with a result. */
  static <T> CompletableFuture<T> async(Callable<T> body) {
    CompletableFuture<T> f = new CompletableFuture<>();
    Thread.ofPlatform().name("test-async").daemon().start(() -> {
      try {
        f.complete(body.call());
      } catch (Throwable t) {
        f.completeExceptionally(t);
      }
    });
    return f;
  }

  /**
   * An ordered-data owner whose submit says it started ({@code started}) and then holds the commit
   * until {@code release} opens: a commit stopped after it took its transaction off the running
   * slot (FLUSH) and before it copied any buffer.
   */
  static OrderedData blockingOwner(CountDownLatch started, CountDownLatch release) {
    return new OrderedData() {
      @Override
      public void submit(List<OrderedData.Range> ranges) {
        started.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }

      @Override
      public void await() {}
    };
  }

  /** Starts a handle, writes {@code image} into {@code block} through it, and stops it (sync or not); returns the tid. */
  static int writeBlock(Journal j, long block, byte[] image, boolean sync) throws IOException {
    Handle h = j.start(1);
    int tid = h.tid();
    try (JournalBuffer b = j.buffer(block)) {
      h.getWriteAccess(b);
      b.data().put(image);
      h.dirtyMetadata(b);
    }
    h.setSync(sync);
    h.stop();
    return tid;
  }
}
