package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.ShutdownMode;
import io.ext4j.testkit.E2fsprogs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * FS_IOC_SHUTDOWN through the mount, as xfstests' {@code godown} sends it: on the mount point (a
 * directory), with the flag word in the caller's memory. Another user gets EPERM; root shuts the
 * image down, after which writes fail with EIO; the unmount then ends cleanly, and the image the
 * mount leaves recovers (the engine's open) to keep what was fsynced and what was written (the
 * mount commits the running transaction for every mode, since syncfs(2) never reaches a FUSE
 * server), and is then clean under {@code e2fsck -fn}.
 */
@Tag("oracle")
@Tag("root")
class FuseShutdownOracleTest {
  private static final Duration TOOL = Duration.ofSeconds(60);

  @TempDir
  Path tmp;

  /** The ioctl from a process of its own (Debian's python3, as .ci/run installs it: fcntl.ioctl passes a pointer to the packed flag). */
  private static E2fsprogs.Result godown(Path mountpoint, int flags, String... asUser) {
    String py = """
        import fcntl,os,struct,sys
        fd=os.open(sys.argv[1],os.O_RDONLY)
        try:
          fcntl.ioctl(fd,0x8004587d,struct.pack('I',int(sys.argv[2])))
          print('ok')
        except OSError as e:
          print(os.strerror(e.errno)); sys.exit(1)
        """;
    String[] cmd = {"/usr/bin/python3", "-c", py, mountpoint.toString(), Integer.toString(flags)};
    if (asUser.length == 0) {
      return E2fsprogs.run(TOOL, cmd);
    }
    String[] all = new String[cmd.length + 5];
    System.arraycopy(new String[] {"setpriv", "--reuid=" + asUser[0], "--regid=" + asUser[0], "--clear-groups", "--"}, 0, all, 0, 5);
    System.arraycopy(cmd, 0, all, 5, cmd.length);
    return E2fsprogs.run(TOOL, all);
  }

  /** The ioctl's flag word for {@code mode}: ext4's EXT4_GOING_FLAGS_* (the inverse of {@link ShutdownMode#ofFlags}). */
  private static int flags(ShutdownMode mode) {
    return switch (mode) {
      case FULL_SYNC -> 0;
      case LOG_FLUSH -> 1;
      case NO_LOG_FLUSH -> 2;
    };
  }

  @ParameterizedTest
  @EnumSource(ShutdownMode.class)
  void godown_shutsTheImageDown_andTheUnmountedImageRecovers(ShutdownMode mode) throws IOException {
    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path img = MountedImage.mkfs(tmp.resolve("fs.img"), 64L << 20);
    MountedImage m = MountedImage.open(img, tmp.resolve("mnt"), FuseOptions.parse("allow_other", FuseOptions.defaults()));
    try {
      try (FileChannel c = FileChannel.open(m.dir.resolve("durable"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        c.write(ByteBuffer.wrap("fsynced".getBytes(StandardCharsets.UTF_8)));
        c.force(true);
      }
      Files.writeString(m.dir.resolve("written"), "not synced");

      E2fsprogs.Result denied = godown(m.dir, flags(mode), "65534");
      assertThat(denied.output().strip()).as("another user's shutdown").isEqualTo("Operation not permitted");
      E2fsprogs.Result r = godown(m.dir, flags(mode));
      assertThat(r.output().strip()).as("root's shutdown, flags %d", flags(mode)).isEqualTo("ok");
      assertThat(m.fs.isShutDown()).isTrue();
      assertThatThrownBy(() -> Files.createDirectory(m.dir.resolve("after"))).isInstanceOf(IOException.class)
          .hasMessageContaining("Input/output error");
    } finally {
      m.unmountAndClose(); // ends without an error after the shutdown
    }
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      var vfs = fs.vfs();
      assertThat(cat(fs, "/durable")).isEqualTo("fsynced");
      assertThat(cat(fs, "/written")).isEqualTo("not synced");
      assertThatThrownBy(() -> vfs.statat(null, "/after".getBytes(StandardCharsets.UTF_8), true, io.ext4j.fs.vfs.Credentials.root()))
          .hasMessageContaining("after");
    }
    E2fsprogs.Result fsck = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(fsck.exitCode()).as("e2fsck -fn after the recovery:\n%s", fsck.output()).isZero();
  }

  private static String cat(Ext4FileSystem fs, String path) throws IOException {
    var vfs = fs.vfs();
    try (var f = vfs.openat(null, path.getBytes(StandardCharsets.UTF_8), java.util.EnumSet.of(io.ext4j.fs.OpenFlag.READ), 0,
        io.ext4j.fs.vfs.Credentials.root())) {
      ByteBuffer b = ByteBuffer.allocate(64);
      int n = f.read(0, b);
      return new String(b.array(), 0, Math.max(n, 0), StandardCharsets.UTF_8);
    }
  }
}
