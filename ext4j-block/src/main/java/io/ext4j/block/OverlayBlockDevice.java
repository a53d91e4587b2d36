package io.ext4j.block;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A copy-on-write view of another device: reads see the base device overlaid with this view's own
 * writes, which stay in memory. Lets a read-only user replay a journal, or check an image "as a
 * replay would leave it", without writing the image.
 *
 * <h2>Durability</h2>
 * None: writes live in memory for the life of the object, and {@link #flush()} does nothing but
 * returns (there is nothing it could make durable). The base device is never written.
 *
 * <p>Thread-safe; memory grows by one block per distinct block written.
 */
public final class OverlayBlockDevice implements BlockDevice {
  private final BlockDevice base;
  private final ConcurrentHashMap<Long, byte[]> written = new ConcurrentHashMap<>();

  public OverlayBlockDevice(BlockDevice base) {
    this.base = base;
  }

  @Override
  public String name() {
    return base.name();
  }

  @Override
  public int blockSize() {
    return base.blockSize();
  }

  @Override
  public long blockCount() {
    return base.blockCount();
  }

  @Override
  public boolean isReadOnly() {
    return false;
  }

  /** Blocks written to the overlay so far. */
  public int overlaidBlocks() {
    return written.size();
  }

  @Override
  public void read(long block, ByteBuffer dst) throws IOException {
    int blocks = BlockDevice.checkTransfer(this, block, dst);
    int bs = blockSize();
    int start = dst.position();
    boolean any = false;
    for (int i = 0; i < blocks && !any; i++) {
      any = written.containsKey(block + i);
    }
    if (!any) {
      base.read(block, dst);
      return;
    }
    for (int i = 0; i < blocks; i++) {
      byte[] mine = written.get(block + i);
      ByteBuffer one = dst.slice(start + i * bs, bs);
      if (mine != null) {
        one.put(mine);
      } else {
        base.read(block + i, one);
      }
    }
    dst.position(start + blocks * bs);
  }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    int blocks = BlockDevice.checkTransfer(this, block, src);
    int bs = blockSize();
    for (int i = 0; i < blocks; i++) {
      byte[] copy = new byte[bs];
      src.get(copy);
      written.put(block + i, copy);
    }
  }

  @Override
  public void flush() {
    // nothing is durable in an overlay
  }

  /** Drops the overlay; does not close the base device. */
  @Override
  public void close() {
    written.clear();
  }
}
