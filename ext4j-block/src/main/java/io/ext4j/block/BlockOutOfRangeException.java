package io.ext4j.block;

/** A transfer touched a block outside {@code [0, blockCount)}: usually a corrupted pointer upstream. */
public final class BlockOutOfRangeException extends BlockDeviceException {
  private static final long serialVersionUID = 1L;

  public BlockOutOfRangeException(String device, long block, int blocks, long blockCount) {
    super(device, block, blocks + " block(s) from here are outside the device of " + blockCount + " blocks");
  }
}
