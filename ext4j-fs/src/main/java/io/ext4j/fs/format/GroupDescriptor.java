package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;
import io.ext4j.fs.Ext4FormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One block group descriptor (32 bytes, or {@code s_desc_size} ≥ 64 with the 64bit feature). Pure codec.
 *
 * <h2>On-disk grammar (little-endian; hi halves only in the 64-byte form)</h2>
 * <pre>
 * 0x00 u32 bg_block_bitmap_lo       0x20 u32 bg_block_bitmap_hi
 * 0x04 u32 bg_inode_bitmap_lo       0x24 u32 bg_inode_bitmap_hi
 * 0x08 u32 bg_inode_table_lo        0x28 u32 bg_inode_table_hi
 * 0x0C u16 bg_free_blocks_count_lo  0x2C u16 bg_free_blocks_count_hi
 * 0x0E u16 bg_free_inodes_count_lo  0x2E u16 bg_free_inodes_count_hi
 * 0x10 u16 bg_used_dirs_count_lo    0x30 u16 bg_used_dirs_count_hi
 * 0x12 u16 bg_flags (1 INODE_UNINIT, 2 BLOCK_UNINIT, 4 ITABLE_ZEROED)
 * 0x14 u32 bg_exclude_bitmap_lo     0x34 u32 bg_exclude_bitmap_hi
 * 0x18 u16 bg_block_bitmap_csum_lo  0x38 u16 bg_block_bitmap_csum_hi
 * 0x1A u16 bg_inode_bitmap_csum_lo  0x3A u16 bg_inode_bitmap_csum_hi
 * 0x1C u16 bg_itable_unused_lo      0x32 u16 bg_itable_unused_hi
 * 0x1E u16 bg_checksum              0x3C u32 reserved
 * </pre>
 * bg_checksum: with metadata_csum the low 16 bits of crc32c(seed, le32 group, descriptor with
 * bg_checksum zeroed), seed = {@link Ext4Superblock#checksumSeed()}; with gdt_csum alone the
 * {@link Crc16} form; else 0. Bitmap checksums (metadata_csum): crc32c(seed, bitmap bytes) over
 * {@code clustersPerGroup/8} (block bitmap) or {@code inodesPerGroup/8} (inode bitmap) bytes; the
 * hi halves only where the descriptor is at least 64 bytes.
 */
public record GroupDescriptor(
    long blockBitmap, long inodeBitmap, long inodeTable, long freeBlocks, long freeInodes, long usedDirs,
    int flags, long excludeBitmap, int blockBitmapChecksum, int inodeBitmapChecksum, long itableUnused, int checksum) {

  public static final int INODE_UNINIT = 0x1;
  public static final int BLOCK_UNINIT = 0x2;
  public static final int ITABLE_ZEROED = 0x4;
  static final int CHECKSUM_AT = 0x1E;

  /**
   * Decodes the descriptor of {@code group} from {@code bytes[off, off + sb.descriptorSize())}.
   *
   * @param byteOffset the descriptor's byte offset on the device, for messages
   * @throws Ext4FormatException if the checksum (metadata_csum or gdt_csum) does not match, or the
   *     inode table is at block 0
   */
  public static GroupDescriptor decode(String device, long byteOffset, Ext4Superblock sb, long group, byte[] bytes, int off)
      throws Ext4FormatException {
    GroupDescriptor gd = decodeUnchecked(sb, bytes, off);
    int computed = computeChecksum(sb, group, bytes, off);
    if (sb.hasMetadataCsum() || sb.hasRoCompat(Ext4Superblock.RO_COMPAT_GDT_CSUM)) {
      if (computed != gd.checksum) {
        throw new Ext4FormatException(device, byteOffset, String.format(
            "group %d descriptor %s mismatch: stored 0x%04X, computed 0x%04X", group,
            sb.hasMetadataCsum() ? "checksum" : "gdt_csum (crc16)", gd.checksum, computed));
      }
    }
    if (gd.inodeTable == 0) {
      throw new Ext4FormatException(device, byteOffset, "group " + group + " descriptor has no inode table (block 0)");
    }
    return gd;
  }

  /** Decodes without checking anything (for checkers that report problems themselves). */
  public static GroupDescriptor decodeUnchecked(Ext4Superblock sb, byte[] bytes, int off) {
    int size = sb.descriptorSize();
    ByteBuffer b = ByteBuffer.wrap(bytes, off, size).slice().order(ByteOrder.LITTLE_ENDIAN);
    boolean wide = sb.is64Bit() && size >= 64;
    return new GroupDescriptor(
        u32(b, 0x00) | (wide ? u32(b, 0x20) << 32 : 0),
        u32(b, 0x04) | (wide ? u32(b, 0x24) << 32 : 0),
        u32(b, 0x08) | (wide ? u32(b, 0x28) << 32 : 0),
        u16(b, 0x0C) | (wide ? u16(b, 0x2C) << 16 : 0),
        u16(b, 0x0E) | (wide ? u16(b, 0x2E) << 16 : 0),
        u16(b, 0x10) | (wide ? u16(b, 0x30) << 16 : 0),
        (int) u16(b, 0x12),
        u32(b, 0x14) | (wide ? u32(b, 0x34) << 32 : 0),
        (int) (u16(b, 0x18) | (wide ? u16(b, 0x38) << 16 : 0)),
        (int) (u16(b, 0x1A) | (wide ? u16(b, 0x3A) << 16 : 0)),
        u16(b, 0x1C) | (wide ? u16(b, 0x32) << 16 : 0),
        (int) u16(b, CHECKSUM_AT));
  }

  /**
   * Writes this descriptor into {@code dst[off, off + descriptorSize)} with bg_checksum computed for
   * {@code group} (the stored {@link #checksum} is ignored). Bytes past the fields (the reserved
   * word) are zeroed.
   *
   * @throws IllegalArgumentException if a value needs the 64-byte form the filesystem does not have
   */
  public void encode(Ext4Superblock sb, long group, byte[] dst, int off) {
    int size = sb.descriptorSize();
    boolean wide = sb.is64Bit() && size >= 64;
    ByteBuffer b = ByteBuffer.wrap(dst, off, size).slice().order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < size; i++) {
      b.put(i, (byte) 0);
    }
    put32(b, wide, 0x00, 0x20, blockBitmap, "block bitmap");
    put32(b, wide, 0x04, 0x24, inodeBitmap, "inode bitmap");
    put32(b, wide, 0x08, 0x28, inodeTable, "inode table");
    put16(b, wide, 0x0C, 0x2C, freeBlocks, "free blocks");
    put16(b, wide, 0x0E, 0x2E, freeInodes, "free inodes");
    put16(b, wide, 0x10, 0x30, usedDirs, "used directories");
    b.putShort(0x12, (short) flags);
    put32(b, wide, 0x14, 0x34, excludeBitmap, "exclude bitmap");
    b.putShort(0x18, (short) blockBitmapChecksum);
    b.putShort(0x1A, (short) inodeBitmapChecksum);
    if (wide) {
      b.putShort(0x38, (short) (blockBitmapChecksum >>> 16));
      b.putShort(0x3A, (short) (inodeBitmapChecksum >>> 16));
    }
    put16(b, wide, 0x1C, 0x32, itableUnused, "unused inodes");
    b.putShort(CHECKSUM_AT, (short) computeChecksum(sb, group, dst, off));
  }

  /** The descriptor checksum of {@code bytes[off, off + descriptorSize)} as {@code group}'s (0 when the fs has none). */
  public static int computeChecksum(Ext4Superblock sb, long group, byte[] bytes, int off) {
    int size = sb.descriptorSize();
    if (sb.hasMetadataCsum()) {
      byte[] copy = new byte[size];
      System.arraycopy(bytes, off, copy, 0, size);
      copy[CHECKSUM_AT] = 0;
      copy[CHECKSUM_AT + 1] = 0;
      int crc = Crc32c.updateLittleEndianInt(sb.checksumSeed(), (int) group);
      return Crc32c.update(crc, copy, 0, size) & 0xFFFF;
    }
    if (sb.hasRoCompat(Ext4Superblock.RO_COMPAT_GDT_CSUM)) {
      return Crc16.groupDescriptorChecksum(sb.uuidBytes(), (int) group, bytes, off, size);
    }
    return 0;
  }

  /**
   * A bitmap's checksum as the descriptor stores it: crc32c over its first {@code bytes} bytes, the
   * full 32 bits (callers store the low 16 only in 32-byte descriptors); 0 without metadata_csum.
   */
  public static int bitmapChecksum(Ext4Superblock sb, byte[] bitmap, int bytes) {
    if (!sb.hasMetadataCsum()) {
      return 0;
    }
    int crc = Crc32c.update(sb.checksumSeed(), bitmap, 0, bytes);
    return sb.descriptorSize() >= 64 ? crc : crc & 0xFFFF;
  }

  public boolean has(int flag) {
    return (flags & flag) != 0;
  }

  public GroupDescriptor withCounts(long freeBlocks, long freeInodes, long usedDirs, long itableUnused) {
    return new GroupDescriptor(blockBitmap, inodeBitmap, inodeTable, freeBlocks, freeInodes, usedDirs, flags,
        excludeBitmap, blockBitmapChecksum, inodeBitmapChecksum, itableUnused, checksum);
  }

  public GroupDescriptor withFlags(int flags) {
    return new GroupDescriptor(blockBitmap, inodeBitmap, inodeTable, freeBlocks, freeInodes, usedDirs, flags,
        excludeBitmap, blockBitmapChecksum, inodeBitmapChecksum, itableUnused, checksum);
  }

  public GroupDescriptor withBitmapChecksums(int blockBitmapChecksum, int inodeBitmapChecksum) {
    return new GroupDescriptor(blockBitmap, inodeBitmap, inodeTable, freeBlocks, freeInodes, usedDirs, flags,
        excludeBitmap, blockBitmapChecksum, inodeBitmapChecksum, itableUnused, checksum);
  }

  private static long u32(ByteBuffer b, int at) {
    return Integer.toUnsignedLong(b.getInt(at));
  }

  private static long u16(ByteBuffer b, int at) {
    return Short.toUnsignedInt(b.getShort(at));
  }

  private static void put32(ByteBuffer b, boolean wide, int lo, int hi, long v, String what) {
    if (!wide && v >>> 32 != 0) {
      throw new IllegalArgumentException(what + " " + v + " needs 64-byte group descriptors");
    }
    b.putInt(lo, (int) v);
    if (wide) {
      b.putInt(hi, (int) (v >>> 32));
    }
  }

  private static void put16(ByteBuffer b, boolean wide, int lo, int hi, long v, String what) {
    if (v < 0 || (!wide && v >>> 16 != 0) || v >>> 32 != 0) {
      throw new IllegalArgumentException(what + " count " + v + " does not fit the group descriptor");
    }
    b.putShort(lo, (short) v);
    if (wide) {
      b.putShort(hi, (short) (v >>> 16));
    }
  }
}
