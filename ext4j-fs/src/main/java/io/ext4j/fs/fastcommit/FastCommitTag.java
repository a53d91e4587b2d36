package io.ext4j.fs.fastcommit;

import io.ext4j.fs.format.LittleEndian;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One tag-length-value record of the fast-commit area, as found by {@link FastCommitArea#scan}: its
 * tag, where it was (area block index and byte offset) and a copy of its value. Accessors decode the
 * value of each kind; they are valid only for the tags that carry those fields (the scan has already
 * checked every value's length). Immutable.
 *
 * @param tag one of the {@code *_TAG} constants
 * @param block the fast-commit block (0-based within the area) holding the record's header
 * @param offset the byte offset of the record's header in that block
 * @param value the value bytes (without the 4-byte tag/length header)
 */
public record FastCommitTag(int tag, int block, int offset, byte[] value) {
  public static final int ADD_RANGE = 1;
  public static final int DEL_RANGE = 2;
  public static final int CREAT = 3;
  public static final int LINK = 4;
  public static final int UNLINK = 5;
  public static final int INODE = 6;
  public static final int PAD = 7;
  public static final int TAIL = 8;
  public static final int HEAD = 9;

  public FastCommitTag {
    value = value.clone();
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  /** The tag's name as debugfs's logdump prints it. */
  public static String name(int tag) {
    return switch (tag) {
      case ADD_RANGE -> "ADD_RANGE";
      case DEL_RANGE -> "DEL_RANGE";
      case CREAT -> "CREAT_DENTRY";
      case LINK -> "ADD_ENTRY";
      case UNLINK -> "DEL_ENTRY";
      case INODE -> "INODE";
      case PAD -> "PAD";
      case TAIL -> "TAIL";
      case HEAD -> "HEAD";
      default -> "tag " + tag;
    };
  }

  /** The inode the record is about (ADD_RANGE, DEL_RANGE, INODE: the first word; dentries: the second). */
  public long inode() {
    int at = tag == CREAT || tag == LINK || tag == UNLINK ? 4 : 0;
    return Integer.toUnsignedLong(LittleEndian.le32(value, at));
  }

  /** CREAT, LINK, UNLINK: the directory. */
  public long parent() {
    return Integer.toUnsignedLong(LittleEndian.le32(value, 0));
  }

  /** CREAT, LINK, UNLINK: the entry's name bytes. */
  public byte[] name() {
    return Arrays.copyOfRange(value, 8, value.length);
  }

  /** ADD_RANGE: {lblk, pblk, len, unwritten ? 1 : 0} of the extent (a struct ext4_extent). */
  public long[] extent() {
    long lblk = Integer.toUnsignedLong(LittleEndian.le32(value, 4));
    int rawLen = LittleEndian.le16(value, 8);
    long pblk = (long) LittleEndian.le16(value, 10) << 32 | Integer.toUnsignedLong(LittleEndian.le32(value, 12));
    boolean unwritten = rawLen > 32768;
    return new long[] {lblk, pblk, unwritten ? rawLen - 32768 : rawLen, unwritten ? 1 : 0};
  }

  /** DEL_RANGE: {lblk, len}. */
  public long[] range() {
    return new long[] {Integer.toUnsignedLong(LittleEndian.le32(value, 4)), Integer.toUnsignedLong(LittleEndian.le32(value, 8))};
  }

  /** INODE: the raw inode image (the first 128 + i_extra_isize bytes the kernel logged). */
  public byte[] rawInode() {
    return Arrays.copyOfRange(value, 4, value.length);
  }

  /** HEAD and TAIL: the tid. */
  public int tid() {
    return LittleEndian.le32(value, tag == HEAD ? 4 : 0);
  }

  @Override
  public String toString() {
    String what = switch (tag) {
      case ADD_RANGE -> {
        long[] e = extent();
        yield "inode " + inode() + ", lblk " + e[0] + ", pblk " + e[1] + ", len " + e[2] + (e[3] != 0 ? " (unwritten)" : "");
      }
      case DEL_RANGE -> "inode " + inode() + ", lblk " + range()[0] + ", len " + range()[1];
      case CREAT, LINK, UNLINK -> "parent " + parent() + ", ino " + inode() + ", name \"" + new String(name(), StandardCharsets.UTF_8) + "\"";
      case INODE -> "inode " + inode();
      case HEAD, TAIL -> "tid " + Integer.toUnsignedString(tid());
      default -> value.length + " bytes";
    };
    return name(tag) + " " + what + " (block " + block + ", offset " + offset + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FastCommitTag t && t.tag == tag && t.block == block && t.offset == offset && Arrays.equals(t.value, value);
  }

  @Override
  public int hashCode() {
    return (tag * 31 + block) * 31 + offset + Arrays.hashCode(value);
  }
}
