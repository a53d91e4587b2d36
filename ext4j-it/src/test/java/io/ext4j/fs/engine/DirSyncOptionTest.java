package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.RenameMode;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.testkit.RecordingBlockDevice;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The {@code dirsync} mount option ({@link Ext4Options#dirSync}): each directory change is in what
 * the device has flushed when the call returns; without the option, the same change is not (the
 * journal's timers are set to an hour, so nothing else commits it).
 */
@Tag("fast")
class DirSyncOptionTest {
  private static final Caller ROOT = Caller.ROOT;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Ext4Options options(boolean dirSync) {
    return Ext4Options.builder().dirSync(dirSync)
        .journal(JournalOptions.builder().commitInterval(Duration.ofHours(1)).checkpointInterval(Duration.ofHours(1)).build())
        .build();
  }

  /** Opens what {@code dev} has flushed so far (recovering its journal in memory) and tells whether /d/{@code name} is there. */
  private static boolean durablyPresent(RecordingBlockDevice dev, String name) throws Exception {
    MemoryBlockDevice durable = dev.recording().durable();
    try (Ext4FileSystem fs = Ext4FileSystem.open(durable, Ext4Options.builder().readOnly(true).build(), false)) {
      long d = fs.lookup(Ext4FileSystem.ROOT, b("d")).ino(); // made and synced first: missing is an error
      try {
        fs.lookup(d, b(name));
        return true;
      } catch (Ext4Exception e) {
        if (e.errno() != Errno.ENOENT) {
          throw e;
        }
        return false;
      }
    }
  }

  @Test
  void withDirSync_createRenameAndUnlink_areDurableOnReturn() throws Exception {
    RecordingBlockDevice dev = new RecordingBlockDevice(MemoryImages.format(32L << 20, 4096, "", 11));
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, options(true), false)) {
      long d = fs.mkdir(Ext4FileSystem.ROOT, b("d"), 0755, ROOT).ino();
      assertThat(durablyPresent(dev, "a")).as("d made").isFalse();
      fs.create(d, b("a"), 0644, ROOT);
      assertThat(durablyPresent(dev, "a")).as("created a").isTrue();
      fs.rename(d, b("a"), d, b("b"), RenameMode.REPLACE);
      assertThat(durablyPresent(dev, "a")).as("a renamed away").isFalse();
      assertThat(durablyPresent(dev, "b")).as("b renamed in").isTrue();
      fs.unlink(d, b("b"));
      assertThat(durablyPresent(dev, "b")).as("b unlinked").isFalse();
    }
  }

  @Test
  void withoutDirSync_aCreateIsNotDurableUntilSynced() throws Exception {
    RecordingBlockDevice dev = new RecordingBlockDevice(MemoryImages.format(32L << 20, 4096, "", 12));
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, options(false), false)) {
      long d = fs.mkdir(Ext4FileSystem.ROOT, b("d"), 0755, ROOT).ino();
      fs.syncfs();
      fs.create(d, b("a"), 0644, ROOT);
      assertThat(durablyPresent(dev, "a")).as("created a, not synced").isFalse();
      fs.syncfs();
      assertThat(durablyPresent(dev, "a")).as("created a, synced").isTrue();
    }
  }
}
