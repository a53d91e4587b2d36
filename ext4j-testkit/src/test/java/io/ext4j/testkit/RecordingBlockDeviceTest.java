package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.BlockDeviceException;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.testkit.RecordingBlockDevice.Flush;
import io.ext4j.testkit.RecordingBlockDevice.Mark;
import io.ext4j.testkit.RecordingBlockDevice.Write;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class RecordingBlockDeviceTest extends BlockDeviceContract {
  @Override
  protected BlockDevice create(int blockSize, long blockCount) {
    return new RecordingBlockDevice("rec", blockSize, blockCount);
  }

  @Test
  void log_holdsOneWritePerBlock_flushesAndMarks_inOrderWithSequenceNumbers() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", 1024, 16);
    d.write(2, pattern(2, 1));
    d.flush();
    d.mark("fsync 1");
    d.write(7, pattern(1, 2), pattern(1, 3));

    Recording r = d.recording();
    assertThat(r.events()).hasSize(6);
    for (int i = 0; i < r.events().size(); i++) {
      assertThat(r.events().get(i).seq()).isEqualTo(i);
    }
    assertThat(r.events().get(0)).isInstanceOfSatisfying(Write.class, w -> assertThat(w.block()).isEqualTo(2));
    assertThat(r.events().get(1)).isInstanceOfSatisfying(Write.class, w -> {
      assertThat(w.block()).isEqualTo(3);
      assertThat(w.data()).isEqualTo(bytes(pattern(2, 1).position(1024)));
    });
    assertThat(r.events().get(2)).isInstanceOf(Flush.class);
    assertThat(r.events().get(3)).isEqualTo(new Mark(3, "fsync 1"));
    assertThat(r.events().get(5)).isInstanceOfSatisfying(Write.class, w -> assertThat(w.block()).isEqualTo(8));
    assertThat(r.flushCount()).isEqualTo(1);
    assertThat(r.marks()).extracting(Mark::label).containsExactly("fsync 1");
  }

  @Test
  void zeroOut_isLoggedAsAWriteOfZerosPerBlock_soCrashStatesMayKeepAnySubset() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", 1024, 16);
    d.write(3, pattern(3, 5));
    d.flush();
    d.zeroOut(3, 2);

    Recording r = d.recording();
    assertThat(r.events()).hasSize(6);
    for (int i = 4; i < 6; i++) {
      assertThat(r.events().get(i)).isInstanceOfSatisfying(Write.class, w -> assertThat(w.data()).containsOnly(0));
    }
    assertThat(((Write) r.events().get(4)).block()).isEqualTo(3);
    assertThat(((Write) r.events().get(5)).block()).isEqualTo(4);
    assertThat(r.durable().block(3)).as("not flushed: a crash may keep the old contents").isEqualTo(bytes(pattern(1, 5)));
    assertThat(r.latest().block(4)).containsOnly(0);
    assertThat(readBlock(d, 5)).isEqualTo(bytes(pattern(3, 5).position(2048)));
  }

  @Test
  void recording_materializesBaseDurableAndLatestImages() throws IOException {
    MemoryBlockDevice base = new MemoryBlockDevice("base", 1024, 8);
    base.write(0, pattern(1, 9));
    RecordingBlockDevice d = new RecordingBlockDevice(base);
    d.write(1, pattern(1, 10));
    d.flush();
    d.write(2, pattern(1, 11));
    base.write(0, pattern(1, 99)); // later changes to the base are not seen

    Recording r = d.recording();
    assertThat(r.base().block(0)).isEqualTo(bytes(pattern(1, 9)));
    assertThat(r.durable().block(1)).isEqualTo(bytes(pattern(1, 10)));
    assertThat(r.durable().block(2)).containsOnly(0);
    assertThat(r.latest().block(2)).isEqualTo(bytes(pattern(1, 11)));
    assertThat(readBlock(d, 0)).isEqualTo(bytes(pattern(1, 9)));
  }

  @Test
  void crash_stopsTheDevice_andFreezesTheLog() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", 1024, 8);
    d.write(1, pattern(1, 1));
    Recording r = d.crash();
    assertThatThrownBy(() -> d.write(2, pattern(1, 2))).isInstanceOf(BlockDeviceException.class).hasMessageContaining("crash");
    assertThatThrownBy(d::flush).isInstanceOf(BlockDeviceException.class);
    assertThatThrownBy(() -> d.read(1, ByteBuffer.allocate(1024))).isInstanceOf(BlockDeviceException.class);
    assertThatThrownBy(() -> d.mark("late")).isInstanceOf(BlockDeviceException.class);
    assertThat(r.events()).hasSize(1);
    assertThat(d.eventCount()).isEqualTo(1);
  }

  @Test
  void concurrentWrites_areAllLogged_andTheLogReplaysToTheLiveImage() throws Exception {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", 1024, 64);
    Thread[] ts = new Thread[4];
    for (int t = 0; t < ts.length; t++) {
      int id = t;
      ts[t] = Thread.ofPlatform().start(() -> {
        try {
          for (int i = 0; i < 100; i++) {
            d.write((id * 7 + i) % 64, pattern(1, id * 1000 + i));
            if (i % 10 == 0) {
              d.flush();
            }
          }
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      });
    }
    for (Thread t : ts) {
      t.join();
    }
    Recording r = d.recording();
    assertThat(r.events().stream().filter(Write.class::isInstance)).hasSize(400);
    MemoryBlockDevice replayed = r.latest();
    for (long b = 0; b < 64; b++) {
      assertThat(replayed.block(b)).as("block %d", b).isEqualTo(readBlock(d, b));
    }
  }
}
