/**
 * ext4j's offline tools, built on the engine's exported API as e2fsprogs' programs are built on
 * lib/ext2fs: the image layout and formatter ({@code io.ext4j.tools.mkfs}, what {@code mkfs.ext4}
 * does), the checker ({@code io.ext4j.tools.check}, what {@code e2fsck -fn} does) and the tree copier
 * ({@code io.ext4j.tools.populate}: a host directory or a tar archive into an image, what
 * {@code mke2fs -d} does).
 *
 * <p>Native access: the tree copier reads host attributes through ext4j's libc binding,
 * {@code io.ext4j.block.os.Libc}, whose restricted FFM calls are the {@code io.ext4j.block} module's
 * ({@code --enable-native-access=io.ext4j.block} on the module path); this module makes none.
 */
module io.ext4j.tools {
  requires transitive io.ext4j.fs;
  requires org.apache.commons.compress;

  exports io.ext4j.tools.check;
  exports io.ext4j.tools.mkfs;
  exports io.ext4j.tools.populate;
}
