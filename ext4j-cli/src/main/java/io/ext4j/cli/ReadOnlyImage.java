package io.ext4j.cli;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.block.ReadOnlyDeviceException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * An image file opened read-only for the read-only commands: reads pass through, writes are refused,
 * and {@link #flush()} returns at once (nothing can have been written, so there is nothing to make
 * durable). It exists because {@code Ext4FileSystem.close()} of a filesystem opened read-only on a
 * clean image flushes the device, which a read-only {@link FileBlockDevice} refuses.
 */
final class ReadOnlyImage implements BlockDevice {
  private final FileBlockDevice base;

  private ReadOnlyImage(FileBlockDevice base) {
    this.base = base;
  }

  /** Opens {@code image} read-only in blocks of {@code blockSize} bytes. */
  static ReadOnlyImage open(Path image, int blockSize) throws IOException {
    return new ReadOnlyImage(FileBlockDevice.open(image, blockSize, FileBlockDevice.Options.defaults().withReadOnly(true)));
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
    return true;
  }

  @Override
  public void read(long block, ByteBuffer dst) throws IOException {
    base.read(block, dst);
  }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    throw new ReadOnlyDeviceException(base.name());
  }

  @Override
  public void flush() {
    // nothing was written
  }

  @Override
  public void close() throws IOException {
    base.close();
  }
}
