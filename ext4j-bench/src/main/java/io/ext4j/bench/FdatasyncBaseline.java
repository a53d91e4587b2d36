package io.ext4j.bench;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The device's fsync bound as the kernel delivers it: N threads, each overwriting 4 KiB at a
 * position of its own preallocated file ({@code pwrite}, {@link FileChannel#write(ByteBuffer, long)})
 * and then calling {@code fdatasync} ({@link FileChannel#force(boolean) force(false)}), in a closed
 * loop. The files live in the benchmark's directory, so they share the journal image's filesystem
 * and disk. Each file is {@value #FILE_BLOCKS} blocks of written zeros; writes cycle through them.
 *
 * <h2>Durability</h2>
 * Each operation returns after {@code fdatasync}: the 4 KiB are on stable storage, as a
 * synchronous journal handle's blocks are when its stop returns.
 */
final class FdatasyncBaseline implements AutoCloseable {
  static final int FILE_BLOCKS = 64;
  private static final int BLOCK = 4096;

  private final List<Path> files = new ArrayList<>();
  private final boolean keep;

  private FdatasyncBaseline(boolean keep) {
    this.keep = keep;
  }

  /** Creates {@code count} preallocated files {@code ext4j-bench-baseline-<i>.dat} in {@code dir}. */
  static FdatasyncBaseline create(Path dir, int count, boolean keep) throws IOException {
    FdatasyncBaseline b = new FdatasyncBaseline(keep);
    try {
      for (int i = 0; i < count; i++) {
        Path f = dir.resolve("ext4j-bench-baseline-" + i + ".dat");
        b.files.add(f);
        ZeroFiles.create(f, (long) FILE_BLOCKS * BLOCK);
      }
      ZeroFiles.syncDirectory(dir);
    } catch (IOException | RuntimeException e) {
      try {
        b.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return b;
  }

  /**
   * Runs {@code threads} writers (at most the number of files) and returns their row; {@code disk}
   * is sampled at the window's edges.
   */
  BenchRow run(int threads, Duration warmup, Duration window, java.util.Optional<DiskFlushCounter> disk)
      throws Exception {
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
      DiskFlushCounter.Window diskWindow = new DiskFlushCounter.Window(disk);
      TimedRun.Result r = TimedRun.run(ops, warmup, window, diskWindow::start, diskWindow::end);
      double rate = r.opsPerSec();
      return new BenchRow(BenchRow.BASELINE, threads, rate, r.micros(50), r.micros(99), OptionalDouble.empty(),
          rate, rate, diskWindow.rate(r.windowNanos()), "", false);
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

  /** Deletes the files unless asked to keep them. */
  @Override
  public void close() throws IOException {
    if (keep) {
      return;
    }
    IOException first = null;
    for (Path f : files) {
      try {
        Files.deleteIfExists(f);
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
