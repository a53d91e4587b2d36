package io.ext4j.block;

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
    if (len >= INTRINSIC_MIN_LENGTH) {
      // The JDK's (hardware-assisted) CRC32C starts its register at ~0 and returns its complement.
      // Four bytes chosen for the seed first bring that register to exactly crc; the data follows.
      java.util.zip.CRC32C jdk = new java.util.zip.CRC32C();
      int w = SeedPrefix.bytesFor(crc);
      jdk.update(w);
      jdk.update(w >>> 8);
      jdk.update(w >>> 16);
      jdk.update(w >>> 24);
      jdk.update(b, off, len);
      return ~(int) jdk.getValue();
    }
    return updateTables(crc, b, off, len);
  }

  /**
   * From this length the JDK call (an intrinsic) is faster than the table loop, the four seed bytes
   * it is fed first included (JDK 25, x86-64).
   */
  static final int INTRINSIC_MIN_LENGTH = 64;

  /** The slicing-by-8 table-driven update (the reference the intrinsic path is tested against). */
  static int updateTables(int crc, byte[] b, int off, int len) {
    int i = off;
    int end = off + len;
    while (end - i >= 8) {
      int lo = ((b[i] & 0xFF) | ((b[i + 1] & 0xFF) << 8) | ((b[i + 2] & 0xFF) << 16) | ((b[i + 3] & 0xFF) << 24)) ^ crc;
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

  /**
   * The four bytes that take a register from ~0 to a chosen value. Feeding the little-endian bytes
   * of w to register r gives Z(r ^ w), where Z is the update over four zero bytes: a linear,
   * invertible map over GF(2)^32. So w = Z⁻¹(target) ^ ~0, with Z⁻¹ inverted once (Gauss–Jordan on
   * its 32×32 bit matrix) and applied as four byte-indexed tables.
   */
  static final class SeedPrefix {
    private static final int[][] INVERSE = new int[4][256];

    static {
      int[] z = new int[32]; // column i = Z(bit i)
      for (int i = 0; i < 32; i++) {
        z[i] = updateTables(1 << i, new byte[4], 0, 4);
      }
      int[] inv = invert(z);
      for (int k = 0; k < 4; k++) {
        for (int v = 0; v < 256; v++) {
          int x = v << (8 * k);
          int r = 0;
          for (int i = 0; i < 32; i++) {
            if ((x >>> i & 1) != 0) {
              r ^= inv[i];
            }
          }
          INVERSE[k][v] = r;
        }
      }
    }

    private SeedPrefix() {}

    /** w such that feeding w's four little-endian bytes to the register ~0 leaves {@code target}. */
    static int bytesFor(int target) {
      int pre = INVERSE[0][target & 0xFF] ^ INVERSE[1][(target >>> 8) & 0xFF] ^ INVERSE[2][(target >>> 16) & 0xFF]
          ^ INVERSE[3][target >>> 24];
      return pre ^ 0xFFFFFFFF;
    }

    /** The inverse of the GF(2) matrix whose column i is {@code cols[i]}, as columns. */
    static int[] invert(int[] cols) {
      // rows of [A | I]: row r of A has bit c set when column c has bit r set
      int[] a = new int[32];
      int[] id = new int[32];
      for (int r = 0; r < 32; r++) {
        for (int c = 0; c < 32; c++) {
          a[r] |= (cols[c] >>> r & 1) << c;
        }
        id[r] = 1 << r;
      }
      for (int c = 0; c < 32; c++) {
        int p = c;
        while ((a[p] >>> c & 1) == 0) {
          p++; // Z is invertible, so some row from c on has this column's bit
        }
        int t = a[p];
        a[p] = a[c];
        a[c] = t;
        t = id[p];
        id[p] = id[c];
        id[c] = t;
        for (int r = 0; r < 32; r++) {
          if (r != c && (a[r] >>> c & 1) != 0) {
            a[r] ^= a[c];
            id[r] ^= id[c];
          }
        }
      }
      int[] out = new int[32]; // back to columns: column c of the inverse has bit r when id[r] has bit c
      for (int c = 0; c < 32; c++) {
        for (int r = 0; r < 32; r++) {
          out[c] |= (id[r] >>> c & 1) << r;
        }
      }
      return out;
    }
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
