package io.ext4j.bench.suite;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.bench.ZeroFiles;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.tools.mkfs.Geometry;
import io.ext4j.tools.mkfs.Mkfs;
import io.ext4j.tools.mkfs.MkfsParameters;
import io.ext4j.fuse.FuseMount;
import io.ext4j.fuse.FuseOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes every target one scenario compares, each on its own full copy of one base image, and takes
 * them down again. The base image is written through with zeros first (so the host has allocated every
 * block of it, and no target measures the host filling a sparse file) and then formatted by ext4j's
 * mkfs (mkfs.ext4's layout: 4 KiB blocks, its default features, a fixed UUID); the kernel's loop
 * mount and fuse2fs get byte-identical copies. With {@code direct} (the {@code dio} scenario) every
 * image-backed target but fuse2fs reads and writes its image with O_DIRECT — the engine's
 * {@code directDevice}, the loop device's {@code --direct-io=on} — so direct I/O is direct down to the
 * host's disk, as fio's O_DIRECT bound is. With {@code dirSync} (the {@code fsync} scenario) the
 * engines and the loop mount are mounted {@code dirsync}. A target that cannot be made here (not root, no
 * /dev/fuse, no fuse2fs) is listed in {@link #skipped()} with the reason, and the run goes on.
 *
 * <p>Made and used by the suite's coordinating thread; {@link #close()} is synchronized, as a
 * shutdown hook (Ctrl-C) may call it too, and the closers list is guarded by this.
 */
public final class Targets implements AutoCloseable {
  private static final byte[] UUID = HexFormat.of().parseHex("3e1f4a2b5c6d4e7f8091a2b3c4d5e6f7");
  private static final Instant MADE = Instant.parse("2026-01-01T00:00:00Z");
  private static final String BASE = "base.img";

  private final List<Target> targets = new ArrayList<>();
  @GuardedBy("this") private final Map<String, String> skipped = new LinkedHashMap<>();
  @GuardedBy("this") private final List<AutoCloseable> closers = new ArrayList<>(); // closed in reverse order
  private final Path work;
  private final boolean keep;
  private final Thread onExit = new Thread(this::closeQuietly, "ext4j-bench-cleanup"); // unmounts on Ctrl-C

  private Targets(Path work, boolean keep) {
    this.work = work;
    this.keep = keep;
  }

  /**
   * Makes the targets in {@code dir} (a new directory; removed again by {@link #close()} unless {@code keep}):
   * {@code ext4j} with every strategy at its default, one more in-process target per value of
   * {@code knobs} (provider option → values other than its default), then kernel-host, kernel-loop,
   * ext4j-fuse and fuse2fs where this host allows; {@code scenario}'s {@link Scenario#knobs()}, {@link
   * Scenario#direct()} and {@link Scenario#dirSync()} say which and how.
   */
  static Targets setUp(Path dir, long imageSize, Scenario scenario, boolean keep, PrintStream log) throws IOException {
    Targets t = new Targets(dir.toAbsolutePath().normalize(), keep);
    Runtime.getRuntime().addShutdownHook(t.onExit);
    try {
      t.make(imageSize, scenario, log);
      return t;
    } catch (IOException | RuntimeException e) {
      try {
        t.close();
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private synchronized void make(long imageSize, Scenario scenario, PrintStream log) throws IOException {
    boolean direct = scenario.direct();
    boolean dirSync = scenario.dirSync();
    makeWork();
    Path base = work.resolve(BASE);
    log.printf("bench: making a %d MiB image (%s)%n", imageSize >> 20, base);
    makeBase(base, imageSize);

    List<String[]> inProcess = new ArrayList<>();
    inProcess.add(new String[] {null, null});
    scenario.knobs().forEach((knob, values) -> values.forEach(v -> inProcess.add(new String[] {knob, v})));
    for (String[] k : inProcess) {
      try {
        addInProcess(base, k[0], k[1], scenario);
      } catch (IOException | UnsupportedOperationException e) {
        if (!direct) {
          throw e;
        }
        // O_DIRECT is not for every host file system (tmpfs, some others): the report says so
        skipped.put(k[0] == null ? Target.EXT4J : Target.EXT4J + "/" + Scenario.label(k[0], k[1]), "the image cannot be opened O_DIRECT here: " + e.getMessage());
      }
    }

    Path host = Files.createDirectories(work.resolve("host"));
    targets.add(new Target(Target.HOST, null, null, false, host, "the kernel's file system of the work directory, straight on the host's device"
        + (dirSync ? " (a dirsync variant's directory marked chattr +D)" : "")));

    String root = Host.isLinux() ? (Host.isRoot() ? null : "needs root (mount -o loop, /dev/fuse)") : "needs Linux";
    if (root != null) {
      skipped.put(Target.LOOP, root);
      skipped.put(Target.FUSE, root);
      skipped.put(Target.FUSE2FS, root);
      return;
    }
    try {
      Path img = copy(base, "loop.img");
      Path mnt = Files.createDirectories(work.resolve("loop.mnt"));
      String dev = Host.run(List.of("losetup", "--find", "--show", "--direct-io=" + (direct ? "on" : "off"), img.toString()), 60)
          .strip();
      closers.add(() -> Host.run(List.of("losetup", "-d", dev), 60));
      Host.run(dirSync ? List.of("mount", "-o", "dirsync", dev, mnt.toString()) : List.of("mount", dev, mnt.toString()), 60);
      closers.add(() -> Host.run(List.of("umount", mnt.toString()), 120));
      targets.add(new Target(Target.LOOP, null, null, false, Files.createDirectories(mnt.resolve("bench")),
          "the kernel's ext4 on a loop device (" + dev + ", direct-io " + (direct ? "on" : "off") + ") of an identical image"
              + (dirSync ? ", mounted dirsync" : "")));
    } catch (IOException e) {
      skipped.put(Target.LOOP, e.getMessage());
    }
    try {
      Path img = copy(base, "fuse.img");
      Path mnt = Files.createDirectories(work.resolve("fuse.mnt"));
      Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().directDevice(direct).dirSync(dirSync).build());
      closers.add(fs);
      FuseMount m = FuseMount.mount(fs, img.toString(), mnt, FuseOptions.defaults());
      closers.add(m);
      targets.add(new Target(Target.FUSE, null, null, false, Files.createDirectories(mnt.resolve("bench")),
          "the engine through its FUSE mount (ext4j mount defaults" + (direct ? ", image opened O_DIRECT" : "")
              + (dirSync ? ", engine mounted dirsync" : "") + "), in this process"));
    } catch (IOException e) {
      skipped.put(Target.FUSE, e.getMessage());
    }
    if (!Host.has("fuse2fs")) {
      skipped.put(Target.FUSE2FS, "fuse2fs is not installed");
      return;
    }
    try {
      Path img = copy(base, "fuse2fs.img");
      Path mnt = Files.createDirectories(work.resolve("fuse2fs.mnt"));
      Host.run(List.of("fuse2fs", img.toString(), mnt.toString(), "-o", "fakeroot"), 60);
      closers.add(() -> Host.run(List.of("umount", mnt.toString()), 120));
      if (!Host.isMountPoint(mnt)) {
        throw new IOException("fuse2fs " + img + ": exited without mounting " + mnt);
      }
      targets.add(new Target(Target.FUSE2FS, null, null, false, Files.createDirectories(mnt.resolve("bench")),
          "e2fsprogs' FUSE ext4 (fuse2fs -o fakeroot) on an identical image" + (direct ? " (its image I/O buffered by the host)" : "")));
    } catch (IOException e) {
      skipped.put(Target.FUSE2FS, e.getMessage());
    }
  }

  /**
   * An in-process target on its own copy of the base image: every strategy at its default, or
   * {@code knob} set to {@code value} (the provider options {@link Scenario#knobEnv}); opened with
   * {@code scenario}'s {@link Scenario#engineEnv}.
   */
  @GuardedBy("this")
  private void addInProcess(Path base, String knob, String value, Scenario scenario) throws IOException {
    String label = knob == null ? null : Scenario.label(knob, value);
    String name = knob == null ? Target.EXT4J : Target.EXT4J + "/" + label;
    Path img = copy(base, (knob == null ? "ext4j" : "ext4j-" + label) + ".img");
    Map<String, Object> env = new LinkedHashMap<>(Scenario.engineEnv(scenario));
    if (knob != null) {
      env.putAll(Scenario.knobEnv(knob, value));
    }
    FileSystem fs = FileSystems.newFileSystem(img, env);
    closers.add(fs);
    Path dir = Files.createDirectories(fs.getPath("/bench"));
    String how = knob == null ? "the engine in-process through the java.nio provider, every strategy at its default"
        : "the same with " + knob + "=" + value;
    targets.add(new Target(name, knob, value, true, dir, how + (scenario.direct() ? ", image opened O_DIRECT" : "")
        + (scenario.dirSync() ? ", mounted dirsync" : "")));
  }

  /**
   * No targets, only the directory {@code dir} (made now, removed by {@link #close()} unless
   * {@code keep}), for a scenario that runs its own tools ({@code populate}).
   */
  public static Targets bare(Path dir, boolean keep) throws IOException {
    Targets t = new Targets(dir.toAbsolutePath().normalize(), keep);
    t.makeWork();
    return t;
  }

  /** Makes the work directory; the last thing {@link #close()} does is remove it, unless kept. */
  private synchronized void makeWork() throws IOException {
    Files.createDirectories(work);
    closers.add(() -> {
      if (!keep) {
        deleteTree(work);
      }
    });
  }

  /**
   * Only {@code targets}, already made, in {@code work} (which this does not remove): for the memory
   * probe, whose JVM makes its own.
   */
  static Targets listing(Path work, List<Target> targets) {
    Targets t = new Targets(work, true);
    t.targets.addAll(targets);
    return t;
  }

  /** The base image every target's image is a copy of, null for {@link #bare} targets. */
  Path base() {
    Path base = work.resolve(BASE);
    return Files.exists(base) ? base : null;
  }

  /** The directory the targets live in. */
  public Path work() {
    return work;
  }

  /** Records that {@code name} cannot run here, and why. */
  public synchronized void skip(String name, String why) {
    skipped.putIfAbsent(name, why);
  }

  /** Zeros written through all of {@code bytes}, then ext4j's mkfs (4 KiB blocks, default features, fixed UUID). */
  static void makeBase(Path base, long bytes) throws IOException {
    long size = bytes / 4096 * 4096;
    ZeroFiles.create(base, size);
    Geometry g = Geometry.of(MkfsParameters.builder().sizeBytes(size).blockSize(4096).build());
    try (FileBlockDevice dev = FileBlockDevice.open(base, 4096)) {
      Mkfs.format(dev, g, Mkfs.Identity.reproducible(UUID, MADE), true);
      dev.flush();
    }
  }

  private Path copy(Path base, String name) throws IOException {
    Path img = work.resolve(name);
    Files.copy(base, img);
    return img;
  }

  /** The targets made, in report order. */
  public List<Target> list() {
    return List.copyOf(targets);
  }

  /** Targets that could not be made here, with the reason. */
  public synchronized Map<String, String> skipped() {
    return java.util.Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
  }

  /** Closes and unmounts every target (in reverse order of making), then removes the work directory unless kept. */
  @Override
  public synchronized void close() throws IOException {
    try {
      Runtime.getRuntime().removeShutdownHook(onExit);
    } catch (IllegalStateException e) {
      // already shutting down: the hook is what called us
    }
    IOException first = null;
    for (int i = closers.size() - 1; i >= 0; i--) {
      try {
        closers.get(i).close();
      } catch (Exception e) {
        IOException io = e instanceof IOException x ? x : new IOException(e.toString(), e);
        if (first == null) {
          first = io;
        } else {
          first.addSuppressed(io);
        }
      }
    }
    closers.clear();
    if (first != null) {
      throw first;
    }
  }

  private void closeQuietly() {
    try {
      close();
    } catch (IOException | RuntimeException e) {
      System.err.println("ext4j bench: cleaning up " + work + ": " + e.getMessage());
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var s = Files.walk(dir)) {
      for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
