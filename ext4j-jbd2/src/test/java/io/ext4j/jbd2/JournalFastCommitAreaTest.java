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
    long firstSeen = -1;
    try (Journal j = Journal.open(dev, MAP, o)) {
      JournalSuperblock opened = JournalRecovery.readSuperblock(dev, MAP);
      assertThat(opened.logEnd()).as("the log ends where the area starts").isEqualTo(1300 - FC_BLOCKS);
      for (int i = 0; i < 1500; i++) {
        long home = r.nextLong(HOME);
        byte[] image = JournalFixtures.image(1, i, home, r.nextInt(8) == 0);
        JournalFixtures.writeBlock(j, home, image, true);
        last.put(home, image);
      }
      firstSeen = JournalRecovery.readSuperblock(dev, MAP).sequence();
      j.closeWithoutCheckpoint();
    }
    assertThat(firstSeen).as("the log went round: many transactions were checkpointed").isGreaterThan(1000);
    for (long jb = 1300 - FC_BLOCKS; jb < 1300; jb++) {
      assertThat(JournalFixtures.read(dev, MAP.deviceBlock(jb))).as("fast-commit area block %d (seed %d)", jb, seed).isEqualTo(sentinel);
    }
    for (long home = 0; home < HOME; home++) {
      dev.write(home, ByteBuffer.allocate(BS)); // what is not checkpointed must come back from the log
    }
    JournalSuperblock dirty = JournalRecovery.readSuperblock(dev, MAP);
    RecoveryResult rec = JournalRecovery.recover(dev, MAP, dirty);
    assertThat(rec.transactionsReplayed()).isPositive();
    int checked = 0;
    for (var e : last.entrySet()) {
      byte[] now = JournalFixtures.read(dev, e.getKey());
      if (!Arrays.equals(now, new byte[BS])) {
        assertThat(now).as("home block %d after recovery (seed %d)", e.getKey(), seed).isEqualTo(e.getValue());
        checked++;
      }
    }
    assertThat(checked).as("blocks the log gave back").isPositive();
  }
}
