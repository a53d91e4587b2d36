/** Block devices: the bottom of ext4j's stack. See {@link io.ext4j.block.BlockDevice}. */
module io.ext4j.block {
  exports io.ext4j.block;
}
