package io.ext4j.jbd2;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A journal with {@code journal_fast_commit} keeps its circular log out of the fast-commit area at
 * its end: ext4j's commits wrap before it, never write into it, and recovery wraps there too.
 */
@Tag("fast")
class JournalFastCommitAreaTest {
  private static final int BS = 1024;
  private static final long HOME = 1000;
  private static final JournalMap MAP = JournalMap.contiguous(1024, 1300);
  private static final int FC_BLOCKS = 200; // the log is [1, 1100), the area [1101, 1300)

  @Test
  void theLogWrapsBeforeTheFastCommitArea_andRecoveryFollowsIt() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    MemoryBlockDevice dev = new MemoryBlockDevice("fc", BS, 1024 + 1300);
    Journal.format(dev, MAP, JournalFixtures.uuid(seed), 1);
    byte[] sb = JournalFixtures.read(dev, MAP.deviceBlock(0));
    ByteBuffer b = ByteBuffer.wrap(sb); // big-endian; a fresh superblock has no checksum to redo
    b.putInt(0x28, b.getInt(0x28) | JournalFeature.FAST_COMMIT.mask());
    b.putInt(0x54, FC_BLOCKS);
    JournalFixtures.write(dev, MAP.deviceBlock(0), sb);
    byte[] sentinel = new byte[BS];
    Arrays.fill(sentinel, (byte) 0x5A);
    for (long jb = 1300 - FC_BLOCKS; jb < 1300; jb++) {
      JournalFixtures.write(dev, MAP.deviceBlock(jb), sentinel);
    }

    Map<Long, byte[]> last = new HashMap<>();
    JournalOptions o = JournalOptions.builder().commitInterval(Duration.ofHours(1)).checkpointInterval(Duration.ofHours(1))
        .checksumV3(true).build();
    HomeWriteGate held = new HomeWriteGate(dev, 0, HOME);
    long firstSeen;
    int tail;
    MemoryBlockDevice crashed;
    try (Journal j = Journal.open(held, MAP, o)) {
      JournalSuperblock opened = JournalRecovery.readSuperblock(dev, MAP);
      assertThat(opened.logEnd()).as("the log ends where the area starts").isEqualTo(1300 - FC_BLOCKS);
      int counter = 0;
      for (; counter < 1500; counter++) {
        write(j, r, counter, last);
      }
      firstSeen = JournalRecovery.readSuperblock(dev, MAP).sequence();
      // Bring the empty log's head to within 300 blocks of the area, 150 blocks (3 per
      // transaction) per flush, so that the last transactions below wrap.
      j.flush();
      while (opened.logEnd() - JournalRecovery.readSuperblock(dev, MAP).head() > 300) {
        for (int k = 0; k < 50; k++) {
          write(j, r, counter++, last);
        }
        j.flush();
      }
      // From here nothing goes home, so these stay in the log whenever the home writer wakes.
      held.shut();
      tail = (int) (opened.logEnd() - JournalRecovery.readSuperblock(dev, MAP).head()) / 3 + 10;
      for (int k = 0; k < tail; k++) {
        write(j, r, counter++, last);
      }
      crashed = dev.snapshot("crashed"); // a crash now: the last transactions are in the log only
      held.open();
      j.closeWithoutCheckpoint();
    }
    assertThat(firstSeen).as("the log went round: many transactions were checkpointed").isGreaterThan(1000);
    for (MemoryBlockDevice d : List.of(dev, crashed)) {
      for (long jb = 1300 - FC_BLOCKS; jb < 1300; jb++) {
        assertThat(JournalFixtures.read(d, MAP.deviceBlock(jb))).as("%s: fast-commit area block %d (seed %d)", d.name(), jb, seed)
            .isEqualTo(sentinel);
      }
    }
    for (long home = 0; home < HOME; home++) {
      crashed.write(home, ByteBuffer.allocate(BS)); // what is not checkpointed must come back from the log
    }
    RecoveryResult rec = JournalRecovery.recover(crashed, MAP, JournalRecovery.readSuperblock(crashed, MAP));
    assertThat(rec.transactionsReplayed()).as("transactions in the log at the crash").isEqualTo(tail);
    assertThat(rec.transactions().getFirst().firstBlock()).as("recovery went round: the log's head is before its tail")
        .isGreaterThan(rec.headBlock());
    int checked = 0;
    for (var e : last.entrySet()) {
      byte[] now = JournalFixtures.read(crashed, e.getKey());
      if (!Arrays.equals(now, new byte[BS])) {
        assertThat(now).as("home block %d after recovery (seed %d)", e.getKey(), seed).isEqualTo(e.getValue());
        checked++;
      }
    }
    assertThat(checked).as("blocks the log gave back").isPositive();
  }

  private static void write(Journal j, SplittableRandom r, int counter, Map<Long, byte[]> last) throws Exception {
    long home = r.nextLong(HOME);
    byte[] image = JournalFixtures.image(1, counter, home, r.nextInt(8) == 0);
    JournalFixtures.writeBlock(j, home, image, true);
    last.put(home, image);
  }
}
