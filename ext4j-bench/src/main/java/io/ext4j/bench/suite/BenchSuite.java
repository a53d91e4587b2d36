package io.ext4j.bench.suite;

import io.ext4j.fs.Ext4Options;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code ext4j bench}: makes the targets ({@link Targets}), runs each scenario's cells in interleaved
 * slices (every cell's first slice, then every cell's second, …; the rows compared side by side in a
 * different order each slice, and {@code sync} after each cell so that the host's writeback of one
 * cell's data does not fall on the next) and returns what they measured. One coordinating thread;
 * the workload threads are each slice's own ({@code TimedRun}).
 */
public final class BenchSuite {
  /** Told how far the run is; called on the coordinating thread. */
  public interface Listener {
    /** A scenario with {@code slices} more slices to run begins. */
    void started(int slices);

    void slice(String cell);

    void finished();

    static Listener silent() {
      return new Listener() {
        @Override
        public void started(int slices) {}

        @Override
        public void slice(String cell) {}

        @Override
        public void finished() {}
      };
    }
  }

  /** The unmeasured slice of each scenario's first cell on the engine's targets, before any is measured. */
  static final Duration JIT_WARMUP = Duration.ofMillis(500);

  private BenchSuite() {}

  static Scenario scenario(String name) {
    return switch (name) {
      case FsyncScenario.NAME -> new FsyncScenario();
      case DioScenario.NAME -> new DioScenario();
      case CommittedCheckScenario.NAME -> new CommittedCheckScenario();
      case MetadataScenario.NAME -> new MetadataScenario();
      case PathStatScenario.NAME -> new PathStatScenario();
      case PopulateScenario.NAME -> new PopulateScenario();
      case JournalScenario.NAME -> new JournalScenario();
      default -> throw new IllegalArgumentException("unknown scenario '" + name + "'");
    };
  }

  /**
   * Runs {@code o}; {@code log} gets one line per phase. A cell that fails (a target refusing an
   * operation) stops running and is reported with the reason; making the targets or preparing a
   * scenario's files failing ends the run with the IOException.
   */
  public static SuiteResult run(SuiteOptions o, PrintStream log, Listener progress) throws IOException {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    Path work = o.work().toAbsolutePath().normalize();
    if (Files.exists(work)) {
      throw new IOException(work + ": already exists (a previous run's work directory? remove it, or choose another with --work)");
    }
    List<Scenario> scenarios = o.scenarios().stream().map(BenchSuite::scenario).toList();
    Machine machine = Machine.describe(work);
    Map<String, Long> peaks = new LinkedHashMap<>();
    Map<String, Long> heaps = new LinkedHashMap<>();
    Map<String, MemoryProbe.Result> engine = new LinkedHashMap<>();
    List<CellResult> rows = new ArrayList<>();
    Map<String, Map<String, String>> made = new LinkedHashMap<>();
    Map<String, String> skipped = new LinkedHashMap<>();
    Files.createDirectories(work);
    try {
      Path scratch = null;
      if (Host.has("fio")) {
        scratch = Files.createDirectories(work.resolve("fio"));
      } else {
        skipped.put(FioBound.TARGET, "fio is not installed: no device bound");
      }
      try {
        for (Scenario s : scenarios) {
          Path dir = work.resolve(s.name());
          try (Targets targets = s.needsTargets() ? Targets.setUp(dir, o.imageSize(), s, o.keep(), log)
              : Targets.bare(dir, o.keep())) {
            Map<String, String> here = new LinkedHashMap<>();
            targets.list().forEach(t -> here.put(t.name(), t.description()));
            made.put(s.name(), here);
            runScenario(s, o, targets, scratch, log, progress, peaks, heaps, engine, rows);
            targets.skipped().forEach((name, why) -> {
              if (skipped.putIfAbsent(name, why) == null) {
                log.println("bench: " + name + " skipped: " + why);
              }
            });
          }
        }
      } finally {
        progress.finished();
      }
    } finally {
      if (!o.keep()) {
        Targets.deleteTree(work);
      }
    }
    return new SuiteResult(o, machine, made, skipped, rows, peaks, heaps, engine, Ext4Options.defaults().cacheBytes(), started,
        Duration.ofNanos(System.nanoTime() - t0), Machine.loadAverage());
  }

  /**
   * The cells in the order slice {@code slice} runs them: the plan's order, but within each run of
   * cells of one variant, thread count and block size (the rows compared side by side) rotated by
   * the slice's number, so no row always comes first, right after another row's workload.
   */
  static List<Cell> sliceOrder(List<Cell> cells, int slice) {
    List<Cell> out = new ArrayList<>(cells.size());
    for (int from = 0; from < cells.size(); ) {
      int to = from + 1;
      while (to < cells.size() && sameRow(cells.get(from), cells.get(to))) {
        to++;
      }
      int n = to - from;
      for (int i = 0; i < n; i++) {
        out.add(cells.get(from + (i + slice) % n));
      }
      from = to;
    }
    return out;
  }

  private static boolean sameRow(Cell a, Cell b) {
    return a.variant.equals(b.variant) && a.threads == b.threads && a.bytesPerOp == b.bytesPerOp;
  }

  /**
   * Prepares one scenario on its targets and runs its cells slice by slice (every cell's first
   * slice, then every cell's second, …); then, where it has one, its memory probe ({@link
   * MemoryProbe}), in a JVM of its own. Its peak resident set and peak heap are this process's from
   * its preparation to its last slice.
   */
  private static void runScenario(Scenario s, SuiteOptions o, Targets targets, Path scratch, PrintStream log, Listener progress,
      Map<String, Long> peaks, Map<String, Long> heaps, Map<String, MemoryProbe.Result> engine, List<CellResult> rows)
      throws IOException {
    log.printf("bench: %s: preparing%n", s.name());
    boolean resettable = Host.resetPeakRss();
    Host.resetPeakHeap();
    List<Cell> cells = s.plan(targets, o, scratch);
    log.printf("bench: %s: %d cells × %d slices of %d ms%n", s.name(), cells.size(), o.slices(), o.window().toMillis());
    progress.started(cells.size() * o.slices() + (s.probesMemory() ? 1 : 0));
    // The engine's code runs compiled in every measured slice, the first included: unmeasured
    // slices first (Scenario.rehearse), so a cold JVM does not count against the first cells.
    s.rehearse(cells, o);
    boolean settles = Host.has("sync");
    for (int slice = 0; slice < o.slices(); slice++) {
      for (Cell c : sliceOrder(cells, slice)) {
        progress.slice(c.toString());
        c.runSlice(o.warmup(), o.window());
        if (settles) {
          try {
            Host.run(List.of("sync"), 600); // its writeback is not the next cell's to pay for
          } catch (IOException e) {
            log.println("bench: no sync between cells from now on: " + e.getMessage());
            settles = false;
          }
        }
      }
    }
    peaks.put(s.name(), resettable || peaks.isEmpty() ? Host.peakRss() : -1L);
    heaps.put(s.name(), Host.peakHeapBytes());
    if (s.probesMemory()) {
      progress.slice(s.name() + ": memory probe");
      MemoryProbe.Result m = MemoryProbe.measure(s, o, targets.base(), targets.work().resolve("memory-probe"));
      if (m.failure() != null) {
        log.println("bench: " + s.name() + ": memory probe failed: " + m.failure());
      }
      engine.put(s.name(), m);
    }
    for (Cell c : cells) {
      CellResult r = c.result();
      if (r.failure() != null) {
        log.println("bench: " + c + " failed: " + r.failure());
      }
      rows.add(r);
    }
  }
}
