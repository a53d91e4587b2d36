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
 * slices (every cell's first slice, then every cell's second, …) and returns what they measured. One
 * coordinating thread; the workload threads are each slice's own ({@code TimedRun}).
 */
public final class BenchSuite {
  /** Told how far the run is; called on the coordinating thread. */
  public interface Listener {
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

  private BenchSuite() {}

  /** Runs {@code o}; {@code log} gets one line per phase. A cell that fails ends the run with an IOException naming it. */
  public static SuiteResult run(SuiteOptions o, PrintStream log, Listener progress) throws IOException {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    Machine machine = Machine.describe(o.work());
    Map<String, Long> peaks = new LinkedHashMap<>();
    List<CellResult> rows = new ArrayList<>();
    Map<String, String> made = new LinkedHashMap<>();
    Map<String, String> skipped;
    try (Targets targets = Targets.setUp(o, o.scenarios().contains(FsyncScenario.NAME), log)) {
      for (Target t : targets.list()) {
        made.put(t.name(), t.description());
      }
      skipped = targets.skipped();
      skipped.forEach((name, why) -> log.println("bench: " + name + " skipped: " + why));
      Path fioDir = null;
      if (Host.has("fio")) {
        fioDir = Files.createDirectories(o.work().toAbsolutePath().resolve("fio"));
      } else {
        skipped = new LinkedHashMap<>(skipped);
        skipped.put(FioBound.TARGET, "fio is not installed: no device bound");
      }
      List<List<Cell>> plan = new ArrayList<>();
      int total = 0;
      for (String s : o.scenarios()) {
        List<Cell> cells = switch (s) {
          case FsyncScenario.NAME -> FsyncScenario.cells(targets, o, fioDir);
          default -> throw new UnsupportedOperationException("scenario '" + s + "' is not implemented yet (issue 10)");
        };
        plan.add(cells);
        total += cells.size() * o.slices();
      }
      progress.started(total);
      try {
        runPlan(o, plan, log, progress, peaks, rows);
      } finally {
        progress.finished();
      }
    }
    return new SuiteResult(o, machine, made, skipped, rows, peaks, Ext4Options.defaults().cacheBytes(), started,
        Duration.ofNanos(System.nanoTime() - t0), Machine.loadAverage());
  }

  private static void runPlan(SuiteOptions o, List<List<Cell>> plan, PrintStream log, Listener progress,
      Map<String, Long> peaks, List<CellResult> rows) throws IOException {
    for (int i = 0; i < plan.size(); i++) {
      String scenario = o.scenarios().get(i);
      log.printf("bench: %s, %d cells × %d slices of %d ms%n", scenario, plan.get(i).size(), o.slices(), o.window().toMillis());
      boolean resettable = Host.resetPeakRss();
      for (int slice = 0; slice < o.slices(); slice++) {
        for (Cell c : plan.get(i)) {
          progress.slice(c.toString());
          try {
            c.runSlice(o.warmup(), o.window());
          } catch (Exception e) {
            throw new IOException("bench " + c + ": " + e, e);
          }
        }
      }
      peaks.put(scenario, resettable || i == 0 ? Host.peakRss() : -1L);
      for (Cell c : plan.get(i)) {
        rows.add(c.result());
      }
    }
  }
}
