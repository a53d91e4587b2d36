package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * e2fsprogs (and mount) as oracles for the codec tests. A missing tool fails the test — an oracle
 * test that silently skips proves nothing. Every command runs with stdin from /dev/null, under a
 * timeout that starts when it starts, with stdout and stderr drained by their own threads.
 */
final class Tools {
  static final Duration TIMEOUT = Duration.ofSeconds(60);
  static final Path DIR = Path.of("target", "test-images", "codecs");

  private Tools() {}

  /** What a command printed and its exit status; ISO-8859-1 so that every byte survives. */
  record Result(List<String> command, int exit, String stdout, String stderr) {
    String describe() {
      return command + " exited " + exit + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  /** Fails the test unless {@code tool} is an executable in one of the system directories. */
  static Path require(String tool) {
    for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      Path p = Path.of(dir, tool);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    throw new AssertionError(tool + " is not installed; this oracle test needs it (e2fsprogs 1.47.0)");
  }

  /** Runs {@code command} to completion, or fails the test when it outlives {@link #TIMEOUT}. */
  static Result run(String... command) throws IOException, InterruptedException {
    require(command[0]);
    Process p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    Drain out = new Drain(p.getInputStream());
    Drain err = new Drain(p.getErrorStream());
    boolean finished = p.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    if (!finished) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    out.thread.join(TimeUnit.NANOSECONDS.toMillis(Math.max(deadline - System.nanoTime(), 0)) + 1000);
    err.thread.join(1000);
    Result r = new Result(List.of(command), finished ? p.exitValue() : -1, out.text(), err.text());
    assertThat(finished).as("%s finished within %s; so far:%n%s", r.command(), TIMEOUT, r.describe()).isTrue();
    return r;
  }

  /** Runs a command that must exit 0; returns its stdout. */
  static String runOk(String... command) throws IOException, InterruptedException {
    Result r = run(command);
    assertThat(r.exit()).as("exit status; %s", r.describe()).isZero();
    return r.stdout();
  }

  /**
   * Runs {@code debugfs [-w] -f <file> image} with the commands written raw (ISO-8859-1, so names may
   * hold any byte but whitespace and quotes) to a command file; returns the result.
   */
  static Result debugfs(Path image, boolean write, List<String> commands) throws IOException, InterruptedException {
    Path cmdFile = Files.createTempFile(DIR, "debugfs", ".cmd");
    try {
      Files.writeString(cmdFile, String.join("\n", commands) + "\n", StandardCharsets.ISO_8859_1);
      List<String> cmd = new ArrayList<>(List.of("debugfs"));
      if (write) {
        cmd.add("-w");
      }
      cmd.addAll(List.of("-f", cmdFile.toString(), image.toString()));
      Result r = run(cmd.toArray(String[]::new));
      assertThat(r.exit()).as("debugfs exit status; %s", r.describe()).isZero();
      return r;
    } finally {
      Files.deleteIfExists(cmdFile);
    }
  }

  /** A fresh image of {@code mib} MiB: {@code mkfs.ext4 -q -F <options> target/test-images/codecs/<name>.img}. */
  static Path mkfs(String name, int mib, String... options) {
    return io.ext4j.testkit.E2fsprogs.mkfsSparse(DIR.resolve(name + ".img"), mib, options);
  }

  /** {@code e2fsck -fn image}: must exit 0 and print no problem. */
  static void assertE2fsckClean(Path image) throws IOException, InterruptedException {
    Result r = run("e2fsck", "-fn", image.toString());
    assertThat(r.exit()).as("e2fsck -fn exit status; %s", r.describe()).isZero();
    assertThat(io.ext4j.testkit.E2fsprogs.e2fsckMessages(r.stdout()))
        .as("e2fsck -fn output beyond the pass headers and summary; %s", r.describe())
        .isEmpty();
  }

  private static final class Drain {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final Thread thread;
    private volatile IOException failure; // written by the drain thread before it ends; read after join

    Drain(InputStream in) {
      thread = Thread.ofPlatform().daemon().start(() -> {
        try (in) {
          in.transferTo(bytes); // ByteArrayOutputStream is synchronized; toString after join
        } catch (IOException e) {
          failure = e;
        }
      });
    }

    String text() {
      if (failure != null) {
        throw new UncheckedIOException("reading the tool's output", failure);
      }
      return bytes.toString(StandardCharsets.ISO_8859_1);
    }
  }
}
