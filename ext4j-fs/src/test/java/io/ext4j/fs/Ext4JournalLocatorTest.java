package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.MappedRange;
import io.ext4j.testkit.E2fsprogs;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("oracle")
class Ext4JournalLocatorTest {

  private static List<MappedRange> asRanges(JournalLocation loc) {
    return loc.extents().stream().map(e -> new MappedRange(e.logical(), e.physical(), e.length(), false)).toList();
  }

  @ParameterizedTest(name = "{0}-byte blocks, {1} MiB, device blocks of {2}")
  @CsvSource({"1024, 16, 1024", "1024, 16, 512", "4096, 64, 4096", "4096, 64, 1024"})
  void locate_onMkfsImage_matchesDebugfsAndDumpe2fs(int blockSize, int mib, int deviceBlockSize) throws Exception {
    Path img = Ext4Images.mkfs("locate-" + blockSize, blockSize, mib);
    JournalLocation loc = Ext4JournalLocator.locate(Ext4Images.load(img, deviceBlockSize));
    String h = Ext4Images.dumpe2fsHeader(img);

    assertThat(asRanges(loc)).isEqualTo(Ext4Images.debugfsRanges(img, 8));
    assertThat(loc.length()).isEqualTo(Long.parseLong(Ext4Images.field(h, "Total journal blocks")));
    assertThat(loc.blockSize()).isEqualTo(blockSize);
    for (long j : new long[] {0, 1, loc.length() / 2, loc.length() - 1}) {
      assertThat(loc.deviceBlock(j)).as("journal block %d", j).isEqualTo(Ext4Images.debugfsBmap(img, 8, j));
    }
  }

  @Test
  void locate_withIndirectMappedJournal_matchesDebugfs() throws Exception {
    Path img = Ext4Images.mkfs("locate-indirect", 1024, 16, "-O", "^extent,^64bit,^flex_bg");
    JournalLocation loc = Ext4JournalLocator.locate(Ext4Images.load(img, 1024));

    assertThat(asRanges(loc)).isEqualTo(Ext4Images.debugfsRanges(img, 8));
    assertThat(loc.length()).isEqualTo(1024);
    assertThat(loc.extents()).hasSizeGreaterThan(1); // the indirect blocks split the data runs
  }

  @Test
  void locate_withLargeJournal_spansMoreThanOneExtent() throws Exception {
    // Extents hold at most 32768 blocks, so a 64 MiB journal of 1 KiB blocks needs at least two.
    Path img = Ext4Images.mkfs("locate-large", 1024, 160, "-J", "size=64");
    JournalLocation loc = Ext4JournalLocator.locate(Ext4Images.load(img, 1024));

    assertThat(loc.length()).isEqualTo(65536);
    assertThat(loc.extents()).hasSizeGreaterThanOrEqualTo(2);
    assertThat(asRanges(loc)).isEqualTo(Ext4Images.debugfsRanges(img, 8));
    assertThat(loc.deviceBlock(40000)).isEqualTo(Ext4Images.debugfsBmap(img, 8, 40000));
  }

  @Test
  void locate_onZeroedDevice_saysNotExt4WithMagicAndOffset() {
    MemoryBlockDevice zeros = new MemoryBlockDevice("/images/blank.img", 1024, 64);

    assertThatThrownBy(() -> Ext4JournalLocator.locate(zeros))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageContaining("/images/blank.img")
        .hasMessageContaining("not an ext4 filesystem (bad superblock magic 0x0000 at byte 1080");
  }

  @Test
  void locate_withoutJournal_saysSo() throws Exception {
    Path img = Ext4Images.mkfs("locate-nojournal", 4096, 16, "-O", "^has_journal");

    assertThatThrownBy(() -> Ext4JournalLocator.locate(Ext4Images.load(img, 4096)))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageContaining(img.toString())
        .hasMessageContaining("has no journal");
  }

  @Test
  void locate_onExternalJournalDevice_saysSo() throws Exception {
    Path img = Ext4Images.mkfs("locate-journaldev", 4096, 16, "-O", "journal_dev");

    assertThatThrownBy(() -> Ext4JournalLocator.locate(Ext4Images.load(img, 4096)))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageContaining("external journal device");
  }

  @Test
  void locate_whenJournalInodeIsCorrupt_reportsInodeChecksum_andFallsBackToTheSuperblockBackup() throws Exception {
    Path img = Ext4Images.mkfs("locate-badinode", 4096, 16);
    MemoryBlockDevice dev = Ext4Images.load(img, 4096);
    JournalLocation good = Ext4JournalLocator.locate(dev);
    // Flip a byte of inode 8's size field: inode table block + 7 * inode size.
    var gd = Ext4JournalLocator.readGroupDescriptor(dev, good.superblock(), 0);
    long at = gd.inodeTable() * 4096 + 7L * good.superblock().inodeSize() + 4;
    byte[] block = dev.block(at / 4096);
    block[(int) (at % 4096)] ^= 0x40;
    dev.write(at / 4096, ByteBuffer.wrap(block));

    JournalLocation viaBackup = Ext4JournalLocator.locate(dev);
    assertThat(viaBackup.damagedInode()).contains("inode 8 checksum mismatch");
    assertThat(viaBackup.extents()).isEqualTo(good.extents());

    // Without the backup (s_jnl_backup_type 0) the damage is the answer.
    byte[] sb = Ext4JournalLocator.readBytes(dev, Ext4Superblock.OFFSET, Ext4Superblock.SIZE);
    sb[0xFD] = 0;
    byte[] fixed = new io.ext4j.fs.format.SuperblockEditor(sb).encode();
    byte[] b0 = dev.block(0);
    System.arraycopy(fixed, 0, b0, 1024, fixed.length);
    dev.write(0, ByteBuffer.wrap(b0));
    assertThatThrownBy(() -> Ext4JournalLocator.locate(dev))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageContaining("inode 8 checksum mismatch");
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void setNeedsRecovery_isSeenByDumpe2fsAndAcceptedByE2fsck(int blockSize) throws Exception {
    Path img = Ext4Images.mkfs("recover-flag-" + blockSize, blockSize, 16);
    MemoryBlockDevice dev = Ext4Images.load(img, blockSize);

    Ext4JournalLocator.setNeedsRecovery(dev, true);
    Files.write(img, dev.toByteArray());
    assertThat(Ext4Images.field(Ext4Images.dumpe2fsHeader(img), "Filesystem features")).contains("needs_recovery");
    assertThat(Ext4JournalLocator.readSuperblock(dev).needsRecovery()).isTrue();

    Ext4JournalLocator.setNeedsRecovery(dev, false);
    Files.write(img, dev.toByteArray());
    assertThat(Ext4Images.field(Ext4Images.dumpe2fsHeader(img), "Filesystem features")).doesNotContain("needs_recovery");
    E2fsprogs.Result fsck = Ext4Images.run("e2fsck", "-fn", img.toString());
    assertThat(fsck.exitCode()).as(fsck.output()).isZero();
  }

  @Test
  void setNeedsRecovery_withFlagSet_e2fsckAcceptsSuperblockChecksum() throws Exception {
    Path img = Ext4Images.mkfs("recover-flag-set", 4096, 16);
    MemoryBlockDevice dev = Ext4Images.load(img, 4096);
    Ext4JournalLocator.setNeedsRecovery(dev, true);
    Files.write(img, dev.toByteArray());

    // e2fsck replays the (empty) journal and clears the flag; a bad checksum would stop it first.
    E2fsprogs.Result replay = Ext4Images.run("e2fsck", "-E", "journal_only", "-y", img.toString());
    assertThat(replay.exitCode()).as(replay.output()).isLessThanOrEqualTo(1);
    assertThat(replay.output()).doesNotContainIgnoringCase("checksum");
    assertThat(Ext4Images.field(Ext4Images.dumpe2fsHeader(img), "Filesystem features")).doesNotContain("needs_recovery");
  }
}
