package io.ext4j.fs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.AtimeUpdates;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Access times as the kernel's relatime, strictatime, noatime and nodiratime keep them, on an engine clock the test moves. */
@Tag("fast")
class AtimeTest {
  static final Credentials ROOT = Credentials.root();
  final AtomicReference<Instant> now = new AtomicReference<>(Instant.ofEpochSecond(1_800_000_000L));

  Ext4FileSystem open(AtimeUpdates policy, boolean noDirAtime) throws IOException {
    return Ext4FileSystem.open(VfsTest.image(),
        Ext4Options.builder().clock(now::get).atime(policy).noDirAtime(noDirAtime).build(), true);
  }

  void tick(Duration d) {
    now.set(now.get().plus(d));
  }

  static void write(Vfs vfs, String path) throws IOException {
    try (OpenFile f = vfs.openat(null, b(path), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE, OpenFlag.TRUNCATE), 0644, ROOT)) {
      f.write(0, ByteBuffer.wrap(b("data")));
    }
  }

  static void read(Vfs vfs, String path, OpenFlag... extra) throws IOException {
    EnumSet<OpenFlag> flags = EnumSet.of(OpenFlag.READ);
    flags.addAll(java.util.List.of(extra));
    try (OpenFile f = vfs.openat(null, b(path), flags, 0, ROOT)) {
      f.read(0, ByteBuffer.allocate(16));
    }
  }

  static Instant atime(Vfs vfs, String path) throws IOException {
    return vfs.statat(null, b(path), true, ROOT).atime();
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void relatime_updatesOnceAfterEachChange_andAgainADayLater() throws IOException {
    try (Ext4FileSystem fs = open(AtimeUpdates.RELATIME, false)) {
      Vfs vfs = fs.vfs();
      write(vfs, "/f");
      Instant written = now.get();
      tick(Duration.ofSeconds(10));
      read(vfs, "/f");
      assertThat(atime(vfs, "/f")).isEqualTo(written.plusSeconds(10)); // atime was not after mtime
      tick(Duration.ofSeconds(10));
      read(vfs, "/f");
      assertThat(atime(vfs, "/f")).isEqualTo(written.plusSeconds(10)); // read since the last change: kept
      tick(Duration.ofDays(1));
      read(vfs, "/f");
      assertThat(atime(vfs, "/f")).isEqualTo(now.get()); // a day old
      tick(Duration.ofSeconds(5));
      write(vfs, "/f");
      tick(Duration.ofSeconds(5));
      read(vfs, "/f");
      assertThat(atime(vfs, "/f")).isEqualTo(now.get()); // changed since
    }
  }

  @Test
  void strictatime_updatesOnEveryRead_noatimeAndO_NOATIME_never() throws IOException {
    try (Ext4FileSystem fs = open(AtimeUpdates.STRICTATIME, false)) {
      Vfs vfs = fs.vfs();
      write(vfs, "/f");
      for (int k = 0; k < 3; k++) {
        tick(Duration.ofSeconds(7));
        read(vfs, "/f");
        assertThat(atime(vfs, "/f")).isEqualTo(now.get());
      }
      Instant before = atime(vfs, "/f");
      tick(Duration.ofSeconds(7));
      read(vfs, "/f", OpenFlag.NOATIME);
      assertThat(atime(vfs, "/f")).isEqualTo(before);
    }
    try (Ext4FileSystem fs = open(AtimeUpdates.NOATIME, false)) {
      Vfs vfs = fs.vfs();
      write(vfs, "/f");
      Instant created = atime(vfs, "/f");
      tick(Duration.ofDays(2));
      read(vfs, "/f");
      assertThat(atime(vfs, "/f")).isEqualTo(created);
    }
  }

  @Test
  void listingADirectory_updatesItsAtime_unlessNodiratime() throws IOException {
    for (boolean noDirAtime : new boolean[] {false, true}) {
      try (Ext4FileSystem fs = open(AtimeUpdates.RELATIME, noDirAtime)) {
        Vfs vfs = fs.vfs();
        vfs.mkdirat(null, b("/d"), 0755, ROOT);
        Instant made = atime(vfs, "/d");
        tick(Duration.ofSeconds(30));
        try (OpenFile d = vfs.openat(null, b("/d"), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0, ROOT)) {
          vfs.readdir(d, 0, 100);
        }
        assertThat(atime(vfs, "/d")).as("nodiratime=%s", noDirAtime).isEqualTo(noDirAtime ? made : now.get());
      }
    }
  }
}
