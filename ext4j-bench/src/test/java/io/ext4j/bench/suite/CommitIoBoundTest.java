package io.ext4j.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.jbd2.JournalStats;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commit-io bound writes what ext4j's commit of a lone append writes: the same number of log
 * blocks per transaction, counted by the engine's own journal, and it measures something.
 */
@Tag("fast")
class CommitIoBoundTest {
  @Test
  void aLoneAppendsCommit_logsAsManyBlocksAsTheBoundWrites(@TempDir Path dir) throws Exception {
    Path img = dir.resolve("a.img");
    Targets.makeBase(img, 64L << 20);
    int appends = 20;
    try (FileSystem fs = FileSystems.newFileSystem(img, Map.of())) {
      Path f = fs.getPath("/f");
      try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
        ByteBuffer b = ByteBuffer.allocate(CommitIoBound.BLOCK);
        ch.write(b, 0);
        ch.force(true); // the create and the first block: not a lone append's commit
        JournalStats before = stats(f);
        for (int i = 1; i <= appends; i++) {
          ch.write(b.clear(), (long) i * CommitIoBound.BLOCK);
          ch.force(true);
        }
        JournalStats after = stats(f);
        assertThat(after.transactions() - before.transactions()).as("one commit per fsync").isEqualTo(appends);
        double logged = after.loggedBlocksPerTransaction() * after.transactions()
            - before.loggedBlocksPerTransaction() * before.transactions();
        assertThat(Math.round(logged)).as("log blocks and commit blocks of the appends' commits")
            .isEqualTo((long) appends * (CommitIoBound.LOG_BLOCKS + 1));
      }
    }
  }

  @Test
  void aSlice_measuresOperationsOnItsWrittenThroughFile(@TempDir Path dir) throws Exception {
    Path file = CommitIoBound.prepare(dir);
    assertThat(Files.size(file)).isPositive();
    Cell.Slice s = CommitIoBound.run(file, Duration.ZERO, Duration.ofMillis(100));
    assertThat(s.operations()).isPositive();
    assertThat(s.latency().getTotalCount()).isEqualTo(s.operations());
  }

  private static JournalStats stats(Path p) throws Exception {
    return (JournalStats) Files.getFileStore(p).getAttribute("journalStats");
  }
}
