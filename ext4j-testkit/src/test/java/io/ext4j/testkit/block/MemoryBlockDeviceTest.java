package io.ext4j.testkit.block;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;

import io.ext4j.testkit.ReadOnlyBlockDeviceContract;
import org.junit.jupiter.api.Tag;

/** The SPI contract for {@link MemoryBlockDevice} (here, not in ext4j-block: the test kit depends on block). */
@Tag("fast")
class MemoryBlockDeviceTest extends ReadOnlyBlockDeviceContract {
  @Override
  protected BlockDevice create(int blockSize, long blockCount) {
    return new MemoryBlockDevice("mem", blockSize, blockCount);
  }

  @Override
  protected BlockDevice reopenReadOnly(BlockDevice device) {
    return ((MemoryBlockDevice) device).readOnlyView();
  }
}
