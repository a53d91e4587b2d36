package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.JournalException;
import io.ext4j.jbd2.JournalLog;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.testkit.KernelFixtures;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input on the recovery path: the kernel's fixtures with random bytes of their journal changed
 * (the superblock, log blocks, or blocks past the end of the log). Reading, dumping and recovering
 * each either succeed or fail with a {@link JournalException} that names what failed — never
 * another exception type, a hang or an out-of-memory error.
 */
@Tag("fast")
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class KernelJournalCorruptionTest {
  private static final int TRIALS = 60;

  static List<String> fixtures() {
    return KernelFixtures.names();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void corruptJournal_readDumpAndRecover_failOnlyWithJournalExceptions(String name) throws Exception {
    int bs = KernelFixtures.blockSize(name);
    byte[] image = Files.readAllBytes(KernelFixtures.extract(name, Ext4Images.DIR.resolve("fixtures-corrupt")));
    JournalMap map = Ext4JournalLocator.locate(MemoryBlockDevice.of(name, bs, image.clone())).journalMap();
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    List<String> unexpected = new ArrayList<>();
    int failed = 0;
    boolean refusedFirst = false;
    for (int trial = 0; trial < TRIALS; trial++) {
      MemoryBlockDevice dev = MemoryBlockDevice.of(name, bs, image.clone());
      StringBuilder what = new StringBuilder("seed " + seed + " trial " + trial + ":");
      int flips = trial == 0 ? 1 : 1 + rnd.nextInt(4);
      for (int f = 0; f < flips; f++) {
        // Mostly the superblock and the first blocks of the log, where the kernel's transactions are.
        // Trial 0 always breaks the superblock's magic: a corruption every reader must refuse.
        long journalBlock = trial == 0 || rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(rnd.nextBoolean() ? 200 : (int) map.length());
        int offset = trial == 0 ? 0 : journalBlock == 0 && rnd.nextBoolean() ? rnd.nextInt(0x100) : rnd.nextInt(bs);
        long deviceBlock = map.deviceBlock(journalBlock);
        ByteBuffer b = ByteBuffer.allocate(bs);
        dev.read(deviceBlock, b);
        byte v = trial == 0 ? (byte) ~b.get(offset) : (byte) rnd.nextInt(256);
        b.put(offset, v);
        dev.write(deviceBlock, b.clear());
        what.append(String.format(" journal block %d byte %d := 0x%02x;", journalBlock, offset, v & 0xFF));
      }
      try {
        JournalSuperblock sb = JournalRecovery.readSuperblock(dev, map);
        JournalLog.read(dev, map, sb);
        JournalRecovery.recover(dev, map, sb);
      } catch (JournalException expected) {
        failed++;
        refusedFirst |= trial == 0;
        assertThat(expected.getMessage()).as(what.toString()).contains(name);
      } catch (Exception | StackOverflowError | OutOfMemoryError e) {
        unexpected.add(what + " " + e);
      }
    }
    System.out.printf("%s: %d of %d corrupted journals refused with a JournalException (seed %d)%n", name, failed, TRIALS,
        seed);
    assertThat(unexpected).as("exceptions other than JournalException").isEmpty();
    assertThat(refusedFirst).as("a journal superblock with a broken magic number is refused").isTrue();
    assertThat(failed).as("corrupted journals refused (seed %d)", seed).isPositive();
  }
}
