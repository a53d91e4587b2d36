package io.ext4j.block;

import java.io.IOException;

/** An I/O failure on a named device, optionally at a block. */
public class BlockDeviceException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String device;
  private final long block;

  /** @param block the block concerned, or -1 when the failure is not about one block */
  public BlockDeviceException(String device, long block, String message, Throwable cause) {
    super(device + (block >= 0 ? " block " + block : "") + ": " + message, cause);
    this.device = device;
    this.block = block;
  }

  public BlockDeviceException(String device, long block, String message) {
    this(device, block, message, null);
  }

  /** The device's {@link BlockDevice#name()}. */
  public String device() {
    return device;
  }

  /** The block concerned, or -1. */
  public long block() {
    return block;
  }
}
