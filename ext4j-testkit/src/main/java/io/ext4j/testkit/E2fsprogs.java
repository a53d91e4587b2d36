package io.ext4j.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * e2fsprogs (and any other command) as a test oracle, run the way testing.md asks: stdin from
 * {@code /dev/null}, stdout and stderr drained on their own threads while the timeout runs (a tool
 * that fills a pipe nobody reads would otherwise block, and a tool that loops — some badly corrupt
 * images make {@code e2fsck -fn} loop — would block the reader forever), killed when the timeout
 * passes, failing with the command and what it printed so far.
 *
 * <p>A missing tool fails the test ({@link #requireInstalled}): e2fsprogs is a real dependency of
 * the tests (CI installs it), never a reason to skip.
 */
public final class E2fsprogs {
  /** How long an oracle call may take by default. */
  public static final Duration TIMEOUT = Duration.ofSeconds(60);

  private E2fsprogs() {}

  /** A finished command: its exit status and what it printed on each stream. */
  public record Result(int exitCode, String stdout, String stderr) {
    /** stdout then stderr, for messages. */
    public String output() {
      return stdout + stderr;
    }
  }

  /**
   * Runs {@code command} to completion with stdin from {@code /dev/null}; the timeout starts before
   * any output is read, and both streams are drained on separate threads meanwhile.
   *
   * @throws AssertionError if the command cannot start, or is still running after {@code timeout}
   *     (it is killed; the message has the command and its partial output)
   */
  public static Result run(Duration timeout, String... command) {
    Objects.requireNonNull(timeout, "timeout");
    List<String> cmd = List.of(command);
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
    } catch (IOException e) {
      throw new AssertionError("cannot start " + cmd + ": " + e.getMessage(), e);
    }
    Drain out = Drain.start(p.getInputStream(), "stdout of " + command[0]);
    Drain err = Drain.start(p.getErrorStream(), "stderr of " + command[0]);
    boolean finished;
    try {
      finished = p.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted while running " + cmd, e);
    }
    if (!finished) {
      p.destroyForcibly();
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      throw new AssertionError(cmd + " did not finish within " + timeout + " and was killed; it printed:\n"
          + out.soFar() + err.soFar());
    }
    return new Result(p.exitValue(), out.finish(cmd), err.finish(cmd));
  }

  /** {@code e2fsck -fn IMAGE}: check everything, change nothing (exit 0 = clean). */
  public static Result e2fsckForceNoChange(Path image) {
    requireInstalled("e2fsck");
    return run(TIMEOUT, "e2fsck", "-fn", image.toString());
  }

  /** {@code debugfs -R REQUEST IMAGE} (read-only). */
  public static Result debugfs(Path image, String request) {
    requireInstalled("debugfs");
    return run(TIMEOUT, "debugfs", "-R", request, image.toString());
  }

  /**
   * {@code mkfs.ext4 -q -F ARGS IMAGE}: the image must exist at its final size (a sparse file made
   * with {@code setLength}); mkfs takes the size from it.
   *
   * @throws AssertionError if mkfs exits non-zero (with its output)
   */
  public static void mkfs(Path image, String... args) {
    requireInstalled("mkfs.ext4");
    List<String> cmd = new ArrayList<>(List.of("mkfs.ext4", "-q", "-F"));
    cmd.addAll(List.of(args));
    cmd.add(image.toString());
    Result r = run(TIMEOUT, cmd.toArray(String[]::new));
    if (r.exitCode() != 0) {
      throw new AssertionError(cmd + " exited " + r.exitCode() + ":\n" + r.output());
    }
  }

  /**
   * Fails unless {@code tool} is an executable on {@code PATH} or in {@code /sbin}, {@code /usr/sbin}
   * (where Debian puts e2fsprogs).
   *
   * @throws AssertionError naming the tool and how to install it
   */
  public static void requireInstalled(String tool) {
    if (!installed(tool)) {
      throw new AssertionError(tool + " is not installed; the tests use e2fsprogs as their oracle and do not skip"
          + " without it: apt-get install e2fsprogs");
    }
  }

  /** Whether {@code tool} is an executable on {@code PATH} or in the sbin directories. */
  public static boolean installed(String tool) {
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
    dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    for (String d : dirs) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
        return true;
      }
    }
    return false;
  }

  /** Reads a stream to its end on its own thread. */
  private static final class Drain {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(); // guarded by itself
    private final Thread thread;
    private volatile IOException failure; // set by the drain thread before it ends

    private Drain(InputStream in, String name) {
      this.thread = Thread.ofPlatform().name("drain " + name).daemon().unstarted(() -> {
        byte[] buf = new byte[8192];
        try (in) {
          for (int n; (n = in.read(buf)) >= 0; ) {
            synchronized (bytes) {
              bytes.write(buf, 0, n);
            }
          }
        } catch (IOException e) {
          failure = e;
        }
      });
    }

    static Drain start(InputStream in, String name) {
      Drain d = new Drain(in, name);
      d.thread.start();
      return d;
    }

    String soFar() {
      synchronized (bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
      }
    }

    /** Everything, once the process has exited (a child still holding the pipe gets 10 s more). */
    String finish(List<String> cmd) {
      try {
        thread.join(Duration.ofSeconds(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        throw new AssertionError(cmd + " exited but its output did not end (a child process holds it open); so far:\n"
            + soFar());
      }
      if (failure != null) {
        throw new UncheckedIOException("reading the output of " + cmd, failure);
      }
      return soFar();
    }
  }
}
