package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import io.ext4j.jbd2.WriteAccessPath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code metadata} scenario (the 2015 jbd2 get_write_access patch measured reaim's fserver
 * workload): N threads, each in a directory of its own holding about 50 to 200 small files, each
 * operation drawn from a fixed mix — create a 4 KiB file 20 %, append 4 KiB 15 %, read a whole file
 * 20 %, stat 20 %, list the directory 5 %, rename 8 %, unlink 10 %, append and fsync 2 % — through
 * {@code java.nio.file.Files} on every target. The engine runs with the lock-free get-write-access
 * fast path (the default) and with the buffer state lock always taken (the before), and with its
 * dentry cache off ({@link DentryCacheKnob}: every name looked up in its directory). Each slice
 * starts each thread on a fresh directory of 50 files (made and removed outside the window); the
 * draws come from fixed seeds (thread i: seed i), the same on every target. The engine's rows also
 * count its journal's commits over each slice ({@link Commits}): the mix's fsyncs are what bound
 * it once commits run back to back.
 */
final class MetadataScenario implements Scenario {
  static final String NAME = "metadata";
  static final String KNOB = "writeAccessPath";
  static final String VARIANT = "fserver-mix";
  private static final int START_FILES = 50;
  private static final int MIN_FILES = 20;
  private static final int MAX_FILES = 200;
  private static final int SIZE = 4096;

  @Override
  public String name() {
    return NAME;
  }

  /**
   * The mix runs much engine code, which the JIT takes seconds to compile on 2 vCPUs: in one JVM
   * 2 s rounds at 1 thread ran 12k, 28k, 35k and 40k ops/s, and with the suite's 500 ms the first
   * measured cell (the default at 1 thread) ran 0.83 of the always-locked one measured next, nearly
   * the same code. Eight windows, at least 500 ms, at most 3 s.
   */
  @Override
  public java.time.Duration jitWarmup(SuiteOptions o) {
    return java.time.Duration.ofMillis(Math.max(BenchSuite.JIT_WARMUP.toMillis(), Math.min(3000, 8 * o.window().toMillis())));
  }

  /** The write-access path, then the dentry cache switch. */
  @Override
  public Map<String, List<String>> knobs() {
    Map<String, List<String>> knobs = new java.util.LinkedHashMap<>(Scenario.othersThan(KNOB, WriteAccessPath.LOCK_FREE_FAST_PATH));
    knobs.putAll(DentryCacheKnob.knobs());
    return knobs;
  }

  @Override
  public List<Cell> plan(Targets targets, SuiteOptions o, Path scratch) throws IOException {
    String dflt = Scenario.optionName(WriteAccessPath.LOCK_FREE_FAST_PATH);
    List<Cell> cells = new ArrayList<>();
    for (int threads : o.threads()) {
      for (Target t : targets.list()) {
        Path dir = Files.createDirectories(t.dir().resolve(NAME));
        String setting = Scenario.setting(t, dflt);
        cells.add(new Cell(NAME, VARIANT, t.name(), setting, dflt.equals(setting), threads, SIZE,
            (warmup, window) -> slice(dir, threads, t.inProcess(), warmup, window)));
      }
    }
    return cells;
  }

  /**
   * One slice: fresh directories (made and removed outside the measurement), then the timed run;
   * with {@code countCommits} (an in-process target) the journal's commits over the timed run only.
   */
  static Cell.Slice slice(Path root, int threads, boolean countCommits, Duration warmup, Duration window) throws Exception {
    List<Path> dirs = new ArrayList<>();
    try {
      List<TimedRun.Op> ops = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        Path dir = root.resolve("u" + i);
        Targets.deleteTree(dir);
        Files.createDirectories(dir);
        dirs.add(dir);
        ops.add(new Worker(dir, i)::step);
      }
      Commits.Job run = () -> Cell.Slice.of(TimedRun.run(ops, warmup, window, () -> { }, () -> { }));
      return countCommits ? Commits.around(root, run) : run.run();
    } finally {
      for (Path d : dirs) {
        Targets.deleteTree(d);
      }
    }
  }

  /** One thread's directory and the names in it; used by that thread only. */
  private static final class Worker {
    private final Path dir;
    private final SplittableRandom rnd;
    private final List<String> names = new ArrayList<>();
    private final byte[] block = new byte[SIZE];
    private long made;

    Worker(Path dir, int seed) throws IOException {
      this.dir = dir;
      this.rnd = new SplittableRandom(seed);
      for (int i = 0; i < START_FILES; i++) {
        create();
      }
    }

    void step(long seq) throws IOException {
      int r = rnd.nextInt(100);
      if (names.size() < MIN_FILES || (r < 20 && names.size() < MAX_FILES)) {
        create();
      } else if (names.size() > MAX_FILES || (r >= 88 && r < 98)) {
        Files.delete(dir.resolve(names.remove(rnd.nextInt(names.size()))));
      } else if (r < 35) {
        Files.write(pick(), block, StandardOpenOption.APPEND);
      } else if (r < 55) {
        Files.readAllBytes(pick());
      } else if (r < 75) {
        Files.readAttributes(pick(), BasicFileAttributes.class);
      } else if (r < 80) {
        int n = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
          for (Path ignored : ds) {
            n++;
          }
        }
        if (n != names.size()) {
          throw new IOException(dir + ": lists " + n + " entries, " + names.size() + " were made");
        }
      } else if (r < 88) {
        int i = rnd.nextInt(names.size());
        String to = "r" + made++;
        Files.move(dir.resolve(names.get(i)), dir.resolve(to));
        names.set(i, to);
      } else {
        try (FileChannel ch = FileChannel.open(pick(), StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
          ch.write(ByteBuffer.wrap(block));
          ch.force(true);
        }
      }
    }

    private void create() throws IOException {
      String name = "f" + made++;
      Files.write(dir.resolve(name), block, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      names.add(name);
    }

    private Path pick() {
      return dir.resolve(names.get(rnd.nextInt(names.size())));
    }
  }
}
