package io.ext4j.bench;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import io.ext4j.jbd2.CommitWakeup;
import io.ext4j.jbd2.Handle;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalBuffer;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.jbd2.JournalStats;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The journal side of the benchmark: one preallocated image file holding a standalone journal
 * (device blocks {@code [0, JOURNAL_BLOCKS)}) followed by a home area of
 * {@value #BLOCKS_PER_THREAD} blocks per thread. Each row formats a fresh journal over the same
 * image ({@link Journal#create}), runs the threads, and closes the journal (which checkpoints
 * everything home), so rows do not inherit each other's log.
 *
 * <p>A worker's operation is one synchronous handle: {@code start(2)}, write access to one or two
 * of its own blocks (cycling through its {@value #BLOCKS_PER_THREAD}, so consecutive operations
 * rarely meet their own block still in the committing transaction), an 8-byte change, dirty,
 * {@code setSync(true)}, {@code stop()} — which returns when the transaction's commit block is
 * durable.
 */
final class JournalWorkload implements AutoCloseable {
  static final int BLOCK_SIZE = 4096;
  /** 64 MiB of log: far more than the benchmark's transactions need between checkpoints. */
  static final int JOURNAL_BLOCKS = 16384;
  static final int BLOCKS_PER_THREAD = 16;

  /**
   * A row and the journal's statistics at the end of its run (cumulative since the journal was
   * created; null for a baseline row).
   */
  record Outcome(BenchRow row, JournalStats stats) {}

  private final Path image;
  private final int maxThreads;
  private final boolean keep;

  private JournalWorkload(Path image, int maxThreads, boolean keep) {
    this.image = image;
    this.maxThreads = maxThreads;
    this.keep = keep;
  }

  /** Creates the image (overwriting a previous {@code ext4j-bench-journal.img}) for up to {@code maxThreads}. */
  static JournalWorkload create(Path dir, int maxThreads, boolean keep) throws IOException {
    Path image = dir.resolve("ext4j-bench-journal.img");
    long blocks = JOURNAL_BLOCKS + (long) maxThreads * BLOCKS_PER_THREAD;
    ZeroFiles.create(image, blocks * BLOCK_SIZE);
    ZeroFiles.syncDirectory(dir);
    return new JournalWorkload(image, maxThreads, keep);
  }

  Path image() {
    return image;
  }

  /** Runs one row: {@code threads} writers under {@code template} with its policy replaced by {@code policy}. */
  Outcome run(JournalOptions template, BatchingPolicy policy, String label, int threads, int blocksPerOp,
      Duration warmup, Duration window, java.util.Optional<DiskFlushCounter> disk) throws Exception {
    if (threads > maxThreads) {
      throw new IllegalArgumentException(threads + " threads but the image has room for " + maxThreads);
    }
    JournalOptions options = template.toBuilder().batchingPolicy(policy).build();
    JournalMap map = JournalMap.contiguous(0, JOURNAL_BLOCKS);
    try (FileBlockDevice device = FileBlockDevice.open(image, BLOCK_SIZE, FileBlockDevice.Options.defaults());
        Journal journal = Journal.create(device, map, options)) {
      List<TimedRun.Op> ops = new ArrayList<>(threads);
      List<JournalBuffer> pinned = new ArrayList<>(); // each thread's blocks, pinned for the row
      for (int i = 0; i < threads; i++) {
        JournalBuffer[] mine = new JournalBuffer[BLOCKS_PER_THREAD];
        for (int k = 0; k < mine.length; k++) {
          mine[k] = journal.buffer(JOURNAL_BLOCKS + (long) i * BLOCKS_PER_THREAD + k);
          pinned.add(mine[k]);
        }
        ops.add(seq -> {
          Handle h = journal.start(2);
          try {
            for (int k = 0; k < blocksPerOp; k++) {
              JournalBuffer b = mine[(int) ((seq * blocksPerOp + k) % BLOCKS_PER_THREAD)];
              h.getWriteAccess(b);
              b.data().putLong(0, seq);
              h.dirtyMetadata(b);
            }
            h.setSync(true);
          } finally {
            h.stop();
          }
        });
      }
      JournalStats[] edges = new JournalStats[2]; // written and read by this (the coordinating) thread
      DiskFlushCounter.Window diskWindow = new DiskFlushCounter.Window(disk);
      TimedRun.Result r = TimedRun.run(ops, warmup, window, () -> {
        edges[0] = journal.stats();
        diskWindow.start();
      }, () -> {
        diskWindow.end();
        edges[1] = journal.stats();
      });
      JournalStats end = journal.stats();
      pinned.forEach(JournalBuffer::release);
      double seconds = r.windowNanos() / 1e9;
      long transactions = edges[1].transactions() - edges[0].transactions();
      double handles = edges[1].handlesPerTransaction() * edges[1].transactions()
          - edges[0].handlesPerTransaction() * edges[0].transactions();
      OptionalDouble hpt = transactions == 0 ? OptionalDouble.empty() : OptionalDouble.of(handles / transactions);
      double flushes = (edges[1].deviceFlushes() - edges[0].deviceFlushes()) / seconds;
      CommitWakeup wakeup = journal.commitWakeup(); // what ran: the futex may have been unavailable
      BenchRow row = new BenchRow(label, threads, r.opsPerSec(), r.micros(50), r.micros(99), hpt, flushes,
          transactions / seconds, diskWindow.rate(r.windowNanos()), BenchRow.wakeupName(wakeup),
          policy == BatchingPolicies.defaultPolicy() && template.commitWakeup() == CommitWakeup.FUTEX_BROADCAST);
      return new Outcome(row, end);
    }
  }

  /** Deletes the image unless asked to keep it. */
  @Override
  public void close() throws IOException {
    if (!keep) {
      Files.deleteIfExists(image);
    }
  }
}
