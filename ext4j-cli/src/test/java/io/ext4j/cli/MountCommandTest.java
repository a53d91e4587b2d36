package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ext4j mount}: serves until {@code fusermount3 -u}, then exits 0 with a clean image; bad input is one line and exit 1. */
@Tag("oracle")
class MountCommandTest {
  @TempDir
  Path dir;

  private Path image() throws Exception {
    Path img = dir.resolve("disk.img");
    try (var f = new java.io.RandomAccessFile(img.toFile(), "rw")) {
      f.setLength(64L << 20);
    }
    E2fsprogs.mkfs(img);
    return img;
  }

  private static boolean mounted(Path mnt) throws Exception {
    return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().anyMatch(l -> l.split(" ", 0)[4].equals(mnt.toString()));
  }

  /** Runs {@code ext4j mount IMG MNT EXTRA…} in the background and returns once the mount is up (failing if it never comes up). */
  private static CompletableFuture<Cli> startMount(Path img, Path mnt, String... extra) throws Exception {
    String[] args = new String[3 + extra.length];
    args[0] = "mount";
    args[1] = img.toString();
    args[2] = mnt.toString();
    System.arraycopy(extra, 0, args, 3, extra.length);
    CompletableFuture<Cli> run = CompletableFuture.supplyAsync(() -> Cli.run(args));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!mounted(mnt) && !run.isDone() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(mounted(mnt)).as("mounted (the command: %s)", run.isDone() ? run.join() : "running").isTrue();
    return run;
  }

  @Tag("root")
  @Test
  void mount_servesUntilFusermountU_thenExitsZeroWithACleanImage() throws Exception {
    Path img = image();
    Path mnt = Files.createDirectories(dir.resolve("mnt"));
    CompletableFuture<Cli> run = startMount(img, mnt);
    Files.writeString(mnt.resolve("hello"), "through the kernel");
    E2fsprogs.Result u = E2fsprogs.run(Duration.ofSeconds(30), "fusermount3", "-u", mnt.toString());
    assertThat(u.exitCode()).as(u.output()).isZero();
    Cli cli = run.get(60, TimeUnit.SECONDS);
    assertThat(cli.exitCode()).as(cli.err()).isZero();
    assertThat(cli.err()).contains("mounted on " + mnt).contains("unmounted");
    assertThat(E2fsprogs.e2fsckForceNoChange(img).exitCode()).isZero();
    assertThat(Cli.run("cat", img.toString(), "/hello").out()).isEqualTo("through the kernel");
  }

  @Tag("root")
  @Test
  void dirsync_aCreateThroughTheMountIsInTheImageBeforeItIsUnmounted() throws Exception {
    Path img = image();
    Path mnt = Files.createDirectories(dir.resolve("mnt"));
    CompletableFuture<Cli> run = startMount(img, mnt, "-o", "dirsync");
    Path copy = dir.resolve("while-mounted.img");
    try {
      Files.createDirectory(mnt.resolve("made"));
      Files.copy(img, copy); // what the image file holds now: the create's commit, in the journal
    } finally {
      E2fsprogs.Result u = E2fsprogs.run(Duration.ofSeconds(30), "fusermount3", "-u", mnt.toString());
      assertThat(u.exitCode()).as(u.output()).isZero();
    }
    assertThat(run.get(60, TimeUnit.SECONDS).exitCode()).isZero();
    Cli ls = Cli.run("ls", copy.toString(), "/"); // read-only: the journal recovered in memory
    assertThat(ls.exitCode()).as(ls.err()).isZero();
    assertThat(ls.out()).contains("made");
  }

  @Test
  void badInput_isOneLineNamingIt() throws Exception {
    Path img = image();
    Cli opt = Cli.run("mount", img.toString(), dir.toString(), "-o", "ro,noatim");
    assertThat(opt.exitCode()).isEqualTo(1);
    assertThat(opt.err().strip()).contains("unknown mount option 'noatim'").doesNotContain("\n").doesNotContain("Exception");
    Cli mp = Cli.run("mount", img.toString(), dir.resolve("nowhere").toString());
    assertThat(mp.exitCode()).isEqualTo(1);
    assertThat(mp.err().strip()).contains("nowhere").contains("does not exist").doesNotContain("\n");
    Cli missing = Cli.run("mount", dir.resolve("none.img").toString(), dir.toString());
    assertThat(missing.exitCode()).isEqualTo(1);
    assertThat(missing.err()).contains("none.img");
    assertThat(E2fsprogs.e2fsckForceNoChange(img).exitCode()).as("the image untouched").isZero();
  }
}
