package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import io.ext4j.bench.ZeroFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What no journal can beat: the rate of a group commit with no gap between commits. One thread
 * writes, back to back, what a transaction of N handles logs — a descriptor, N × blocks-per-handle
 * block images and a commit block, contiguous, as one gathering write into the page cache — and
 * calls {@code fdatasync}, and counts N operations per round.
 *
 * <p>Why it bounds every journal whose N threads each wait for their own operation to be durable:
 * such a thread has one operation outstanding, so one flush covers at most N operations; a flush
 * covers only writes that completed before it began, so the next group's writes and flush follow
 * this one's; and nothing can be faster than writing that group and flushing it with the threads
 * already waiting. The real journal also pays for waking its N threads and for their handles
 * between commits, which this row leaves out. Its ratio to the same-run fdatasync baseline is the
 * largest ratio a journal could show in that minute; a journal row's ratio to it is the share of
 * that ceiling the journal reached.
 *
 * <h2>Durability</h2>
 * Each round returns after {@code fdatasync}: its blocks are on stable storage.
 */
final class GroupCommitCeiling {
  static final String FILE = "ext4j-bench-ceiling.dat";
  private static final int BLOCK = 4096;

  private final Path file;
  private final int regionBlocks;

  private GroupCommitCeiling(Path file, int regionBlocks) {
    this.file = file;
    this.regionBlocks = regionBlocks;
  }

  /**
   * Creates the file in {@code dir} (its owner removes it, {@link Targets#bare}), with room for 32
   * rounds of the largest group ({@code maxThreads} handles of {@code blocksPerOp} blocks plus a
   * descriptor and a commit block), written through in turn.
   */
  static GroupCommitCeiling create(Path dir, int maxThreads, int blocksPerOp) throws IOException {
    int region = 32 * roundBlocks(maxThreads, blocksPerOp);
    Path f = dir.resolve(FILE);
    ZeroFiles.create(f, (long) region * BLOCK);
    ZeroFiles.syncDirectory(dir);
    return new GroupCommitCeiling(f, region);
  }

  private static int roundBlocks(int threads, int blocksPerOp) {
    return threads * blocksPerOp + 2;
  }

  /**
   * Runs the one committing thread for a group of {@code threads} handles for one slice; {@code
   * disk} is sampled at the window's edges. The slice counts N operations per round: its latency is
   * a round's, its {@link Commits} a transaction of N handles and one flush per round.
   */
  Cell.Slice run(int threads, int blocksPerOp, Duration warmup, Duration window, Optional<DiskFlushCounter> disk)
      throws Exception {
    int blocks = roundBlocks(threads, blocksPerOp);
    if (blocks > regionBlocks) {
      throw new IllegalArgumentException(threads + " threads need " + blocks + " blocks a round but " + file
          + " has " + regionBlocks);
    }
    ByteBuffer[] images = new ByteBuffer[blocks];
    for (int i = 0; i < blocks; i++) {
      images[i] = ByteBuffer.allocateDirect(BLOCK);
    }
    int rounds = regionBlocks / blocks;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      TimedRun.Op round = seq -> {
        for (ByteBuffer b : images) {
          b.clear();
          b.putLong(0, seq);
        }
        ch.position((seq % rounds) * blocks * BLOCK); // one writer: the channel's position is ours
        long left = (long) blocks * BLOCK;
        while (left > 0) {
          left -= ch.write(images);
        }
        ch.force(false);
      };
      long[] cpu = new long[2]; // the coordinating thread's
      DiskFlushCounter.Window diskWindow = new DiskFlushCounter.Window(disk);
      TimedRun.Result r = TimedRun.run(List.of(round), warmup, window, () -> {
        cpu[0] = Commits.processCpuNanos();
        diskWindow.start();
      }, () -> {
        diskWindow.end();
        cpu[1] = Commits.processCpuNanos();
      });
      long commits = r.operations();
      return new Cell.Slice(commits * threads, r.windowNanos(), r.latencyNanos(), Double.NaN, new Commits(commits,
          (double) commits * threads, commits, diskWindow.count(), Double.NaN, (cpu[1] - cpu[0]) / 1e9, r.windowNanos() / 1e9), null);
    }
  }
}
