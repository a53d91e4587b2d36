package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * e2fsprogs and coreutils as oracles for the CLI tests. A missing tool fails the test (an oracle that
 * skips proves nothing). Every command runs through the testkit's runner (stdin from /dev/null, a
 * timeout), with TZ set to the JVM's zone so that times print alike and LC_ALL=C.
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
    E2fsprogs.Result r = E2fsprogs.runOrKill(Duration.ofSeconds(TIMEOUT_SECONDS),
        Map.of("TZ", ZoneId.systemDefault().getId(), "LC_ALL", "C"), cmd.toArray(String[]::new));
    Result res = new Result(List.of(command), r.exitCode(), r.stdout(), r.stderr());
    assertThat(r.exitCode()).as("%s finished within %d s; %s", res.command(), TIMEOUT_SECONDS, res.describe()).isNotEqualTo(E2fsprogs.KILLED);
    return res;
  }

  static String runOk(String... command) throws IOException, InterruptedException {
    Result r = run(command);
    assertThat(r.exit()).as("exit status; %s", r.describe()).isZero();
    return r.out();
  }

  /** A fresh sparse image of {@code mib} MiB made by {@code mkfs.ext4 -q -F [options]}. */
  static Path mkfs(Path img, int mib, String... options) {
    return E2fsprogs.mkfsSparse(img, mib, options);
  }

  /** {@code e2fsck -fn}: exit 0 and nothing but the pass headers and the summary. */
  static void assertE2fsckClean(Path img) throws IOException, InterruptedException {
    Result r = run("e2fsck", "-fn", img.toString());
    assertThat(r.exit()).as("e2fsck -fn exit status; %s", r.describe()).isZero();
    assertThat(E2fsprogs.e2fsckMessages(r.out())).as("e2fsck -fn messages; %s", r.describe()).isEmpty();
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
