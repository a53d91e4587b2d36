package io.ext4j.fs.format;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One extended attribute: its name, its value and, for an ea_inode attribute, the inode holding the
 * value. Equality is by content.
 *
 * @param name the stored name
 * @param value the value bytes; empty for an ea_inode attribute, whose value lives in inode
 *     {@code valueInum}
 * @param valueInum e_value_inum: 0 unless the value is in an EA inode (ea_inode feature, read only)
 * @param hash e_hash as stored (decode) — 0 or the {@link XattrCodec#entryHash} of name and value;
 *     the encoders compute it themselves except for ea_inode attributes, where it is written as given
 * @param valueSize e_value_size: {@code value.length}, or the EA inode's value size when
 *     {@code valueInum != 0}
 */
public record XattrEntry(XattrName name, byte[] value, int valueInum, int hash, int valueSize) {

  /**
   * @throws IllegalArgumentException if an ea_inode attribute carries value bytes, or another's
   *     valueSize is not value.length
   */
  public XattrEntry {
    Objects.requireNonNull(name, "name");
    value = value.clone();
    if (valueInum != 0 && value.length != 0) {
      throw new IllegalArgumentException("xattr " + name + " lives in EA inode " + Integer.toUnsignedString(valueInum)
          + " and cannot also carry " + value.length + " value bytes");
    }
    if (valueInum == 0 && valueSize != value.length) {
      throw new IllegalArgumentException("xattr " + name + " valueSize " + valueSize + " is not its value length " + value.length);
    }
    if (valueSize < 0) {
      throw new IllegalArgumentException("xattr " + name + " valueSize " + Integer.toUnsignedString(valueSize) + " is too large");
    }
  }

  /** An entry whose valueSize is {@code value.length}. */
  public XattrEntry(XattrName name, byte[] value, int valueInum, int hash) {
    this(name, value, valueInum, hash, valueInum == 0 ? value.length : 0);
  }

  /** An attribute with its value in place (hash 0 until encoded). */
  public static XattrEntry of(XattrName name, byte[] value) {
    return new XattrEntry(name, value, 0, 0);
  }

  /** {@link #of(XattrName, byte[])} with a full name such as {@code "user.comment"}. */
  public static XattrEntry of(String fullName, byte[] value) {
    return of(XattrName.parse(fullName), value);
  }

  /** An attribute whose value of {@code valueSize} bytes is the data of EA inode {@code valueInum}. */
  public static XattrEntry inEaInode(XattrName name, int valueInum, int valueSize, int hash) {
    if (valueInum == 0) {
      throw new IllegalArgumentException("an ea_inode xattr needs a nonzero inode number");
    }
    return new XattrEntry(name, new byte[0], valueInum, hash, valueSize);
  }

  /** The value bytes (a copy). */
  @Override
  public byte[] value() {
    return value.clone();
  }

  /** Whether the value lives in an EA inode. */
  public boolean inEaInode() {
    return valueInum != 0;
  }

  /** This entry with e_hash {@code h}. */
  public XattrEntry withHash(int h) {
    return new XattrEntry(name, value, valueInum, h, valueSize);
  }

  /** The value bytes, uncopied, for the codec. */
  byte[] valueRef() {
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof XattrEntry e && e.name.equals(name) && Arrays.equals(e.value, value)
        && e.valueInum == valueInum && e.hash == hash && e.valueSize == valueSize;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, Arrays.hashCode(value), valueInum, hash, valueSize);
  }

  @Override
  public String toString() {
    String v = value.length <= 32 ? HexFormat.of().formatHex(value)
        : HexFormat.of().formatHex(value, 0, 32) + "…";
    return "XattrEntry[" + name + (valueInum != 0 ? ", ea_inode " + Integer.toUnsignedString(valueInum) : "")
        + ", " + valueSize + " bytes " + v + ", hash " + String.format("0x%08x", hash) + "]";
  }
}
