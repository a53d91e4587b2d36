/**
 * Block devices, the block cache and the platform layer: the bottom of ext4j's stack. See
 * {@link io.ext4j.block.BlockDevice}.
 *
 * <p>Native access: {@code io.ext4j.block.os} is ext4j's one binding to the C library (for the tree
 * copier, the FUSE mount and the journal's futex wake-up), and the only place ext4j makes restricted
 * FFM calls: {@code --enable-native-access=io.ext4j.block} on the module path, {@code ALL-UNNAMED} on
 * the class path.
 */
module io.ext4j.block {
  requires static com.google.errorprone.annotations; // @GuardedBy, checked at compile time
  requires jdk.unsupported; // com.sun.nio.file.ExtendedOpenOption.DIRECT for O_DIRECT (FileBlockDevice.O_DIRECT)
  exports io.ext4j.block;
  exports io.ext4j.block.cache;
  exports io.ext4j.block.os;
}
