package io.ext4j.jbd2.internal;

import io.ext4j.block.BlockDevice;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Read access to the circular log of one journal: reads journal blocks through the {@link JournalMap}
 * and advances a log pointer with jbd2's wrap rule (past {@code last} it continues at
 * {@code first}). Holds no state beyond its final fields; thread-safe if the device is.
 *
 * <p>The log occupies journal blocks {@code [first, last)} with {@code first = s_first} and
 * {@code last = s_maxlen}, less the fast-commit area at the journal's end when there is one
 * ({@link JournalSuperblock#logEnd()}).
 */
public final class LogBlocks {
  private final BlockDevice device;
  private final JournalMap map;
  private final long first;
  private final long last;

  public LogBlocks(BlockDevice device, JournalMap map, JournalSuperblock sb) {
    if (device.blockSize() != sb.blockSize()) {
      throw new IllegalArgumentException("journal block size " + sb.blockSize() + " differs from the block size "
          + device.blockSize() + " of " + device.name());
    }
    if (sb.maxLen() > map.length()) {
      throw new IllegalArgumentException("journal of " + sb.maxLen() + " blocks exceeds its map " + map);
    }
    this.device = device;
    this.map = map;
    this.first = sb.first();
    this.last = sb.logEnd();
  }

  /**
   * Writes {@code sb} over the first 1024 bytes of journal block 0, keeping the rest of the block
   * (the one way ext4j writes an existing journal's superblock). Does not flush.
   */
  public static void writeSuperblock(BlockDevice device, JournalMap map, JournalSuperblock sb) throws IOException {
    long home = map.deviceBlock(0);
    ByteBuffer block = ByteBuffer.allocate(device.blockSize());
    device.read(home, block);
    block.clear();
    block.put(0, sb.encode());
    device.write(home, block);
  }

  /** The device name, for messages. */
  public String deviceName() {
    return device.name();
  }

  /** The first log block ({@code s_first}). */
  public long first() {
    return first;
  }

  /** One past the last log block. */
  public long last() {
    return last;
  }

  /** Blocks in the circular log. */
  public long logBlocks() {
    return last - first;
  }

  /** The log block after {@code block}, wrapping from {@code last - 1} to {@code first}. */
  public long next(long block) {
    return advance(block, 1);
  }

  /** The log block {@code n} (at most {@link #logBlocks()}) blocks after {@code block}, with wrap. */
  public long advance(long block, long n) {
    long b = block + n;
    return b >= last ? b - (last - first) : b;
  }

  /** Reads journal block {@code block} into a fresh big-endian heap buffer positioned at 0. */
  public ByteBuffer read(long block) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(device.blockSize());
    device.read(map.deviceBlock(block), b);
    return b.clear().order(ByteOrder.BIG_ENDIAN);
  }
}
