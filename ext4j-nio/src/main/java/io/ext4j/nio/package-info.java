/**
 * ext4 images as {@link java.nio.file.FileSystem}s: {@link io.ext4j.nio.Ext4FileSystemProvider}
 * (scheme {@code ext4}, found by {@code FileSystems.newFileSystem(Path)}), paths, channels,
 * directory streams, attribute views and the file store — a thin adapter that translates each NIO
 * call into one call of the engine's VFS ({@link io.ext4j.fs.vfs.Vfs}: a path's bytes, open(2)'s
 * flags, root's credentials) and its errno into the JDK's exceptions. Path resolution, atomicity,
 * permissions, privilege clearing and inode lifetime are the engine's; no filesystem rule of its
 * own lives here.
 *
 * <p>Memory maps are snapshots (READ_ONLY, PRIVATE); a READ_WRITE map is refused
 * (UnsupportedOperationException saying why).
 */
package io.ext4j.nio;
