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

/**
 * The device bound of one journaled append at 1 thread: the writes a lone writer's 4 KiB append +
 * fsync makes under jbd2 (in the kernel's ext4 and in ext4j alike), done by one thread with no file
 * system and no processing in between, on a written-through file in the host's own file system
 * (where the suite's images sit). Each operation is: the data block written, then {@value #LOG_BLOCKS}
 * log blocks in one write (the descriptor and the three metadata blocks an append changes: the inode's
 * table block, the block bitmap, the group descriptor), {@code fdatasync}, the commit block, {@code
 * fdatasync} — the commit's two flushes, which a disk without FUA needs (its log before its commit
 * block, then the commit block). The data blocks move on through one half of the file and the log
 * blocks wrap around the other, as an append's new blocks and a journal's log do.
 *
 * <p>On a disk with a write-back cache a flush costs what it writes back, so this measures more than
 * fio's one-block write + fdatasync halved: it is the rate no journal that writes what jbd2 writes can
 * beat on this host, and the report sets the 1-thread fsync rows against it. {@code CommitIoBoundTest}
 * holds ext4j's lone-append commit to {@value #LOG_BLOCKS} log blocks and a commit block.
 */
final class CommitIoBound {
  static final String TARGET = "commit-io";
  /** Log blocks a lone 4 KiB append's commit writes before its commit block: descriptor, inode table block, block bitmap, group descriptor. */
  static final int LOG_BLOCKS = 4;
  static final int BLOCK = 4096;
  /** Each half of the file: data blocks, then the log. */
  private static final long HALF = 16L << 20;

  private CommitIoBound() {}

  /** Makes the written-through file the bound runs on, {@code dir}/commit-io.dat (unmeasured). */
  static Path prepare(Path dir) throws IOException {
    Path file = dir.resolve("commit-io.dat");
    ZeroFiles.create(file, 2 * HALF);
    return file;
  }

  /** One slice on {@code file} (made by {@link #prepare}): one thread, {@code warmup} unmeasured, then {@code window}. */
  static Cell.Slice run(Path file, Duration warmup, Duration window) throws Exception {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer data = ByteBuffer.allocateDirect(BLOCK);
      ByteBuffer log = ByteBuffer.allocateDirect(LOG_BLOCKS * BLOCK);
      ByteBuffer commit = ByteBuffer.allocateDirect(BLOCK);
      long logBlocks = HALF / BLOCK;
      TimedRun.Op op = seq -> {
        long logAt = seq * (LOG_BLOCKS + 1) % logBlocks;
        if (logAt + LOG_BLOCKS + 1 > logBlocks) {
          logAt = 0; // a log write never wraps inside a commit here; jbd2's may, as two writes
        }
        Channels.writeFully(ch, data.clear().putLong(0, seq), seq * BLOCK % HALF);
        Channels.writeFully(ch, log.clear().putLong(0, seq), HALF + logAt * BLOCK);
        ch.force(false);
        Channels.writeFully(ch, commit.clear().putLong(0, seq), HALF + (logAt + LOG_BLOCKS) * BLOCK);
        ch.force(false);
      };
      return Cell.Slice.of(TimedRun.run(List.of(op), warmup, window, () -> { }, () -> { }));
    }
  }
}
