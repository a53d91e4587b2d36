package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.JournalLocation;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.RecoveryResult;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.testkit.FsManifest;
import io.ext4j.testkit.Seeds;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An ext3 image (a block-mapped journal inode, no extents) that the kernel left needing recovery —
 * files written and fsynced through a loop mount, the image copied while still mounted — with its
 * journal inode then wiped. ext4j finds the journal through the superblock's backup
 * (s_jnl_blocks), replays it and writes the inode back, and the image is then the same block for
 * block as what {@code e2fsck -E journal_only} makes of it, but for the superblock's write time and
 * the rebuilt inode (where e2fsck leaves i_blocks 0 and ext4j counts the journal's blocks). Read
 * through ext4j, both show what the kernel showed.
 */
@Tag("oracle")
@Tag("root")
class KernelExt3JournalOracleTest {
  @Test
  void aBlockMappedJournal_foundThroughTheBackup_recoversAsE2fsckRecoversIt() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    Path dir = KernelImages.dir("ext3-journal");
    Path img = KernelImages.mkfs(dir.resolve("ext3.img"), 16, 1024, "-t", "ext3");
    Path crash = dir.resolve("crash.img");
    FsManifest expected;
    try (LoopMount m = LoopMount.readWrite(img)) {
      Path d = Files.createDirectories(m.dir.resolve("d"));
      KernelImages.writeFsynced(d, 6, 120_000, r);
      try (FileChannel c = FileChannel.open(d, StandardOpenOption.READ)) {
        c.force(true);
      }
      expected = KernelImages.withoutRecoveryTimes(KernelImages.comparable(MountManifest.of(m.dir)));
      KernelImages.copySparse(img, crash); // while mounted: the log holds what is not yet home
    }
    Path byExt4j = dir.resolve("ext4j.img");
    Path byE2fsck = dir.resolve("e2fsck.img");
    for (Path p : List.of(byExt4j, byE2fsck)) {
      Files.copy(crash, p, StandardCopyOption.REPLACE_EXISTING);
      KernelImages.runOk("debugfs", "-w", "-R", "clri <8>", p.toString());
    }

    long inodeAt;
    int inodeSize;
    try (FileBlockDevice dev = FileBlockDevice.open(byExt4j, 1024, FileBlockDevice.Options.defaults())) {
      Ext4Superblock sb = Ext4JournalLocator.readSuperblock(dev);
      assertThat(sb.hasIncompat(Ext4Superblock.INCOMPAT_EXTENTS)).as("ext3: no extents").isFalse();
      JournalLocation loc = Ext4JournalLocator.locate(dev);
      assertThat(loc.damagedInode()).as("the wiped journal inode").isNotNull();
      JournalSuperblock jsb = JournalRecovery.readSuperblock(dev, loc.journalMap());
      assertThat(sb.needsRecovery() && jsb.start() != 0).as("the copy needs recovery (the kernel had not checkpointed)").isTrue();
      RecoveryResult rec = JournalRecovery.recover(dev, loc.journalMap(), jsb);
      assertThat(rec.blocksReplayed()).isPositive();
      JournalRecovery.markEmpty(dev, loc.journalMap(), jsb, rec);
      Ext4JournalLocator.setNeedsRecovery(dev, false);
      JournalLocation again = Ext4JournalLocator.locate(dev);
      Ext4JournalLocator.repairJournalInode(dev, Ext4JournalLocator.readSuperblock(dev), again);
      dev.flush();
      assertThat(Ext4JournalLocator.locate(dev).damagedInode()).as("after the inode was written back").isNull();
      inodeSize = sb.inodeSize();
      inodeAt = Ext4JournalLocator.inodeOffset(dev, sb, sb.journalInode());
    }
    KernelImages.Result e2 = KernelImages.run("e2fsck", "-y", "-E", "journal_only", byE2fsck.toString());
    assertThat(e2.exit()).as(e2.describe()).isZero();

    byte[] a = Files.readAllBytes(byExt4j);
    byte[] b = Files.readAllBytes(byE2fsck);
    assertThat(a.length).isEqualTo(b.length);
    List<Long> differ = new ArrayList<>();
    for (int i = 0; i < a.length; i++) {
      boolean writeTime = i >= 1024 + 0x30 && i < 1024 + 0x34;
      boolean journalInode = i >= inodeAt && i < inodeAt + inodeSize;
      if (a[i] != b[i] && !writeTime && !journalInode) {
        differ.add((long) i);
      }
    }
    assertThat(differ).as("bytes where ext4j's recovery differs from e2fsck -E journal_only (seed %d)", seed).isEmpty();

    for (Path p : List.of(byExt4j, byE2fsck)) {
      try (Ext4FileSystem fs = KernelImages.openReadOnly(p, 1024)) {
        KernelImages.assertSame(expected, KernelImages.withoutRecoveryTimes(KernelImages.comparable(EngineManifest.of(fs, 64, false, seed))),
            p, "the recovered ext3 image " + p.getFileName() + " (seed " + seed + ")");
      }
    }
  }
}
