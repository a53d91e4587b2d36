package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code fsync} scenario: N threads, each writing 4 KiB to a file of its own in one directory
 * and making it durable, through {@code FileChannel} on every target: appending, in every variant
 * but {@code overwrite}. Variants:
 * <ul>
 *   <li>{@code fsync} — write, then {@code force(true)}; measured with the default batching policy
 *       and with none (the others differ from none only in a synchronous handle's stop, which fsync
 *       does not take: they run in {@code dirsync}); beside it at 1 thread the device bound of a
 *       journaled append, {@link CommitIoBound} (its writes and two flushes, no file system), in the
 *       host directory;
 *   <li>{@code fdatasync} — write, then {@code force(false)}; beside it the device bound: fio's 4 KiB
 *       write + fdatasync with as many jobs, in the host directory;
 *   <li>{@code overwrite} — write at positions cycling through the first {@value #OVERWRITE_BLOCKS}
 *       blocks of a file written and made durable before the window, then {@code force(false)}: no
 *       metadata changes, so a journaling file system has only the data to make durable;
 *   <li>{@code osync}, {@code odsync} — the file opened with {@code SYNC} / {@code DSYNC}, each write durable on return;
 *   <li>{@code many-files} — each thread appends to {@value #MANY} files in turn, fsync after each
 *       (the btrfs many-file fsync case);
 *   <li>{@code dirsync} — each thread creates a file and removes it again, in a directory of its
 *       own (in one directory they would take turns: a create holds its directory's lock until it is
 *       durable, in ext4 as in the engine), where every directory change is durable on return: the
 *       image-backed targets are mounted {@code dirsync} (the engine's {@link
 *       io.ext4j.fs.Ext4Options#dirSync}, the loop mount's {@code -o dirsync}), kernel-host's
 *       directories get {@code chattr +D}. Every create and unlink stops a
 *       synchronous handle (jbd2's {@code h_sync}, as ext3's O_SYNC writes once did): the path every
 *       batching policy acts on, measured with each of them (the default marked), as the 2005 jbd
 *       batching fix measured its O_SYNC writers. fuse2fs, which has no journal and no dirsync, sits
 *       this one out.
 * </ul>
 * The mount option changes nothing inside the other variants' windows (they make and remove their
 * files outside them).
 * Every counted operation returned only once its 4 KiB (and the new size) were durable. Each slice
 * makes its files and removes them after its window, so an image holds one slice's appends at most
 * (at N threads, N × the slice's rate × 4 KiB: size images for the longest slice, {@code --image-size}).
 */
final class FsyncScenario implements Scenario {
  static final String NAME = "fsync";
  static final String KNOB = "batchingPolicy";
  static final List<String> VARIANTS = List.of("fsync", "fdatasync", "overwrite", "osync", "odsync", "many-files", "dirsync");
  static final String OVERWRITE = "overwrite";
  /** The blocks an {@code overwrite} thread cycles through, written before its window. */
  static final int OVERWRITE_BLOCKS = 64;
  static final String DIRSYNC = "dirsync";
  /** The one policy measured beside the default in {@code fsync}. */
  static final String FSYNC_PEER = BatchingPolicies.NONE.name();
  /**
   * The policies that, with one writer, run none's path: tick-skip-same and jbd2 skip their wait for
   * the last synchronous writer, which a lone writer always is, and the default waits only for more
   * writers than it counted lately. At 1 thread their rows are the same code measured side by side,
   * so how far apart they come out is the run's own noise.
   */
  static final Set<String> LONE_WRITER_AS_NONE = Set.of(BatchingPolicies.NONE.name(), BatchingPolicies.TICK_SKIP_SAME_WRITER.name(),
      BatchingPolicies.JBD2.name(), BatchingPolicies.ADAPTIVE.name());
  static final int BLOCK = 4096;
  static final int MANY = 8;

  @Override
  public String name() {
    return NAME;
  }

  /** Every batching policy besides the default. */
  @Override
  public Map<String, List<String>> knobs() {
    List<String> others = new ArrayList<>();
    for (BatchingPolicy p : BatchingPolicies.all()) {
      if (p != BatchingPolicies.defaultPolicy()) {
        others.add(p.name());
      }
    }
    return Map.of(KNOB, others);
  }

  /** Its image-backed targets are mounted dirsync, for the {@code dirsync} variant. */
  @Override
  public boolean dirSync() {
    return true;
  }

  /**
   * Every variant × thread count × target (the other policies only in {@code dirsync}, and none in
   * {@code fsync} too; fuse2fs not in {@code dirsync}), plus fio's bound for {@code fdatasync} and
   * the commit-io bound for {@code fsync} at 1 thread.
   */
  @Override
  public List<Cell> plan(Targets targets, SuiteOptions o, Path scratch) throws IOException {
    String dflt = BatchingPolicies.defaultPolicy().name();
    Path fioDir = scratch == null ? null : Files.createDirectories(scratch.resolve("fsync"));
    // beside kernel-host's files: the host's own file system, where the images sit too
    Target host = targets.list().stream().filter(t -> t.name().equals(Target.HOST)).findFirst().orElse(null);
    Path commitIo = host != null && o.threads().contains(1) ? CommitIoBound.prepare(host.dir()) : null;
    List<Cell> cells = new ArrayList<>();
    for (String variant : VARIANTS) {
      for (int threads : o.threads()) {
        for (Target t : targets.list()) {
          if (!t.servesKnob(KNOB) || (t.knob() != null && !measuresPolicy(variant, t.value()))
              || (variant.equals(DIRSYNC) && t.name().equals(Target.FUSE2FS))) {
            continue;
          }
          Path dir = Files.createDirectories(t.dir().resolve(NAME));
          String setting = Scenario.setting(t, KNOB, dflt);
          boolean chattr = t.name().equals(Target.HOST); // the image-backed targets are mounted dirsync
          cells.add(new Cell(NAME, variant, t.name(), setting, dflt.equals(setting), threads, BLOCK,
              (warmup, window) -> variant.equals(DIRSYNC) ? dirSyncSlice(dir, threads, chattr, t.inProcess(), warmup, window)
                  : slice(dir, variant, threads, t.inProcess(), warmup, window)));
        }
        if (variant.equals("fsync") && threads == 1 && commitIo != null) {
          cells.add(new Cell(NAME, variant, CommitIoBound.TARGET, null, false, threads, BLOCK,
              (warmup, window) -> CommitIoBound.run(commitIo, warmup, window)));
        }
        if (variant.equals("fdatasync") && fioDir != null) {
          cells.add(new Cell(NAME, variant, FioBound.TARGET, null, false, threads, BLOCK,
              (warmup, window) -> FioBound.run(List.of("--directory=" + fioDir, "--rw=write", "--bs=4k", "--size=4m",
                  "--fdatasync=1", "--numjobs=" + threads, "--filename_format=bound.$jobnum"), false, warmup, window)));
        }
      }
    }
    return cells;
  }

  /** Whether a target with batching policy {@code policy} (not the default) runs {@code variant}. */
  static boolean measuresPolicy(String variant, String policy) {
    return variant.equals(DIRSYNC) || (variant.equals("fsync") && policy.equals(FSYNC_PEER));
  }

  /**
   * One slice of {@code dirsync} with {@code threads} threads, each in its own directory under
   * {@code parent}/dirsync (marked {@code chattr +D} when {@code chattr}; else the file system must
   * be mounted dirsync): each operation creates a file and removes it, both durable on return, so
   * the directories are as empty after the window as before it.
   */
  static Cell.Slice dirSyncSlice(Path parent, int threads, boolean chattr, boolean countCommits, Duration warmup,
      Duration window) throws Exception {
    Path top = parent.resolve(DIRSYNC);
    List<TimedRun.Op> ops = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Path dir = top.resolve("t" + i);
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir);
        if (chattr) {
          Host.run(List.of("chattr", "+D", dir.toString()), 60);
        }
      }
      ops.add(seq -> {
        Path f = dir.resolve("f" + seq);
        Files.createFile(f);
        Files.delete(f);
      });
    }
    Commits.Job run = () -> Cell.Slice.of(TimedRun.run(ops, warmup, window, () -> { }, () -> { }));
    return countCommits ? Commits.around(top, run) : run.run();
  }

  /**
   * One slice of {@code variant} with {@code threads} threads in {@code dir}; with {@code
   * countCommits} (an in-process target) the journal's commits over the timed run only, which the
   * verdicts name where ext4j falls short (one commit at a time: how busy it was bounds the rate).
   */
  static Cell.Slice slice(Path dir, String variant, int threads, boolean countCommits, Duration warmup, Duration window)
      throws Exception {
    int files = variant.equals("many-files") ? MANY : 1;
    Set<OpenOption> open = new HashSet<>(List.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING));
    if (variant.equals("osync")) {
      open.add(StandardOpenOption.SYNC);
    } else if (variant.equals("odsync")) {
      open.add(StandardOpenOption.DSYNC);
    }
    boolean force = !variant.equals("osync") && !variant.equals("odsync");
    boolean metaData = !variant.equals("fdatasync") && !variant.equals(OVERWRITE);
    boolean overwrite = variant.equals(OVERWRITE);
    List<FileChannel> opened = new ArrayList<>();
    List<Path> made = new ArrayList<>();
    Throwable failure = null;
    try {
      List<TimedRun.Op> ops = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        FileChannel[] mine = new FileChannel[files];
        for (int j = 0; j < files; j++) {
          Path f = dir.resolve("t" + i + (files > 1 ? "-" + j : ""));
          made.add(f);
          mine[j] = FileChannel.open(f, open);
          opened.add(mine[j]);
          if (overwrite) { // the blocks it overwrites, written and durable before the window
            Channels.writeFully(mine[j], ByteBuffer.allocate(OVERWRITE_BLOCKS * BLOCK), 0);
            mine[j].force(true);
          }
        }
        ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK);
        ops.add(seq -> {
          FileChannel ch = mine[(int) (seq % files)];
          long pos = overwrite ? seq % OVERWRITE_BLOCKS * BLOCK : seq / files * BLOCK;
          buf.clear();
          buf.putLong(0, seq);
          Channels.writeFully(ch, buf, pos);
          if (force) {
            ch.force(metaData);
          }
        });
      }
      Commits.Job run = () -> Cell.Slice.of(TimedRun.run(ops, warmup, window, () -> { }, () -> { }));
      return countCommits ? Commits.around(dir, run) : run.run();
    } catch (Throwable t) {
      failure = t;
      throw t;
    } finally {
      try {
        Channels.closeAll(opened, failure);
      } finally {
        Channels.deleteAll(made, failure); // outside the window: an image holds one slice's appends at most
      }
    }
  }
}
