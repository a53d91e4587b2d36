package io.ext4j.testkit.block;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.ConcatBlockDevice;
import io.ext4j.block.MemoryBlockDevice;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.ReadOnlyBlockDeviceContract;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The contract over a split device (read-only through read-only parts), and transfers that cross the split land on both devices. */
@Tag("fast")
class ConcatBlockDeviceTest extends ReadOnlyBlockDeviceContract {
  private MemoryBlockDevice first; // the parts of the device create() made last
  private MemoryBlockDevice second;

  @Override
  protected BlockDevice create(int blockSize, long blockCount) {
    long a = blockCount / 3;
    first = new MemoryBlockDevice("a", blockSize, a);
    second = new MemoryBlockDevice("b", blockSize, blockCount - a);
    return new ConcatBlockDevice(first, second);
  }

  @Override
  protected BlockDevice reopenReadOnly(BlockDevice device) {
    return new ConcatBlockDevice(first.readOnlyView(), second.readOnlyView());
  }

  @Test
  void aWriteAcrossTheSplit_landsOnBothDevices_inOrder() throws IOException {
    MemoryBlockDevice a = new MemoryBlockDevice("a", 1024, 4);
    MemoryBlockDevice b = new MemoryBlockDevice("b", 1024, 4);
    ConcatBlockDevice d = new ConcatBlockDevice(a, b);
    ByteBuffer src = ByteBuffer.allocate(3 * 1024);
    for (int i = 0; i < 3; i++) {
      src.put(i * 1024, (byte) (i + 1));
    }
    d.write(3, src);
    assertThat(a.block(3)[0]).isEqualTo((byte) 1);
    assertThat(b.block(0)[0]).isEqualTo((byte) 2);
    assertThat(b.block(1)[0]).isEqualTo((byte) 3);
    ByteBuffer back = ByteBuffer.allocate(3 * 1024);
    d.read(3, back);
    assertThat(back.array()).isEqualTo(src.array());
    assertThat(d.blockCount()).isEqualTo(8);
    assertThat(d.secondStart()).isEqualTo(4);
  }
}
