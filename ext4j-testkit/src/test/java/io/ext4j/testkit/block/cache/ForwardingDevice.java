package io.ext4j.testkit.block.cache;

import io.ext4j.block.BlockDevice;

import java.io.IOException;
import java.nio.ByteBuffer;

/** A device that passes every call to another; tests override what they observe. */
class ForwardingDevice implements BlockDevice {
  private final BlockDevice d;

  ForwardingDevice(BlockDevice d) {
    this.d = d;
  }

  @Override public String name() { return d.name(); }
  @Override public int blockSize() { return d.blockSize(); }
  @Override public long blockCount() { return d.blockCount(); }
  @Override public boolean isReadOnly() { return d.isReadOnly(); }
  @Override public void read(long block, ByteBuffer dst) throws IOException { d.read(block, dst); }
  @Override public void write(long block, ByteBuffer src) throws IOException { d.write(block, src); }
  @Override public void flush() throws IOException { d.flush(); }
  @Override public void close() throws IOException { d.close(); }
}
