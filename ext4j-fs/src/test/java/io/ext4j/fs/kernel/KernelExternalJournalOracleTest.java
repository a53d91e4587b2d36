package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.ext4j.block.ConcatBlockDevice;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4FormatException;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.JournalLocation;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.RecoveryResult;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.testkit.FsManifest;
import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * An external journal (mke2fs -O journal_dev on a loop device, the filesystem made with
 * -J device=): the kernel writes through it, and both images are copied while mounted, so the log
 * on the journal device holds what is not yet home. ext4j, given the journal device as a second
 * path, recovers it to the same bytes as {@code e2fsck -E journal_only -j} — on the filesystem but
 * for the superblock fields e2fsck sets from its own run, and on the journal device exactly — and
 * the engine, opened read-write on a third copy, shows what the kernel showed and leaves both clean.
 * A journal device of another filesystem is refused, naming both UUIDs.
 */
@Tag("oracle")
@Tag("root")
class KernelExternalJournalOracleTest {
  @Test
  void anExternalJournal_recoversAsE2fsckRecoversIt_andTheEngineOpensThroughIt() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    Path dir = KernelImages.dir("external-journal");
    Path fs = dir.resolve("fs.img");
    Path journal = dir.resolve("journal.img");
    for (Path p : List.of(fs, journal)) {
      Files.deleteIfExists(p);
    }
    try (var f = new java.io.RandomAccessFile(fs.toFile(), "rw"); var j = new java.io.RandomAccessFile(journal.toFile(), "rw")) {
      f.setLength(32L << 20);
      j.setLength(8L << 20);
    }
    String loop = KernelImages.runOk("losetup", "-f", "--show", journal.toString()).strip();
    FsManifest expected;
    try {
      KernelImages.runOk("mkfs.ext4", "-q", "-F", "-O", "journal_dev", "-b", "4096", loop);
      KernelImages.runOk("mkfs.ext4", "-q", "-F", "-b", "4096", "-J", "device=" + loop, fs.toString());
      try (LoopMount m = LoopMount.readWrite(fs)) {
        KernelImages.writeFsynced(Files.createDirectories(m.dir.resolve("d")), 5, 200_000, r);
        expected = KernelImages.withoutRecoveryTimes(KernelImages.comparable(MountManifest.of(m.dir)));
        for (String t : List.of("ours", "theirs", "engine")) { // while mounted: the log holds what is not yet home
          KernelImages.copySparse(fs, dir.resolve(t + "-fs.img"));
          KernelImages.copySparse(journal, dir.resolve(t + "-journal.img"));
        }
      }
    } finally {
      KernelImages.run("losetup", "-d", loop);
    }

    Path oursFs = dir.resolve("ours-fs.img");
    Path oursJ = dir.resolve("ours-journal.img");
    try (FileBlockDevice f = FileBlockDevice.open(oursFs, 4096, FileBlockDevice.Options.defaults());
        FileBlockDevice j = FileBlockDevice.open(oursJ, 4096, FileBlockDevice.Options.defaults())) {
      ConcatBlockDevice both = new ConcatBlockDevice(f, j);
      JournalLocation loc = Ext4JournalLocator.locateExternal(both, both.secondStart(), Ext4JournalLocator.readSuperblock(f), j.name());
      JournalSuperblock jsb = JournalRecovery.readSuperblock(both, loc.journalMap());
      assertThat(jsb.start()).as("the copy's external log needs replay").isNotZero();
      RecoveryResult rec = JournalRecovery.recover(both, loc.journalMap(), jsb);
      assertThat(rec.blocksReplayed()).isPositive();
      JournalRecovery.markEmpty(both, loc.journalMap(), jsb, rec);
      Ext4JournalLocator.setNeedsRecovery(f, false);
      both.flush();
    }
    Path theirsFs = dir.resolve("theirs-fs.img");
    Path theirsJ = dir.resolve("theirs-journal.img");
    KernelImages.Result e2 = KernelImages.run("e2fsck", "-y", "-E", "journal_only", "-j", theirsJ.toString(), theirsFs.toString());
    assertThat(e2.exit()).as(e2.describe()).isLessThanOrEqualTo(1);
    assertThat(Files.readAllBytes(oursJ)).as("the journal device after ext4j's and e2fsck's recovery").isEqualTo(Files.readAllBytes(theirsJ));
    byte[] a = Files.readAllBytes(oursFs);
    byte[] b = Files.readAllBytes(theirsFs);
    List<Integer> differ = new ArrayList<>();
    for (int i = 0; i < a.length; i++) {
      int sb = i - 1024;
      boolean e2fsckOwn = (sb >= 0x30 && sb < 0x34) || (sb >= 0x178 && sb < 0x180) || (sb >= 0x3FC && sb < 0x400);
      if (a[i] != b[i] && !e2fsckOwn) {
        differ.add(i);
      }
    }
    assertThat(differ).as("filesystem bytes where ext4j's recovery differs from e2fsck's (seed %d)", seed).isEmpty();

    Path engineFs = dir.resolve("engine-fs.img");
    Path engineJ = dir.resolve("engine-journal.img");
    try (Ext4FileSystem e = Ext4FileSystem.open(engineFs, engineJ, Ext4Options.defaults())) {
      assertThat(e.isReadOnly()).as(String.valueOf(e.readOnlyReason())).isFalse();
      KernelImages.assertSame(expected, KernelImages.withoutRecoveryTimes(KernelImages.comparable(EngineManifest.of(e, 64, true, seed))),
          engineFs, "the engine's view through the external journal (seed " + seed + ")");
      e.mkdir(Ext4FileSystem.ROOT, "after".getBytes(StandardCharsets.UTF_8), 0755, io.ext4j.fs.Caller.ROOT);
    }
    KernelImages.Result clean = KernelImages.run("e2fsck", "-fn", "-j", engineJ.toString(), engineFs.toString());
    assertThat(clean.exit()).as(clean.describe()).isZero();

    // Another filesystem's journal device is refused, naming both.
    Path other = KernelImages.mkfs(dir.resolve("other.img"), 16, 4096);
    Ext4FormatException refused = catchThrowableOfType(Ext4FormatException.class,
        () -> Ext4FileSystem.open(other, engineJ, Ext4Options.defaults()));
    assertThat(refused).isNotNull();
    assertThat(refused.getMessage()).contains("internal journal");
    Path wrongJ = dir.resolve("wrong-journal.img");
    KernelImages.runOk("mkfs.ext4", "-q", "-F", "-O", "journal_dev", "-b", "4096", wrongJ.toString(), "2048");
    Ext4FormatException mismatch = catchThrowableOfType(Ext4FormatException.class,
        () -> Ext4FileSystem.open(engineFs, wrongJ, Ext4Options.defaults()));
    assertThat(mismatch).isNotNull();
    assertThat(mismatch.getMessage()).contains(wrongJ.toString()).contains("s_journal_uuid");
  }
}
