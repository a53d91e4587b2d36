package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The curated subset of xfstests' generic/quick that CI runs ({@code scripts/xfstests/ci-tests.txt}:
 * tests that passed on ext4j in the full run, docs/CONFORMANCE.md; about five minutes), through
 * {@code scripts/xfstests/run.sh --fs ext4j}: {@code mount -t fuse.ext4j} through the mount helper,
 * with this build's CLI on the test class path. Every listed test must pass — one that fails, hangs
 * or is not run fails this test — and {@code e2fsck -fn} of the test image afterwards must be clean.
 * The xfstests source is found as {@link #source} says; as root only (mounts, loop devices, test users).
 */
@Tag("oracle")
@Tag("root")
class XfstestsCuratedOracleTest {
  static final long TIMEOUT_MINUTES = 25;

  /** The repository's root: the directory above this module holding scripts/xfstests/run.sh. */
  static Path repo() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isExecutable(p.resolve("scripts/xfstests/run.sh"))) {
        return p;
      }
    }
    throw new AssertionError("no scripts/xfstests/run.sh above " + Path.of("").toAbsolutePath());
  }

  /** The xfstests source ({@link io.ext4j.testkit.ThirdParty#source}: {@code -Dext4j.xfstests=DIR} or shared/third_party). */
  static Path source() {
    return io.ext4j.testkit.ThirdParty.source("xfstests", "check");
  }

  @Test
  void curatedSubset_passesThroughTheMount() throws Exception {
    Path repo = repo();
    Path src = source();
    Path work = Path.of("target/xfstests").toAbsolutePath();
    Files.createDirectories(work);
    // The CLI as this build has it: its classes on the test class path, run as mount.fuse.ext4j starts it.
    Path launcher = work.resolve("ext4j");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Files.writeString(launcher, "#!/bin/sh\nexec '" + java + "' -Xmx256m -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -cp '"
        + System.getProperty("java.class.path") + "' " + Main.class.getName() + " \"$@\"\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path list = repo.resolve("scripts/xfstests/ci-tests.txt");
    Path out = work.resolve("results");
    ProcessBuilder pb = new ProcessBuilder("bash", repo.resolve("scripts/xfstests/run.sh").toString(), "--fs", "ext4j",
        "--tests", list.toString(), "--work", work.toString(), "--out", out.toString(), "--size", "2G", "--chunk", "200")
        .redirectErrorStream(true).redirectOutput(work.resolve("run.log").toFile());
    pb.environment().put("XFSTESTS_SRC", src.toString());
    pb.environment().put("EXT4J", launcher.toString());
    Process p = pb.start();
    boolean done = p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES);
    if (!done) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String log = Files.readString(work.resolve("run.log"));
    System.out.println(log);
    assertThat(done).as("run.sh finished within %d minutes; its output:\n%s", TIMEOUT_MINUTES, log).isTrue();
    List<String> expected = new ArrayList<>();
    for (String line : Files.readAllLines(list)) {
      String t = line.replaceAll("#.*", "").strip();
      if (!t.isEmpty()) {
        expected.add(t);
      }
    }
    List<String> notPassed = new ArrayList<>();
    List<String> rows = Files.readAllLines(out.resolve("tests.tsv"));
    for (String row : rows) {
      String[] f = row.split("\t", -1);
      if (!f[1].equals("passed")) {
        notPassed.add(f[0] + " " + f[1] + (f.length > 3 && !f[3].isEmpty() ? " (" + f[3] + ")" : ""));
      }
    }
    System.out.println("xfstests curated subset on ext4j: " + (rows.size() - notPassed.size()) + " of " + expected.size()
        + " passed" + (notPassed.isEmpty() ? "" : "; not passed: " + notPassed));
    assertThat(rows).as("one verdict per listed test").hasSize(expected.size());
    assertThat(notPassed).as("tests of %s that did not pass (xfstests' files in %s)", list, out).isEmpty();
    assertThat(Files.readString(out.resolve("summary.txt"))).contains("e2fsck -fn of the test and scratch images afterwards: clean");
    assertThat(p.exitValue()).as(log).isZero();
  }
}
