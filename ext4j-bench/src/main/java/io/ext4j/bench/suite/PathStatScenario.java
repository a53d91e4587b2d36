package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code stat-depth} scenario (what the dentry cache saves a path walk): N threads, each repeatedly reading the
 * basic attributes ({@code Files.readAttributes(p, BasicFileAttributes.class)}, a stat) of a file
 * {@value #DEPTH} directories deep, {@code d1/d2/…/d8/f} below the target's directory, so that
 * every operation walks the whole path name by name. {@code own-chain}: each thread a chain of its
 * own; {@code shared-chain}: every thread the same one (thread 0's), so the same directories'
 * names are looked up on every processor at once. The engine runs with its dentry cache (the
 * default) and without ({@link DentryCacheKnob}: every name looked up in its directory's block).
 * The chains are made once, before any window; nothing is written while the scenario measures. The
 * kernel targets' paths are absolute, so they walk the few directories above the target's too,
 * each in the kernel's dcache.
 */
final class PathStatScenario implements Scenario {
  static final String NAME = "stat-depth";
  static final String OWN = "own-chain";
  static final String SHARED = "shared-chain";
  static final List<String> VARIANTS = List.of(OWN, SHARED);
  static final int DEPTH = 8;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Map<String, List<String>> knobs() {
    return DentryCacheKnob.knobs();
  }

  @Override
  public List<Cell> plan(Targets targets, SuiteOptions o, Path scratch) throws IOException {
    int most = o.threads().stream().mapToInt(Integer::intValue).max().orElse(1);
    String dflt = DentryCacheKnob.label(DentryCacheKnob.ON);
    Map<Target, List<Path>> files = new java.util.LinkedHashMap<>();
    for (Target t : targets.list()) {
      List<Path> chains = new ArrayList<>();
      for (int i = 0; i < most; i++) {
        chains.add(chain(t.dir().resolve(NAME).resolve("t" + i)));
      }
      files.put(t, chains);
    }
    List<Cell> cells = new ArrayList<>();
    for (String variant : VARIANTS) {
      for (int threads : o.threads()) {
        for (Target t : targets.list()) {
          List<Path> chains = files.get(t);
          List<Path> paths = variant.equals(OWN) ? chains.subList(0, threads) : java.util.Collections.nCopies(threads, chains.get(0));
          String setting = Scenario.setting(t, DentryCacheKnob.NAME, dflt);
          cells.add(new Cell(NAME, variant, t.name(), setting, dflt.equals(setting), threads, 0,
              (warmup, window) -> slice(paths, warmup, window)));
        }
      }
    }
    return cells;
  }

  /** Makes {@code top}/d1/…/d{@value #DEPTH}/f (an empty file) and returns the file. */
  static Path chain(Path top) throws IOException {
    Path d = top;
    for (int i = 1; i <= DEPTH; i++) {
      d = d.resolve("d" + i);
    }
    Files.createDirectories(d);
    Path f = d.resolve("f");
    if (Files.notExists(f)) {
      Files.createFile(f);
    }
    return f;
  }

  /** One slice: thread i stats {@code paths.get(i)} in a closed loop. */
  static Cell.Slice slice(List<Path> paths, Duration warmup, Duration window) throws Exception {
    List<TimedRun.Op> ops = new ArrayList<>();
    for (Path p : paths) {
      ops.add(seq -> {
        if (!Files.readAttributes(p, BasicFileAttributes.class).isRegularFile()) {
          throw new IOException(p + ": not a regular file");
        }
      });
    }
    return Cell.Slice.of(TimedRun.run(ops, warmup, window, () -> { }, () -> { }));
  }
}
