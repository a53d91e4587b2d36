package io.ext4j.fs.vfs;

import java.nio.ByteBuffer;

/**
 * A name for one inode for as long as the filesystem exists, as NFS and open_by_handle_at(2) use:
 * its number and its generation (i_generation, set when the number was last allocated). A handle
 * whose inode was freed, or whose number now belongs to another inode, is stale: every use of it
 * fails with ESTALE and none reaches the inode that reused the number.
 */
public record FileHandle(long ino, int generation) {
  /** Bytes a handle encodes to. */
  public static final int BYTES = 12;

  /** The handle as 12 bytes: the inode number (8, big-endian), then the generation (4). */
  public byte[] encode() {
    return ByteBuffer.allocate(BYTES).putLong(ino).putInt(generation).array();
  }

  /** A handle from {@link #encode}'s bytes; IllegalArgumentException if they are not 12. */
  public static FileHandle decode(byte[] b) {
    if (b.length != BYTES) {
      throw new IllegalArgumentException("a file handle has " + BYTES + " bytes, not " + b.length);
    }
    ByteBuffer in = ByteBuffer.wrap(b);
    return new FileHandle(in.getLong(), in.getInt());
  }
}
