package io.ext4j.bench.suite;

import io.ext4j.fs.Caller;
import io.ext4j.tools.mkfs.MakeImage;
import io.ext4j.tools.mkfs.Mkfs;
import io.ext4j.tools.mkfs.MkfsParameters;
import io.ext4j.tools.populate.HostDirectory;
import io.ext4j.tools.populate.Populator;
import io.ext4j.tools.populate.ReadAhead;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code populate} scenario: a new image filled from a host tree, three ways — ext4j's
 * {@code mkfs -d} in this process, e2fsprogs' {@code mke2fs -d}, and the kernel's {@code cp -a} into
 * a loop mount of an empty image (mount, copy, unmount: the unmount writes everything back). The
 * tree ({@value #DIRS} directories of {@value #FILES_PER_DIR} files of 0–8 KiB, and {@value #BIG}
 * files of 4 MiB, from a fixed seed) is made once in the work directory. Each slice runs each job
 * once from scratch; the rate is entries per second of that run (the warmup does not apply). ext4j
 * runs warmed, as in every scenario: its job is first run unmeasured for {@link #jitWarmup}. Its
 * host tree is read a bounded distance ahead on a thread of its own ({@link ReadAhead}), as
 * {@code ext4j mkfs -d} reads it.
 */
final class PopulateScenario implements Scenario {
  static final String NAME = "populate";
  static final String VARIANT = "mkfs-d";
  static final String MKE2FS = "mke2fs";
  static final int DIRS = 20;
  static final int FILES_PER_DIR = 250;
  static final int BIG = 5;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean needsTargets() {
    return false;
  }

  /**
   * Unmeasured runs for 15 windows, at most 6 s (the smoke test's 100 ms windows: 1.5 s). One run is
   * a few hundred milliseconds of code the JIT has not seen yet: in one JVM the first run took
   * 840 ms, the tenth 190, the twentieth 140; with 3 s here ext4j ÷ mke2fs read 1.02, with 6 s 1.05
   * and 1.16.
   */
  @Override
  public java.time.Duration jitWarmup(SuiteOptions o) {
    return java.time.Duration.ofMillis(Math.min(6000, 15 * o.window().toMillis()));
  }

  @Override
  public Map<String, List<String>> knobs() {
    return Map.of();
  }

  @Override
  public List<Cell> plan(Targets targets, SuiteOptions o, Path scratch) throws IOException {
    Path dir = targets.work();
    Path tree = Files.createDirectories(dir.resolve("tree"));
    long entries = makeTree(tree);
    Path img = dir.resolve("populate.img");
    long size = o.imageSize();
    List<Cell> cells = new ArrayList<>();
    cells.add(new Cell(NAME, VARIANT, Target.EXT4J, null, false, 1, 0, (warmup, window) -> timed(entries, () -> {
      MkfsParameters p = MkfsParameters.builder().sizeBytes(size).blockSize(4096).build();
      MakeImage.make(img, p, Mkfs.Identity.random(Instant.now()), new ReadAhead(new HostDirectory(tree)),
          new Populator.Options(null, true, Caller.ROOT, (e, b) -> { }), false);
    })));
    if (Host.has(MKE2FS)) {
      cells.add(new Cell(NAME, VARIANT, MKE2FS, null, false, 1, 0, (warmup, window) -> timed(entries, () -> {
        Files.deleteIfExists(img);
        Host.run(List.of(MKE2FS, "-q", "-F", "-t", "ext4", "-b", "4096", "-d", tree.toString(), img.toString(),
            (size >> 10) + "k"), 600);
      })));
    } else {
      targets.skip(MKE2FS, "mke2fs is not installed");
    }
    if (Host.isRoot()) {
      Path mnt = Files.createDirectories(dir.resolve("loop.mnt"));
      cells.add(new Cell(NAME, VARIANT, Target.LOOP, null, false, 1, 0, (warmup, window) -> {
        Files.deleteIfExists(img);
        MkfsParameters p = MkfsParameters.builder().sizeBytes(size).blockSize(4096).build();
        MakeImage.make(img, p, Mkfs.Identity.random(Instant.now()), null, null, false); // the empty image is not timed
        return timed(entries, () -> {
          Host.run(List.of("mount", "-o", "loop", img.toString(), mnt.toString()), 60);
          try {
            Host.run(List.of("cp", "-a", tree + "/.", mnt.toString()), 600);
          } finally {
            Host.run(List.of("umount", mnt.toString()), 600);
          }
        });
      }));
    } else {
      targets.skip(Target.LOOP, Host.isLinux() ? "needs root (mount -o loop)" : "needs Linux");
    }
    return cells;
  }

  private interface Job {
    void run() throws IOException;
  }

  /** One run of {@code job}: its entries over its wall time. */
  private static Cell.Slice timed(long entries, Job job) throws IOException {
    long t0 = System.nanoTime();
    job.run();
    long t = Math.max(1, System.nanoTime() - t0);
    return new Cell.Slice(entries, t, null, t / 1000.0);
  }

  /** The tree; returns its entries (directories, files) below the root, as cp -a and mkfs -d count them. */
  static long makeTree(Path root) throws IOException {
    SplittableRandom rnd = new SplittableRandom(2026);
    byte[] buf = new byte[8192];
    long entries = 0;
    for (int d = 0; d < DIRS; d++) {
      Path dir = Files.createDirectories(root.resolve("d" + d));
      entries++;
      for (int f = 0; f < FILES_PER_DIR; f++) {
        rnd.nextBytes(buf);
        Files.write(dir.resolve("f" + f), java.util.Arrays.copyOf(buf, rnd.nextInt(buf.length + 1)));
        entries++;
      }
    }
    ByteBuffer big = ByteBuffer.allocateDirect(1 << 20);
    for (int b = 0; b < BIG; b++) {
      try (FileChannel c = FileChannel.open(root.resolve("big" + b), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        for (int m = 0; m < 4; m++) {
          big.clear();
          big.putLong(0, ((long) b << 32) | m);
          while (big.hasRemaining()) {
            c.write(big);
          }
        }
      }
      entries++;
    }
    return entries;
  }
}
