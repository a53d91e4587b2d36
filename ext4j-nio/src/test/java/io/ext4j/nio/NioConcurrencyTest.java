package io.ext4j.nio;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.NamespaceWorkload;
import io.ext4j.testkit.PathOps;
import io.ext4j.testkit.Seeds;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namespace race ({@link NamespaceWorkload}: 8 threads of create, write, read back, unlink,
 * rename over, link, mkdir, rmdir and readdir on shared and private names) through the ext4j
 * provider and through the JDK's own file system: both must end every call as Linux allows and
 * never show one file's data in another; the image must then pass ext4j's strict fsck and
 * {@code e2fsck -fn}. Each run lasts {@code -Dext4j.concurrency.seconds} (30 by default).
 */
@Tag("oracle")
class NioConcurrencyTest {
  static final int THREADS = 8;

  @TempDir
  Path tmp;

  static Duration duration() {
    return Duration.ofSeconds(Long.getLong("ext4j.concurrency.seconds", 30));
  }

  static void assertClean(NamespaceWorkload.Result r, String where) {
    assertClean(r, where, "");
  }

  /** As {@link #assertClean(NamespaceWorkload.Result, String)}, with {@code image} (what the checkers said of it) in a failure. */
  static void assertClean(NamespaceWorkload.Result r, String where, String image) {
    System.out.println(where + ": " + r.summary());
    assertThat(r.violations()).as("%s, seed %d (replay with -D%s=%d)%s", where, r.seed(), Seeds.PROPERTY, r.seed(), image).isEmpty();
    assertThat(r.outcomes()).as("%s: every kind of call succeeded at least once", where)
        .containsKeys("CREATE OK", "CREATE_EXCL OK", "READ OK", "UNLINK OK", "RENAME OK", "LINK OK", "MKDIR OK", "RMDIR OK", "LIST OK",
            "PRIVATE OK");
  }

  @Test
  void throughTheProvider_noCallFailsAsLinuxWouldNot_noFileHoldsAnothersData_andTheImageIsClean() throws Exception {
    long seed = Seeds.seed();
    Path img = tmp.resolve("race.img");
    NamespaceWorkload.Result r;
    try (FileSystem fs = FileSystems.newFileSystem(java.net.URI.create("ext4:" + img.toUri()), Map.of("create", "true", "size", "128m"))) {
      r = new NamespaceWorkload(new InspectingOps(fs, img), THREADS, duration(), seed).run();
    }
    // Both checkers judge the image before the workload's verdict, so a wrong read is reported with
    // what they found (a block claimed twice, a bitmap out of step) beside it.
    io.ext4j.tools.check.CheckReport report;
    try (var dev = io.ext4j.block.FileBlockDevice.open(img, Ext4jContractTest.blockSize(img),
        io.ext4j.block.FileBlockDevice.Options.defaults().withReadOnly(true))) {
      report = io.ext4j.tools.check.Checker.check(dev, io.ext4j.tools.check.CheckOptions.defaults().withStrict(true));
    }
    E2fsprogs.Result e = E2fsprogs.e2fsckForceNoChange(img);
    assertClean(r, "ext4j nio", "\next4j fsck --strict of the image:\n" + report.toText() + "\ne2fsck -fn (exit " + e.exitCode() + "):\n"
        + e.output());
    assertThat(report.clean()).as("ext4j fsck --strict after the race: %s", report.toText()).isTrue();
    assertThat(e.exitCode()).as("e2fsck -fn after the race:\n%s", e.output()).isZero();
  }

  @Test
  void onTheJdksOwnFileSystem_theSameProgramEndsTheSameWay() throws Exception {
    long seed = Seeds.seed();
    Path root = Files.createDirectory(tmp.resolve("default"));
    NamespaceWorkload.Result r = new NamespaceWorkload(new PathOps(root), THREADS, duration(), seed).run();
    assertClean(r, "default file system");
  }
}
