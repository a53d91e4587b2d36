package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * An htree index block: the root (directory block 0) or an interior node. Pure functions over its
 * bytes.
 *
 * <h2>On-disk grammar (little-endian)</h2>
 * <pre>
 * root := "."  {u32 self, u16 12, u8 1, u8 2, ".\0\0\0"}
 *         ".." {u32 parent, u16 bs − 12, u8 2, u8 2, "..\0\0"}
 *         at 24: u32 reserved_zero, u8 hash_version, u8 info_length = 8, u8 indirect_levels, u8 unused_flags
 *         at 32: count/limit header, then entries
 * node := {u32 0, u16 bs, u8 0, u8 0} at 0; at 8: count/limit header, then entries
 * header at C (32 or 8): u16 limit, u16 count, u32 block (entry 0: its hash is implicitly 0)
 * entry i ≥ 1 at C + 8i: u32 hash, u32 block (logical directory block)
 * tail (metadata_csum) at C + 8·limit: u32 dt_reserved, u32 dt_checksum
 *      dt_checksum = crc32c(crc32c(ino_seed, block[0, C + 8·count)), the 4 bytes dt_reserved, then 4 zero bytes)
 * limit = (bs − C − (csum ? 8 : 0)) / 8 exactly (e2fsck rejects any other)
 * </pre>
 */
public final class DxBlock {
  public static final int ROOT_COUNT_OFFSET = 32;
  public static final int NODE_COUNT_OFFSET = 8;

  private DxBlock() {}

  private static ByteBuffer le(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }

  public static int limitFor(int bs, int countOffset, boolean csum) {
    return (bs - countOffset - (csum ? 8 : 0)) / 8;
  }

  public static int limit(byte[] b, int c) {
    return LittleEndian.le16(b, c);
  }

  public static int count(byte[] b, int c) {
    return LittleEndian.le16(b, c + 2);
  }

  public static void setCount(byte[] b, int c, int count) {
    LittleEndian.putLe16(b, c + 2, count);
  }

  public static void setLimit(byte[] b, int c, int limit) {
    LittleEndian.putLe16(b, c, limit);
  }

  /** Entry i's hash (entry 0: 0). */
  public static int hash(byte[] b, int c, int i) {
    return i == 0 ? 0 : LittleEndian.le32(b, c + 8 * i);
  }

  /** Entry i's logical block (low 28 bits, as the format masks it). */
  public static long block(byte[] b, int c, int i) {
    return Integer.toUnsignedLong(LittleEndian.le32(b, c + 8 * i + 4)) & 0x0FFFFFFFL;
  }

  public static void setEntry(byte[] b, int c, int i, int hash, long block) {
    ByteBuffer l = le(b);
    if (i > 0) {
      l.putInt(c + 8 * i, hash);
    }
    l.putInt(c + 8 * i + 4, (int) block);
  }

  /** Inserts entry {@code (hash, block)} at index {@code at} (≥ 1), shifting later entries; count + 1. */
  public static void insertEntry(byte[] b, int c, int at, int hash, long block) {
    int count = count(b, c);
    System.arraycopy(b, c + 8 * at, b, c + 8 * (at + 1), 8 * (count - at));
    setEntry(b, c, at, hash, block);
    setCount(b, c, count + 1);
  }

  // ---------------------------------------------------------------- root info

  public static int hashVersion(byte[] root) {
    return root[28] & 0xFF;
  }

  public static int infoLength(byte[] root) {
    return root[29] & 0xFF;
  }

  public static int indirectLevels(byte[] root) {
    return root[30] & 0xFF;
  }

  public static void setIndirectLevels(byte[] root, int levels) {
    root[30] = (byte) levels;
  }

  public static int reservedZero(byte[] root) {
    return LittleEndian.le32(root, 24);
  }

  /** unused_flags bit 0: an incompatible hash flag neither ext4 nor e2fsck understands (the tree is not used). */
  public static final int FLAG_INCOMPAT = 0x1;

  public static int unusedFlags(byte[] root) {
    return root[31] & 0xFF;
  }

  /** Writes a root block: "." (self), ".." (parent), the info, and an empty entry list. */
  public static void initRoot(byte[] b, int bs, long self, long parent, boolean fileType, int hashVersion, boolean csum) {
    java.util.Arrays.fill(b, (byte) 0);
    DirBlock.writeEntry(b, 0, self, 12, ".".getBytes(StandardCharsets.UTF_8), fileType ? 2 : 0, bs);
    DirBlock.writeEntry(b, 12, parent, bs - 12, "..".getBytes(StandardCharsets.UTF_8), fileType ? 2 : 0, bs);
    b[28] = (byte) hashVersion;
    b[29] = 8;
    b[30] = 0;
    b[31] = 0;
    setLimit(b, ROOT_COUNT_OFFSET, limitFor(bs, ROOT_COUNT_OFFSET, csum));
    setCount(b, ROOT_COUNT_OFFSET, 0);
  }

  /** Writes an empty interior node. */
  public static void initNode(byte[] b, int bs, boolean csum) {
    java.util.Arrays.fill(b, (byte) 0);
    DirBlock.putRecLen(b, 0, bs, bs);
    setLimit(b, NODE_COUNT_OFFSET, limitFor(bs, NODE_COUNT_OFFSET, csum));
    setCount(b, NODE_COUNT_OFFSET, 0);
  }

  /**
   * Whether a directory block is an interior node: its first record is a free entry covering the
   * whole block (no linear leaf has that shape with a checksum tail, and without one e2fsck and
   * the kernel reach nodes only through the index).
   */
  public static boolean looksLikeNode(byte[] b, int bs) {
    return LittleEndian.le32(b, 0) == 0 && DirBlock.getRecLen(b, 0, bs) == bs && b[6] == 0;
  }

  // ---------------------------------------------------------------- checksum

  public static int checksum(byte[] b, int c, int inodeSeed) {
    int count = count(b, c);
    int limit = limit(b, c);
    int tail = c + 8 * limit;
    int crc = Crc32c.update(inodeSeed, b, 0, c + 8 * count);
    crc = Crc32c.update(crc, b, tail, 4);
    return Crc32c.update(crc, new byte[4], 0, 4);
  }

  public static void setChecksum(byte[] b, int c, int inodeSeed) {
    int tail = c + 8 * limit(b, c);
    LittleEndian.putLe32(b, tail, 0);
    LittleEndian.putLe32(b, tail + 4, checksum(b, c, inodeSeed));
  }

  public static int storedChecksum(byte[] b, int c) {
    return LittleEndian.le32(b, c + 8 * limit(b, c) + 4);
  }

  /** Whether the tail fits in the block after {@code limit} entries. */
  public static boolean tailFits(byte[] b, int c, int bs) {
    return c + 8 * limit(b, c) + 8 <= bs;
  }
}
