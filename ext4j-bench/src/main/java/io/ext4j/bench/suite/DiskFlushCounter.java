package io.ext4j.bench.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The Linux block layer's count of completed flush requests on the disk that holds a directory:
 * field 16 ("flush I/Os") of {@code /sys/dev/block/MAJOR:MINOR/stat}, of the whole disk when the
 * directory sits on a partition (the block layer accounts flushes to the whole disk).
 *
 * <p>The {@code journal} scenario samples it at the edges of each measured window to show how many device flushes
 * the kernel really issued: for the {@code pwrite + fdatasync} baseline this is fewer than its
 * {@code fdatasync} calls, because the block layer merges flushes that wait for one in flight. The
 * count covers every process using the disk, so on a shared machine it is an upper bound for the
 * benchmark's own flushes.
 *
 * <p>Unavailable ({@link #of} returns empty) when the directory is not on a block device (tmpfs,
 * overlay), when sysfs is not mounted, or on kernels before 5.5, whose stat file has no flush
 * fields.
 */
final class DiskFlushCounter {
  /** 0-based index of "flush I/Os completed" among the stat file's fields. */
  private static final int FLUSH_FIELD = 15;

  private final Path statFile;

  private DiskFlushCounter(Path statFile) {
    this.statFile = statFile;
  }

  /** The counter for the disk holding {@code dir}, if the kernel exposes one. */
  static Optional<DiskFlushCounter> of(Path dir) {
    try {
      Object dev = Files.getAttribute(dir, "unix:dev");
      if (!(dev instanceof Long d)) {
        return Optional.empty();
      }
      Path sys = Path.of("/sys/dev/block", major(d) + ":" + minor(d));
      if (!Files.isDirectory(sys)) {
        return Optional.empty();
      }
      Path real = sys.toRealPath();
      if (Files.exists(real.resolve("partition"))) {
        real = real.getParent();
      }
      DiskFlushCounter c = new DiskFlushCounter(real.resolve("stat"));
      return c.read().isPresent() ? Optional.of(c) : Optional.empty();
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
      return Optional.empty(); // no sysfs, no unix attribute view: the column stays empty
    }
  }

  /**
   * Flushes completed between two readings; NaN (as {@link Commits} sums it: not counted) if either
   * is missing or the counter went backwards.
   */
  static double between(OptionalLong start, OptionalLong end) {
    if (start.isEmpty() || end.isEmpty() || end.getAsLong() < start.getAsLong()) {
      return Double.NaN;
    }
    return end.getAsLong() - start.getAsLong();
  }

  /**
   * The counter at a measured window's two edges: {@link #start} and {@link #end} are called by the
   * coordinating thread (TimedRun's edge callbacks), which reads {@link #count} afterwards. Without a
   * counter every reading is empty.
   */
  static final class Window {
    private final Optional<DiskFlushCounter> disk;
    private OptionalLong start = OptionalLong.empty(); // the coordinating thread only
    private OptionalLong end = OptionalLong.empty(); // the coordinating thread only

    Window(Optional<DiskFlushCounter> disk) {
      this.disk = disk;
    }

    void start() {
      start = read();
    }

    void end() {
      end = read();
    }

    /** Flushes completed between the two edges (see {@link DiskFlushCounter#between}). */
    double count() {
      return DiskFlushCounter.between(start, end);
    }

    private OptionalLong read() {
      return disk.map(DiskFlushCounter::read).orElse(OptionalLong.empty());
    }
  }

  /** The disk's completed flush requests since boot, or empty if the file cannot be read now. */
  OptionalLong read() {
    try {
      return parse(Files.readString(statFile));
    } catch (IOException e) {
      return OptionalLong.empty();
    }
  }

  /** Field {@value #FLUSH_FIELD} of a block stat line, or empty if the line is shorter (kernel < 5.5). */
  static OptionalLong parse(String statLine) {
    String[] f = statLine.trim().split("\\s+", 0);
    if (f.length <= FLUSH_FIELD) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(f[FLUSH_FIELD]));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /** Linux's {@code major()} of a {@code dev_t} as glibc encodes it. */
  static long major(long dev) {
    return ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & 0xfffff000L);
  }

  /** Linux's {@code minor()} of a {@code dev_t} as glibc encodes it. */
  static long minor(long dev) {
    return (dev & 0xffL) | ((dev >>> 12) & 0xffffff00L);
  }
}
