package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code fsync} scenario: N threads, each appending 4 KiB to a file of its own in one directory
 * and making it durable, through {@code FileChannel} on every target. Variants:
 * <ul>
 *   <li>{@code fsync} — write, then {@code force(true)}; measured with every batching policy of the
 *       engine (the default marked), as the 2005 jbd batching fix and the 2020 btrfs log-batch patch
 *       measured theirs;
 *   <li>{@code fdatasync} — write, then {@code force(false)}; beside it the device bound: fio's 4 KiB
 *       write + fdatasync with as many jobs, in the host directory;
 *   <li>{@code osync}, {@code odsync} — the file opened with {@code SYNC} / {@code DSYNC}, each write durable on return;
 *   <li>{@code many-files} — each thread appends to {@value #MANY} files in turn, fsync after each
 *       (the btrfs many-file fsync case).
 * </ul>
 * Every counted operation returned only once its 4 KiB (and the new size) were durable. Each slice
 * opens its files truncated, so an image never holds more than one slice's appends.
 */
final class FsyncScenario {
  static final String NAME = "fsync";
  static final List<String> VARIANTS = List.of("fsync", "fdatasync", "osync", "odsync", "many-files");
  static final int BLOCK = 4096;
  static final int MANY = 8;

  private FsyncScenario() {}

  /** The cells: every variant × thread count × target (non-default policies only in {@code fsync}), plus fio's bound for {@code fdatasync}. */
  static List<Cell> cells(Targets targets, SuiteOptions o, Path fioDir) {
    List<Cell> cells = new ArrayList<>();
    for (String variant : VARIANTS) {
      for (int threads : o.threads()) {
        for (Target t : targets.list()) {
          if (t.inProcess() && !t.isDefaultPolicy() && !variant.equals("fsync")) {
            continue;
          }
          cells.add(new Cell(NAME, variant, t.name(), t.policy(), t.isDefaultPolicy(), threads,
              (warmup, window) -> slice(t.dir(), variant, threads, warmup, window)));
        }
        if (variant.equals("fdatasync") && fioDir != null) {
          cells.add(new Cell(NAME, variant, FioBound.TARGET, null, false, threads,
              (warmup, window) -> FioBound.run(fioDir, threads, warmup, window)));
        }
      }
    }
    return cells;
  }

  /** One slice of {@code variant} with {@code threads} threads in {@code dir}. */
  static TimedRun.Result slice(Path dir, String variant, int threads, Duration warmup, Duration window) throws Exception {
    int files = variant.equals("many-files") ? MANY : 1;
    Set<OpenOption> open = new HashSet<>(List.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING));
    if (variant.equals("osync")) {
      open.add(StandardOpenOption.SYNC);
    } else if (variant.equals("odsync")) {
      open.add(StandardOpenOption.DSYNC);
    }
    boolean force = !variant.equals("osync") && !variant.equals("odsync");
    boolean metaData = !variant.equals("fdatasync");
    List<FileChannel> opened = new ArrayList<>();
    Throwable failure = null;
    try {
      List<TimedRun.Op> ops = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        FileChannel[] mine = new FileChannel[files];
        for (int j = 0; j < files; j++) {
          mine[j] = FileChannel.open(dir.resolve("t" + i + (files > 1 ? "-" + j : "")), open);
          opened.add(mine[j]);
        }
        ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK);
        ops.add(seq -> {
          FileChannel ch = mine[(int) (seq % files)];
          long pos = seq / files * BLOCK;
          buf.clear();
          buf.putLong(0, seq);
          while (buf.hasRemaining()) {
            ch.write(buf, pos + buf.position());
          }
          if (force) {
            ch.force(metaData);
          }
        });
      }
      return TimedRun.run(ops, warmup, window, () -> { }, () -> { });
    } catch (Throwable t) {
      failure = t;
      throw t;
    } finally {
      closeAll(opened, failure);
    }
  }

  /** Closes every channel; a failure to close is thrown, or added to {@code failure} when there is one. */
  private static void closeAll(List<FileChannel> channels, Throwable failure) throws IOException {
    IOException first = null;
    for (FileChannel ch : channels) {
      try {
        ch.close();
      } catch (IOException e) {
        if (failure != null) {
          failure.addSuppressed(e);
        } else if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
