package io.ext4j.fs.format;

import static io.ext4j.fs.format.LittleEndian.le32;
import static io.ext4j.fs.format.LittleEndian.putLe32;

import io.ext4j.block.Crc32c;
import io.ext4j.fs.Ext4FormatException;

/**
 * One block of the orphan file (COMPAT_ORPHAN_FILE; s_orphan_file_inum, 12 on a fresh image): a
 * fixed array of inode slots and a tail. Pure codec, no I/O.
 *
 * <h2>On-disk grammar (little-endian)</h2>
 * <pre>
 * 0          u32 slot[(bs − 8) / 4]   inode numbers of orphans; 0 = free slot, in any order
 * bs − 8     u32 ob_magic = 0x0B10CA04
 * bs − 4     u32 ob_checksum          metadata_csum: crc32c(crc32c(ino_seed, le64 physical block),
 *                                     slot bytes [0, 4 · slots)); else 0
 * ino_seed = crc32c(crc32c(fs_seed, le32 orphan-file inode number), le32 its i_generation)
 * </pre>
 * The checksum covers the block's physical number, so a block moved elsewhere does not verify. A
 * clean filesystem has every block <em>pristine</em>: all slots 0, the magic, and the checksum of
 * that content (e2fsck's "block N is not clean" otherwise). mke2fs writes the magic with and without
 * metadata_csum; without it the checksum is 0.
 *
 * <p>Decoding checks the magic, then the checksum, each with its own message.
 */
public final class OrphanBlock {
  public static final int MAGIC = 0x0B10CA04;
  /** Bytes of the tail: ob_magic and ob_checksum. */
  public static final int TAIL = 8;

  private OrphanBlock() {}

  /** The number of inode slots in a block of {@code blockSize} bytes: (bs − 8) / 4. */
  public static int slots(int blockSize) {
    if (blockSize < 1024 || Integer.bitCount(blockSize) != 1) {
      throw new IllegalArgumentException("block size " + blockSize + " is not a power of two ≥ 1024");
    }
    return (blockSize - TAIL) / 4;
  }

  /** ino_seed(n): the seed of every checksum of inode {@code ino} with generation {@code generation}. */
  public static int inodeSeed(int fsSeed, int ino, int generation) {
    return Crc32c.updateLittleEndianInt(Crc32c.updateLittleEndianInt(fsSeed, ino), generation);
  }

  /** ob_checksum of {@code block}'s slots at {@code physicalBlock}. */
  public static int checksum(byte[] block, int blockSize, int inodeSeed, long physicalBlock) {
    int n = slots(blockSize);
    checkLength(block, blockSize);
    int crc = Crc32c.updateLittleEndianInt(inodeSeed, (int) physicalBlock);
    crc = Crc32c.updateLittleEndianInt(crc, (int) (physicalBlock >>> 32));
    return Crc32c.update(crc, block, 0, 4 * n);
  }

  /**
   * The slots of an orphan-file block.
   *
   * @param block at least {@code blockSize} bytes; the first {@code blockSize} are the block
   * @param inodeSeed ino_seed of the orphan file's inode ({@link #inodeSeed})
   * @param physicalBlock the block's filesystem block number
   * @param verify whether to check ob_checksum (metadata_csum)
   * @param where names the block in messages, e.g. "disk.img orphan file block 3 (block 4388)"
   * @throws Ext4FormatException on a bad magic or a checksum mismatch
   */
  public static int[] decode(byte[] block, int blockSize, int inodeSeed, long physicalBlock, boolean verify, String where)
      throws Ext4FormatException {
    int n = slots(blockSize);
    checkLength(block, blockSize);
    long at = physicalBlock * blockSize;
    int magic = le32(block, blockSize - TAIL);
    if (magic != MAGIC) {
      throw new Ext4FormatException(where, at + blockSize - TAIL, String.format(
          "bad orphan file block magic 0x%08X, expected 0x%08X", magic, MAGIC));
    }
    if (verify) {
      int stored = le32(block, blockSize - 4);
      int computed = checksum(block, blockSize, inodeSeed, physicalBlock);
      if (stored != computed) {
        throw new Ext4FormatException(where, at + blockSize - 4, String.format(
            "orphan file block checksum mismatch: stored 0x%08X, computed 0x%08X", stored, computed));
      }
    }
    int[] slots = new int[n];
    for (int i = 0; i < n; i++) {
      slots[i] = le32(block, 4 * i);
    }
    return slots;
  }

  /**
   * Writes {@code slots}, the magic and (with {@code metadataCsum}) the checksum into
   * {@code block[0, blockSize)}; without metadata_csum the checksum field is 0.
   *
   * @throws IllegalArgumentException if {@code slots.length != slots(blockSize)}
   */
  public static void encode(int[] slots, byte[] block, int blockSize, int inodeSeed, long physicalBlock, boolean metadataCsum) {
    int n = slots(blockSize);
    checkLength(block, blockSize);
    if (slots.length != n) {
      throw new IllegalArgumentException("a " + blockSize + "-byte orphan file block has " + n + " slots, not " + slots.length);
    }
    for (int i = 0; i < n; i++) {
      putLe32(block, 4 * i, slots[i]);
    }
    putLe32(block, blockSize - TAIL, MAGIC);
    putLe32(block, blockSize - 4, metadataCsum ? checksum(block, blockSize, inodeSeed, physicalBlock) : 0);
  }

  /** A pristine block: every slot free, the magic, and the checksum of that. */
  public static byte[] pristine(int blockSize, int inodeSeed, long physicalBlock, boolean metadataCsum) {
    byte[] block = new byte[blockSize];
    encode(new int[slots(blockSize)], block, blockSize, inodeSeed, physicalBlock, metadataCsum);
    return block;
  }

  /**
   * Whether {@code block} is what a clean filesystem must hold: all slots 0, the magic, and
   * ob_checksum equal to the checksum of that content (0 without metadata_csum).
   */
  public static boolean isPristine(byte[] block, int blockSize, int inodeSeed, long physicalBlock, boolean metadataCsum) {
    byte[] expected = pristine(blockSize, inodeSeed, physicalBlock, metadataCsum);
    checkLength(block, blockSize);
    return java.util.Arrays.equals(block, 0, blockSize, expected, 0, blockSize);
  }

  private static void checkLength(byte[] block, int blockSize) {
    if (block.length < blockSize) {
      throw new IllegalArgumentException("orphan file block buffer of " + block.length + " bytes is shorter than the block size "
          + blockSize);
    }
  }
}
