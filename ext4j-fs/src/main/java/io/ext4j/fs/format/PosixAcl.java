package io.ext4j.fs.format;

import static io.ext4j.fs.format.LittleEndian.le16;
import static io.ext4j.fs.format.LittleEndian.le32;
import static io.ext4j.fs.format.LittleEndian.putLe16;
import static io.ext4j.fs.format.LittleEndian.putLe32;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * POSIX ACLs between the two forms they take: the Linux VFS xattr value that getxattr/setxattr of
 * {@code system.posix_acl_access} / {@code system.posix_acl_default} carry, and ext4's on-disk
 * value (xattr index 2 / 3, empty suffix). Pure functions.
 *
 * <h2>Grammar (little-endian)</h2>
 * <pre>
 * VFS     := u32 version = 2, { u16 e_tag, u16 e_perm, u32 e_id }*
 *            e_id is 0xFFFFFFFF (ACL_UNDEFINED_ID) for the tags without a qualifier
 * on disk := u32 version = 1, entry*
 *   entry := u16 e_tag, u16 e_perm                 for USER_OBJ 0x01, GROUP_OBJ 0x04, MASK 0x10, OTHER 0x20
 *          | u16 e_tag, u16 e_perm, u32 e_id        for USER 0x02, GROUP 0x08 (uid / gid)
 * e_perm  := bits of 4 read, 2 write, 1 execute
 * </pre>
 * Both directions check the version, the size and every tag; {@link #toDisk} also rejects
 * permission bits beyond rwx (what the kernel's setxattr refuses). Neither checks the ACL's
 * structure (entry order, one USER_OBJ/GROUP_OBJ/OTHER, a MASK when named entries exist): that is
 * the engine's job when it accepts an ACL, as the VFS's is in the kernel. Entries keep their order.
 */
public final class PosixAcl {
  /** The full names of the two ACL attributes. */
  public static final String ACCESS_NAME = "system.posix_acl_access";
  public static final String DEFAULT_NAME = "system.posix_acl_default";

  public static final int VFS_VERSION = 2;
  public static final int DISK_VERSION = 1;
  public static final int USER_OBJ = 0x01;
  public static final int USER = 0x02;
  public static final int GROUP_OBJ = 0x04;
  public static final int GROUP = 0x08;
  public static final int MASK = 0x10;
  public static final int OTHER = 0x20;
  /** e_id of the entries without a qualifier, in the VFS form. */
  public static final int UNDEFINED_ID = -1;

  private PosixAcl() {}

  /** One ACL entry: a tag, rwx permission bits and (USER, GROUP) a uid or gid, else {@link #UNDEFINED_ID}. */
  public record Entry(int tag, int perm, int id) {}

  /**
   * The ext4 on-disk value of a VFS ACL value.
   *
   * @throws IllegalArgumentException if the version is not 2, the size is not a header plus whole
   *     8-byte entries, a tag is unknown, or a permission has bits beyond rwx; the message says which
   */
  public static byte[] toDisk(byte[] vfsValue) {
    List<Entry> entries = parseVfs(vfsValue);
    ByteArrayOutputStream out = new ByteArrayOutputStream(4 + 8 * entries.size());
    byte[] word = new byte[4];
    putLe32(word, 0, DISK_VERSION);
    out.writeBytes(word);
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      if ((e.perm() & ~7) != 0) {
        throw new IllegalArgumentException(String.format("POSIX ACL entry %d has permission bits 0x%X beyond rwx (7)", i, e.perm()));
      }
      putLe16(word, 0, e.tag());
      putLe16(word, 2, e.perm());
      out.write(word, 0, 4);
      if (hasId(e.tag())) {
        putLe32(word, 0, e.id());
        out.write(word, 0, 4);
      }
    }
    return out.toByteArray();
  }

  /**
   * The VFS value of an ext4 on-disk ACL value; qualifier-less entries get {@link #UNDEFINED_ID}.
   *
   * @throws IllegalArgumentException if the version is not 1, an entry is cut off, or a tag is unknown
   */
  public static byte[] fromDisk(byte[] diskValue) {
    checkHeader(diskValue, DISK_VERSION, "on-disk");
    List<Entry> entries = new ArrayList<>();
    int p = 4;
    while (p < diskValue.length) {
      int i = entries.size();
      if (p + 4 > diskValue.length) {
        throw new IllegalArgumentException("on-disk POSIX ACL entry " + i + " at byte " + p + " is cut off at byte " + diskValue.length);
      }
      int tag = le16(diskValue, p);
      int perm = le16(diskValue, p + 2);
      checkTag(tag, i, "on-disk");
      int id = UNDEFINED_ID;
      if (hasId(tag)) {
        if (p + 8 > diskValue.length) {
          throw new IllegalArgumentException("on-disk POSIX ACL entry " + i + " (tag 0x" + Integer.toHexString(tag) + ") at byte " + p
              + " needs 8 bytes but the value ends at byte " + diskValue.length);
        }
        id = le32(diskValue, p + 4);
        p += 8;
      } else {
        p += 4;
      }
      entries.add(new Entry(tag, perm, id));
    }
    return toVfs(entries);
  }

  /** The entries of a VFS value, validated as {@link #toDisk} does (but for the permission bits). */
  public static List<Entry> parseVfs(byte[] vfsValue) {
    checkHeader(vfsValue, VFS_VERSION, "VFS");
    if ((vfsValue.length - 4) % 8 != 0) {
      throw new IllegalArgumentException("VFS POSIX ACL value of " + vfsValue.length
          + " bytes is not a 4-byte header and whole 8-byte entries");
    }
    List<Entry> entries = new ArrayList<>();
    for (int p = 4; p < vfsValue.length; p += 8) {
      int tag = le16(vfsValue, p);
      checkTag(tag, entries.size(), "VFS");
      entries.add(new Entry(tag, le16(vfsValue, p + 2), le32(vfsValue, p + 4)));
    }
    return entries;
  }

  /** The VFS value of {@code entries}, ids as given. */
  public static byte[] toVfs(List<Entry> entries) {
    byte[] out = new byte[4 + 8 * entries.size()];
    putLe32(out, 0, VFS_VERSION);
    int p = 4;
    for (Entry e : entries) {
      putLe16(out, p, e.tag());
      putLe16(out, p + 2, e.perm());
      putLe32(out, p + 4, e.id());
      p += 8;
    }
    return out;
  }

  /** The minimal ACL (USER_OBJ, GROUP_OBJ, OTHER) equivalent to the permission bits of {@code mode}, VFS form. */
  public static byte[] fromMode(int mode) {
    return toVfs(List.of(new Entry(USER_OBJ, (mode >>> 6) & 7, UNDEFINED_ID),
        new Entry(GROUP_OBJ, (mode >>> 3) & 7, UNDEFINED_ID), new Entry(OTHER, mode & 7, UNDEFINED_ID)));
  }

  private static boolean hasId(int tag) {
    return tag == USER || tag == GROUP;
  }

  private static void checkHeader(byte[] value, int version, String form) {
    if (value.length < 4) {
      throw new IllegalArgumentException(form + " POSIX ACL value of " + value.length + " bytes is shorter than its 4-byte header");
    }
    int v = le32(value, 0);
    if (v != version) {
      throw new IllegalArgumentException(form + " POSIX ACL version " + Integer.toUnsignedString(v) + ", expected " + version);
    }
  }

  private static void checkTag(int tag, int i, String form) {
    switch (tag) {
      case USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER -> { }
      default -> throw new IllegalArgumentException(String.format("%s POSIX ACL entry %d has unknown tag 0x%X", form, i, tag));
    }
  }
}
