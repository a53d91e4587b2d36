package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.StatFs;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mount with ordinary tools, as a user meets it: a source tree and a tree of every file kind
 * copied in with {@code cp -a} and compared with {@code diff -r} and by their metadata, then removed
 * with {@code rm -rf}; a tar archive extracted and made again byte for byte; fio with fsync=1 at 1,
 * 4 and 16 jobs and with direct=1, its data verified; the same copy and fio with the writeback cache. Each ends with an unmount and
 * {@code e2fsck -fn} clean ({@link MountedImage#close}).
 */
@Tag("oracle")
@Tag("root")
class FuseMountOracleTest {
  private static final Duration TOOL = Duration.ofMinutes(5);
  /** The source tree copied in: this repository's engine sources. */
  private static final Path SOURCES = Path.of("..", "ext4j-fs", "src").toAbsolutePath().normalize();

  @TempDir
  Path tmp;

  private static E2fsprogs.Result sh(String script) {
    E2fsprogs.Result r = E2fsprogs.run(TOOL, "bash", "-c", "set -euo pipefail; " + script);
    assertThat(r.exitCode()).as("%s:\n%s", script, r.output()).isZero();
    return r;
  }

  /** Every name under {@code dir} with its type, mode, owner, links, size (files), mtime and link target, sorted. */
  private static String manifest(Path dir) {
    return sh("cd '" + dir + "' && { find . -type d -printf '%p d %m %U %G %n %T@\\n'; "
        + "find . ! -type d -printf '%p %y %m %U %G %n %s %T@ %l\\n'; } | LC_ALL=C sort").stdout();
  }

  /** A tree of every kind the mount serves: nested dirs, empty files, a sparse and a large file, hard and symbolic links, odd names, a fifo, devices, xattrs. */
  private static Path makeTree(Path root, long seed) throws IOException {
    SplittableRandom r = new SplittableRandom(seed);
    Path t = Files.createDirectories(root.resolve("tree"));
    Files.createDirectories(t.resolve("a/b/c/d"));
    Files.createDirectories(t.resolve("empty"));
    Files.write(t.resolve("a/empty.txt"), new byte[0]);
    byte[] big = new byte[5 << 20];
    r.nextBytes(big);
    Files.write(t.resolve("a/b/big.bin"), big);
    try (FileChannel c = FileChannel.open(t.resolve("sparse"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap("start".getBytes(StandardCharsets.UTF_8)), 0);
      c.write(ByteBuffer.wrap("end".getBytes(StandardCharsets.UTF_8)), 64L << 20);
    }
    for (int i = 0; i < 300; i++) {
      byte[] b = new byte[r.nextInt(9000)];
      r.nextBytes(b);
      Files.write(t.resolve("a/b/c/file-" + i), b);
    }
    Files.createLink(t.resolve("a/hard"), t.resolve("a/b/big.bin"));
    Files.createLink(t.resolve("empty-link"), t.resolve("a/empty.txt"));
    Files.createSymbolicLink(t.resolve("sym"), Path.of("a/b/big.bin"));
    Files.createSymbolicLink(t.resolve("dangling"), Path.of("no/such/target"));
    Files.createSymbolicLink(t.resolve("long-sym"), Path.of("x".repeat(200) + "/" + "y".repeat(200)));
    Files.writeString(t.resolve("name with spaces"), "spaces");
    Files.writeString(t.resolve("ünïcødé-名前"), "utf-8");
    Files.writeString(t.resolve("n".repeat(255)), "longest name");
    UserDefinedFileAttributeView x = Files.getFileAttributeView(t.resolve("a/empty.txt"), UserDefinedFileAttributeView.class);
    x.write("k", ByteBuffer.wrap("value".getBytes(StandardCharsets.UTF_8)));
    sh("cd '" + t + "' && mkfifo fifo && mknod chr c 1 3 && mknod blk b 7 0 && chmod 4755 a/b/c/file-1 && chmod 1777 empty"
        + " && chown 1234:5678 a/b/c/file-2 && touch -h -d '2001-02-03 04:05:06.123456789' sym && touch -d '1999-12-31 23:59:59.5' a/b");
    return t;
  }

  @Test
  void cpA_ofASourceTreeAndEveryFileKind_diffsEqual_andRmRfFreesEverything() throws Exception {
    long seed = Seeds.seed();
    Path tree = makeTree(tmp, seed);
    try (MountedImage m = MountedImage.create(tmp, 512L << 20, FuseOptions.defaults(), "-b", "4096")) {
      StatFs before = m.fs.statfs();
      sh("cp -a '" + SOURCES + "' '" + m.dir + "/src' && cp -a '" + tree + "' '" + m.dir + "/tree'");
      sh("diff -r '" + SOURCES + "' '" + m.dir + "/src'");
      sh("diff -r --no-dereference --exclude=fifo --exclude=chr --exclude=blk '" + tree + "' '" + m.dir + "/tree'");
      assertThat(manifest(m.dir.resolve("src"))).isEqualTo(manifest(SOURCES));
      assertThat(manifest(m.dir.resolve("tree"))).isEqualTo(manifest(tree));
      UserDefinedFileAttributeView x = Files.getFileAttributeView(m.dir.resolve("tree/a/empty.txt"), UserDefinedFileAttributeView.class);
      ByteBuffer v = ByteBuffer.allocate(16);
      x.read("k", v);
      assertThat(new String(v.array(), 0, v.position(), StandardCharsets.UTF_8)).isEqualTo("value");
      assertThat(sh("stat -c '%i %h' '" + m.dir + "/tree/a/hard' '" + m.dir + "/tree/a/b/big.bin'").stdout().lines().distinct())
          .as("hard links share an inode with two links").hasSize(1).allMatch(l -> l.endsWith(" 2"));
      sh("cd '" + m.dir + "' && rm -rf src tree");
      try (Stream<Path> s = Files.list(m.dir)) {
        assertThat(s.map(p -> p.getFileName().toString())).containsExactly("lost+found");
      }
      StatFs after = m.fs.statfs();
      assertThat(after.freeBlocks()).as("every block freed").isEqualTo(before.freeBlocks());
      assertThat(after.freeInodes()).as("every inode freed").isEqualTo(before.freeInodes());
    }
  }

  @Test
  void tar_extractedIntoTheMount_recreatesTheSameArchive() throws Exception {
    Path tree = makeTree(tmp, Seeds.seed());
    Path a = tmp.resolve("a.tar");
    Path b = tmp.resolve("b.tar");
    String tar = "tar --sort=name --format=gnu --numeric-owner -cf ";
    sh(tar + "'" + a + "' -C '" + tree.getParent() + "' tree -C '" + SOURCES.getParent() + "' src");
    try (MountedImage m = MountedImage.create(tmp, 512L << 20, FuseOptions.defaults())) {
      Files.createDirectories(m.dir.resolve("x"));
      sh("tar -xpf '" + a + "' -C '" + m.dir + "/x' && " + tar + "'" + b + "' -C '" + m.dir + "/x' tree src");
    }
    assertThat(Files.mismatch(a, b)).as("the archive made from the mount differs from the original at byte").isEqualTo(-1L);
  }

  @Test
  void withTheWritebackCache_cpA_diffsEqual_andFioVerifies() throws Exception {
    FuseOptions o = FuseOptions.parse("writeback_cache", FuseOptions.defaults());
    try (MountedImage m = MountedImage.create(tmp, 512L << 20, o)) {
      sh("cp -a '" + SOURCES + "' '" + m.dir + "/src' && diff -r '" + SOURCES + "' '" + m.dir + "/src'");
      assertThat(manifest(m.dir.resolve("src"))).isEqualTo(manifest(SOURCES));
      fio(m.dir, "wbfsync", "--rw=randwrite", "--bs=4k", "--size=2m", "--fsync=1", "--numjobs=4", "--verify=crc32c",
          "--verify_fatal=1", "--ioengine=psync");
      sh("cd '" + m.dir + "' && echo abc > ap && echo def >> ap && test \"$(cat ap)\" = \"$(printf 'abc\\ndef')\"");
      sh("rm -rf '" + m.dir + "/src'");
    }
  }

  private static E2fsprogs.Result fio(Path dir, String name, String... args) {
    StringBuilder cmd = new StringBuilder("fio --name=" + name + " --directory='" + dir + "' --group_reporting --minimal --verify_state_save=0");
    for (String s : args) {
      cmd.append(' ').append(s);
    }
    E2fsprogs.Result r = sh(cmd.toString());
    String[] f = r.stdout().strip().split(";", 0);
    assertThat(f.length).as("fio's terse line:\n%s", r.output()).isGreaterThan(10);
    assertThat(f[4]).as("fio's error field:\n%s", r.output()).isEqualTo("0");
    // terse v3: 6-8 read KiB, KiB/s, IOPS; 47-49 the same for writes
    System.out.printf("fio %-10s read %s KiB at %s IOPS, write %s KiB at %s IOPS%n", name, f[5], f[7], f[46], f[48]);
    return r;
  }

  @Test
  void fio_fsyncAt1To16Jobs_andDirectIo_verifyTheirData() throws Exception {
    try (MountedImage m = MountedImage.create(tmp, 1L << 30, FuseOptions.defaults())) {
      for (int jobs : new int[] {1, 4, 16}) {
        fio(m.dir, "fsync" + jobs, "--rw=write", "--bs=4k", "--size=2m", "--fsync=1", "--numjobs=" + jobs,
            "--verify=crc32c", "--verify_fatal=1", "--ioengine=psync");
      }
      fio(m.dir, "fdatasync", "--rw=randwrite", "--bs=4k", "--size=2m", "--fdatasync=1", "--numjobs=4",
          "--verify=crc32c", "--verify_fatal=1", "--ioengine=psync");
      fio(m.dir, "direct", "--rw=randwrite", "--bs=64k", "--size=32m", "--direct=1", "--numjobs=4",
          "--verify=crc32c", "--verify_fatal=1", "--ioengine=psync");
      fio(m.dir, "direct4k", "--rw=randrw", "--bs=4k", "--size=8m", "--direct=1", "--numjobs=2", "--ioengine=psync");
    }
  }
}
