package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * e2fsprogs and coreutils as oracles for the CLI tests. A missing tool fails the test (an oracle that
 * skips proves nothing). Every command runs with stdin from /dev/null, under a timeout started with
 * it, its output drained on its own threads, and TZ set to the JVM's zone so that times print alike.
 */
final class Tools {
  static final long TIMEOUT_SECONDS = 120;

  private Tools() {}

  record Result(List<String> command, int exit, String out, String err) {
    String describe() {
      return command + " exited " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  static String require(String tool) {
    for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return dir + "/" + tool;
      }
    }
    throw new AssertionError(tool + " is not installed; this oracle test needs it (apt-get install e2fsprogs coreutils)");
  }

  static Result run(String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(command));
    cmd.set(0, require(command[0]));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    Map<String, String> env = pb.environment();
    env.put("TZ", ZoneId.systemDefault().getId());
    env.put("LC_ALL", "C");
    Process p = pb.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread a = drain(p.getInputStream(), out);
    Thread b = drain(p.getErrorStream(), err);
    boolean done = p.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    if (!done) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    a.join(5000);
    b.join(5000);
    Result r = new Result(List.of(command), done ? p.exitValue() : -1, out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8));
    assertThat(done).as("%s finished within %d s; %s", r.command(), TIMEOUT_SECONDS, r.describe()).isTrue();
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
        in.transferTo(to);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
  }

  /** A fresh sparse image of {@code mib} MiB made by {@code mkfs.ext4 -q -F [options]}. */
  static Path mkfs(Path img, int mib, String... options) throws IOException, InterruptedException {
    Files.createDirectories(img.getParent());
    Files.deleteIfExists(img);
    try (var f = new java.io.RandomAccessFile(img.toFile(), "rw")) {
      f.setLength((long) mib << 20);
    }
    List<String> cmd = new ArrayList<>(List.of("mkfs.ext4", "-q", "-F"));
    cmd.addAll(List.of(options));
    cmd.add(img.toString());
    runOk(cmd.toArray(String[]::new));
    return img;
  }

  /** {@code e2fsck -fn}: exit 0 and nothing but the pass headers and the summary. */
  static void assertE2fsckClean(Path img) throws IOException, InterruptedException {
    Result r = run("e2fsck", "-fn", img.toString());
    assertThat(r.exit()).as("e2fsck -fn exit status; %s", r.describe()).isZero();
    assertThat(r.out().lines().filter(l -> !l.startsWith("Pass ") && !l.matches(".*: \\d+/\\d+ files \\(.*") && !l.isBlank()))
        .as("e2fsck -fn messages; %s", r.describe()).isEmpty();
  }

  /** {@code debugfs -R REQUEST IMAGE}'s standard output. */
  static String debugfs(Path img, String request) throws IOException, InterruptedException {
    return runOk("debugfs", "-R", request, img.toString());
  }

  /** Allocated 512-byte blocks of a host file ({@code stat -c %b}). */
  static long allocatedBlocks(Path p) throws IOException, InterruptedException {
    return Long.parseLong(runOk("stat", "-c", "%b", p.toString()).strip());
  }
}
