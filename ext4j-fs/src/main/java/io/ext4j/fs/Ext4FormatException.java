package io.ext4j.fs;

import java.io.IOException;

/**
 * An ext4 structure on a device is not what the format requires, or uses a feature ext4j does not
 * read: a bad magic number, a checksum mismatch, an impossible field, an external journal. Carries the
 * device and the byte offset of the offending structure, so the message alone locates the evidence.
 */
public class Ext4FormatException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String device;
  private final long byteOffset;

  /**
   * @param device the device or image name
   * @param byteOffset the byte offset on the device of the structure concerned, or -1 if none
   * @param what what is wrong, with the evidence (expected and actual values)
   */
  public Ext4FormatException(String device, long byteOffset, String what) {
    super(device + ": " + what);
    this.device = device;
    this.byteOffset = byteOffset;
  }

  /** The device or image name. */
  public String device() {
    return device;
  }

  /** The byte offset of the structure concerned, or -1. */
  public long byteOffset() {
    return byteOffset;
  }
}
