/**
 * ext4 images as {@link java.nio.file.FileSystem}s: the {@code ext4} scheme's
 * {@link io.ext4j.nio.Ext4FileSystemProvider}, found by {@link java.nio.file.FileSystems} through
 * the service it provides.
 */
module io.ext4j.nio {
  requires static com.google.errorprone.annotations; // @GuardedBy, checked at compile time
  requires transitive io.ext4j.fs;
  requires io.ext4j.tools; // the image a newFileSystem with create=true makes

  exports io.ext4j.nio;

  provides java.nio.file.spi.FileSystemProvider with io.ext4j.nio.Ext4FileSystemProvider;
}
