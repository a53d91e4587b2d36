package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edge cases POSIX conformance suites check, run on the kernel's ext4 (a loop mount of an image
 * made by mkfs.ext4) and on the ext4j mount of an identical image; the two transcripts — each
 * step's outcome, errno text or the attributes it leaves — must be the same line for line. The
 * permission cases run as other users (setpriv) with {@code allow_other}, so the kernel's
 * {@code default_permissions} checks decide them, as ext4's own checks do on the loop mount.
 */
@Tag("oracle")
@Tag("root")
class FusePosixOracleTest {
  private static final Duration TOOL = Duration.ofSeconds(60);

  @TempDir
  Path tmp;

  @Test
  void posixEdgeCases_behaveAsOnTheKernelsExt4() throws Throwable {
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x")); // other users reach the mounts
    Path kimg = tmp.resolve("kernel.img");
    Path eimg = tmp.resolve("ext4j.img");
    for (Path img : List.of(kimg, eimg)) {
      MountedImage.mkfs(img, 64L << 20, "-U", "0c1d2e3f-4a5b-4c6d-8e7f-a0b1c2d3e4f5", "-E", "hash_seed=0a1b2c3d-4e5f-4061-8273-8495a6b7c8d9");
    }
    Path kdir = Files.createDirectories(tmp.resolve("kernel"));
    List<String> kernel;
    E2fsprogs.Result m = E2fsprogs.run(TOOL, "mount", "-o", "loop", kimg.toString(), kdir.toString());
    assertThat(m.exitCode()).as("loop mount:\n%s", m.output()).isZero();
    try {
      kernel = scenario(kdir);
    } finally {
      E2fsprogs.run(TOOL, "umount", kdir.toString());
    }
    List<String> ext4j;
    FuseOptions o = FuseOptions.parse("allow_other", FuseOptions.defaults());
    try (MountedImage e = MountedImage.open(eimg, tmp.resolve("ext4j"), o)) {
      ext4j = scenario(e.dir);
    }
    System.out.println("kernel transcript:\n  " + String.join("\n  ", kernel));
    assertThat(ext4j).as("ext4j's transcript against the kernel's").containsExactlyElementsOf(kernel);
    assertThat(E2fsprogs.e2fsckForceNoChange(kimg).exitCode()).isZero();
  }

  /** Runs every case under {@code root}; one line per step. */
  private static List<String> scenario(Path root) throws Throwable {
    List<String> t = new ArrayList<>();
    Path f = root.resolve("f");
    Files.writeString(f, "hello");
    t.add("create: " + stat(f));
    Instant c0 = ctime(f);
    pause(c0);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    t.add("chmod 600: " + stat(f) + " ctime advanced " + ctime(f).isAfter(c0));
    Instant c1 = ctime(f);
    pause(c1);
    Files.setAttribute(f, "unix:uid", 1000);
    Files.setAttribute(f, "unix:gid", 1000);
    t.add("chown 1000:1000: " + stat(f) + " ctime advanced " + ctime(f).isAfter(c1));
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.APPEND)) {
      c.write(ByteBuffer.wrap("X".getBytes(StandardCharsets.UTF_8)));
    }
    t.add("O_APPEND: " + Files.readString(f));
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap("z".getBytes(StandardCharsets.UTF_8)), 1 << 20);
      t.add("sparse write: size " + c.size());
      c.truncate(3);
      t.add("truncate down: " + Files.readString(f));
    }
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap(new byte[0]), 0);
    }
    try (var raf = new java.io.RandomAccessFile(f.toFile(), "rw")) {
      raf.setLength(6);
    }
    t.add("truncate up: " + java.util.Arrays.toString(Files.readAllBytes(f)));
    FileTime ns = FileTime.from(Instant.ofEpochSecond(1_234_567_890L, 123_456_789));
    Files.setLastModifiedTime(f, ns);
    t.add("mtime with nanoseconds: " + Files.getLastModifiedTime(f).toInstant().equals(ns.toInstant()));

    Path g = root.resolve("g");
    Files.createLink(g, f);
    t.add("link: " + nlink(f) + " " + nlink(g));
    Files.delete(f);
    t.add("unlink one name: " + nlink(g));
    try (FileChannel c = FileChannel.open(g, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      Files.delete(g);
      c.write(ByteBuffer.wrap("after".getBytes(StandardCharsets.UTF_8)), 0);
      ByteBuffer b = ByteBuffer.allocate(5);
      c.read(b, 0);
      t.add("unlinked while open: exists " + Files.exists(g) + ", reads " + new String(b.array(), StandardCharsets.UTF_8)
          + ", size " + c.size());
    }
    Path a = root.resolve("a");
    Path b = root.resolve("b");
    Files.writeString(a, "new");
    Files.writeString(b, "old");
    try (FileChannel c = FileChannel.open(b, StandardOpenOption.READ)) {
      Files.move(a, b, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      ByteBuffer buf = ByteBuffer.allocate(3);
      c.read(buf, 0);
      t.add("rename over an open file: open one reads " + new String(buf.array(), StandardCharsets.UTF_8) + ", name reads "
          + Files.readString(b) + ", a exists " + Files.exists(a));
    }

    Path d = root.resolve("d");
    Files.createDirectory(d);
    int rootLinks = nlink(root);
    Files.createDirectory(d.resolve("x"));
    Files.createDirectory(d.resolve("y"));
    t.add("mkdir: d links " + nlink(d) + ", root links " + (nlink(root) - rootLinks + 1));
    Files.writeString(d.resolve("x/file"), "1");
    t.add("rmdir non-empty: " + attempt(() -> Files.delete(d.resolve("x"))));
    t.add("rename dir into its own subdirectory: " + attempt(() -> Files.move(d, d.resolve("y/d"))));
    t.add("rename dir over non-empty dir: " + attempt(() -> Files.move(d.resolve("y"), d.resolve("x"),
        StandardCopyOption.REPLACE_EXISTING)));
    t.add("rename file over dir: " + attempt(() -> Files.move(b, d.resolve("y"), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE)));
    t.add("rename dir over file: " + attempt(() -> Files.move(d.resolve("y"), b, StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE)));
    t.add("rename dir over empty dir: " + attempt(() -> {
      Files.createDirectory(d.resolve("z"));
      Files.move(d.resolve("y"), d.resolve("z"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }) + ", d links " + nlink(d));
    t.add("hard link to a directory: " + attempt(() -> Files.createLink(root.resolve("dl"), d)));
    t.add("create over existing: " + attempt(() -> Files.createFile(b)));
    t.add("mkdir over existing: " + attempt(() -> Files.createDirectory(d)));
    Files.createSymbolicLink(root.resolve("s"), Path.of("b"));
    t.add("symlink: " + Files.readSymbolicLink(root.resolve("s")) + " " + stat(root.resolve("s")));
    t.add("name too long: " + attempt(() -> Files.createFile(root.resolve("n".repeat(256)))));
    t.add("file as directory: " + attempt(() -> Files.createFile(b.resolve("x"))));

    Path r1 = root.resolve("r1");
    Path r2 = root.resolve("r2");
    Files.writeString(r1, "one");
    Files.writeString(r2, "two");
    t.add("RENAME_NOREPLACE onto an existing name: " + Syscalls.renameat2(r1, r2, Syscalls.RENAME_NOREPLACE));
    t.add("RENAME_NOREPLACE onto a new name: " + Syscalls.renameat2(r1, root.resolve("r3"), Syscalls.RENAME_NOREPLACE)
        + " " + Files.readString(root.resolve("r3")));
    t.add("RENAME_EXCHANGE of a file and a directory: " + Syscalls.renameat2(r2, d, Syscalls.RENAME_EXCHANGE) + " "
        + Files.isDirectory(r2) + " " + Files.readString(d) + " d links " + nlink(r2));
    t.add("RENAME_EXCHANGE with a missing name: " + Syscalls.renameat2(r2, root.resolve("nothing"), Syscalls.RENAME_EXCHANGE));
    t.add("RENAME_NOREPLACE|RENAME_EXCHANGE: " + Syscalls.renameat2(r2, d, 3));

    Path sp = root.resolve("sparse");
    try (FileChannel c = FileChannel.open(sp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap("head".getBytes(StandardCharsets.UTF_8)), 0);
      c.write(ByteBuffer.wrap("tail".getBytes(StandardCharsets.UTF_8)), 3 << 20);
    }
    t.add("SEEK_HOLE/SEEK_DATA of a sparse file: " + Syscalls.lseek(sp, 0, Syscalls.SEEK_HOLE) + " "
        + Syscalls.lseek(sp, 4096, Syscalls.SEEK_DATA) + " " + Syscalls.lseek(sp, (3 << 20) + 4, Syscalls.SEEK_HOLE) + " "
        + Syscalls.lseek(sp, 4L << 20, Syscalls.SEEK_DATA) + " " + Syscalls.lseek(sp, 4L << 20, Syscalls.SEEK_HOLE));
    t.add("fallocate: " + run(root, "0", "fallocate -l 1M fa && stat -c '%s %b' fa && fallocate -n -o 1M -l 1M fa"
        + " && stat -c '%s %b' fa && fallocate -p -o 4096 -l 8192 fa && stat -c '%s %b' fa && echo data > fz"
        + " && fallocate -z -o 0 -l 4096 fz && od -c fz | head -1 && stat -c '%s %b' fz"
        + " && fallocate -x -l 4096 fz"));
    // (collapse and insert range never reach a FUSE file system: the kernel's FUSE refuses every
    // mode but keep-size, punch-hole and zero-range itself; the engine's are checked by FsxModelTest)
    t.add("SEEK_DATA of an unwritten extent: " + Syscalls.lseek(root.resolve("fa"), 0, Syscalls.SEEK_DATA));
    t.add("cp within the mount (copy_file_range): " + run(root, "0", "cp sparse sparse2 && cmp sparse sparse2 && stat -c %s sparse2"));

    t.add("chattr +i, lsattr, writes refused: " + run(root, "0", "touch im && chattr +i im && lsattr im && (echo x > im);"
        + " (rm im); (chmod 600 im); chattr -i im && rm im && echo removed"));
    t.add("chattr +a: " + run(root, "0", "echo a > ap && chattr +a ap && echo b >> ap && (echo c > ap); (truncate -s 0 ap);"
        + " cat ap; lsattr ap; chattr -a ap && rm ap"));
    t.add("lsattr of a directory, chattr +d +A: " + run(root, "0", "mkdir la && chattr +dA la && lsattr -d la && rmdir la"));
    t.add("O_TMPFILE, then linked: " + run(root, "0", "python3 -c \"import os; fd = os.open('.', os.O_TMPFILE | os.O_WRONLY, 0o640);"
        + " os.write(fd, b'tmp'); print(sorted(os.listdir('.')).count('tmpname')); os.link('/proc/self/fd/%d' % fd, 'tmpname',"
        + " follow_symlinks=True); print(open('tmpname').read(), oct(os.stat('tmpname').st_mode))\" && rm tmpname"));

    // as other users: the kernel's permission checks (default_permissions on the ext4j mount)
    Files.createDirectory(root.resolve("shared"));
    run(root, "0", "chmod 1777 shared");
    Path setgid = Files.createDirectory(root.resolve("setgid"));
    Files.setAttribute(setgid, "unix:gid", 4242);
    run(root, "0", "chmod 2777 setgid");
    Files.writeString(root.resolve("rootfile"), "root");
    t.add("user writes root's 0644 file: " + run(root, "1000", "echo x >> rootfile"));
    t.add("user chmods root's file: " + run(root, "1000", "chmod 777 rootfile"));
    t.add("user chowns own file: " + run(root, "1000", "touch shared/mine && chown 1001 shared/mine"));
    t.add("user creates in root's 0755 dir: " + run(root, "1000", "touch newfile"));
    t.add("other user removes from sticky dir: " + run(root, "1001", "rm -f shared/mine"));
    t.add("owner removes from sticky dir: " + run(root, "1000", "rm shared/mine"));
    t.add("file in setgid dir: " + run(root, "1000", "touch setgid/f && mkdir setgid/sub && stat -c '%g %a' setgid/f setgid/sub"));
    t.add("write by another user clears setuid: " + run(root, "1000", "touch shared/s && chmod 4777 shared/s")
        + " " + run(root, "1001", "echo x >> shared/s && stat -c %a shared/s"));
    t.add("truncate by another user clears setuid and setgid: " + run(root, "1000", "echo data > shared/t && chmod 6777 shared/t")
        + " " + run(root, "1001", "truncate -s 2 shared/t && stat -c %a shared/t"));
    t.add("write by another user keeps a setgid without group execute: " + run(root, "1000", "touch shared/g && chmod 2766 shared/g")
        + " " + run(root, "1001", "echo x >> shared/g && stat -c %a shared/g"));
    t.add("write by root keeps setuid: " + run(root, "0", "echo x >> shared/s && chmod 4777 shared/s && echo y >> shared/s && stat -c %a shared/s"));
    // The same, forty times with stat right after: a mode the kernel kept cached would show as 4777.
    t.add("write by another user clears setuid, 40 times: " + run(root, "0", "touch shared/r && for i in $(seq 40); do"
        + " chmod 4777 shared/r && setpriv --reuid=1001 --regid=1001 --clear-groups -- bash -c"
        + " 'echo x >> shared/r; stat -c %a shared/r'; done | sort | uniq -c"));
    t.add("chown by root clears setuid and setgid: " + run(root, "0", "touch shared/c && chmod 6555 shared/c"
        + " && chown 65534:65532 shared/c && stat -c '%a %u %g' shared/c"));
    t.add("fallocate by another user clears setuid: " + run(root, "1000", "touch shared/fl && chmod 6777 shared/fl")
        + " " + run(root, "1001", "fallocate -l 8192 shared/fl && stat -c %a shared/fl"));
    t.add("user reads 0600 file of another: " + run(root, "1001", "cat setgid/f >/dev/null; chmod 600 setgid/f 2>&1; cat setgid/f"));
    t.add("utimens of a file not owned, to now: " + run(root, "1001", "touch rootfile"));
    t.add("utimens of a world-writable file, to now: " + run(root, "1001", "touch shared/s"));
    t.add("utimens of it, to a given time: " + run(root, "1001", "touch -d 2001-01-01 shared/s"));
    return t;
  }

  /** A shell command in {@code root} as {@code uid} (same gid); "ok: <stdout>" or the exit code and the error without paths. */
  private static String run(Path root, String uid, String script) {
    E2fsprogs.Result r = E2fsprogs.run(TOOL, "setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "--",
        "bash", "-c", "cd '" + root + "' && " + script);
    String out = (r.stdout() + r.stderr()).replace(root.toString(), "ROOT").strip().replace('\n', '|');
    return r.exitCode() == 0 ? "ok " + out : "exit " + r.exitCode() + " " + out;
  }

  private interface Step {
    void run() throws IOException;
  }

  private static String attempt(Step s) {
    try {
      s.run();
      return "ok";
    } catch (IOException e) {
      String reason = e instanceof java.nio.file.FileSystemException fe && fe.getReason() != null ? " " + fe.getReason() : "";
      return e.getClass().getSimpleName() + reason;
    }
  }

  private static String stat(Path p) throws IOException {
    var m = Files.readAttributes(p, "unix:mode,nlink,uid,gid,size", LinkOption.NOFOLLOW_LINKS);
    return String.format("mode %o links %s uid %s gid %s size %s", (Integer) m.get("mode"), m.get("nlink"), m.get("uid"),
        m.get("gid"), m.get("size"));
  }

  private static int nlink(Path p) throws IOException {
    return (Integer) Files.getAttribute(p, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
  }

  private static Instant ctime(Path p) throws IOException {
    return ((FileTime) Files.getAttribute(p, "unix:ctime", LinkOption.NOFOLLOW_LINKS)).toInstant();
  }

  /** Waits until the clock has moved past {@code t}, so that a change after it shows in ctime. */
  private static void pause(Instant t) throws InterruptedException {
    while (!Instant.now().isAfter(t.plusMillis(2))) {
      Thread.sleep(1);
    }
  }
}
