/**
 * The FUSE mount: the kernel's FUSE protocol over {@code /dev/fuse}, served by the engine's VFS.
 * Calls libc through ext4j's binding, {@code io.ext4j.block.os.Libc}, whose restricted FFM calls are
 * the {@code io.ext4j.block} module's: {@code --enable-native-access=io.ext4j.block} on the module
 * path; this module makes none.
 */
module io.ext4j.fuse {
  requires static com.google.errorprone.annotations; // @GuardedBy, checked at compile time
  requires transitive io.ext4j.fs;

  exports io.ext4j.fuse;
}
