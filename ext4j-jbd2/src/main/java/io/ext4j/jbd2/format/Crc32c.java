package io.ext4j.jbd2.format;

import java.nio.ByteBuffer;

/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) as jbd2 and ext4 use it: a register update
 * from a caller-chosen seed with <em>no</em> final inversion. {@code update(0xFFFFFFFF, data)} equals
 * the bitwise complement of {@link java.util.zip.CRC32C}'s value for the same data; the check value
 * is {@code update(~0, "123456789") == 0x1CF96D7C}. Slicing-by-8 tables; pure and thread-safe. The
 * ext4 codecs share it.
 */
public final class Crc32c {
  private static final int POLY = 0x82F63B78;
  private static final int[][] T = new int[8][256];

  static {
    for (int i = 0; i < 256; i++) {
      int c = i;
      for (int k = 0; k < 8; k++) {
        c = (c & 1) != 0 ? (c >>> 1) ^ POLY : c >>> 1;
      }
      T[0][i] = c;
    }
    for (int i = 0; i < 256; i++) {
      for (int t = 1; t < 8; t++) {
        T[t][i] = (T[t - 1][i] >>> 8) ^ T[0][T[t - 1][i] & 0xFF];
      }
    }
  }

  private Crc32c() {}

  /** Continues {@code crc} over {@code len} bytes of {@code b} from {@code off}. */
  public static int update(int crc, byte[] b, int off, int len) {
    int i = off;
    int end = off + len;
    while (end - i >= 8) {
      int lo = (b[i] & 0xFF | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24) ^ crc;
      crc = T[7][lo & 0xFF] ^ T[6][(lo >>> 8) & 0xFF] ^ T[5][(lo >>> 16) & 0xFF] ^ T[4][lo >>> 24]
          ^ T[3][b[i + 4] & 0xFF] ^ T[2][b[i + 5] & 0xFF] ^ T[1][b[i + 6] & 0xFF] ^ T[0][b[i + 7] & 0xFF];
      i += 8;
    }
    while (i < end) {
      crc = (crc >>> 8) ^ T[0][(crc ^ b[i++]) & 0xFF];
    }
    return crc;
  }

  /** Continues {@code crc} over all of {@code b}. */
  public static int update(int crc, byte[] b) {
    return update(crc, b, 0, b.length);
  }

  /** Continues {@code crc} over the remaining bytes of {@code buf} without moving its position. */
  public static int update(int crc, ByteBuffer buf) {
    if (buf.hasArray()) {
      return update(crc, buf.array(), buf.arrayOffset() + buf.position(), buf.remaining());
    }
    for (int i = buf.position(); i < buf.limit(); i++) {
      crc = (crc >>> 8) ^ T[0][(crc ^ buf.get(i)) & 0xFF];
    }
    return crc;
  }

  /** Continues {@code crc} over the four little-endian bytes of {@code v} (how ext4 folds inode numbers in). */
  public static int updateLittleEndianInt(int crc, int v) {
    crc = (crc >>> 8) ^ T[0][(crc ^ v) & 0xFF];
    crc = (crc >>> 8) ^ T[0][(crc ^ (v >>> 8)) & 0xFF];
    crc = (crc >>> 8) ^ T[0][(crc ^ (v >>> 16)) & 0xFF];
    return (crc >>> 8) ^ T[0][(crc ^ (v >>> 24)) & 0xFF];
  }

  /** Continues {@code crc} over the four big-endian bytes of {@code v} (how jbd2 folds a tid in). */
  public static int updateBigEndianInt(int crc, int v) {
    crc = (crc >>> 8) ^ T[0][(crc ^ (v >>> 24)) & 0xFF];
    crc = (crc >>> 8) ^ T[0][(crc ^ (v >>> 16)) & 0xFF];
    crc = (crc >>> 8) ^ T[0][(crc ^ (v >>> 8)) & 0xFF];
    return (crc >>> 8) ^ T[0][(crc ^ v) & 0xFF];
  }
}
