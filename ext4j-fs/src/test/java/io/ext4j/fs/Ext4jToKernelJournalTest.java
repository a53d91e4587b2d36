package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.format.MappedRange;
import io.ext4j.jbd2.Handle;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalAbortedException;
import io.ext4j.jbd2.JournalBuffer;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.testkit.E2fsprogs;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ext4j → kernel: ext4j commits transactions into the inode-8 journal of an mkfs.ext4 image and
 * stops without checkpointing; e2fsck must replay them, the file must then hold the new contents,
 * and a second e2fsck must find nothing to fix.
 */
@Tag("oracle")
class Ext4jToKernelJournalTest {

  @ParameterizedTest(name = "{0}-byte blocks, async commit {1}")
  @CsvSource({"1024, false", "4096, false", "1024, true", "4096, true"})
  void e2fsckReplaysWhatExt4jCommitted(int blockSize, boolean asyncCommit) throws Exception {
    Path img = Ext4Images.mkfs("ext4j-to-kernel-" + blockSize + (asyncCommit ? "-async" : ""), blockSize, 16);
    int fileBlocks = 5;
    Path src = Ext4Images.DIR.resolve("old-contents-" + blockSize);
    byte[] old = new byte[fileBlocks * blockSize];
    Arrays.fill(old, (byte) 'o');
    Files.write(src, old);
    Ext4Images.runOk("debugfs", "-w", "-R", "write " + src + " file", img.toString());
    List<MappedRange> ranges = Ext4Images.debugfsRanges(img, inodeOf(img, "file"));
    List<Long> blocks = new ArrayList<>();
    for (MappedRange r : ranges) {
      for (long i = 0; i < r.length(); i++) {
        blocks.add(r.physical() + i);
      }
    }
    assertThat(blocks).hasSize(fileBlocks);

    byte[] expected = new byte[fileBlocks * blockSize];
    try (FileBlockDevice dev = FileBlockDevice.open(img, blockSize)) {
      JournalLocation loc = Ext4JournalLocator.locate(dev);
      Journal journal = Journal.open(dev, loc.journalMap(), noBackgroundWork().toBuilder().asyncCommit(asyncCommit).build());
      Ext4JournalLocator.setNeedsRecovery(dev, true);
      dev.flush();
      // Three transactions, each rewriting some blocks; the last value of each block must win.
      for (int round = 0; round < 3; round++) {
        try (Handle h = journal.start(fileBlocks)) {
          for (int i = round; i < fileBlocks; i++) {
            byte[] text = ("round " + round + " block " + i + "\n").repeat(blockSize).getBytes(StandardCharsets.US_ASCII);
            try (JournalBuffer b = journal.buffer(blocks.get(i))) {
              h.getWriteAccess(b);
              b.data().put(text, 0, blockSize);
              h.dirtyMetadata(b);
            }
            System.arraycopy(text, 0, expected, i * blockSize, blockSize);
          }
          h.setSync(true);
        }
      }
      assertThat(journal.stats().homeWrites()).as("no checkpoint ran").isZero();
      journal.closeWithoutCheckpoint();
      assertThat(JournalRecovery.readSuperblock(dev, loc.journalMap()).needsRecovery()).isTrue();
    }
    byte[] onDiskBefore = readFileBlocks(img, blocks, blockSize);
    assertThat(onDiskBefore).as("nothing was checkpointed home").isEqualTo(old);

    E2fsprogs.Result fix = Ext4Images.run("e2fsck", "-fy", img.toString());
    assertThat(fix.exitCode()).as("e2fsck -fy exit (0 or 1 = fixed); output:%n%s", fix.output()).isIn(0, 1);
    Path out = Ext4Images.DIR.resolve("cat-" + blockSize + (asyncCommit ? "-async" : ""));
    Ext4Images.runOk("debugfs", "-R", "dump file " + out, img.toString());
    assertThat(Files.readAllBytes(out)).isEqualTo(expected);
    E2fsprogs.Result check = Ext4Images.run("e2fsck", "-fn", img.toString());
    assertThat(check.exitCode()).as("second e2fsck -fn; output:%n%s", check.output()).isZero();
  }

  @Test
  void anAbortedJournal_isReplayedByE2fsck_whichClearsTheRecordedErrno() throws Exception {
    int blockSize = 4096;
    Path img = Ext4Images.mkfs("ext4j-to-kernel-aborted", blockSize, 16);
    Path src = Ext4Images.DIR.resolve("old-contents-aborted");
    Files.write(src, "o".repeat(blockSize).getBytes(StandardCharsets.US_ASCII));
    Ext4Images.runOk("debugfs", "-w", "-R", "write " + src + " file", img.toString());
    long block = Ext4Images.debugfsRanges(img, inodeOf(img, "file")).getFirst().physical();
    byte[] acknowledged = "acknowledged before the abort\n".repeat(blockSize).substring(0, blockSize)
        .getBytes(StandardCharsets.US_ASCII);

    try (FileBlockDevice dev = FileBlockDevice.open(img, blockSize)) {
      JournalLocation loc = Ext4JournalLocator.locate(dev);
      Journal journal = Journal.open(dev, loc.journalMap(), noBackgroundWork());
      Ext4JournalLocator.setNeedsRecovery(dev, true);
      dev.flush();
      try (Handle h = journal.start(1)) {
        try (JournalBuffer b = journal.buffer(block)) {
          h.getWriteAccess(b);
          b.data().put(acknowledged);
          h.dirtyMetadata(b);
        }
        h.setSync(true);
      }
      journal.abort(new IllegalStateException("simulated file system error"));
      assertThatThrownBy(journal::close).isInstanceOf(JournalAbortedException.class);
      assertThat(JournalRecovery.readSuperblock(dev, loc.journalMap()).errno()).as("s_errno written by the abort")
          .isEqualTo(-5);
    }

    E2fsprogs.Result fix = Ext4Images.run("e2fsck", "-fy", img.toString());
    assertThat(fix.exitCode()).as("e2fsck -fy exit (0 or 1 = fixed); output:%n%s", fix.output()).isIn(0, 1);
    Path out = Ext4Images.DIR.resolve("cat-aborted");
    Ext4Images.runOk("debugfs", "-R", "dump file " + out, img.toString());
    assertThat(Files.readAllBytes(out)).as("the acknowledged transaction, replayed").isEqualTo(acknowledged);
    try (FileBlockDevice dev = FileBlockDevice.open(img, blockSize)) {
      JournalLocation loc = Ext4JournalLocator.locate(dev);
      assertThat(JournalRecovery.readSuperblock(dev, loc.journalMap()).errno()).as("cleared by e2fsck").isZero();
    }
    E2fsprogs.Result check = Ext4Images.run("e2fsck", "-fn", img.toString());
    assertThat(check.exitCode()).as("second e2fsck -fn; output:%n%s", check.output()).isZero();
  }

  /**
   * No commit or checkpoint on a timer: the tests check that nothing was written home before
   * e2fsck replays the log, which a checkpoint interval firing mid-test would break. (The other
   * wake-ups cannot fire here: a few transactions fill far less than a quarter of the log, and the
   * journal's own cache holds far more blocks than the test touches.)
   */
  private static JournalOptions noBackgroundWork() {
    return JournalOptions.builder().commitInterval(Duration.ofHours(1)).checkpointInterval(Duration.ofHours(1)).build();
  }

  private static long inodeOf(Path img, String name) throws Exception {
    String out = Ext4Images.runOk("debugfs", "-R", "stat " + name, img.toString());
    var m = java.util.regex.Pattern.compile("Inode: (\\d+)").matcher(out);
    assertThat(m.find()).as("inode number in:%n%s", out).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static byte[] readFileBlocks(Path img, List<Long> blocks, int blockSize) throws Exception {
    byte[] all = Files.readAllBytes(img);
    byte[] out = new byte[blocks.size() * blockSize];
    for (int i = 0; i < blocks.size(); i++) {
      System.arraycopy(all, (int) (blocks.get(i) * blockSize), out, i * blockSize, blockSize);
    }
    return out;
  }
}
