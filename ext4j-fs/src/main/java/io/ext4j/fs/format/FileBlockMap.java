package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;

import io.ext4j.fs.Ext4FormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps a file's logical blocks to filesystem blocks, from either form of {@code i_block}.
 *
 * <h2>Extent tree grammar (little-endian)</h2>
 * <pre>
 * node    := header entry{eh_entries} [tail]      root: the 60 bytes of i_block (eh_max 4);
 *                                                  other nodes: one whole block each
 * header  := u16 eh_magic = 0xF30A, u16 eh_entries, u16 eh_max, u16 eh_depth, u32 eh_generation
 * entry   := index (eh_depth &gt; 0) | leaf (eh_depth = 0), 12 bytes each, sorted by first block
 * index   := u32 ei_block, u32 ei_leaf_lo, u16 ei_leaf_hi, u16 unused    → child node of depth - 1
 * leaf    := u32 ee_block, u16 ee_len, u16 ee_start_hi, u32 ee_start_lo
 *            ee_len &gt; 32768 means uninitialized, of length ee_len - 32768
 * tail    := u32 checksum at 12 + 12 * eh_max, in non-root nodes with metadata_csum:
 *            crc32c(crc32c(crc32c(fs seed, le32 inode), le32 generation), node bytes before the tail)
 * </pre>
 * Each node is checked for magic, entry count, depth and (tail) checksum separately, each with its
 * own message naming the block.
 *
 * <h2>Indirect map</h2>
 * i_block holds 15 u32 block numbers: 12 direct, then single-, double- and triple-indirect blocks,
 * each an array of {@code blockSize / 4} u32 block numbers; 0 is a hole.
 */
public final class FileBlockMap {
  public static final int EXTENT_MAGIC = 0xF30A;
  private static final int MAX_DEPTH = 5;
  private static final int UNINIT = 32768;

  private FileBlockMap() {}

  /**
   * The file's mapped ranges in logical order, adjacent ranges merged; holes are absent.
   *
   * @throws Ext4FormatException on a malformed node or pointer, naming the device and block
   *     and for an inline-data inode (which has no blocks to map)
   */
  public static List<MappedRange> map(String device, Ext4Superblock sb, Ext4Inode inode, BlockReader reader)
      throws IOException {
    if ((inode.flags() & Ext4Inode.FLAG_INLINE_DATA) != 0) {
      throw new Ext4FormatException(device, -1, "inode " + inode.number() + " keeps its data inline; it has no blocks to map");
    }
    List<MappedRange> out = new ArrayList<>();
    if (inode.usesExtents()) {
      walkExtents(device, sb, inode, reader, inode.iBlock(), 0, 60, -1, -1, out);
    } else {
      walkIndirect(device, sb, inode, reader, out);
    }
    return merge(out);
  }

  private static void walkExtents(String device, Ext4Superblock sb, Ext4Inode inode, BlockReader reader,
      byte[] node, int off, int len, long block, int expectedDepth, List<MappedRange> out) throws IOException {
    String where = block < 0 ? "inode " + inode.number() + " extent root" : "extent block " + block + " of inode " + inode.number();
    long at = block < 0 ? -1 : block * sb.blockSize();
    ByteBuffer b = ByteBuffer.wrap(node, off, len).slice().order(ByteOrder.LITTLE_ENDIAN);
    int magic = Short.toUnsignedInt(b.getShort(0));
    if (magic != EXTENT_MAGIC) {
      throw new Ext4FormatException(device, at, String.format("%s: bad extent header magic 0x%04X, expected 0x%04X", where, magic, EXTENT_MAGIC));
    }
    int entries = Short.toUnsignedInt(b.getShort(2));
    int max = Short.toUnsignedInt(b.getShort(4));
    int depth = Short.toUnsignedInt(b.getShort(6));
    if (max == 0 || 12 + 12 * max > len || entries > max) {
      throw new Ext4FormatException(device, at, where + ": extent header entries " + entries + " / max " + max
          + " do not fit a node of " + len + " bytes");
    }
    if (depth > MAX_DEPTH || (expectedDepth >= 0 && depth != expectedDepth)) {
      throw new Ext4FormatException(device, at, where + ": extent depth " + depth
          + (expectedDepth >= 0 ? ", expected " + expectedDepth : " exceeds " + MAX_DEPTH));
    }
    if (block >= 0 && sb.hasMetadataCsum()) {
      int tail = 12 + 12 * max;
      if (tail + 4 > len) {
        throw new Ext4FormatException(device, at, where + ": no room for the extent tail checksum");
      }
      int stored = b.getInt(tail);
      int crc = Crc32c.updateLittleEndianInt(Crc32c.updateLittleEndianInt(sb.checksumSeed(), (int) inode.number()), inode.generation());
      int computed = Crc32c.update(crc, node, off, tail);
      if (stored != computed) {
        throw new Ext4FormatException(device, at, String.format("%s: extent block checksum mismatch: stored 0x%08X, computed 0x%08X", where, stored, computed));
      }
    }
    for (int i = 0; i < entries; i++) {
      int e = 12 + 12 * i;
      long first = Integer.toUnsignedLong(b.getInt(e));
      if (depth > 0) {
        long child = Integer.toUnsignedLong(b.getInt(e + 4)) | (long) Short.toUnsignedInt(b.getShort(e + 8)) << 32;
        checkBlock(device, sb, at, where, child);
        byte[] childBytes = reader.read(child);
        walkExtents(device, sb, inode, reader, childBytes, 0, childBytes.length, child, depth - 1, out);
      } else {
        int rawLen = Short.toUnsignedInt(b.getShort(e + 4));
        boolean uninit = rawLen > UNINIT;
        int n = uninit ? rawLen - UNINIT : rawLen;
        long start = (long) Short.toUnsignedInt(b.getShort(e + 6)) << 32 | Integer.toUnsignedLong(b.getInt(e + 8));
        if (n == 0) {
          throw new Ext4FormatException(device, at, where + ": extent " + i + " has length 0");
        }
        checkBlock(device, sb, at, where, start);
        checkBlock(device, sb, at, where, start + n - 1);
        if (!out.isEmpty()) {
          MappedRange prev = out.getLast();
          if (first < prev.logical() + prev.length()) {
            throw new Ext4FormatException(device, at, where + ": extent at file block " + first
                + " overlaps or precedes the previous one ending at " + (prev.logical() + prev.length()));
          }
        }
        out.add(new MappedRange(first, start, n, uninit));
      }
    }
  }

  private static void walkIndirect(String device, Ext4Superblock sb, Ext4Inode inode, BlockReader reader,
      List<MappedRange> out) throws IOException {
    long fileBlocks = Math.ceilDiv(inode.size(), sb.blockSize());
    ByteBuffer ib = ByteBuffer.wrap(inode.iBlock()).order(ByteOrder.LITTLE_ENDIAN);
    long[] logical = {0};
    for (int i = 0; i < 12 && logical[0] < fileBlocks; i++) {
      addPointer(device, sb, inode, Integer.toUnsignedLong(ib.getInt(4 * i)), logical, out);
    }
    for (int level = 1; level <= 3 && logical[0] < fileBlocks; level++) {
      long ptr = Integer.toUnsignedLong(ib.getInt(4 * (11 + level)));
      walkIndirectBlock(device, sb, inode, reader, ptr, level, fileBlocks, logical, out);
    }
  }

  private static void walkIndirectBlock(String device, Ext4Superblock sb, Ext4Inode inode, BlockReader reader,
      long block, int level, long fileBlocks, long[] logical, List<MappedRange> out) throws IOException {
    long perBlock = sb.blockSize() / 4;
    long span = 1;
    for (int i = 0; i < level; i++) {
      span *= perBlock;
    }
    if (block == 0) {
      logical[0] += span; // a hole covering the whole subtree
      return;
    }
    checkBlock(device, sb, -1, "indirect map of inode " + inode.number(), block);
    ByteBuffer b = ByteBuffer.wrap(reader.read(block)).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < perBlock && logical[0] < fileBlocks; i++) {
      long ptr = Integer.toUnsignedLong(b.getInt(4 * i));
      if (level == 1) {
        addPointer(device, sb, inode, ptr, logical, out);
      } else {
        walkIndirectBlock(device, sb, inode, reader, ptr, level - 1, fileBlocks, logical, out);
      }
    }
  }

  private static void addPointer(String device, Ext4Superblock sb, Ext4Inode inode, long ptr, long[] logical,
      List<MappedRange> out) throws Ext4FormatException {
    if (ptr != 0) {
      checkBlock(device, sb, -1, "indirect map of inode " + inode.number(), ptr);
      out.add(new MappedRange(logical[0], ptr, 1, false));
    }
    logical[0]++;
  }

  private static void checkBlock(String device, Ext4Superblock sb, long at, String where, long block)
      throws Ext4FormatException {
    if (block < sb.firstDataBlock() || block >= sb.blocksCount()) {
      throw new Ext4FormatException(device, at, where + ": block pointer " + block + " is outside the filesystem ["
          + sb.firstDataBlock() + ", " + sb.blocksCount() + ")");
    }
  }

  static List<MappedRange> merge(List<MappedRange> ranges) {
    List<MappedRange> merged = new ArrayList<>();
    for (MappedRange r : ranges) {
      if (!merged.isEmpty() && merged.getLast().isContinuedBy(r)) {
        MappedRange last = merged.removeLast();
        merged.add(new MappedRange(last.logical(), last.physical(), last.length() + r.length(), last.uninitialized()));
      } else {
        merged.add(r);
      }
    }
    return List.copyOf(merged);
  }
}
