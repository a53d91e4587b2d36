package io.ext4j.block.os;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The libc binding on this (Linux) host, with native access as the tests' argLine enables it. */
@Tag("fast")
class LibcTest {
  private static final int EBADF = 9;

  @TempDir Path tmp;

  @Test
  void binding_withNativeAccessOnLinux_isAvailable() {
    assertThat(Libc.nativeAccessEnabled()).isTrue();
    assertThat(Libc.available()).as("%s", Libc.unavailableReason()).isTrue();
    assertThat(Libc.unavailableReason()).isNull();
  }

  @Test
  void failedCall_returnsMinusTheCapturedErrno() {
    assertThat(Libc.open(tmp.resolve("missing").toString(), Libc.O_RDONLY, 0)).isEqualTo(-Libc.ENOENT);
    assertThat(Libc.close(-1)).isEqualTo(-EBADF);
    assertThat(Libc.mknod(tmp.resolve("missing/fifo").toString(), 0010644, 0)).isEqualTo(-Libc.ENOENT);
  }

  @Test
  void strerror_ofKnownErrno_isTheCLibrarysText() {
    assertThat(Libc.strerror(Libc.ENOENT)).isEqualTo("No such file or directory");
    assertThat(Libc.strerror(Libc.EINVAL)).isEqualTo("Invalid argument");
  }

  @Test
  void getuidAndGetgid_matchTheProcesssIds() throws Exception {
    assertThat(Libc.getuid()).isEqualTo(Integer.parseInt(run("id", "-u")));
    assertThat(Libc.getgid()).isEqualTo(Integer.parseInt(run("id", "-g")));
  }

  @Test
  void openLseekClose_reportTheDataOfAFile() throws IOException {
    Path f = Files.write(tmp.resolve("f"), new byte[100]);
    int fd = Libc.open(f.toString(), Libc.O_RDONLY, 0);
    assertThat(fd).isNotNegative();
    try {
      assertThat(Libc.lseek(fd, 0, Libc.SEEK_DATA)).isZero();
      assertThat(Libc.lseek(fd, 0, Libc.SEEK_HOLE)).isEqualTo(100);
      assertThat(Libc.lseek(fd, 100, Libc.SEEK_DATA)).as("no data past the end").isEqualTo(-Libc.ENXIO);
    } finally {
      assertThat(Libc.close(fd)).isZero();
    }
  }

  @Test
  void utimensat_setsTimesToTheNanosecond() throws IOException {
    Path f = Files.createFile(tmp.resolve("t"));
    Instant atime = Instant.ofEpochSecond(1_000_000_000L, 123_456_789);
    Instant mtime = Instant.ofEpochSecond(1_100_000_000L, 987_654_321);
    assertThat(Libc.utimensat(Libc.AT_FDCWD, f.toString(), atime, mtime, Libc.AT_SYMLINK_NOFOLLOW)).isZero();
    assertThat(Files.getLastModifiedTime(f).toInstant()).isEqualTo(mtime);
  }

  @Test
  void llistxattr_ofMissingFile_isMinusEnoent() {
    assertThat(Libc.llistxattr(tmp.resolve("missing").toString(), MemorySegment.NULL)).isEqualTo(-Libc.ENOENT);
    assertThat(Libc.lgetxattr(tmp.resolve("missing").toString(), "user.x", MemorySegment.NULL)).isEqualTo(-Libc.ENOENT);
  }

  @Test
  void futex_waitOnAChangedWord_returnsEagainAtOnce_andWakeWithNoSleeperWakesNone() {
    int waitPrivate = 128;
    int wakePrivate = 1 | 128;
    try (Arena a = Arena.ofConfined()) {
      MemorySegment word = a.allocate(ValueLayout.JAVA_INT);
      word.set(ValueLayout.JAVA_INT, 0, 7);
      assertThat(Libc.futex(word, waitPrivate, 6)).isEqualTo(-Libc.EAGAIN);
      assertThat(Libc.futex(word, wakePrivate, Integer.MAX_VALUE)).isZero();
    }
  }

  private static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }
}
