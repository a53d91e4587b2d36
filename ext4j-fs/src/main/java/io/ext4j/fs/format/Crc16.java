package io.ext4j.fs.format;

/**
 * CRC-16 as ext4's {@code gdt_csum} (uninit_bg without metadata_csum) uses it: reflected polynomial
 * 0xA001 (CRC-16/ARC's, x¹⁶ + x¹⁵ + x² + 1), register initialised to 0xFFFF by the caller, no final
 * xor — the CRC-16/MODBUS parameters; check value {@code update(0xFFFF, "123456789") == 0x4B37}.
 * Pure and thread-safe.
 *
 * <h2>Group descriptor checksum (gdt_csum)</h2>
 * <pre>
 * bg_checksum (u16 at 0x1E) = crc16(0xFFFF, s_uuid[16] ‖ le32 group ‖ desc[0, 0x1E) ‖ desc[0x20, DS))
 * </pre>
 * DS is the descriptor size (32, or s_desc_size with 64bit); the two checksum bytes are skipped, not
 * zeroed. With metadata_csum the descriptor uses crc32c instead ({@link GroupDescriptor}).
 */
public final class Crc16 {
  private static final int POLY = 0xA001;
  private static final int[] TABLE = new int[256];

  static {
    for (int i = 0; i < 256; i++) {
      int c = i;
      for (int k = 0; k < 8; k++) {
        c = (c & 1) != 0 ? (c >>> 1) ^ POLY : c >>> 1;
      }
      TABLE[i] = c;
    }
  }

  private Crc16() {}

  /** Continues the 16-bit register {@code crc} over {@code b[off, off + len)}; returns it (0…0xFFFF). */
  public static int update(int crc, byte[] b, int off, int len) {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    crc &= 0xFFFF;
    for (int i = off; i < off + len; i++) {
      crc = (crc >>> 8) ^ TABLE[(crc ^ b[i]) & 0xFF];
    }
    return crc;
  }

  /**
   * The gdt_csum bg_checksum of descriptor {@code group}, held in {@code desc[off, off + descSize)}.
   *
   * @param uuid16 the filesystem's s_uuid (16 bytes)
   * @param descSize 32, or s_desc_size (≥ 64) with the 64bit feature
   */
  public static int groupDescriptorChecksum(byte[] uuid16, int group, byte[] desc, int off, int descSize) {
    if (uuid16.length != 16) {
      throw new IllegalArgumentException("uuid must be 16 bytes, got " + uuid16.length);
    }
    if (descSize < 32) {
      throw new IllegalArgumentException("descriptor size " + descSize + " is below 32");
    }
    java.util.Objects.checkFromIndexSize(off, descSize, desc.length);
    int crc = update(0xFFFF, uuid16, 0, 16);
    byte[] le = {(byte) group, (byte) (group >>> 8), (byte) (group >>> 16), (byte) (group >>> 24)};
    crc = update(crc, le, 0, 4);
    crc = update(crc, desc, off, GroupDescriptor.CHECKSUM_AT);
    return update(crc, desc, off + GroupDescriptor.CHECKSUM_AT + 2, descSize - GroupDescriptor.CHECKSUM_AT - 2);
  }
}
