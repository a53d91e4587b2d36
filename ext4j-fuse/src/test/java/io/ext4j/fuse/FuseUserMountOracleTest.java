package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mount by a user other than root: the JVM runs as uid 1000 (setpriv), mounts through the
 * setuid fusermount3, serves that user's writes, and ends when the user runs {@code fusermount3 -u}.
 */
@Tag("oracle")
@Tag("root")
class FuseUserMountOracleTest {
  private static final String UID = "1000";

  @TempDir
  Path tmp;

  /** This JVM's class path entries of ext4j itself, copied where the user can read them (the rest is the JDK's). */
  private String readableClassPath(Path dir) throws IOException {
    List<String> out = new ArrayList<>();
    int i = 0;
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator, 0)) {
      if (!e.contains("ext4j")) {
        continue;
      }
      Path src = Path.of(e);
      Path dst = dir.resolve("cp" + i++);
      if (Files.isDirectory(src)) {
        try (Stream<Path> s = Files.walk(src)) {
          for (Path p : s.toList()) {
            Path t = dst.resolve(src.relativize(p).toString());
            if (Files.isDirectory(p)) {
              Files.createDirectories(t);
            } else {
              Files.copy(p, t);
            }
          }
        }
      } else if (Files.isRegularFile(src)) {
        dst = dir.resolve("cp" + i + ".jar");
        Files.copy(src, dst);
      } else {
        continue;
      }
      out.add(dst.toString());
    }
    E2fsprogs.run(Duration.ofSeconds(30), "chmod", "-R", "a+rX", dir.toString());
    return String.join(File.pathSeparator, out);
  }

  @Test
  void aUserMountsThroughFusermount3_writes_andUnmountsWithFusermount3U() throws Exception {
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path img = MountedImage.mkfs(tmp.resolve("user.img"), 64L << 20, "-E", "root_owner=" + UID + ":" + UID);
    Path mnt = Files.createDirectories(tmp.resolve("mnt"));
    Path cp = Files.createDirectories(tmp.resolve("classes"));
    String classPath = readableClassPath(cp);
    E2fsprogs.run(Duration.ofSeconds(10), "chown", UID + ":" + UID, img.toString(), mnt.toString());
    // fusermount3 opens /dev/fuse as the user; Debian's udev rule makes it 0666, this machine's is 0600
    Path dev = Path.of("/dev/fuse");
    var devMode = Files.getPosixFilePermissions(dev);
    Files.setPosixFilePermissions(dev, PosixFilePermissions.fromString("rw-rw-rw-"));
    try {
      runAsUser(img, mnt, classPath);
    } finally {
      Files.setPosixFilePermissions(dev, devMode);
    }
    E2fsprogs.Result r = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(E2fsprogs.debugfs(img, "stat /note").stdout()).contains("User:  1000");
  }

  private void runAsUser(Path img, Path mnt, String classPath) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder("setpriv", "--reuid=" + UID, "--regid=" + UID, "--clear-groups", "--", java.toString(),
        "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-cp", classPath, MountChild.class.getName(),
        img.toString(), mnt.toString()).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String first = out.readLine();
      assertThat(first).as("the user's JVM mounted the image").isEqualTo("mounted");
      E2fsprogs.Result w = userShell(mnt, "echo written by the user > note && stat -c '%u %a' note && grep -c ' " + mnt
          + " fuse.ext4j ' /proc/mounts");
      assertThat(w.exitCode()).as(w.output()).isZero();
      assertThat(w.stdout()).startsWith("1000 644").contains("\n1");
      E2fsprogs.Result u = userShell(mnt, "fusermount3 -u " + mnt);
      assertThat(u.exitCode()).as(u.output()).isZero();
      for (String l; (l = out.readLine()) != null; ) {
        lines.add(l);
      }
    } finally {
      child.destroyForcibly();
    }
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(child.exitValue()).as("the child's output: %s", lines).isZero();
    assertThat(lines).contains("unmounted");
  }

  private static E2fsprogs.Result userShell(Path dir, String script) {
    return E2fsprogs.run(Duration.ofSeconds(30), "setpriv", "--reuid=" + UID, "--regid=" + UID, "--clear-groups", "--",
        "bash", "-c", "cd '" + dir + "' && " + script);
  }
}
