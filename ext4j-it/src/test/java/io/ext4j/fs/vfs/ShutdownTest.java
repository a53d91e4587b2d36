package io.ext4j.fs.vfs;

import static io.ext4j.fs.vfs.VfsTest.ALICE;
import static io.ext4j.fs.vfs.VfsTest.ROOT;
import static io.ext4j.fs.vfs.VfsTest.assertErrno;
import static io.ext4j.fs.vfs.VfsTest.b;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.ShutdownMode;
import io.ext4j.tools.check.CheckOptions;
import io.ext4j.tools.check.CheckReport;
import io.ext4j.tools.check.Checker;
import io.ext4j.jbd2.JournalOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * FS_IOC_SHUTDOWN: only CAP_SYS_ADMIN may; afterwards every call fails with EIO and close writes
 * nothing; the next open recovers the journal as after a power cut, keeping what was durable (and,
 * with a flushing mode, what was written before the shutdown) and finding nothing to repair.
 */
@Tag("fast")
class ShutdownTest {
  /** No commit happens by itself during the test: what the NO_LOG_FLUSH image holds is what fsync made durable. */
  private static final Ext4Options OPTIONS = Ext4Options.builder()
      .journal(JournalOptions.builder().commitInterval(Duration.ofHours(1)).build()).build();

  @ParameterizedTest
  @EnumSource(ShutdownMode.class)
  void shutdown_failsEverythingAfter_andTheNextOpenRecoversWhatTheModePromises(ShutdownMode mode) throws IOException {
    MemoryBlockDevice dev = VfsTest.image();
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, OPTIONS, false)) {
      Vfs vfs = fs.vfs();
      try (OpenFile f = vfs.openat(null, b("/durable"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0644, ROOT)) {
        f.write(0, ByteBuffer.wrap(b("fsynced")));
        f.fsync(false);
      }
      OpenFile open = vfs.openat(null, b("/written"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0644, ROOT);
      open.write(0, ByteBuffer.wrap(b("not synced")));
      assertErrno(Errno.EPERM, () -> vfs.shutdown(mode, ALICE));
      assertThat(fs.isShutDown()).isFalse();

      vfs.shutdown(mode, ROOT);

      assertThat(fs.isShutDown()).isTrue();
      assertErrno(Errno.EIO, () -> vfs.mkdirat(null, b("/after"), 0755, ROOT));
      assertErrno(Errno.EIO, () -> vfs.statat(null, b("/durable"), true, ROOT));
      assertErrno(Errno.EIO, () -> open.write(0, ByteBuffer.wrap(b("more"))));
      assertErrno(Errno.EIO, () -> open.fsync(false));
      vfs.shutdown(mode, ROOT); // a second shutdown changes nothing
    } // close after a shutdown: no error, nothing written
    try (Ext4FileSystem again = Ext4FileSystem.open(dev, OPTIONS, false)) {
      Vfs vfs = again.vfs();
      assertThat(read(vfs, "/durable")).isEqualTo("fsynced");
      boolean flushed = mode != ShutdownMode.NO_LOG_FLUSH;
      if (flushed) {
        assertThat(read(vfs, "/written")).isEqualTo("not synced");
      } else {
        assertErrno(Errno.ENOENT, () -> vfs.statat(null, b("/written"), true, ROOT));
      }
      assertErrno(Errno.ENOENT, () -> vfs.statat(null, b("/after"), true, ROOT));
    }
    CheckReport report = Checker.check(dev, CheckOptions.defaults().withStrict(true));
    assertThat(report.problems()).as("the strict checker after a clean close of the recovered image").isEmpty();
  }

  private static String read(Vfs vfs, String path) throws IOException {
    try (OpenFile f = vfs.openat(null, b(path), EnumSet.of(OpenFlag.READ), 0, ROOT)) {
      ByteBuffer buf = ByteBuffer.allocate(64);
      int n = f.read(0, buf);
      return new String(buf.array(), 0, Math.max(n, 0), StandardCharsets.UTF_8);
    }
  }
}
