package io.ext4j.fs.power;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.BlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A disk with a volatile write cache in front of {@code disk}: a write only lands in this process's
 * memory, and reaches {@code disk} when a {@link #flush()} writes every cached block out, in a seeded
 * random order. Killing the process is then a power cut of that disk: every write not flushed is
 * lost, and a flush cut short keeps an arbitrary subset of its blocks — outcomes
 * {@link BlockDevice}'s Durability paragraph allows. Over a file, "reaches {@code disk}" means the
 * write is in the operating system's page cache, which survives the kill; {@link #flush()} does not
 * also flush {@code disk} (a SIGKILL cannot lose what the OS holds, and the workload runs faster).
 * Blocks are whole and untorn: the host writes a 4096-byte page at once.
 *
 * <p>Reads see the latest write, cached or not. All methods hold the monitor: a flush is atomic with
 * respect to writes from other threads, so it carries exactly the writes completed before it began.
 * Memory is bounded by the device's size (one entry per dirty block).
 */
final class VolatileCacheDevice implements BlockDevice {
  private final BlockDevice disk;
  @GuardedBy("this") private final Map<Long, byte[]> dirty = new HashMap<>();
  @GuardedBy("this") private final SplittableRandom order;

  VolatileCacheDevice(BlockDevice disk, long seed) {
    this.disk = disk;
    this.order = new SplittableRandom(seed);
  }

  @Override
  public String name() {
    return disk.name() + " (volatile write cache)";
  }

  @Override
  public int blockSize() {
    return disk.blockSize();
  }

  @Override
  public long blockCount() {
    return disk.blockCount();
  }

  @Override
  public boolean isReadOnly() {
    return disk.isReadOnly();
  }

  @Override
  public synchronized void read(long block, ByteBuffer dst) throws IOException {
    int blocks = BlockDevice.checkTransfer(this, block, dst);
    int bs = blockSize();
    int start = dst.position();
    disk.read(block, dst.duplicate()); // then the cached blocks over it
    for (int k = 0; k < blocks; k++) {
      byte[] cached = dirty.get(block + k);
      if (cached != null) {
        dst.put(start + k * bs, cached);
      }
    }
    dst.position(start + blocks * bs);
  }

  @Override
  public synchronized void write(long block, ByteBuffer src) throws IOException {
    int blocks = BlockDevice.checkTransfer(this, block, src);
    if (isReadOnly()) {
      disk.write(block, src); // refused by the disk, with its exception
      return;
    }
    for (int k = 0; k < blocks; k++) {
      byte[] b = new byte[blockSize()];
      src.get(b);
      dirty.put(block + k, b);
    }
  }

  @Override
  public synchronized void flush() throws IOException {
    List<Long> blocks = new ArrayList<>(dirty.keySet());
    for (int i = blocks.size() - 1; i > 0; i--) { // Fisher–Yates: a cut-short flush keeps a random subset
      int j = order.nextInt(i + 1);
      Long t = blocks.get(i);
      blocks.set(i, blocks.get(j));
      blocks.set(j, t);
    }
    for (Long b : blocks) {
      disk.write(b, ByteBuffer.wrap(dirty.get(b)));
    }
    dirty.clear();
  }

  /** Closes the disk; what was not flushed is lost, as when the power goes. */
  @Override
  public synchronized void close() throws IOException {
    dirty.clear();
    disk.close();
  }
}
