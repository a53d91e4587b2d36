package io.ext4j.tools.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * e2fsprogs as the checker tests' oracle (public: the engine-driven test in another package uses it
 * too), in the shapes those tests use, over the testkit's runner. A missing tool fails the test.
 */
public final class E2fsprogs {
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  private E2fsprogs() {}

  /** What a command printed and its exit status (-1 if it had to be killed). */
  public record Result(List<String> command, int exit, String out, String err) {
    public String describe() {
      return command + " exited " + exit + "\n" + out + err;
    }

    /** e2fsck's messages: its output without the pass headers, the banner and the summary lines. */
    public List<String> messages() {
      return out.lines().filter(l -> !l.isBlank() && !l.startsWith("Pass ") && !l.contains(" files (")
          && !l.contains("WARNING: Filesystem still has errors")).toList();
    }

    /** Exit 0 and no message at all. */
    public boolean silent() {
      return exit == 0 && messages().isEmpty();
    }
  }

  public static Path require(String tool) {
    io.ext4j.testkit.E2fsprogs.requireInstalled(tool);
    for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      Path p = Path.of(dir, tool);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return Path.of(tool); // on PATH elsewhere
  }

  /** Runs the command under {@link #TIMEOUT} (through the testkit's runner); exit -1 if it had to be killed. */
  public static Result run(String... command) {
    require(command[0]);
    io.ext4j.testkit.E2fsprogs.Result r = io.ext4j.testkit.E2fsprogs.runOrKill(TIMEOUT, command);
    return new Result(List.of(command), r.exitCode(), r.stdout(), r.stderr());
  }

  /** {@code e2fsck -fn image}. */
  public static Result e2fsck(Path image) throws IOException, InterruptedException {
    return run("e2fsck", "-fn", image.toString());
  }

  /** Runs a command that must exit 0. */
  public static Result runOk(String... command) throws IOException, InterruptedException {
    Result r = run(command);
    assertThat(r.exit()).as("exit status of %s", r.describe()).isZero();
    return r;
  }

  /** A fresh sparse image of {@code mib} MiB made by {@code mkfs.ext4 -q -F <options>}. */
  public static Path mkfs(Path image, int mib, String... options) {
    return io.ext4j.testkit.E2fsprogs.mkfsSparse(image, mib, options);
  }

  /** {@code debugfs [-w] -f commands image}; the commands must all succeed as debugfs sees it (exit 0). */
  public static Result debugfs(Path image, boolean write, List<String> commands) throws IOException, InterruptedException {
    Path file = Files.createTempFile(image.getParent(), "debugfs", ".cmd");
    try {
      Files.writeString(file, String.join("\n", commands) + "\n", StandardCharsets.ISO_8859_1);
      List<String> cmd = new ArrayList<>(List.of("debugfs"));
      if (write) {
        cmd.add("-w");
      }
      cmd.addAll(List.of("-f", file.toString(), image.toString()));
      return runOk(cmd.toArray(String[]::new));
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
