package io.ext4j.bench.suite;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one {@code ext4j bench} run measures and where it puts things.
 *
 * @param scenarios the scenarios, in order (names from {@link #SCENARIOS})
 * @param threads the thread counts of every scenario that has them
 * @param blockSizes the block sizes of the {@code dio} scenario, in bytes (multiples of 4096)
 * @param perCell measured time per cell (variant × target × thread count), split over {@code slices}
 * @param slices how many interleaved slices each cell's time is split into: every cell runs its
 *     first slice before any runs its second, so drift on a shared machine falls on every cell alike
 * @param warmup unmeasured time before each slice's window
 * @param imageSize bytes of each image (every target's image is a full copy of one base image)
 * @param work where the images, mount points and host files are made (removed afterwards unless {@code keep})
 * @param out where the report goes: CSV, JSON, charts and index.html
 * @param keep keep {@code work} afterwards
 * @param journal what the {@code journal} scenario measures beyond these ({@link JournalScenarioOptions};
 *     its defaults are the journal benchmark's)
 */
public record SuiteOptions(List<String> scenarios, List<Integer> threads, List<Integer> blockSizes, Duration perCell, int slices, Duration warmup,
    long imageSize, Path work, Path out, boolean keep, JournalScenarioOptions journal) {

  /**
   * Every scenario of the suite, in the order a full run takes them. {@code journal} (a jbd2 journal
   * alone, in an image file, against fdatasync) costs the Quick start run about five seconds.
   */
  public static final List<String> SCENARIOS = List.of("fsync", "dio", "committed-check", "metadata", "stat-depth", "populate",
      "journal");

  /** The block sizes of the 2019 DIO RFC's table; the full run's. */
  public static final List<Integer> ALL_BLOCK_SIZES = List.of(4 << 10, 16 << 10, 64 << 10, 512 << 10, 1 << 20);

  public SuiteOptions {
    scenarios = List.copyOf(scenarios);
    threads = List.copyOf(threads);
    blockSizes = List.copyOf(blockSizes);
    if (blockSizes.isEmpty() || blockSizes.stream().anyMatch(b -> b < 4096 || b > (16 << 20) || b % 4096 != 0)) {
      throw new IllegalArgumentException("block sizes must be multiples of 4 KiB up to 16 MiB, not " + blockSizes);
    }
    Objects.requireNonNull(perCell, "perCell");
    Objects.requireNonNull(warmup, "warmup");
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(journal, "journal");
    for (String s : scenarios) {
      if (!SCENARIOS.contains(s)) {
        throw new IllegalArgumentException("unknown scenario '" + s + "'; known: " + String.join(", ", SCENARIOS));
      }
    }
    if (scenarios.isEmpty()) {
      throw new IllegalArgumentException("no scenario to run");
    }
    if (threads.isEmpty() || threads.stream().anyMatch(t -> t < 1 || t > 1024)) {
      throw new IllegalArgumentException("thread counts must be 1..1024, not " + threads);
    }
    if (slices < 1 || perCell.isNegative() || perCell.isZero() || warmup.isNegative()) {
      throw new IllegalArgumentException("slices must be >= 1 and the time per cell positive");
    }
    if (imageSize < (64L << 20)) {
      throw new IllegalArgumentException("image size must be at least 64 MiB, not " + imageSize + " bytes");
    }
  }

  /**
   * The Quick start's run: every scenario, fsync, metadata, stat-depth and journal at 1, 2 and 16 threads, dio at 4 KiB and
   * 1 MiB, 0.2 s per cell in 2 slices after 50 ms of warmup each, 128 MiB images ({@link
   * #imageSizeFor}; the same 16 MiB journal mke2fs gives 256 MiB); about two minutes as root.
   */
  public static SuiteOptions defaults() {
    Duration window = Duration.ofMillis(100);
    Duration warmup = Duration.ofMillis(50);
    return new SuiteOptions(SCENARIOS, List.of(1, 2, 16), List.of(4 << 10, 1 << 20), window.multipliedBy(2), 2, warmup,
        imageSizeFor(window, warmup), Path.of("ext4j-bench-work"), Path.of("bench-report"), false, JournalScenarioOptions.defaults());
  }

  /**
   * The image size for slices of {@code window} after {@code warmup}: 256 MiB per second of the two
   * (an {@code fsync} slice at 64 threads appends up to about 180 MiB/s, and its files stay until
   * the slice ends), at least 128 MiB.
   */
  public static long imageSizeFor(Duration window, Duration warmup) {
    long perSecond = 256L << 20;
    long bytes = (window.toMillis() + warmup.toMillis()) * perSecond / 1000;
    return Math.max(128L << 20, (bytes + (1 << 20) - 1) >> 20 << 20);
  }

  /** One slice's measured window. */
  public Duration window() {
    return perCell.dividedBy(slices);
  }
}
