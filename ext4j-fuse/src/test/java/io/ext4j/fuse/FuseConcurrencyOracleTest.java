package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.NamespaceWorkload;
import io.ext4j.testkit.PathOps;
import io.ext4j.testkit.Seeds;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namespace race of {@link NamespaceWorkload} (8 threads, {@code -Dext4j.concurrency.seconds},
 * 30 by default) through the FUSE mount with plain syscalls (the JDK's own file system on the mount
 * point): every call ends as Linux allows, no file shows another's data, and after unmount the image
 * passes ext4j's strict fsck and {@code e2fsck -fn}. The nio and VFS suites run the same program.
 *
 * <p>The mount is {@code direct_io} by default ({@code -Dext4j.fuseopts=} to change it): through the
 * kernel's FUSE page cache a read racing an O_TRUNC rewrite of the same file can return a block of
 * zeros (the kernel zero-fills a short READ whose size changed meanwhile), which the kernel's own
 * ext4 never shows; with direct_io every READ is the engine's answer, which is what this suite
 * checks.
 */
@Tag("oracle")
@Tag("root")
class FuseConcurrencyOracleTest {
  @TempDir
  Path tmp;

  @Test
  void throughTheMount_noCallFailsAsLinuxWouldNot_noFileHoldsAnothersData_andTheImageIsClean() throws Exception {
    long seed = Seeds.seed();
    NamespaceWorkload.Result r;
    Path image;
    try (MountedImage m = MountedImage.create(tmp, 256L << 20, FuseOptions.parse(System.getProperty("ext4j.fuseopts", "direct_io"), FuseOptions.defaults()), "-b", "4096")) {
      image = m.image;
      r = new NamespaceWorkload(new PathOps(m.dir), 8, Duration.ofSeconds(Long.getLong("ext4j.concurrency.seconds", 30)), seed).run();
    } // unmount, close, e2fsck -fn
    System.out.println("ext4j fuse: " + r.summary());
    assertThat(r.violations()).as("seed %d", seed).isEmpty();
    assertThat(r.outcomes()).containsKeys("CREATE OK", "CREATE_EXCL OK", "READ OK", "UNLINK OK", "RENAME OK", "LINK OK", "MKDIR OK",
        "RMDIR OK", "LIST OK", "PRIVATE OK");
    try (var dev = io.ext4j.block.FileBlockDevice.open(image, 4096, io.ext4j.block.FileBlockDevice.Options.defaults().withReadOnly(true))) {
      var report = io.ext4j.tools.check.Checker.check(dev, io.ext4j.tools.check.CheckOptions.defaults().withStrict(true));
      assertThat(report.clean()).as("ext4j fsck --strict after the race: %s", report.toText()).isTrue();
    }
  }
}
