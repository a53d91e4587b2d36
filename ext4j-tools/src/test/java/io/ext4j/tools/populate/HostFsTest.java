package io.ext4j.tools.populate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The FFM host calls that copies in and out of images rely on, on the host's own filesystem. */
@Tag("fast")
class HostFsTest {
  static final int S_IFIFO = 0x1000;

  @TempDir
  Path tmp;

  @Test
  void theNativeCallsAreBound_underTheTestsNativeAccess() {
    assertThat(HostFs.available()).isTrue();
  }

  @Test
  void dataRegions_findTheIslandsOfASparseFile() throws Exception {
    Path f = tmp.resolve("sparse");
    try (RandomAccessFile r = new RandomAccessFile(f.toFile(), "rw")) {
      r.setLength(32 << 20);
      r.seek(1 << 20);
      r.write("first".getBytes(StandardCharsets.US_ASCII));
      r.seek((20 << 20) + 3);
      r.write("second".getBytes(StandardCharsets.US_ASCII));
    }
    List<long[]> regions = HostFs.dataRegions(f, 32 << 20);
    assertThat(regions).hasSize(2);
    assertThat(regions.get(0)[0]).isLessThanOrEqualTo(1 << 20);
    assertThat(regions.get(0)[1]).isGreaterThanOrEqualTo((1 << 20) + 5);
    assertThat(regions.get(1)[0]).isLessThanOrEqualTo((20 << 20) + 3);
    assertThat(regions.get(1)[1]).isGreaterThanOrEqualTo((20 << 20) + 9);
    long covered = regions.stream().mapToLong(x -> x[1] - x[0]).sum();
    assertThat(covered).as("bytes in data regions").isLessThan(1 << 20);
    assertThat(HostFs.dataRegions(Files.createFile(tmp.resolve("empty")), 0)).isEmpty();
  }

  @Test
  void xattrs_roundTrip_onALinkItselfAndOnFiles() throws Exception {
    Path f = Files.writeString(tmp.resolve("f"), "x");
    HostFs.setXattr(f, "user.one", new byte[] {1});
    HostFs.setXattr(f, "user.empty", new byte[0]);
    assertThat(HostFs.listXattrs(f)).contains("user.one", "user.empty");
    assertThat(HostFs.getXattr(f, "user.one")).containsExactly(1);
    assertThat(HostFs.getXattr(f, "user.empty")).isEmpty();
    assertThatThrownBy(() -> HostFs.getXattr(f, "user.none")).isInstanceOfSatisfying(HostFs.HostCallException.class,
        e -> assertThat(e.getMessage()).contains(f.toString(), "lgetxattr user.none"));
    Path link = Files.createSymbolicLink(tmp.resolve("l"), Path.of("f"));
    assertThat(HostFs.listXattrs(link)).as("the link's own attributes, not its target's").doesNotContain("user.one");
  }

  @Test
  void mknodAndSetTimes_onAFifo_doNotOpenIt() throws Exception {
    Path p = tmp.resolve("fifo");
    Instant a = Instant.parse("2000-01-01T00:00:00.000000001Z");
    Instant m = Instant.parse("2001-01-01T00:00:00.999999999Z");
    assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
      HostFs.mknod(p, S_IFIFO | 0640, 0);
      HostFs.setTimes(p, a, m);
    });
    assertThat(Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.isDirectory(p)).isFalse();
    assertThat(Files.isSymbolicLink(p)).isFalse();
    assertThat(Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS)).isEqualTo(FileTime.from(m));
    assertThatThrownBy(() -> HostFs.mknod(p, S_IFIFO | 0640, 0)).hasMessageContaining("mknod").hasMessageContaining("exists");
  }

  @Test
  void copiedXattrs_areCpAsChoice() {
    assertThat(HostFs.copiedXattr("user.x", false)).isTrue();
    assertThat(HostFs.copiedXattr("system.posix_acl_access", false)).isTrue();
    assertThat(HostFs.copiedXattr("trusted.x", false)).isFalse();
    assertThat(HostFs.copiedXattr("trusted.x", true)).isTrue();
    assertThat(HostFs.copiedXattr("system.other", true)).isFalse();
  }
}
