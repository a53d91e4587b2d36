/**
 * The ext4 engine: {@link io.ext4j.fs.Ext4FileSystem} (inode-level operations, mount lifecycle,
 * journaling through {@code io.ext4j.jbd2}) and the VFS above it ({@link io.ext4j.fs.vfs.Vfs}:
 * path walks, the {@code *at} calls, credentials and permissions, inode lifetimes).
 *
 * <p>Exported: the API ({@code io.ext4j.fs}, {@code io.ext4j.fs.vfs}), the pure codecs of the on-disk
 * structures ({@code io.ext4j.fs.format}, as {@code io.ext4j.jbd2.format} is for the journal), and
 * the fast-commit area's decoder and replay statistics ({@code io.ext4j.fs.fastcommit}, which
 * {@link io.ext4j.fs.Ext4Recovery} hands out). The structures' live code ({@code context},
 * {@code namespace}, {@code alloc}, {@code dir}, {@code extent}, {@code file}, {@code inode},
 * {@code orphan}, {@code xattr}, {@code meta}) is not exported. The offline tools (mkfs, fsck, the
 * tree copier) are the {@code io.ext4j.tools} module, built on these exports.
 */
module io.ext4j.fs {
  requires static com.google.errorprone.annotations; // @GuardedBy, checked at compile time
  requires transitive io.ext4j.jbd2;

  exports io.ext4j.fs;
  exports io.ext4j.fs.vfs;
  exports io.ext4j.fs.format;
  exports io.ext4j.fs.fastcommit;
}
