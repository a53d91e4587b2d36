/** Block devices and the block cache: the bottom of ext4j's stack. See {@link io.ext4j.block.BlockDevice}. */
module io.ext4j.block {
  requires jdk.unsupported; // com.sun.nio.file.ExtendedOpenOption.DIRECT for O_DIRECT (FileBlockDevice.O_DIRECT)
  exports io.ext4j.block;
  exports io.ext4j.block.cache;
}
