package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.FsManifest;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Images, tools and assertions of the kernel-parity tests. Tools (e2fsprogs, mount) run with stdin
 * from /dev/null, under a timeout that starts with the process, output drained on their own
 * threads; a missing tool fails the test (CI runs these as root, where every tool is present).
 */
final class KernelImages {
  static final Path ROOT = Path.of("target", "test-images", "kernel");
  static final Duration TIMEOUT = Duration.ofMinutes(2);

  private KernelImages() {}

  /** A fresh, empty directory {@code target/test-images/kernel/<name>}. */
  static Path dir(String name) throws IOException {
    Path d = ROOT.resolve(name);
    if (Files.exists(d)) {
      try (var s = Files.walk(d)) {
        for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    return Files.createDirectories(d);
  }

  /** What a command printed and how it exited; ISO-8859-1 so every byte survives. */
  record Result(List<String> command, int exit, String out, String err) {
    String describe() {
      return command + " exited " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  static Result run(String... command) throws IOException, InterruptedException {
    requireTool(command[0]);
    Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread a = drain(p.getInputStream(), out);
    Thread b = drain(p.getErrorStream(), err);
    boolean done = p.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    if (!done) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    a.join(10_000);
    b.join(10_000);
    Result r = new Result(List.of(command), done ? p.exitValue() : -1, out.toString(StandardCharsets.ISO_8859_1),
        err.toString(StandardCharsets.ISO_8859_1));
    assertThat(done).as("%s finished within %s; so far:%n%s", r.command(), TIMEOUT, r.describe()).isTrue();
    return r;
  }

  static String runOk(String... command) throws IOException, InterruptedException {
    Result r = run(command);
    assertThat(r.exit()).as("exit status; %s", r.describe()).isZero();
    return r.out();
  }

  private static Thread drain(InputStream in, ByteArrayOutputStream to) {
    return Thread.ofPlatform().daemon().start(() -> {
      try (in) {
        in.transferTo(to); // ByteArrayOutputStream is synchronized; read after join
      } catch (IOException ignored) {
        // the process died; what it printed so far is what there is
      }
    });
  }

  /** Fails the test unless {@code tool} is an executable in a system directory. */
  static void requireTool(String tool) {
    for (String d : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      if (Files.isExecutable(Path.of(d, tool))) {
        return;
      }
    }
    throw new AssertionError(tool + " is not installed; this oracle test needs it (e2fsprogs 1.47, util-linux)");
  }

  /**
   * A read-write open whose reads leave access times alone (as a {@code noatime} mount): the
   * fixtures' manifests were taken on read-only or noatime mounts, so the engine's view compares
   * with them only when the test's own reads record nothing.
   */
  static final io.ext4j.fs.Ext4Options READ_WRITE_NOATIME =
      io.ext4j.fs.Ext4Options.builder().atime(io.ext4j.fs.AtimeUpdates.NOATIME).build();

  /**
   * Opens {@code img} with ext4j read-only ({@link io.ext4j.fs.Ext4Options#readOnly()}) on a device
   * opened read-only too, so a write would fail; callers also compare the image's bytes.
   */
  static io.ext4j.fs.Ext4FileSystem openReadOnly(Path img, int blockSize) throws IOException {
    var dev = io.ext4j.block.FileBlockDevice.open(img, blockSize, io.ext4j.block.FileBlockDevice.Options.defaults().withReadOnly(true));
    try {
      return io.ext4j.fs.Ext4FileSystem.open(dev, io.ext4j.fs.Ext4Options.builder().readOnly(true).build(), true);
    } catch (IOException | RuntimeException e) {
      dev.close();
      throw e;
    }
  }

  /** The statfs numbers ext4j and the kernel both give: all of them (bavail included, reserved clusters withheld). */
  static FsManifest comparable(FsManifest m) {
    return m;
  }

  /** The file of the orphans fixtures whose truncate the recovery finishes. */
  static final String HALF_TRUNCATED = "/orphans/half-truncated";

  /**
   * An orphans fixture's manifest without what only the kernel's own recovery decides: finishing
   * the truncate of {@link #HALF_TRUNCATED}, the kernel stamps its mtime and ctime with the time of
   * the mount (ext4_truncate sets them), where ext4j, like e2fsck, keeps the inode's.
   */
  static FsManifest withoutRecoveryTimes(FsManifest m) {
    return m.withoutAt(HALF_TRUNCATED, "mtime", "ctime");
  }

  /** Copies an image, leaving out (as holes) its 4 KiB runs of zeros. */
  static void copySparse(Path from, Path to) throws IOException {
    Files.deleteIfExists(to);
    try (var in = java.nio.channels.FileChannel.open(from);
        var out = java.nio.channels.FileChannel.open(to, java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(4096);
      long size = in.size();
      for (long at = 0; at < size; at += 4096) {
        buf.clear();
        while (buf.hasRemaining() && in.read(buf, at + buf.position()) > 0) {
          // read the whole chunk
        }
        buf.flip();
        boolean zero = true;
        for (int i = 0; i < buf.limit() && zero; i++) {
          zero = buf.get(i) == 0;
        }
        if (!zero) {
          out.write(buf, at);
        }
      }
      if (out.size() < size) {
        out.write(java.nio.ByteBuffer.allocate(1), size - 1);
      }
    }
  }

  /**
   * Writes files {@code f0 … f<files-1>} of 1 to {@code maxBytes} random bytes into {@code dir}
   * (on a kernel mount), each fsynced once written, so that the journal holds them.
   */
  static void writeFsynced(Path dir, int files, int maxBytes, java.util.SplittableRandom r) throws IOException {
    for (int i = 0; i < files; i++) {
      byte[] data = new byte[1 + r.nextInt(maxBytes)];
      r.nextBytes(data);
      Path f = dir.resolve("f" + i);
      Files.write(f, data);
      try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.WRITE)) {
        c.force(true);
      }
    }
  }

  /** {@code mkfs.ext4 -q -F -b BS [options] img} on a sparse file of {@code mib} MiB. */
  static Path mkfs(Path img, int mib, int blockSize, String... options) {
    List<String> args = new ArrayList<>(List.of("-b", Integer.toString(blockSize)));
    args.addAll(List.of(options));
    return io.ext4j.testkit.E2fsprogs.mkfsSparse(img, mib, args.toArray(String[]::new));
  }

  /** {@code e2fsck -fn}: must exit 0 and print nothing but its pass headers and summary. */
  static void assertE2fsckClean(Path img, String when) throws IOException, InterruptedException {
    assertE2fsckCleanBut(img, List.of(), when);
  }

  /**
   * {@code e2fsck -fn} must exit 0 and print nothing but its pass headers, its summary and the
   * messages {@code allowed} (whole lines), and returns what it printed beyond the headers.
   */
  static List<String> assertE2fsckCleanBut(Path img, List<String> allowed, String when)
      throws IOException, InterruptedException {
    Result r = run("e2fsck", "-fn", img.toString());
    List<String> said = io.ext4j.testkit.E2fsprogs.e2fsckMessages(r.out());
    assertThat(said.stream().filter(l -> !allowed.contains(l)).toList()).as("e2fsck -fn messages %s; %s", when,
        r.describe()).isEmpty();
    assertThat(r.exit()).as("e2fsck -fn exit %s; %s", when, r.describe()).isZero();
    return said;
  }

  /**
   * What e2fsck -fn says of an extent tree the kernel left unbalanced: the kernel does not merge
   * index blocks after a truncate or after filling holes, and e2fsck offers to ("could be
   * narrower", "could be shorter"; exit status 0).
   */
  static List<String> kernelsExtentTreeOptimizations(Path img) throws IOException, InterruptedException {
    Result r = run("e2fsck", "-fn", img.toString());
    List<String> out = new java.util.ArrayList<>();
    for (String l : r.out().lines().toList()) {
      if (l.matches("Inode \\d+ extent tree \\(at level \\d+\\) could be (narrower|shorter)\\.  Optimize\\? no")) {
        out.add(l);
      }
    }
    return out;
  }

  /**
   * Asserts {@code actual} is {@code expected}; on a difference writes both next to {@code img}
   * ({@code .expected.manifest}, {@code .actual.manifest}) and fails with the first differences.
   */
  static void assertSame(FsManifest expected, FsManifest actual, Path img, String what) {
    List<String> diff = expected.differences(actual, 40);
    if (!diff.isEmpty()) {
      expected.writeTo(img.resolveSibling(img.getFileName() + ".expected.manifest"));
      actual.writeTo(img.resolveSibling(img.getFileName() + ".actual.manifest"));
      throw new AssertionError(what + ": " + diff.size() + "+ differences (manifests written next to " + img + "):\n  "
          + String.join("\n  ", diff));
    }
    assertThat(actual.size()).as("%s: names", what).isEqualTo(expected.size());
  }
}
