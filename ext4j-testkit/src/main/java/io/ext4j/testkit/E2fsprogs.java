package io.ext4j.testkit;

import java.io.IOException;
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
 * {@code /dev/null}, output to files rather than pipes (a tool that fills a pipe nobody reads would
 * block, and a tool that loops — some badly corrupt images make {@code e2fsck -fn} loop — would
 * block a reader forever), killed when the timeout passes, failing with the command and what it
 * printed so far.
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
   * Runs {@code command} to completion with stdin from {@code /dev/null} and stdout and stderr going
   * to temporary files (no pipe can fill, and nothing — not even a stray child keeping a pipe open —
   * can hold the caller after the command exits); the files are read once it has exited.
   *
   * @throws AssertionError if the command cannot start, or is still running after {@code timeout}
   *     (it is killed; the message has the command and its partial output)
   */
  public static Result run(Duration timeout, String... command) {
    Result r = runOrKill(timeout, command);
    if (r.exitCode() == KILLED) {
      throw new AssertionError(List.of(command) + " did not finish within " + timeout + " and was killed; it printed:\n" + r.output());
    }
    return r;
  }

  /** The exit code {@link #runOrKill} reports for a command it had to kill. */
  public static final int KILLED = -1;

  /**
   * As {@link #run(Duration, String...)}, but a command still running after {@code timeout} is killed
   * and reported with exit code {@link #KILLED} and what it printed so far, for tests that expect a
   * tool to loop on some inputs.
   */
  public static Result runOrKill(Duration timeout, String... command) {
    return runOrKill(timeout, java.util.Map.of(), command);
  }

  /** As {@link #runOrKill(Duration, String...)} with {@code env} added to the command's environment. */
  public static Result runOrKill(Duration timeout, java.util.Map<String, String> env, String... command) {
    Objects.requireNonNull(timeout, "timeout");
    List<String> cmd = List.of(command);
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("ext4j-tool-", ".out");
      err = Files.createTempFile("ext4j-tool-", ".err");
      Process p;
      try {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        p = pb.start();
      } catch (IOException e) {
        throw new AssertionError("cannot start " + cmd + ": " + e.getMessage(), e);
      }
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
        return new Result(KILLED, read(out), read(err));
      }
      return new Result(p.exitValue(), read(out), read(err));
    } catch (IOException e) {
      throw new UncheckedIOException("running " + cmd, e);
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  private static String read(Path file) throws IOException {
    return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
  }

  private static void deleteQuietly(Path file) {
    if (file != null) {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // a leftover temporary file in java.io.tmpdir; the result stands
      }
    }
  }

  /**
   * Whether an e2fsck output line is its note that a superblock time is ahead of the host's clock by
   * less than a day, which it accepts without a change ("in the future", then "(by less than a
   * day, probably due to the hardware clock being incorrectly set)"): it appears when the host's
   * clock steps back between the engine's write and the check, as a virtual machine's may; it says
   * nothing about the image (a time a day or more ahead gets another message, not matched here).
   */
  public static boolean clockNote(String line) {
    return line.matches("Superblock last (write|mount) time is in the future\\.")
        || line.strip().equals("(by less than a day, probably due to the hardware clock being incorrectly set)");
  }

  /**
   * What e2fsck said about the file system in {@code stdout}: every line but its pass headers, its
   * summary ("NAME: 11/2048 files (0.0% non-contiguous), ..."), blank lines and the {@link
   * #clockNote}. Empty for a clean check.
   */
  public static List<String> e2fsckMessages(String stdout) {
    return stdout.lines().filter(l -> !l.isBlank() && !l.startsWith("Pass ") && !clockNote(l) && !l.matches(".*: \\d+/\\d+ files \\(.*"))
        .toList();
  }

  /**
   * {@code e2fsck -fn IMAGE} must exit 0 and say nothing beyond {@link #e2fsckMessages}'s filter.
   *
   * @param when what the image is, for the failure message (may be empty)
   * @throws AssertionError with the exit status and e2fsck's whole output otherwise
   */
  public static void assertE2fsckClean(Path image, String when) {
    Result r = e2fsckForceNoChange(image);
    List<String> said = e2fsckMessages(r.stdout());
    if (r.exitCode() != 0 || !said.isEmpty()) {
      throw new AssertionError("e2fsck -fn " + image + (when.isEmpty() ? "" : " (" + when + ")") + " exited " + r.exitCode()
          + (said.isEmpty() ? "" : " with " + said.size() + " message(s)") + "; it printed:\n" + r.output());
    }
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
   * A fresh sparse file of {@code mib} MiB at {@code image} (replacing any file there), then {@link
   * #mkfs} on it with {@code args}; returns {@code image}.
   */
  public static Path mkfsSparse(Path image, long mib, String... args) {
    try {
      if (image.getParent() != null) {
        Files.createDirectories(image.getParent());
      }
      Files.deleteIfExists(image);
      try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(image.toFile(), "rw")) {
        f.setLength(mib << 20);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("making the sparse file " + image, e);
    }
    mkfs(image, args);
    return image;
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

}
