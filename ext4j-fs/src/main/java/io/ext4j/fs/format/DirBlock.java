package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A linear directory block (or an htree leaf): a chain of directory entries covering the block,
 * optionally ending in the checksum tail. Pure functions over the block's bytes.
 *
 * <h2>On-disk grammar (little-endian)</h2>
 * <pre>
 * block  := entry+ [tail]                 entries cover [0, bs) or, with metadata_csum, [0, bs − 12)
 * entry  := u32 inode, u16 rec_len, u8 name_len, u8 file_type, u8[name_len] name, zero padding to rec_len
 *           inode 0: free space; rec_len a multiple of 4, ≥ 12 and ≥ (8 + name_len + 3) &amp; ~3
 * tail   := u32 0, u16 12, u8 0, u8 0xDE, u32 checksum    checksum = crc32c(ino_seed, block[0, bs − 12))
 * </pre>
 * With 64 KiB blocks a rec_len of 65536 is stored as 0xFFFF (0 also reads as the block size), and
 * longer lengths fold their high bits into the low two.
 */
public final class DirBlock {
  public static final int TAIL_SIZE = 12;
  static final int TAIL_TYPE = 0xDE;

  private DirBlock() {}

  /** One directory entry as found in a block. */
  public record Entry(int offset, long inode, int recLen, int type, byte[] name) {
    public int nameLen() {
      return name.length;
    }

    public boolean isFree() {
      return inode == 0;
    }
  }

  /** A malformed block: what is wrong (the caller adds where). */
  public static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    public Malformed(String what) {
      super(what);
    }
  }

  /** The file_type byte for an inode of {@code mode} (1 regular … 7 symlink; 0 for an unknown type). */
  public static int typeOfMode(int mode) {
    return switch (mode & RawInode.S_IFMT) {
      case RawInode.S_IFREG -> 1;
      case RawInode.S_IFDIR -> 2;
      case RawInode.S_IFCHR -> 3;
      case RawInode.S_IFBLK -> 4;
      case RawInode.S_IFIFO -> 5;
      case RawInode.S_IFSOCK -> 6;
      case RawInode.S_IFLNK -> 7;
      default -> 0;
    };
  }

  /** The smallest rec_len of an entry with a name of {@code nameLen} bytes. */
  public static int minRecLen(int nameLen) {
    return (8 + nameLen + 3) & ~3;
  }

  public static int getRecLen(byte[] b, int off, int bs) {
    int len = LittleEndian.le16(b, off + 4);
    if (bs < 65536) {
      return len;
    }
    if (len == 0xFFFF || len == 0) {
      return 65536;
    }
    return (len & 0xFFFC) | ((len & 3) << 16);
  }

  public static void putRecLen(byte[] b, int off, int len, int bs) {
    int stored = len;
    if (bs >= 65536) {
      stored = len == 65536 ? 0xFFFF : (len & 0xFFFC) | ((len >> 16) & 3);
    }
    LittleEndian.putLe16(b, off + 4, stored);
  }

  private static ByteBuffer le(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Whether the block ends in a well-formed checksum tail. */
  public static boolean hasTail(byte[] b, int bs) {
    int t = bs - TAIL_SIZE;
    ByteBuffer l = le(b);
    return l.getInt(t) == 0 && Short.toUnsignedInt(l.getShort(t + 4)) == TAIL_SIZE && b[t + 6] == 0 && (b[t + 7] & 0xFF) == TAIL_TYPE;
  }

  /** Writes the tail with the checksum of the block's entries. */
  public static void setTail(byte[] b, int bs, int inodeSeed) {
    int t = bs - TAIL_SIZE;
    ByteBuffer l = le(b);
    l.putInt(t, 0);
    l.putShort(t + 4, (short) TAIL_SIZE);
    b[t + 6] = 0;
    b[t + 7] = (byte) TAIL_TYPE;
    l.putInt(t + 8, Crc32c.update(inodeSeed, b, 0, t));
  }

  public static int storedTailChecksum(byte[] b, int bs) {
    return le(b).getInt(bs - 4);
  }

  public static int tailChecksum(byte[] b, int bs, int inodeSeed) {
    return Crc32c.update(inodeSeed, b, 0, bs - TAIL_SIZE);
  }

  /**
   * The entries of a block whose entries cover [0, usable) (bs, or bs − 12 with a tail).
   *
   * @throws Malformed on a rec_len that is too small, unaligned, or runs past the end, or a name
   *     longer than its entry
   */
  public static List<Entry> parse(byte[] b, int bs, int usable) throws Malformed {
    List<Entry> out = new ArrayList<>();
    int off = 0;
    while (off < usable) {
      int rec = checkEntry(b, bs, usable, off);
      long ino = Integer.toUnsignedLong(LittleEndian.le32(b, off));
      int nameLen = b[off + 6] & 0xFF;
      byte[] name = Arrays.copyOfRange(b, off + 8, off + 8 + Math.min(nameLen, rec - 8));
      out.add(new Entry(off, ino, rec, b[off + 7] & 0xFF, name));
      off += rec;
    }
    return out;
  }

  /** Checks the entry at {@code off} as {@link #parse} does; returns its rec_len. */
  private static int checkEntry(byte[] b, int bs, int usable, int off) throws Malformed {
    if (off + 8 > usable) {
      throw new Malformed("directory entry at offset " + off + " does not fit before " + usable);
    }
    long ino = Integer.toUnsignedLong(LittleEndian.le32(b, off));
    int rec = getRecLen(b, off, bs);
    int nameLen = b[off + 6] & 0xFF;
    if (rec < 12 || rec % 4 != 0 || off + rec > usable) {
      throw new Malformed("directory entry at offset " + off + " has rec_len " + rec + " (block space " + usable + ")");
    }
    if (ino != 0 && minRecLen(nameLen) > rec) {
      throw new Malformed("directory entry at offset " + off + " has name_len " + nameLen + " longer than its rec_len " + rec);
    }
    if (ino != 0 && nameLen == 0) {
      throw new Malformed("directory entry at offset " + off + " names inode " + ino + " with an empty name");
    }
    return rec;
  }

  /**
   * The offset of the live entry named {@code name}, every entry before it checked as
   * {@link #parse} checks; -1 when there is none. Allocates nothing (the lookup path).
   */
  public static int find(byte[] b, int bs, int usable, byte[] name) throws Malformed {
    int off = 0;
    while (off < usable) {
      int rec = checkEntry(b, bs, usable, off);
      // The last byte first: names made in sequence (f1, f2, ...) share their length and start, and
      // a one-byte test is cheaper than a range compare that fails anyway.
      if (LittleEndian.le32(b, off) != 0 && (b[off + 6] & 0xFF) == name.length
          && (name.length == 0 || b[off + 7 + name.length] == name[name.length - 1])
          && Arrays.equals(b, off + 8, off + 8 + name.length, name, 0, name.length)) {
        return off;
      }
      off += rec;
    }
    return -1;
  }

  /** The inode number of the entry at {@code off}. */
  public static long inodeAt(byte[] b, int off) {
    return Integer.toUnsignedLong(LittleEndian.le32(b, off));
  }

  /** The file type byte of the entry at {@code off}. */
  public static int typeAt(byte[] b, int off) {
    return b[off + 7] & 0xFF;
  }

  /**
   * The offset of the first entry whose record has room for {@code need} more bytes (a free entry
   * at least that long, or an entry with that much slack after its name), every entry before it
   * checked as {@link #parse} checks; -1 when none has. Allocates nothing (the insert path).
   */
  private static int room(byte[] b, int bs, int usable, int need) throws Malformed {
    int off = 0;
    while (off < usable) {
      int rec = checkEntry(b, bs, usable, off);
      boolean free = LittleEndian.le32(b, off) == 0;
      int used = free ? 0 : minRecLen(b[off + 6] & 0xFF);
      if (rec - used >= need) {
        return off;
      }
      off += rec;
    }
    return -1;
  }

  /** Writes an empty block: one free entry covering the entry space, and the tail when {@code tailSeed} is non-null. */
  public static void initEmpty(byte[] b, int bs, Integer tailSeed) {
    Arrays.fill(b, (byte) 0);
    int usable = tailSeed != null ? bs - TAIL_SIZE : bs;
    putRecLen(b, 0, usable, bs);
    if (tailSeed != null) {
      setTail(b, bs, tailSeed);
    }
  }

  /** Writes a new directory's first block: "." and "..", the latter covering the rest. */
  public static void initDots(byte[] b, int bs, long self, long parent, boolean fileType, Integer tailSeed) {
    Arrays.fill(b, (byte) 0);
    int usable = tailSeed != null ? bs - TAIL_SIZE : bs;
    writeEntry(b, 0, self, 12, ".".getBytes(StandardCharsets.UTF_8), fileType ? 2 : 0, bs);
    writeEntry(b, 12, parent, usable - 12, "..".getBytes(StandardCharsets.UTF_8), fileType ? 2 : 0, bs);
    if (tailSeed != null) {
      setTail(b, bs, tailSeed);
    }
  }

  /** Writes an entry's header and name at {@code off} (the rest of its record is left as is). */
  public static void writeEntry(byte[] b, int off, long ino, int recLen, byte[] name, int type, int bs) {
    ByteBuffer l = le(b);
    l.putInt(off, (int) ino);
    putRecLen(b, off, recLen, bs);
    b[off + 6] = (byte) name.length;
    b[off + 7] = (byte) type;
    System.arraycopy(name, 0, b, off + 8, name.length);
    int pad = minRecLen(name.length);
    for (int i = off + 8 + name.length; i < off + pad && i < off + recLen; i++) {
      b[i] = 0;
    }
  }

  /**
   * Inserts an entry into the first record with room (a free record, or the slack after a live
   * one), as the kernel does. Returns its offset, or -1 when the block has no room.
   */
  public static int insert(byte[] b, int bs, int usable, byte[] name, long ino, int type) throws Malformed {
    int need = minRecLen(name.length);
    int off = room(b, bs, usable, need);
    if (off < 0) {
      return -1;
    }
    int rec = getRecLen(b, off, bs);
    if (LittleEndian.le32(b, off) == 0) {
      writeEntry(b, off, ino, rec, name, type, bs);
      return off;
    }
    int used = minRecLen(b[off + 6] & 0xFF);
    putRecLen(b, off, used, bs);
    writeEntry(b, off + used, ino, rec - used, name, type, bs);
    return off + used;
  }

  /** Whether the block has room for a name of {@code nameLen} bytes. */
  public static boolean hasRoom(byte[] b, int bs, int usable, int nameLen) throws Malformed {
    return room(b, bs, usable, minRecLen(nameLen)) >= 0;
  }

  /**
   * Removes the entry at {@code off}: its record joins the previous one, or, when it is the first,
   * its inode becomes 0 (the kernel's way; blocks never shrink).
   */
  public static void remove(byte[] b, int bs, int usable, int off) throws Malformed {
    int prev = -1;
    int at = 0;
    while (at < usable) { // every entry up to off checked as parse checks, nothing allocated
      int rec = checkEntry(b, bs, usable, at);
      if (at == off) {
        if (prev < 0) {
          le(b).putInt(off, 0);
        } else {
          putRecLen(b, prev, getRecLen(b, prev, bs) + rec, bs);
        }
        return;
      }
      prev = at;
      at += rec;
    }
    throw new Malformed("no directory entry at offset " + off);
  }

  /** Rewrites the block with {@code entries} packed from the start, the last one covering the rest. */
  public static void pack(byte[] b, int bs, List<Entry> entries, Integer tailSeed) {
    Arrays.fill(b, (byte) 0);
    int usable = tailSeed != null ? bs - TAIL_SIZE : bs;
    int off = 0;
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      int rec = i == entries.size() - 1 ? usable - off : minRecLen(e.nameLen());
      writeEntry(b, off, e.inode(), rec, e.name(), e.type(), bs);
      off += rec;
    }
    if (entries.isEmpty()) {
      putRecLen(b, 0, usable, bs);
    }
    if (tailSeed != null) {
      setTail(b, bs, tailSeed);
    }
  }

  /** Bytes the live entries need when packed. */
  public static int packedSize(List<Entry> entries) {
    int n = 0;
    for (Entry e : entries) {
      n += minRecLen(e.nameLen());
    }
    return n;
  }
}
