package io.ext4j.fs.format;

import static io.ext4j.fs.format.LittleEndian.le16;
import static io.ext4j.fs.format.LittleEndian.le32;
import static io.ext4j.fs.format.LittleEndian.putLe16;
import static io.ext4j.fs.format.LittleEndian.putLe32;

import io.ext4j.block.Crc32c;
import io.ext4j.fs.Ext4FormatException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Extended attributes in the inode body and in an xattr block (i_file_acl). Pure codec, no I/O.
 *
 * <h2>On-disk grammar (little-endian)</h2>
 * <pre>
 * entry      := u8 e_name_len, u8 e_name_index (≠ 0), u16 e_value_offs, u32 e_value_inum,
 *               u32 e_value_size, u32 e_hash, u8[e_name_len] e_name, zero padding to a multiple of 4
 * table      := entry* u32 0                          (the first u32 of an entry is never 0)
 * value      := u8[e_value_size], zero padding to 4; values are packed downward from the area's end,
 *               after the table; an ea_inode entry (e_value_inum ≠ 0) has no value here (offs 0)
 *
 * inode area := at 128 + i_extra_isize, up to s_inode_size:
 *               u32 magic 0xEA020000, table, free space, values
 *               e_value_offs counts from the first entry (magic + 4); entries in any order;
 *               e_hash 0 (what the kernel writes; e2fsck accepts 0 or the hash). A zero magic (or
 *               an area under 4 bytes) means no attributes.
 * block      := 0x00 u32 h_magic 0xEA020000   0x04 u32 h_refcount   0x08 u32 h_blocks = 1
 *               0x0C u32 h_hash                0x10 u32 h_checksum   0x14 u32[3] reserved
 *               0x20 table, free space, values  (e_value_offs from the block start)
 *               entries sorted by (e_name_index, e_name_len, e_name) — the kernel's lookup stops
 *               at the first greater entry
 * </pre>
 *
 * <h2>Hashes and checksum</h2>
 * <pre>
 * e_hash   = fold over name bytes (unsigned): h = rotl(h, 5) ^ c; then over the value's padded LE
 *            words: h = rotl(h, 16) ^ w  (e2fsck also accepts the name bytes sign-extended); an
 *            ea_inode entry folds the EA inode's value hash (crc32c(fs_seed, value), kept in that
 *            inode's i_atime) as its single word, and keeps that e_hash in the inode area too
 * h_hash   = fold over the entries' e_hash in table order: h = rotl(h, 16) ^ e_hash; 0 if any e_hash
 *            is 0 (the kernel's rehash; e2fsprogs writes 0, e2fsck does not check it)
 * h_checksum (metadata_csum) = crc32c(crc32c(fs_seed, le64 block number), block with h_checksum 0)
 * </pre>
 * Decoding checks, each with its own message naming the area and the offending entry: the magic,
 * h_blocks, the checksum, each entry's bounds and name index, each value's bounds (inside the area,
 * after the table, not overlapping another value) and each e_hash.
 */
public final class XattrCodec {
  public static final int MAGIC = 0xEA020000;
  /** Size of the xattr block header. */
  public static final int BLOCK_HEADER = 32;
  static final int ENTRY_HEADER = 16;
  static final int CHECKSUM_AT = 0x10;

  private XattrCodec() {}

  // ---- hashes ---------------------------------------------------------------------------------

  /** e_hash of an attribute with its value in place: unsigned name bytes, then the value's words. */
  public static int entryHash(XattrName n, byte[] value) {
    return foldValue(foldName(n, false), value);
  }

  /** e_hash of an ea_inode attribute: the name, then the EA inode's value hash as one word. */
  public static int eaInodeEntryHash(XattrName n, int eaInodeValueHash) {
    return Integer.rotateLeft(foldName(n, false), 16) ^ eaInodeValueHash;
  }

  /** Whether {@code stored} is an e_hash e2fsck accepts: 0, or the hash with unsigned or signed name bytes. */
  public static boolean hashAccepted(int stored, XattrName n, byte[] value) {
    return stored == 0 || stored == entryHash(n, value) || stored == foldValue(foldName(n, true), value);
  }

  /** h_hash: the entry hashes folded in table order; 0 when any of them is 0. */
  public static int blockHash(List<Integer> entryHashes) {
    int h = 0;
    for (int e : entryHashes) {
      if (e == 0) {
        return 0;
      }
      h = Integer.rotateLeft(h, 16) ^ e;
    }
    return h;
  }

  private static int foldName(XattrName n, boolean signed) {
    int h = 0;
    for (int i = 0; i < n.suffixLength(); i++) {
      int c = n.suffixByte(i);
      h = Integer.rotateLeft(h, 5) ^ (signed ? c : c & 0xFF);
    }
    return h;
  }

  private static int foldValue(int h, byte[] value) {
    for (int i = 0; i < value.length; i += 4) {
      int w = 0;
      for (int k = 0; k < 4 && i + k < value.length; k++) {
        w |= (value[i + k] & 0xFF) << (8 * k);
      }
      h = Integer.rotateLeft(h, 16) ^ w;
    }
    return h;
  }

  /** h_checksum of {@code block} at {@code blockNr}: its stored h_checksum is treated as 0. */
  public static int blockChecksum(byte[] block, long blockNr, int fsSeed) {
    int crc = Crc32c.updateLittleEndianInt(fsSeed, (int) blockNr);
    crc = Crc32c.updateLittleEndianInt(crc, (int) (blockNr >>> 32));
    crc = Crc32c.update(crc, block, 0, CHECKSUM_AT);
    crc = Crc32c.updateLittleEndianInt(crc, 0);
    return Crc32c.update(crc, block, CHECKSUM_AT + 4, block.length - CHECKSUM_AT - 4);
  }

  // ---- sizes ----------------------------------------------------------------------------------

  /** Bytes the in-inode area needs for {@code entries}: magic, table with terminator, values; 0 when empty. */
  public static int inodeAreaSize(List<XattrEntry> entries) {
    return entries.isEmpty() ? 0 : 4 + tableAndValues(entries);
  }

  /** Bytes one xattr block needs for {@code entries}: header, table with terminator, values. */
  public static int blockSpaceNeeded(List<XattrEntry> entries) {
    return BLOCK_HEADER + tableAndValues(entries);
  }

  /** The size of one entry in the table: 16 header bytes and the name, padded to 4. */
  public static int entrySize(XattrName n) {
    return pad4(ENTRY_HEADER + n.suffixLength());
  }

  private static int tableAndValues(List<XattrEntry> entries) {
    long n = 4;
    for (XattrEntry e : entries) {
      n += entrySize(e.name()) + (e.inEaInode() ? 0 : pad4(e.valueSize()));
    }
    return (int) Math.min(n, Integer.MAX_VALUE);
  }

  private static int pad4(int n) {
    return (n + 3) & ~3;
  }

  // ---- in-inode area --------------------------------------------------------------------------

  /**
   * The attributes in {@code inode[areaOff, areaEnd)}.
   *
   * @param inode the inode's bytes (s_inode_size)
   * @param areaOff 128 + i_extra_isize
   * @param areaEnd s_inode_size
   * @param where names the inode in messages, e.g. "disk.img inode 12"
   * @throws Ext4FormatException on a bad magic, an entry or value out of bounds, a zero name index,
   *     overlapping values or an unacceptable e_hash; the message names the byte within the inode
   */
  public static List<XattrEntry> decodeInodeArea(byte[] inode, int areaOff, int areaEnd, String where)
      throws Ext4FormatException {
    checkArea(inode, areaOff, areaEnd);
    if (areaEnd - areaOff < 4 || le32(inode, areaOff) == 0) {
      return List.of();
    }
    int magic = le32(inode, areaOff);
    if (magic != MAGIC) {
      throw new Ext4FormatException(where, -1, String.format(
          "bad in-inode xattr magic 0x%08X at inode byte %d, expected 0x%08X", magic, areaOff, MAGIC));
    }
    return decodeTable(inode, areaOff + 4, areaEnd, areaOff + 4, where, -1, "inode");
  }

  /**
   * Writes {@code entries} into {@code inode[areaOff, areaEnd)} in the given order: magic, table,
   * values packed from the end, everything else zero; e_hash 0 (ea_inode entries: their hash). An
   * empty list zero-fills the whole area (no magic).
   *
   * @throws XattrSpaceException if they need more than {@code areaEnd - areaOff} bytes
   * @throws IllegalArgumentException if a name occurs twice
   */
  public static void encodeInodeArea(List<XattrEntry> entries, byte[] inode, int areaOff, int areaEnd) {
    checkArea(inode, areaOff, areaEnd);
    checkUnique(entries);
    int needed = inodeAreaSize(entries);
    if (needed > areaEnd - areaOff) {
      throw new XattrSpaceException("in-inode xattr area", needed, areaEnd - areaOff);
    }
    Arrays.fill(inode, areaOff, areaEnd, (byte) 0);
    if (entries.isEmpty()) {
      return;
    }
    putLe32(inode, areaOff, MAGIC);
    encodeTable(entries, inode, areaOff + 4, areaEnd, areaOff + 4, false);
  }

  private static void checkArea(byte[] inode, int areaOff, int areaEnd) {
    if (areaOff < 0 || areaOff > areaEnd || areaEnd > inode.length) {
      throw new IllegalArgumentException("xattr area [" + areaOff + ", " + areaEnd + ") is not inside the "
          + inode.length + "-byte inode");
    }
  }

  // ---- block ----------------------------------------------------------------------------------

  /**
   * Decodes an xattr block.
   *
   * @param block the whole block (its length is the block size)
   * @param blockNr the block's number: part of the checksum, and of the messages' byte offsets
   * @param checksumSeed the filesystem's checksum seed ({@link Ext4Superblock#checksumSeed()})
   * @param verifyChecksum whether to check h_checksum (metadata_csum)
   * @param where names the block in messages, e.g. "disk.img xattr block 1162 of inode 12"
   * @throws Ext4FormatException on a bad magic, h_blocks ≠ 1, a checksum mismatch, or a bad entry
   *     or value (as {@link #decodeInodeArea}); the byte offset is the device offset of the problem
   */
  public static XattrBlock decodeBlock(byte[] block, long blockNr, int checksumSeed, boolean verifyChecksum, String where)
      throws Ext4FormatException {
    if (block.length < BLOCK_HEADER + 4) {
      throw new IllegalArgumentException("an xattr block cannot be " + block.length + " bytes");
    }
    long at = blockNr * block.length;
    int magic = le32(block, 0);
    if (magic != MAGIC) {
      throw new Ext4FormatException(where, at, String.format(
          "bad xattr block magic 0x%08X, expected 0x%08X", magic, MAGIC));
    }
    int blocks = le32(block, 8);
    if (blocks != 1) {
      throw new Ext4FormatException(where, at + 8, "xattr block h_blocks is " + Integer.toUnsignedString(blocks) + ", expected 1");
    }
    int stored = le32(block, CHECKSUM_AT);
    if (verifyChecksum) {
      int computed = blockChecksum(block, blockNr, checksumSeed);
      if (computed != stored) {
        throw new Ext4FormatException(where, at + CHECKSUM_AT, String.format(
            "xattr block checksum mismatch: stored 0x%08X, computed 0x%08X", stored, computed));
      }
    }
    List<XattrEntry> entries = decodeTable(block, BLOCK_HEADER, block.length, 0, where, at, "block");
    return new XattrBlock(le32(block, 4), blocks, entries, le32(block, 0x0C), stored);
  }

  /**
   * Encodes an xattr block: entries sorted by {@link XattrName#BLOCK_ORDER}, e_hash and h_hash
   * computed (ea_inode entries keep their given hash), values packed from the end, h_checksum set
   * when {@code metadataCsum} (else 0).
   *
   * @throws XattrSpaceException if the entries need more than {@code blockSize} bytes
   * @throws IllegalArgumentException if a name occurs twice, refcount is below 1, or the block size
   *     is not a power of two of at least 1024
   */
  public static byte[] encodeBlock(int refcount, List<XattrEntry> entries, int blockSize, long blockNr, int fsSeed,
      boolean metadataCsum) {
    if (blockSize < 1024 || Integer.bitCount(blockSize) != 1) {
      throw new IllegalArgumentException("block size " + blockSize + " is not a power of two ≥ 1024");
    }
    if (refcount < 1) {
      throw new IllegalArgumentException("xattr block refcount " + refcount + " must be at least 1");
    }
    checkUnique(entries);
    int needed = blockSpaceNeeded(entries);
    if (needed > blockSize) {
      throw new XattrSpaceException("xattr block", needed, blockSize);
    }
    List<XattrEntry> sorted = new ArrayList<>(entries);
    sorted.sort(Comparator.comparing(XattrEntry::name, XattrName.BLOCK_ORDER));
    byte[] block = new byte[blockSize];
    putLe32(block, 0, MAGIC);
    putLe32(block, 4, refcount);
    putLe32(block, 8, 1);
    List<Integer> hashes = encodeTable(sorted, block, BLOCK_HEADER, blockSize, 0, true);
    putLe32(block, 0x0C, blockHash(hashes));
    if (metadataCsum) {
      putLe32(block, CHECKSUM_AT, blockChecksum(block, blockNr, fsSeed));
    }
    return block;
  }

  // ---- the entry table, shared ----------------------------------------------------------------

  /**
   * Reads the table at {@code buf[start]} up to {@code end}; values at {@code valueBase + offs}.
   * {@code at} is the device offset of {@code buf[0]} (-1 if unknown); {@code unit} is "inode" or
   * "block", for messages.
   */
  private static List<XattrEntry> decodeTable(byte[] buf, int start, int end, int valueBase, String where, long at,
      String unit) throws Ext4FormatException {
    List<int[]> raw = new ArrayList<>(); // {pos, nameLen, index, offs, inum, size, hash}
    int p = start;
    while (true) {
      if (p + 4 > end) {
        throw fail(where, at, p, String.format("xattr entry table runs past the area end (%s byte %d) without its"
            + " 4-byte terminator at %s byte %d", unit, end, unit, p));
      }
      if (le32(buf, p) == 0) {
        break;
      }
      if (p + ENTRY_HEADER > end) {
        throw fail(where, at, p, String.format("xattr entry at %s byte %d: its 16-byte header runs past the area end"
            + " (%s byte %d)", unit, p, unit, end));
      }
      int nameLen = buf[p] & 0xFF;
      int index = buf[p + 1] & 0xFF;
      if (index == 0) {
        throw fail(where, at, p, String.format("xattr entry at %s byte %d has name index 0", unit, p));
      }
      int next = p + pad4(ENTRY_HEADER + nameLen);
      if (next > end) {
        throw fail(where, at, p, String.format("xattr entry at %s byte %d: its %d-byte name runs past the area end"
            + " (%s byte %d)", unit, p, nameLen, unit, end));
      }
      raw.add(new int[] {p, nameLen, index, le16(buf, p + 2), le32(buf, p + 4), le32(buf, p + 8), le32(buf, p + 12)});
      p = next;
    }
    int tableEnd = p + 4;
    List<XattrEntry> out = new ArrayList<>(raw.size());
    List<long[]> extents = new ArrayList<>(); // {start, stop, entry pos}
    for (int[] r : raw) {
      int pos = r[0];
      XattrName name = new XattrName(r[2], Arrays.copyOfRange(buf, pos + ENTRY_HEADER, pos + ENTRY_HEADER + r[1]));
      long size = Integer.toUnsignedLong(r[5]);
      if (r[4] != 0) {
        if (size > Integer.MAX_VALUE) {
          throw fail(where, at, pos, String.format("xattr entry %s at %s byte %d: ea_inode value size %d is too large",
              name, unit, pos, size));
        }
        out.add(new XattrEntry(name, new byte[0], r[4], r[6], (int) size));
        continue;
      }
      long vStart = (long) valueBase + r[3];
      long vStop = vStart + size;
      if (size > 0 && (vStart < tableEnd || vStop > end)) {
        throw fail(where, at, pos, String.format("xattr entry %s at %s byte %d: value at %s bytes [%d, %d) is outside"
            + " [%d, %d), after the entry table and inside the area", name, unit, pos, unit, vStart, vStop, tableEnd, end));
      }
      byte[] value = size == 0 ? new byte[0] : Arrays.copyOfRange(buf, (int) vStart, (int) vStop);
      if (!hashAccepted(r[6], name, value)) {
        throw fail(where, at, pos, String.format("xattr entry %s at %s byte %d: e_hash 0x%08X is neither 0 nor the"
            + " hash of its name and value (0x%08X)", name, unit, pos, r[6], entryHash(name, value)));
      }
      if (size > 0) {
        extents.add(new long[] {vStart, vStop, pos});
      }
      out.add(new XattrEntry(name, value, 0, r[6]));
    }
    extents.sort(Comparator.comparingLong(e -> e[0]));
    for (int i = 1; i < extents.size(); i++) {
      long[] a = extents.get(i - 1);
      long[] b = extents.get(i);
      if (b[0] < a[1]) {
        throw fail(where, at, (int) b[2], String.format("xattr values overlap: %s bytes [%d, %d) of the entry at %s"
            + " byte %d and [%d, %d) of the entry at %s byte %d", unit, a[0], a[1], unit, a[2], b[0], b[1], unit, b[2]));
      }
    }
    return out;
  }

  /** Writes the table at {@code buf[start]} and the values downward from {@code end}; returns the e_hash list. */
  private static List<Integer> encodeTable(List<XattrEntry> entries, byte[] buf, int start, int end, int valueBase,
      boolean hashed) {
    List<Integer> hashes = new ArrayList<>(entries.size());
    int p = start;
    int valueAt = end;
    for (XattrEntry e : entries) {
      XattrName n = e.name();
      int offs = 0;
      int hash;
      if (e.inEaInode()) {
        hash = e.hash();
      } else {
        byte[] v = e.valueRef();
        if (v.length > 0) {
          valueAt -= pad4(v.length);
          System.arraycopy(v, 0, buf, valueAt, v.length);
          offs = valueAt - valueBase;
        }
        hash = hashed ? entryHash(n, v) : 0;
      }
      buf[p] = (byte) n.suffixLength();
      buf[p + 1] = (byte) n.index();
      putLe16(buf, p + 2, offs);
      putLe32(buf, p + 4, e.valueInum());
      putLe32(buf, p + 8, e.valueSize());
      putLe32(buf, p + 12, hash);
      for (int i = 0; i < n.suffixLength(); i++) {
        buf[p + ENTRY_HEADER + i] = (byte) n.suffixByte(i);
      }
      hashes.add(hash);
      p += entrySize(n);
    }
    return hashes; // the terminator and padding are the zeros the caller filled
  }

  private static void checkUnique(List<XattrEntry> entries) {
    Set<XattrName> seen = new HashSet<>();
    for (XattrEntry e : entries) {
      if (!seen.add(e.name())) {
        throw new IllegalArgumentException("xattr " + e.name() + " occurs twice");
      }
    }
  }

  private static Ext4FormatException fail(String where, long at, int pos, String what) {
    return new Ext4FormatException(where, at < 0 ? -1 : at + pos, what);
  }
}
