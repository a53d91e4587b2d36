package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Write timestamps follow the kernel's multigrain rule: an overwrite within the coarse tick (4 ms) of
 * the last recorded change records nothing while nobody has read the timestamps, and once a caller
 * has read them the next change is recorded even inside the tick.
 */
@Tag("fast")
class TimestampGrainTest {
  private static final long T0 = 1_700_000_000_000L; // a multiple of the 4 ms tick

  @Test
  void overwritesWithinATick_recordNothing_unlessTheTimesWereSeen() throws Exception {
    AtomicLong ms = new AtomicLong(T0);
    MemoryBlockDevice dev = MemoryImages.format(16L << 20, 4096, "", 7);
    Ext4Options opt = Ext4Options.builder().clock(() -> Instant.ofEpochMilli(ms.get())).build();
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, opt, true)) {
      long ino = fs.create(Ext4FileSystem.ROOT, "f".getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE))) {
        f.write(0, ByteBuffer.allocate(4096)); // allocates: recorded at T0
        ms.set(T0 + 1);
        f.write(0, ByteBuffer.allocate(4096)); // same tick, unseen: nothing recorded
        assertThat(mtime(fs, ino)).isEqualTo(T0); // now seen
        ms.set(T0 + 2);
        f.write(0, ByteBuffer.allocate(4096)); // same tick, but seen: recorded
        ms.set(T0 + 3);
        f.write(0, ByteBuffer.allocate(4096)); // unseen again: nothing
        assertThat(mtime(fs, ino)).isEqualTo(T0 + 2);
        ms.set(T0 + 5);
        f.write(0, ByteBuffer.allocate(4096)); // seen: recorded at T0 + 5, unseen from here
        ms.set(T0 + 6);
        f.write(0, ByteBuffer.allocate(4096)); // the same tick as T0 + 5: nothing
        ms.set(T0 + 9);
        f.write(0, ByteBuffer.allocate(4096)); // the next tick: recorded though unseen
        Instant ctime = fs.getattr(ino).ctime();
        assertThat(mtime(fs, ino)).isEqualTo(T0 + 9);
        assertThat(ctime.toEpochMilli()).isEqualTo(T0 + 9);
      }
    }
  }

  private static long mtime(Ext4FileSystem fs, long ino) throws Exception {
    return fs.getattr(ino).mtime().toEpochMilli();
  }
}
