package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.testkit.E2fsprogs;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of the process serving a mount in the middle of a {@code cp -a}: the image recovers (the
 * engine replays its journal) to one {@code e2fsck -fn} finds clean, and a file fsynced through the
 * mount before the kill is there with every byte.
 */
@Tag("crash")
@Tag("root")
class FuseKillOracleTest {
  @TempDir
  Path tmp;

  @Test
  void killMinus9MidCopy_recoversClean_andKeepsWhatWasFsynced() throws Exception {
    Path img = MountedImage.mkfs(tmp.resolve("fs.img"), 512L << 20);
    Path mnt = Files.createDirectories(tmp.resolve("mnt"));
    Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
    Process child = new ProcessBuilder(javaBin.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
        System.getProperty("java.class.path"), MountChild.class.getName(), img.toString(), mnt.toString())
        .redirectErrorStream(true).start();
    Process cp = null;
    byte[] durable = new byte[3 << 20];
    new Random(7).nextBytes(durable);
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).as("the child mounted the image").isEqualTo("mounted");
      try (FileChannel c = FileChannel.open(mnt.resolve("durable"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        c.write(ByteBuffer.wrap(durable));
        c.force(true);
      }
      Path src = Path.of("..", "ext4j-fs", "src").toAbsolutePath().normalize();
      cp = new ProcessBuilder("cp", "-a", src.toString(), mnt.resolve("copy").toString()).redirectErrorStream(true)
          .redirectOutput(tmp.resolve("cp.log").toFile()).start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (count(mnt.resolve("copy")) < 50 && cp.isAlive() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
        Thread.sleep(5);
      }
      assertThat(cp.isAlive()).as("cp is still copying when the mount process is killed").isTrue();
      child.destroyForcibly(); // SIGKILL
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(cp.waitFor(60, TimeUnit.SECONDS)).as("cp ends once its mount is gone").isTrue();
      assertThat(cp.exitValue()).as("cp saw the mount go").isNotZero();
    } finally {
      child.destroyForcibly();
      if (cp != null) {
        cp.destroyForcibly();
      }
      E2fsprogs.run(Duration.ofSeconds(30), "umount", mnt.toString());
    }
    E2fsprogs.Result before = E2fsprogs.e2fsckForceNoChange(img);
    System.out.println("e2fsck -fn before recovery: exit " + before.exitCode());
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) { // replays the journal
      long ino = fs.lookup(Ext4FileSystem.ROOT, "durable".getBytes(StandardCharsets.UTF_8)).ino();
      ByteBuffer b = ByteBuffer.allocate(durable.length + 1);
      try (var f = fs.open(ino, java.util.Set.of(io.ext4j.fs.OpenFlag.READ))) {
        while (f.read(b.position(), b) > 0) {
          // reads until end of file
        }
      }
      assertThat(b.position()).as("the fsynced file's size").isEqualTo(durable.length);
      assertThat(Arrays.equals(b.array(), 0, durable.length, durable, 0, durable.length)).as("its bytes").isTrue();
    }
    E2fsprogs.Result r = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(r.exitCode()).as("e2fsck -fn after recovery:\n%s", r.output()).isZero();
  }

  private static long count(Path dir) throws java.io.IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.count();
    } catch (java.io.UncheckedIOException e) {
      return 0; // a name removed while walked
    }
  }
}
