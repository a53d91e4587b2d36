package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.testkit.FsManifest;
import io.ext4j.testkit.KernelFsFixtures;
import io.ext4j.testkit.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kernel power cut → ext4j: the orphans fixtures were copied while mounted, with files open after
 * their last unlink and a truncate caught half way. ext4j opening one read-write replays the
 * journal and finishes the orphans, and then shows what the kernel showed after doing the same —
 * the statfs free counts included, so every orphan's blocks and inodes were freed; after the close
 * {@code e2fsck -fn} prints nothing and the kernel sees the same tree. Opened read-only, ext4j
 * replays in memory and writes nothing.
 */
@Tag("oracle")
class KernelFixtureOrphansTest {
  static Stream<String> fixtures() {
    return KernelFsFixtures.orphans().stream();
  }

  @Tag("root")
  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void readWriteOpen_recoversAndFinishesTheOrphans_asTheKernelDid_andLeavesACleanImage(String name) throws Exception {
    long seed = Seeds.seed();
    Path img = KernelFsFixtures.extract(name, KernelImages.dir("orphans-rw-" + name));
    int bs = KernelFsFixtures.blockSize(name);
    FsManifest expected = KernelImages.withoutRecoveryTimes(KernelImages.comparable(KernelFsFixtures.manifest(name)));
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, KernelImages.READ_WRITE_NOATIME)) {
      KernelImages.assertSame(expected, KernelImages.withoutRecoveryTimes(KernelImages.comparable(EngineManifest.of(fs, 64, true, seed))), img,
          "ext4j's view of " + name + " after its recovery (seed " + seed + ")");
    }
    KernelImages.assertE2fsckClean(img, "after ext4j recovered " + name);
    try (Ext4FileSystem fs = KernelImages.openReadOnly(img, bs)) {
      assertThat(fs.superblock().needsRecovery()).as("needs_recovery after the close").isFalse();
      KernelImages.assertSame(expected, KernelImages.withoutRecoveryTimes(KernelImages.comparable(EngineManifest.of(fs, 1000, false, seed))), img,
          "ext4j's view of " + name + " reopened (seed " + seed + ")");
    }
    try (LoopMount m = LoopMount.readOnly(img)) {
      KernelImages.assertSame(expected, KernelImages.withoutRecoveryTimes(KernelImages.comparable(MountManifest.of(m.dir))), img,
          "the kernel's view of " + name + " after ext4j recovered it");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void readOnlyOpen_replaysInMemory_showsTheRecoveredTree_andWritesNothing(String name) throws Exception {
    long seed = Seeds.seed();
    Path img = KernelFsFixtures.extract(name, KernelImages.dir("orphans-ro-" + name));
    byte[] before = Files.readAllBytes(img);
    // Read-only, the orphans stay: the half-truncated file keeps its blocks past its size, and the
    // unlinked ones their inodes, so block counts and free counts are not the kernel's.
    FsManifest expected = KernelImages.withoutRecoveryTimes(KernelFsFixtures.manifest(name)).without("blocks",
        "statfs.bfree", "statfs.bavail", "statfs.ffree");
    try (Ext4FileSystem fs = KernelImages.openReadOnly(img, KernelFsFixtures.blockSize(name))) {
      assertThat(fs.isReadOnly()).isTrue();
      KernelImages.assertSame(expected, KernelImages.withoutRecoveryTimes(EngineManifest.of(fs, 9, true, seed)).without("blocks", "statfs.bfree",
          "statfs.bavail", "statfs.ffree"), img, "ext4j's read-only view of " + name + " (seed " + seed + ")");
    }
    assertThat(Files.readAllBytes(img)).as("the image after a read-only open").isEqualTo(before);
  }
}
