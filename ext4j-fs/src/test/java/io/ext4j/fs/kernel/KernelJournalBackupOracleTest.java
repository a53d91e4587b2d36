package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.JournalLocation;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.testkit.FsManifest;
import io.ext4j.testkit.KernelFsFixtures;
import io.ext4j.testkit.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A journal inode wiped from the inode table of an image the kernel left needing recovery: ext4j,
 * as e2fsck does, finds the journal through the superblock's backup of the inode's blocks
 * (s_jnl_blocks), replays it, finishes the orphans and writes the journal inode back. The result
 * is what the kernel showed after its own recovery of the undamaged image, and {@code e2fsck -fn}
 * finds it clean. (e2fsck 1.47.0 does worse here: it rebuilds the inode from the backup without
 * EXTENTS_FL, cannot walk the extent-mapped journal, and deletes it with its committed transactions;
 * the block-mapped case, where it succeeds, is compared block for block in
 * {@link KernelExt3JournalOracleTest}.)
 */
@Tag("oracle")
class KernelJournalBackupOracleTest {
  static Stream<String> fixtures() {
    return KernelFsFixtures.orphans().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void aWipedJournalInode_isRecoveredThroughTheSuperblockBackup_asE2fsckDoes(String name) throws Exception {
    long seed = Seeds.seed();
    Path dir = KernelImages.dir("journal-backup-" + name);
    Path img = KernelFsFixtures.extract(name, dir);
    KernelImages.runOk("debugfs", "-w", "-R", "clri <8>", img.toString());
    Path byE2fsck = dir.resolve("e2fsck.img");
    Files.copy(img, byE2fsck, StandardCopyOption.REPLACE_EXISTING);
    int bs = KernelFsFixtures.blockSize(name);

    try (FileBlockDevice dev = FileBlockDevice.open(img, bs, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      JournalLocation loc = Ext4JournalLocator.locate(dev);
      assertThat(loc.damagedInode()).as("the wiped inode is not used").isNotNull().contains("not a regular file");
    }
    FsManifest expected = KernelImages.withoutRecoveryTimes(KernelImages.comparable(KernelFsFixtures.manifest(name)));
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, KernelImages.READ_WRITE_NOATIME)) {
      KernelImages.assertSame(expected, KernelImages.withoutRecoveryTimes(KernelImages.comparable(EngineManifest.of(fs, 64, true, seed))),
          img, "ext4j's view of " + name + " recovered through s_jnl_blocks (seed " + seed + ")");
    }
    KernelImages.assertE2fsckClean(img, "after ext4j recovered " + name + " through the journal backup");
    try (FileBlockDevice dev = FileBlockDevice.open(img, bs, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      assertThat(Ext4JournalLocator.locate(dev).damagedInode()).as("the journal inode after ext4j wrote it back").isNull();
    }

    // e2fsck 1.47.0 rebuilds the inode from the backup without EXTENTS_FL, so it cannot walk an
    // extent-mapped journal: it deletes the journal, and the committed transactions with it.
    KernelImages.Result fix = KernelImages.run("e2fsck", "-fy", byE2fsck.toString());
    assertThat(fix.out()).as("e2fsck -fy on the damaged image: %s", fix.describe()).contains("invalid journal (inode 8)");
  }
}
