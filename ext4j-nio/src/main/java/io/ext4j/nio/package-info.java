/**
 * ext4 images as {@link java.nio.file.FileSystem}s: {@link io.ext4j.nio.Ext4FileSystemProvider}
 * (scheme {@code ext4}, found by {@code FileSystems.newFileSystem(Path)}), paths, channels,
 * directory streams, attribute views and the file store — a thin adapter that translates NIO calls
 * into the engine's ({@link io.ext4j.fs.Ext4FileSystem}) and its errno-style errors into the JDK's
 * exceptions. No filesystem rule of its own lives here.
 *
 * <p>Memory maps are snapshots (READ_ONLY, PRIVATE); a READ_WRITE map is refused
 * (UnsupportedOperationException saying why).
 */
package io.ext4j.nio;
