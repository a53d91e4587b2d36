package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.StatFs;
import io.ext4j.testkit.E2fsprogs;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.EnumSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The root-reserved blocks ({@code mkfs -m}): a caller that is not root fills the filesystem only
 * until statfs's available count is 0 — where the kernel stops the same user on the same image — and
 * root can still write into the reserve. The image stays {@code e2fsck -fn} clean.
 */
@Tag("oracle")
@Tag("root")
class ReservedBlocksOracleTest {
  private static final Caller USER = new Caller(1000, 1000);

  @Test
  void anUnprivilegedCaller_stopsAtTheReserve_whereTheKernelStopsIt_whileRootGoesOn() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "reserved"));
    Path fresh = dir.resolve("fresh.img");
    Oracle.mkfs(fresh, 24L << 20, 4096, "-m", "10");
    Path ours = dir.resolve("ext4j.img");
    Files.copy(fresh, ours, StandardCopyOption.REPLACE_EXISTING);
    long userStoppedAtFree;
    try (Ext4FileSystem fs = Ext4FileSystem.open(ours, Ext4Options.defaults())) {
      long home = fs.mkdir(Ext4FileSystem.ROOT, bytes("u"), 0777, USER).ino();
      long wrote = fill(fs, home, "big", USER);
      StatFs s = fs.statfs();
      userStoppedAtFree = s.freeBlocks();
      assertThat(wrote).as("the user wrote something first").isPositive();
      assertThat(s.availableBlocks()).as("available to users when the user hit ENOSPC").isLessThanOrEqualTo(1);
      assertThat(s.freeBlocks()).as("free blocks left: the reserve").isGreaterThanOrEqualTo(fs.superblock().reservedBlocksCount());

      long rootWrote = fill(fs, Ext4FileSystem.ROOT, "root-file", Caller.ROOT);
      assertThat(rootWrote / 4096).as("root writes into the reserve").isGreaterThan(fs.superblock().reservedBlocksCount() / 2);
    }
    Oracle.assertClean(ours);

    // The kernel, the same user, the same fresh image: where does it stop?
    Path theirs = dir.resolve("kernel.img");
    Files.copy(fresh, theirs, StandardCopyOption.REPLACE_EXISTING);
    Path mnt = Files.createDirectories(dir.resolve("mnt"));
    run("mount", "-o", "loop", theirs.toString(), mnt.toString());
    long kernelStoppedAtFree;
    try {
      Path u = Files.createDirectories(mnt.resolve("u"));
      run("chown", "1000:1000", u.toString());
      E2fsprogs.Result dd = E2fsprogs.run(E2fsprogs.TIMEOUT, "setpriv", "--reuid=1000", "--regid=1000", "--clear-groups",
          "dd", "if=/dev/zero", "of=" + u.resolve("big"), "bs=64k", "conv=fsync");
      assertThat(dd.stderr()).as("dd as uid 1000 ends on ENOSPC").contains("No space left on device");
      run("sync");
      E2fsprogs.Result st = E2fsprogs.run(E2fsprogs.TIMEOUT, "stat", "-f", "-c", "%f %a", mnt.toString());
      Matcher m = Pattern.compile("(\\d+) (\\d+)").matcher(st.stdout());
      assertThat(m.find()).as(st.stdout()).isTrue();
      kernelStoppedAtFree = Long.parseLong(m.group(1));
    } finally {
      run("umount", mnt.toString());
    }
    System.out.printf("reserved blocks: a uid-1000 writer stopped with %d blocks free on ext4j, %d on the kernel%n",
        userStoppedAtFree, kernelStoppedAtFree);
    assertThat(userStoppedAtFree).as("free blocks when uid 1000 got ENOSPC: ext4j vs the kernel (%d)", kernelStoppedAtFree)
        .isBetween(kernelStoppedAtFree - 16, kernelStoppedAtFree + 16);
  }

  /** Writes 64 KiB chunks into a new file until ENOSPC; returns the bytes written. */
  private static long fill(Ext4FileSystem fs, long dir, String name, Caller who) throws Exception {
    Attributes a = fs.create(dir, bytes(name), 0644, who);
    long pos = 0;
    try (OpenFile f = fs.open(a.ino(), EnumSet.of(OpenFlag.WRITE), who)) {
      while (true) {
        ByteBuffer chunk = ByteBuffer.allocate(64 << 10);
        long n;
        try {
          n = f.write(pos, chunk);
        } catch (Ext4Exception e) {
          assertThat(e.errno()).as(e.getMessage()).isEqualTo(Errno.ENOSPC);
          break;
        }
        pos += n;
        if (n < 64 << 10) {
          break; // a short write: full
        }
      }
      f.fsync(false);
    }
    return pos;
  }

  private static void run(String... cmd) {
    E2fsprogs.Result r = E2fsprogs.run(E2fsprogs.TIMEOUT, cmd);
    assertThat(r.exitCode()).as("%s: %s %s", String.join(" ", cmd), r.stdout(), r.stderr()).isZero();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
