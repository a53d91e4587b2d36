/**
 * The FUSE mount: the kernel's FUSE protocol over {@code /dev/fuse}, served by the engine's VFS.
 * Calls libc through the FFM API: {@code --enable-native-access=io.ext4j.fuse} on the module path.
 */
module io.ext4j.fuse {
  requires transitive io.ext4j.fs;

  exports io.ext4j.fuse;
}
