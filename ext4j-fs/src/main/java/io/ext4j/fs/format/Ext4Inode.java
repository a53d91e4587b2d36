package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;

import io.ext4j.fs.Ext4FormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An ext4 inode ({@code s_inode_size} bytes, 128 or more) — the fields needed to map a file's blocks.
 * Pure codec.
 *
 * <h2>On-disk grammar (little-endian; the fields decoded here)</h2>
 * <pre>
 * 0x00 u16 i_mode         0x04 u32 i_size_lo      0x1A u16 i_links_count   0x20 u32 i_flags
 * 0x28 u8[60] i_block     (extent tree root when i_flags has EXTENTS 0x80000, else 12 direct,
 *                          1 indirect, 1 double- and 1 triple-indirect u32 block numbers)
 * 0x64 u32 i_generation   0x6C u32 i_size_high    0x7C u16 i_checksum_lo
 * 0x80 u16 i_extra_isize  0x82 u16 i_checksum_hi  (present when inode size &gt; 128 and extra_isize ≥ 4)
 * </pre>
 * With metadata_csum the checksum is crc32c(seed, le32 inode number, le32 generation, the whole
 * inode with both checksum fields zeroed), seed = {@link Ext4Superblock#checksumSeed()}; only its low
 * 16 bits are stored when there is no i_checksum_hi.
 */
public record Ext4Inode(long number, int mode, long size, int flags, int generation, byte[] iBlock) {
  public static final int FLAG_EXTENTS = 0x80000;
  public static final int FLAG_INLINE_DATA = 0x10000000;
  static final int CHECKSUM_LO_AT = 0x7C;
  static final int EXTRA_ISIZE_AT = 0x80;
  static final int CHECKSUM_HI_AT = 0x82;

  public Ext4Inode {
    iBlock = iBlock.clone();
  }

  /** The 60 bytes of i_block (a copy). */
  @Override
  public byte[] iBlock() {
    return iBlock.clone();
  }

  public boolean usesExtents() {
    return (flags & FLAG_EXTENTS) != 0;
  }

  /** File type bits of i_mode (0x8000 regular file, 0x4000 directory, …). */
  public int fileType() {
    return mode & 0xF000;
  }

  /**
   * Decodes inode {@code number} from {@code bytes[off, off + sb.inodeSize())}.
   *
   * @param byteOffset the inode's byte offset on the device, for messages
   * @throws Ext4FormatException if metadata_csum is on and the checksum does not match
   */
  public static Ext4Inode decode(String device, long byteOffset, Ext4Superblock sb, long number, byte[] bytes, int off)
      throws Ext4FormatException {
    int isize = sb.inodeSize();
    ByteBuffer b = ByteBuffer.wrap(bytes, off, isize).slice().order(ByteOrder.LITTLE_ENDIAN);
    int mode = Short.toUnsignedInt(b.getShort(0x00));
    long size = Integer.toUnsignedLong(b.getInt(0x04)) | Integer.toUnsignedLong(b.getInt(0x6C)) << 32;
    int flags = b.getInt(0x20);
    int generation = b.getInt(0x64);
    byte[] iBlock = new byte[60];
    b.get(0x28, iBlock);
    if (sb.hasMetadataCsum()) {
      boolean hasHi = isize > 128 && Short.toUnsignedInt(b.getShort(EXTRA_ISIZE_AT)) >= 4;
      int stored = Short.toUnsignedInt(b.getShort(CHECKSUM_LO_AT))
          | (hasHi ? Short.toUnsignedInt(b.getShort(CHECKSUM_HI_AT)) << 16 : 0);
      int computed = computeChecksum(sb, number, generation, bytes, off, hasHi);
      if (!hasHi) {
        computed &= 0xFFFF;
      }
      if (computed != stored) {
        throw new Ext4FormatException(device, byteOffset, String.format(
            "inode %d checksum mismatch: stored 0x%08X, computed 0x%08X", number, stored, computed));
      }
    }
    return new Ext4Inode(number, mode, size, flags, generation, iBlock);
  }

  static int computeChecksum(Ext4Superblock sb, long number, int generation, byte[] bytes, int off, boolean hasHi) {
    int isize = sb.inodeSize();
    byte[] copy = new byte[isize];
    System.arraycopy(bytes, off, copy, 0, isize);
    copy[CHECKSUM_LO_AT] = 0;
    copy[CHECKSUM_LO_AT + 1] = 0;
    if (hasHi) {
      copy[CHECKSUM_HI_AT] = 0;
      copy[CHECKSUM_HI_AT + 1] = 0;
    }
    int crc = Crc32c.updateLittleEndianInt(sb.checksumSeed(), (int) number);
    crc = Crc32c.updateLittleEndianInt(crc, generation);
    return Crc32c.update(crc, copy, 0, isize);
  }
}
