package io.ext4j.bench.suite;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.mkfs.Geometry;
import io.ext4j.fs.mkfs.Mkfs;
import io.ext4j.fs.mkfs.MkfsParameters;
import io.ext4j.fuse.FuseMount;
import io.ext4j.fuse.FuseOptions;
import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes every target a run compares, each on its own full copy of one base image, and takes them
 * down again. The base image is written through with zeros first (so the host has allocated every
 * block of it, and no target measures the host filling a sparse file) and then formatted by ext4j's
 * mkfs (mkfs.ext4's layout: 4 KiB blocks, its default features, a fixed UUID); the kernel's loop
 * mount and fuse2fs get byte-identical copies. A target that cannot be made here (not root, no
 * /dev/fuse, no fuse2fs) is listed in {@link #skipped()} with the reason, and the run goes on.
 *
 * <p>Made and used by the suite's coordinating thread; {@link #close()} is synchronized, as a
 * shutdown hook (Ctrl-C) may call it too, and the closers list is guarded by this.
 */
public final class Targets implements AutoCloseable {
  private static final byte[] UUID = HexFormat.of().parseHex("3e1f4a2b5c6d4e7f8091a2b3c4d5e6f7");
  private static final Instant MADE = Instant.parse("2026-01-01T00:00:00Z");

  private final List<Target> targets = new ArrayList<>();
  private final Map<String, String> skipped = new LinkedHashMap<>();
  private final List<AutoCloseable> closers = new ArrayList<>(); // this; closed in reverse order
  private final Path work;
  private final boolean keep;
  private final Thread onExit = new Thread(this::closeQuietly, "ext4j-bench-cleanup"); // unmounts on Ctrl-C

  private Targets(Path work, boolean keep) {
    this.work = work;
    this.keep = keep;
  }

  /**
   * Makes the targets under {@code o.work()}: {@code ext4j} with the default batching policy, and with
   * {@code allPolicies} one more in-process target per other policy; then kernel-host, kernel-loop,
   * ext4j-fuse and fuse2fs where this host allows.
   */
  public static Targets setUp(SuiteOptions o, boolean allPolicies, PrintStream log) throws IOException {
    Targets t = new Targets(o.work().toAbsolutePath().normalize(), o.keep());
    Runtime.getRuntime().addShutdownHook(t.onExit);
    try {
      t.make(o, allPolicies, log);
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

  private synchronized void make(SuiteOptions o, boolean allPolicies, PrintStream log) throws IOException {
    if (Files.exists(work)) {
      throw new IOException(work + ": already exists (a previous run's work directory? remove it, or choose another with --work)");
    }
    Files.createDirectories(work);
    closers.add(() -> {
      if (!keep) {
        deleteTree(work);
      }
    });
    Path base = work.resolve("base.img");
    log.printf("bench: making a %d MiB image (%s)%n", o.imageSize() >> 20, base);
    makeBase(base, o.imageSize());

    List<BatchingPolicy> policies = new ArrayList<>();
    policies.add(BatchingPolicies.defaultPolicy());
    if (allPolicies) {
      for (BatchingPolicy p : BatchingPolicies.all()) {
        if (p != BatchingPolicies.defaultPolicy()) {
          policies.add(p);
        }
      }
    }
    for (BatchingPolicy p : policies) {
      boolean dflt = p == BatchingPolicies.defaultPolicy();
      String name = dflt ? Target.EXT4J : Target.EXT4J + "/" + p.name();
      Path img = copy(base, "ext4j-" + p.name() + ".img");
      FileSystem fs = FileSystems.newFileSystem(img, Map.of("batchingPolicy", p.name()));
      closers.add(fs);
      Path dir = Files.createDirectories(fs.getPath("/bench"));
      targets.add(new Target(name, p.name(), dflt, dir, "the engine in-process through the java.nio provider, batching policy "
          + p.name() + (dflt ? " (the default)" : "")));
    }

    Path host = Files.createDirectories(work.resolve("host"));
    targets.add(new Target(Target.HOST, null, false, host, "the kernel's file system of the work directory, straight on the host's device"));

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
      Host.run(List.of("mount", "-o", "loop", img.toString(), mnt.toString()), 60);
      closers.add(() -> Host.run(List.of("umount", mnt.toString()), 120));
      targets.add(new Target(Target.LOOP, null, false, Files.createDirectories(mnt.resolve("bench")),
          "the kernel's ext4 on mount -o loop of an identical image"));
    } catch (IOException e) {
      skipped.put(Target.LOOP, e.getMessage());
    }
    try {
      Path img = copy(base, "fuse.img");
      Path mnt = Files.createDirectories(work.resolve("fuse.mnt"));
      Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults());
      closers.add(fs);
      FuseMount m = FuseMount.mount(fs, img.toString(), mnt, FuseOptions.defaults());
      closers.add(m);
      targets.add(new Target(Target.FUSE, null, false, Files.createDirectories(mnt.resolve("bench")),
          "the engine through its FUSE mount (ext4j mount defaults), in this process"));
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
      targets.add(new Target(Target.FUSE2FS, null, false, Files.createDirectories(mnt.resolve("bench")),
          "e2fsprogs' FUSE ext4 (fuse2fs -o fakeroot) on an identical image"));
    } catch (IOException e) {
      skipped.put(Target.FUSE2FS, e.getMessage());
    }
  }

  /** Zeros written through all of {@code bytes}, then ext4j's mkfs (4 KiB blocks, default features, fixed UUID). */
  static void makeBase(Path base, long bytes) throws IOException {
    long size = bytes / 4096 * 4096;
    try (FileChannel c = FileChannel.open(base, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ByteBuffer zero = ByteBuffer.allocateDirect(1 << 20);
      for (long at = 0; at < size; at += zero.capacity()) {
        zero.clear().limit((int) Math.min(zero.capacity(), size - at));
        while (zero.hasRemaining()) {
          c.write(zero, at + zero.position());
        }
      }
      c.force(true);
    }
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
  public Map<String, String> skipped() {
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
