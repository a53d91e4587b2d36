package io.ext4j.jbd2.format;

import java.util.ArrayList;
import java.util.List;

/** Journal superblock feature bits, with the names {@code dumpe2fs} prints for them. */
public enum JournalFeature {
  CHECKSUM(Kind.COMPAT, 0x1, "journal_checksum"),
  REVOKE(Kind.INCOMPAT, 0x1, "journal_incompat_revoke"),
  BIT64(Kind.INCOMPAT, 0x2, "journal_64bit"),
  ASYNC_COMMIT(Kind.INCOMPAT, 0x4, "journal_async_commit"),
  CSUM_V2(Kind.INCOMPAT, 0x8, "journal_checksum_v2"),
  CSUM_V3(Kind.INCOMPAT, 0x10, "journal_checksum_v3"),
  FAST_COMMIT(Kind.INCOMPAT, 0x20, "journal_fast_commit");

  /** Which superblock word a feature lives in. */
  public enum Kind { COMPAT, INCOMPAT, RO_COMPAT }

  /** Incompat bits this implementation can replay and write. */
  public static final int SUPPORTED_INCOMPAT = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20;

  private final Kind kind;
  private final int mask;
  private final String displayName;

  JournalFeature(Kind kind, int mask, String displayName) {
    this.kind = kind;
    this.mask = mask;
    this.displayName = displayName;
  }

  public Kind kind() {
    return kind;
  }

  public int mask() {
    return mask;
  }

  /** The name e2fsprogs uses. */
  public String displayName() {
    return displayName;
  }

  /** The set features, in dumpe2fs order (compat, incompat). */
  public static List<JournalFeature> decode(int compat, int incompat, int roCompat) {
    List<JournalFeature> out = new ArrayList<>();
    for (JournalFeature f : values()) {
      int word = switch (f.kind) {
        case COMPAT -> compat;
        case INCOMPAT -> incompat;
        case RO_COMPAT -> roCompat;
      };
      if ((word & f.mask) != 0) {
        out.add(f);
      }
    }
    return out;
  }

  /** A name for an unknown bit, e.g. {@code journal_incompat_0x40}. */
  public static String unknownName(Kind kind, int bit) {
    return "journal_" + kind.name().toLowerCase(java.util.Locale.ROOT) + "_0x" + Integer.toHexString(bit);
  }
}
