package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import io.ext4j.bench.ZeroFiles;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.jbd2.BatchingPolicy;
import io.ext4j.jbd2.Handle;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalBuffer;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.jbd2.JournalStats;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code journal} scenario's journal rows ({@link JournalScenario}): one preallocated image file
 * holding a standalone journal (device blocks {@code [0, JOURNAL_BLOCKS)}) followed by a home area
 * of {@value #BLOCKS_PER_THREAD} blocks per thread. Each slice formats a fresh journal over the same
 * image ({@link Journal#create}), runs the threads, and closes the journal (which checkpoints
 * everything home), so slices do not inherit each other's log.
 *
 * <p>A worker's operation is one synchronous handle: {@code start(2)}, write access to one or two
 * of its own blocks (cycling through its {@value #BLOCKS_PER_THREAD}, so consecutive operations
 * rarely meet their own block still in the committing transaction), an 8-byte change, dirty,
 * {@code setSync(true)}, {@code stop()} — which returns when the transaction's commit block is
 * durable.
 */
final class JournalWorkload {
  static final int BLOCK_SIZE = 4096;
  /** 64 MiB of log: far more than the benchmark's transactions need between checkpoints. */
  static final int JOURNAL_BLOCKS = 16384;
  static final int BLOCKS_PER_THREAD = 16;
  static final String IMAGE = "ext4j-bench-journal.img";

  private final Path image;
  private final int maxThreads;

  private JournalWorkload(Path image, int maxThreads) {
    this.image = image;
    this.maxThreads = maxThreads;
  }

  /**
   * Creates the image {@value #IMAGE} in {@code dir} (overwriting a previous one) for up to
   * {@code maxThreads}; the directory's owner removes it ({@link Targets#bare}).
   */
  static JournalWorkload create(Path dir, int maxThreads) throws IOException {
    Path image = dir.resolve(IMAGE);
    long blocks = JOURNAL_BLOCKS + (long) maxThreads * BLOCKS_PER_THREAD;
    ZeroFiles.create(image, blocks * BLOCK_SIZE);
    ZeroFiles.syncDirectory(dir);
    return new JournalWorkload(image, maxThreads);
  }

  /**
   * Runs one slice: {@code threads} writers under {@code template} with its policy replaced by
   * {@code policy}, each operation {@code blocksPerOp} blocks; the journal's commits, handles and
   * flushes, the disk's flushes and the process's processor time are taken at the measured
   * window's edges.
   */
  Cell.Slice run(JournalOptions template, BatchingPolicy policy, int threads, int blocksPerOp, Duration warmup,
      Duration window, Optional<DiskFlushCounter> disk) throws Exception {
    if (threads > maxThreads) {
      throw new IllegalArgumentException(threads + " threads but the image has room for " + maxThreads);
    }
    JournalOptions options = template.toBuilder().batchingPolicy(policy).build();
    JournalMap map = JournalMap.contiguous(0, JOURNAL_BLOCKS);
    try (FileBlockDevice device = FileBlockDevice.open(image, BLOCK_SIZE, FileBlockDevice.Options.defaults());
        Journal journal = Journal.create(device, map, options)) {
      List<TimedRun.Op> ops = new ArrayList<>(threads);
      List<JournalBuffer> pinned = new ArrayList<>(); // each thread's blocks, pinned for the slice
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
      long[] cpu = new long[2]; // likewise
      DiskFlushCounter.Window diskWindow = new DiskFlushCounter.Window(disk);
      TimedRun.Result r = TimedRun.run(ops, warmup, window, () -> {
        edges[0] = journal.stats();
        cpu[0] = Commits.processCpuNanos();
        diskWindow.start();
      }, () -> {
        diskWindow.end();
        cpu[1] = Commits.processCpuNanos();
        edges[1] = journal.stats();
      });
      JournalStats end = journal.stats();
      pinned.forEach(JournalBuffer::release);
      double seconds = r.windowNanos() / 1e9;
      Commits c = Commits.between(edges[0], edges[1], diskWindow.count(), (cpu[1] - cpu[0]) / 1e9, seconds);
      String wakeup = JournalScenarioOptions.wakeupName(journal.commitWakeup()); // what ran: the futex may have been unavailable
      return Cell.Slice.of(r).withCommits(c).withJournal(new Cell.JournalRan(wakeup, end));
    }
  }
}
