package io.ext4j.jbd2.format;

import java.nio.ByteBuffer;

/**
 * The MSB-first CRC-32 of jbd2's legacy v1 checksums ({@code COMPAT_CHECKSUM}): polynomial
 * 0x04C11DB7, no bit reflection, no final inversion — Linux's {@code crc32_be} (the CRC-32/MPEG-2
 * parameters when seeded with {@code ~0}, check value 0x0376E6E7 for "123456789"). The JDK's
 * {@link java.util.zip.CRC32} is the reflected variant and gives different values.
 *
 * <p>Only recovery uses it: a v1 commit block carries this CRC, seeded with {@code ~0} and chained
 * over every descriptor block and logged data block of its transaction. ext4j verifies v1 journals
 * and never writes v1 checksums.
 */
public final class Crc32Be {
  private static final int POLY = 0x04C11DB7;
  private static final int[] TABLE = new int[256];

  static {
    for (int i = 0; i < 256; i++) {
      int c = i << 24;
      for (int k = 0; k < 8; k++) {
        c = (c & 0x80000000) != 0 ? (c << 1) ^ POLY : c << 1;
      }
      TABLE[i] = c;
    }
  }

  private Crc32Be() {}

  /** Continues {@code crc} over {@code len} bytes of {@code data} from {@code off}. */
  public static int update(int crc, byte[] data, int off, int len) {
    int c = crc;
    for (int i = off; i < off + len; i++) {
      c = (c << 8) ^ TABLE[((c >>> 24) ^ data[i]) & 0xFF];
    }
    return c;
  }

  /** Continues {@code crc} over the remaining bytes of {@code b} (its position is not moved). */
  public static int update(int crc, ByteBuffer b) {
    int c = crc;
    for (int i = b.position(); i < b.limit(); i++) {
      c = (c << 8) ^ TABLE[((c >>> 24) ^ b.get(i)) & 0xFF];
    }
    return c;
  }
}
