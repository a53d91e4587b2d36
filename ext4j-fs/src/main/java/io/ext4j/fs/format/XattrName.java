package io.ext4j.fs.format;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Optional;

/**
 * An extended attribute's name as ext4 stores it: a one-byte namespace index ({@code e_name_index})
 * and the rest of the name ({@code e_name}, at most 255 bytes, no NUL).
 *
 * <h2>Namespaces (the longest matching prefix wins)</h2>
 * <pre>
 * 1 "user."                      4 "trusted."      6 "security."     7 "system."
 * 2 "system.posix_acl_access"    3 "system.posix_acl_default"        8 "system.richacl"
 * 10 "gnu." (the kernel's Hurd namespace)
 * 5 (Lustre) and 9 (encryption context) have no user-visible prefix: such names decode, but have
 * no {@link #fullName()}.
 * </pre>
 * So {@code "system.posix_acl_access"} is index 2 with an empty suffix, {@code "system.data"} (inline
 * data) is index 7 with suffix {@code "data"}. Equality is by index and suffix bytes.
 */
public record XattrName(int index, byte[] suffix) {
  public static final int USER = 1;
  public static final int POSIX_ACL_ACCESS = 2;
  public static final int POSIX_ACL_DEFAULT = 3;
  public static final int TRUSTED = 4;
  public static final int LUSTRE = 5;
  public static final int SECURITY = 6;
  public static final int SYSTEM = 7;
  public static final int RICHACL = 8;
  public static final int ENCRYPTION = 9;
  public static final int HURD = 10;

  /** The maximum length of {@link #suffix()} (e_name_len is one byte). */
  public static final int MAX_SUFFIX = 255;

  private static final String[] PREFIX = new String[11];

  static {
    PREFIX[USER] = "user.";
    PREFIX[POSIX_ACL_ACCESS] = "system.posix_acl_access";
    PREFIX[POSIX_ACL_DEFAULT] = "system.posix_acl_default";
    PREFIX[TRUSTED] = "trusted.";
    PREFIX[SECURITY] = "security.";
    PREFIX[SYSTEM] = "system.";
    PREFIX[RICHACL] = "system.richacl";
    PREFIX[HURD] = "gnu.";
  }

  /** The access ACL, {@code "system.posix_acl_access"}. */
  public static final XattrName ACCESS_ACL = new XattrName(POSIX_ACL_ACCESS, new byte[0]);
  /** The default ACL of a directory, {@code "system.posix_acl_default"}. */
  public static final XattrName DEFAULT_ACL = new XattrName(POSIX_ACL_DEFAULT, new byte[0]);

  /**
   * The order of entries in an xattr block, which the kernel's lookup relies on: by index, then
   * suffix length, then suffix bytes compared unsigned.
   */
  public static final Comparator<XattrName> BLOCK_ORDER = Comparator.comparingInt(XattrName::index)
      .thenComparingInt(n -> n.suffix.length)
      .thenComparing((a, b) -> Arrays.compareUnsigned(a.suffix, b.suffix));

  /**
   * @throws IllegalArgumentException if the index is not in [1, 255] or the suffix is longer than
   *     255 bytes
   */
  public XattrName {
    if (index < 1 || index > 255) {
      throw new IllegalArgumentException("xattr name index " + index + " is not in [1, 255]");
    }
    if (suffix.length > MAX_SUFFIX) {
      throw new IllegalArgumentException("xattr name suffix of " + suffix.length + " bytes exceeds " + MAX_SUFFIX);
    }
    suffix = suffix.clone();
  }

  /** The name with the given index and UTF-8 suffix. */
  public static XattrName of(int index, String suffix) {
    return new XattrName(index, suffix.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The stored form of a full attribute name ({@code "user.mime_type"}), its UTF-8 bytes split at the
   * longest known prefix.
   *
   * @throws IllegalArgumentException if no known namespace prefixes the name, or the suffix is too long
   */
  public static XattrName parse(String fullName) {
    return parse(fullName.getBytes(StandardCharsets.UTF_8));
  }

  /** {@link #parse(String)} of a name given as raw bytes (names need not be UTF-8). */
  public static XattrName parse(byte[] fullName) {
    int best = 0;
    int bestLength = -1;
    for (int i = 1; i < PREFIX.length; i++) {
      if (PREFIX[i] != null) {
        byte[] p = PREFIX[i].getBytes(StandardCharsets.US_ASCII);
        if (p.length > bestLength && fullName.length >= p.length
            && Arrays.equals(fullName, 0, p.length, p, 0, p.length)) {
          best = i;
          bestLength = p.length;
        }
      }
    }
    if (best == 0) {
      String shown = new String(fullName, StandardCharsets.UTF_8);
      int dot = shown.indexOf('.');
      throw new IllegalArgumentException("unknown xattr namespace \"" + (dot < 0 ? shown : shown.substring(0, dot + 1))
          + "\" in \"" + shown + "\" (known: user., trusted., security., system., gnu.)");
    }
    return new XattrName(best, Arrays.copyOfRange(fullName, bestLength, fullName.length));
  }

  /** The prefix of namespace {@code index}, if it has a user-visible one. */
  public static Optional<String> prefix(int index) {
    return index > 0 && index < PREFIX.length ? Optional.ofNullable(PREFIX[index]) : Optional.empty();
  }

  /** Whether this name has a {@link #fullName()} (its index has a known prefix). */
  public boolean hasFullName() {
    return prefix(index).isPresent();
  }

  /**
   * The full name as getxattr/listxattr show it, the suffix decoded as UTF-8.
   *
   * @throws IllegalStateException if the index has no user-visible prefix (5, 9, unknown)
   */
  public String fullName() {
    return new String(fullNameBytes(), StandardCharsets.UTF_8);
  }

  /** {@link #fullName()} as raw bytes: prefix then suffix. */
  public byte[] fullNameBytes() {
    String p = prefix(index).orElseThrow(
        () -> new IllegalStateException("xattr name index " + index + " has no namespace prefix"));
    byte[] pb = p.getBytes(StandardCharsets.US_ASCII);
    byte[] out = Arrays.copyOf(pb, pb.length + suffix.length);
    System.arraycopy(suffix, 0, out, pb.length, suffix.length);
    return out;
  }

  /** The suffix bytes (a copy). */
  @Override
  public byte[] suffix() {
    return suffix.clone();
  }

  /** e_name_len. */
  public int suffixLength() {
    return suffix.length;
  }

  /** The suffix byte at {@code i}, without copying. */
  int suffixByte(int i) {
    return suffix[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof XattrName n && n.index == index && Arrays.equals(n.suffix, suffix);
  }

  @Override
  public int hashCode() {
    return 31 * index + Arrays.hashCode(suffix);
  }

  @Override
  public String toString() {
    return hasFullName() ? fullName() : "index" + index + ":" + HexFormat.of().formatHex(suffix);
  }
}
