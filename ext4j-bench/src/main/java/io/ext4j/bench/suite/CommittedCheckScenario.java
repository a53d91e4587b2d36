package io.ext4j.bench.suite;

import io.ext4j.jbd2.CommittedCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code committed-check} scenario (the 2024 jbd2_transaction_committed patch): {@value #THREADS}
 * threads of 4 KiB direct I/O on dio's file, with the journal's "is transaction N committed?" check
 * lock-free (the default) and under the journal's state lock (the before). Where ext4j asks it: every
 * fsync, fdatasync and O_SYNC/O_DSYNC write asks first whether the inode's last transaction has
 * committed, and then only flushes the device. So the overwrites are O_DSYNC here (each durable on
 * return): {@code overwrite} sequential and {@code randoverwrite} random. The reads ({@code read},
 * {@code randread}) are the seed's too, but ext4j's direct reads do not ask (the kernel's iomap
 * lookup does), so those rows show what the check costs nothing.
 */
final class CommittedCheckScenario implements Scenario {
  static final String NAME = "committed-check";
  static final String KNOB = "committedCheck";
  static final List<String> OPS = List.of("overwrite", "read", "randoverwrite", "randread");
  static final int THREADS = DioScenario.THREADS;
  static final int BLOCK = 4096;

  private final DioScenario.Buffers buffers = new DioScenario.Buffers();

  /** Whether ext4j asks the committed check in {@code op}: the O_DSYNC overwrites do, the direct reads do not. */
  static boolean asksCheck(String op) {
    return !op.endsWith("read");
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Direct I/O down to the disk, as in dio. */
  @Override
  public boolean direct() {
    return true;
  }

  @Override
  public Map<String, List<String>> knobs() {
    return Scenario.othersThan(KNOB, CommittedCheck.LOCK_FREE);
  }

  @Override
  public List<Cell> plan(Targets targets, SuiteOptions o, Path scratch) throws IOException {
    String dflt = Scenario.optionName(CommittedCheck.LOCK_FREE);
    List<Target> serving = targets.list().stream().filter(t -> t.servesKnob(KNOB)).toList();
    for (Target t : serving) {
      DioScenario.fill(Files.createDirectories(t.dir().resolve(NAME)).resolve("dio.dat"));
    }
    List<Cell> cells = new ArrayList<>();
    for (String op : OPS) {
      String dioOp = switch (op) {
        case "overwrite" -> "write";
        case "randoverwrite" -> "randwrite";
        default -> op;
      };
      boolean dsync = asksCheck(op);
      for (Target t : serving) {
        Path dir = t.dir().resolve(NAME);
        String setting = Scenario.setting(t, KNOB, dflt);
        cells.add(new Cell(NAME, op, t.name(), setting, dflt.equals(setting), THREADS, BLOCK,
            (warmup, window) -> Cell.Slice.of(DioScenario.slice(dir, dioOp, BLOCK, dsync, buffers, warmup, window))));
      }
    }
    return cells;
  }
}
