package io.ext4j.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Creates fully allocated files: real zeros written and fsynced, never sparse and never
 * {@code fallocate}d (whose unwritten extents would make the first overwrite a metadata change).
 * Later overwrites then need no block allocation, so {@code fdatasync} flushes data and the device
 * cache only — the same footing for the journal image and the baseline files.
 */
public final class ZeroFiles {
  private static final int CHUNK = 1 << 20;

  private ZeroFiles() {}

  /** Creates or truncates {@code file} to {@code bytes} bytes of written zeros and fsyncs it. */
  public static void create(Path file, long bytes) throws IOException {
    ByteBuffer zeros = ByteBuffer.allocateDirect(CHUNK);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      for (long pos = 0; pos < bytes; ) {
        zeros.clear().limit((int) Math.min(CHUNK, bytes - pos));
        pos += ch.write(zeros, pos);
      }
      ch.force(true);
    }
  }

  /** fsyncs a directory, so that new entries in it survive a crash. */
  public static void syncDirectory(Path dir) throws IOException {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    }
  }
}
