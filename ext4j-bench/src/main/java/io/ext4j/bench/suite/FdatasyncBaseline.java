package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import io.ext4j.bench.ZeroFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The device's fsync bound as the kernel delivers it: N threads, each overwriting 4 KiB at a
 * position of its own preallocated file ({@code pwrite}, {@link FileChannel#write(ByteBuffer, long)})
 * and then calling {@code fdatasync} ({@link FileChannel#force(boolean) force(false)}), in a closed
 * loop. The files live in the {@code journal} scenario's directory, so they share the journal
 * image's file system and disk; the directory's owner removes them ({@link Targets#bare}). Each file is {@value #FILE_BLOCKS} blocks of written zeros; writes cycle through them.
 *
 * <h2>Durability</h2>
 * Each operation returns after {@code fdatasync}: the 4 KiB are on stable storage, as a
 * synchronous journal handle's blocks are when its stop returns.
 */
final class FdatasyncBaseline {
  static final int FILE_BLOCKS = 64;
  private static final int BLOCK = 4096;

  private final List<Path> files;

  private FdatasyncBaseline(List<Path> files) {
    this.files = List.copyOf(files);
  }

  /** Creates {@code count} preallocated files {@code ext4j-bench-baseline-<i>.dat} in {@code dir}. */
  static FdatasyncBaseline create(Path dir, int count) throws IOException {
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Path f = dir.resolve("ext4j-bench-baseline-" + i + ".dat");
      ZeroFiles.create(f, (long) FILE_BLOCKS * BLOCK);
      files.add(f);
    }
    ZeroFiles.syncDirectory(dir);
    return new FdatasyncBaseline(files);
  }

  /**
   * Runs {@code threads} writers (at most the number of files) for one slice; {@code disk} is
   * sampled at the window's edges. Its {@link Commits} count no transactions: their flushes are the
   * {@code fdatasync} calls.
   */
  Cell.Slice run(int threads, Duration warmup, Duration window, Optional<DiskFlushCounter> disk) throws Exception {
    if (threads > files.size()) {
      throw new IllegalArgumentException(threads + " threads but only " + files.size() + " baseline files");
    }
    List<FileChannel> channels = new ArrayList<>(threads);
    try (Closeable closing = () -> closeAll(channels)) { // a failure to close is suppressed into the run's own
      List<TimedRun.Op> ops = new ArrayList<>(threads);
      for (int i = 0; i < threads; i++) {
        FileChannel ch = FileChannel.open(files.get(i), StandardOpenOption.READ, StandardOpenOption.WRITE);
        channels.add(ch);
        ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK);
        ops.add(seq -> {
          buf.clear();
          buf.putLong(0, seq);
          long pos = (seq % FILE_BLOCKS) * BLOCK;
          while (buf.hasRemaining()) {
            ch.write(buf, pos + buf.position());
          }
          ch.force(false);
        });
      }
      long[] cpu = new long[2]; // the coordinating thread's
      DiskFlushCounter.Window diskWindow = new DiskFlushCounter.Window(disk);
      TimedRun.Result r = TimedRun.run(ops, warmup, window, () -> {
        cpu[0] = Commits.processCpuNanos();
        diskWindow.start();
      }, () -> {
        diskWindow.end();
        cpu[1] = Commits.processCpuNanos();
      });
      return Cell.Slice.of(r).withCommits(new Commits(0, 0, r.operations(), diskWindow.count(), Double.NaN, (cpu[1] - cpu[0]) / 1e9,
          r.windowNanos() / 1e9));
    }
  }

  /** Closes every channel; the first failure is thrown with the later ones suppressed. */
  private static void closeAll(List<FileChannel> channels) throws IOException {
    IOException first = null;
    for (FileChannel ch : channels) {
      try {
        ch.close();
      } catch (IOException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
