package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;

import io.ext4j.fs.Ext4FormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One block group descriptor (32 bytes, or {@code s_desc_size} ≥ 64 with the 64bit feature). Pure codec.
 *
 * <h2>On-disk grammar (little-endian; the fields decoded here)</h2>
 * <pre>
 * 0x00 u32 bg_block_bitmap_lo   0x04 u32 bg_inode_bitmap_lo   0x08 u32 bg_inode_table_lo
 * 0x0C u16 bg_free_blocks_count_lo  0x0E u16 bg_free_inodes_count_lo  0x12 u16 bg_flags
 * 0x1E u16 bg_checksum
 * 64-byte form adds: 0x20 u32 bg_block_bitmap_hi  0x24 u32 bg_inode_bitmap_hi  0x28 u32 bg_inode_table_hi
 * </pre>
 * With metadata_csum, bg_checksum is the low 16 bits of crc32c(seed, le32 group number, descriptor
 * with bg_checksum zeroed) where seed is {@link Ext4Superblock#checksumSeed()}. Without it but with
 * uninit_bg (gdt_csum), bg_checksum is the CRC-16 of {@link Crc16#groupDescriptorChecksum}; either is
 * verified on decode.
 */
public record GroupDescriptor(long group, long blockBitmap, long inodeBitmap, long inodeTable, int flags, int checksum) {
  static final int CHECKSUM_AT = 0x1E;

  /**
   * Decodes the descriptor of {@code group} from {@code bytes[off, off + sb.descriptorSize())}.
   *
   * @param byteOffset the descriptor's byte offset on the device, for messages
   * @throws Ext4FormatException if metadata_csum is on and the checksum does not match
   */
  public static GroupDescriptor decode(String device, long byteOffset, Ext4Superblock sb, long group, byte[] bytes, int off)
      throws Ext4FormatException {
    int size = sb.descriptorSize();
    ByteBuffer b = ByteBuffer.wrap(bytes, off, size).slice().order(ByteOrder.LITTLE_ENDIAN);
    boolean wide = sb.is64Bit() && size >= 64;
    long blockBitmap = u32(b, 0x00) | (wide ? u32(b, 0x20) << 32 : 0);
    long inodeBitmap = u32(b, 0x04) | (wide ? u32(b, 0x24) << 32 : 0);
    long inodeTable = u32(b, 0x08) | (wide ? u32(b, 0x28) << 32 : 0);
    int flags = Short.toUnsignedInt(b.getShort(0x12));
    int stored = Short.toUnsignedInt(b.getShort(CHECKSUM_AT));
    if (sb.hasMetadataCsum()) {
      int computed = computeChecksum(sb, group, bytes, off);
      if (computed != stored) {
        throw new Ext4FormatException(device, byteOffset, String.format(
            "group %d descriptor checksum mismatch: stored 0x%04X, computed 0x%04X", group, stored, computed));
      }
    } else if (sb.hasGdtCsum()) {
      int computed = Crc16.groupDescriptorChecksum(sb.uuidBytes(), (int) group, bytes, off, size);
      if (computed != stored) {
        throw new Ext4FormatException(device, byteOffset, String.format(
            "group %d descriptor gdt_csum (crc16) mismatch: stored 0x%04X, computed 0x%04X", group, stored, computed));
      }
    }
    if (inodeTable == 0) {
      throw new Ext4FormatException(device, byteOffset, "group " + group + " descriptor has no inode table (block 0)");
    }
    return new GroupDescriptor(group, blockBitmap, inodeBitmap, inodeTable, flags, stored);
  }

  static int computeChecksum(Ext4Superblock sb, long group, byte[] bytes, int off) {
    int size = sb.descriptorSize();
    byte[] copy = new byte[size];
    System.arraycopy(bytes, off, copy, 0, size);
    copy[CHECKSUM_AT] = 0;
    copy[CHECKSUM_AT + 1] = 0;
    int crc = Crc32c.updateLittleEndianInt(sb.checksumSeed(), (int) group);
    crc = Crc32c.update(crc, copy, 0, size);
    return crc & 0xFFFF;
  }

  private static long u32(ByteBuffer b, int at) {
    return Integer.toUnsignedLong(b.getInt(at));
  }
}
