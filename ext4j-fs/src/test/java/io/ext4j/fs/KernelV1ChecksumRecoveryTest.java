package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalFailedCommitException;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.RecoveryResult;
import io.ext4j.testkit.KernelFixtures;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Legacy v1 journal checksums (COMPAT_CHECKSUM) on the kernel's own v1 fixtures: an intact log is
 * replayed whole; a logged data block that no longer matches its transaction's crc32_be is a failed
 * commit (the kernel's journals here use sync commit): the transactions before it are replayed, it
 * and everything after are not, and opening the journal is refused as the kernel refuses to mount.
 */
@Tag("fast")
class KernelV1ChecksumRecoveryTest {

  /** A fresh in-memory copy of a fixture image, and where its journal is. */
  private record Image(MemoryBlockDevice device, JournalMap map) {}

  private static Image load(String name, byte[] bytes) throws Exception {
    MemoryBlockDevice dev = MemoryBlockDevice.of(name, KernelFixtures.blockSize(name), bytes.clone());
    return new Image(dev, Ext4JournalLocator.locate(dev).journalMap());
  }

  private static byte[] fixtureBytes(String name) throws Exception {
    Path img = KernelFixtures.extract(name, Ext4Images.DIR.resolve("fixtures-v1"));
    return java.nio.file.Files.readAllBytes(img);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"1k-v1csum", "4k-v1csum"})
  void recover_ofAnIntactV1Log_replaysEveryTransaction(String name) throws Exception {
    Image im = load(name, fixtureBytes(name));
    RecoveryResult scan = JournalRecovery.scan(im.device(), im.map(), JournalRecovery.readSuperblock(im.device(), im.map()));
    RecoveryResult r = JournalRecovery.recover(im.device(), im.map(), JournalRecovery.readSuperblock(im.device(), im.map()));
    assertThat(r.transactionsReplayed()).as("the 11 transactions debugfs logdump lists").isEqualTo(11);
    assertThat(r.endTid()).isEqualTo(scan.endTid());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"1k-v1csum", "4k-v1csum"})
  void recover_whenOneLoggedDataByteChanged_stopsBeforeThatTransaction_asAFailedCommit(String name) throws Exception {
    byte[] bytes = fixtureBytes(name);
    List<RecoveryResult.Transaction> txs;
    {
      Image im = load(name, bytes);
      txs = JournalRecovery.scan(im.device(), im.map(), JournalRecovery.readSuperblock(im.device(), im.map()))
          .transactions();
    }
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int trial = 0; trial < 12; trial++) {
      int k = rnd.nextInt(txs.size());
      RecoveryResult.Transaction victim = txs.get(k);
      // The descriptor is the transaction's first block; its data blocks follow up to the commit block.
      long dataBlocks = victim.commitBlock() - victim.firstBlock() - 1;
      long journalBlock = victim.firstBlock() + 1 + rnd.nextLong(dataBlocks);
      Image im = load(name, bytes);
      int bs = im.device().blockSize();
      int offset = rnd.nextInt(bs);
      ByteBuffer b = ByteBuffer.allocate(bs);
      long deviceBlock = im.map().deviceBlock(journalBlock);
      im.device().read(deviceBlock, b);
      b.put(offset, (byte) (b.get(offset) ^ (1 + rnd.nextInt(255))));
      im.device().write(deviceBlock, b.clear());
      String what = String.format("seed %d trial %d: transaction %d, journal block %d, byte %d", seed, trial,
          victim.tid(), journalBlock, offset);

      JournalFailedCommitException e = catchThrowableOfType(JournalFailedCommitException.class,
          () -> JournalRecovery.recover(im.device(), im.map(), JournalRecovery.readSuperblock(im.device(), im.map())));

      assertThat(e).as(what).isNotNull();
      assertThat(e.failedTid()).as(what).isEqualTo(victim.tid());
      assertThat(e.replayed().transactionsReplayed()).as(what).isEqualTo(k);
      assertThat(e.getMessage()).as(what).contains("v1 checksum of transaction " + victim.tid());
      assertThat(catchThrowableOfType(JournalFailedCommitException.class,
          () -> Journal.open(im.device(), im.map(), JournalOptions.defaults()))).as("open refuses: %s", what).isNotNull();
    }
  }
}
