package io.ext4j.jbd2.format;

/**
 * One descriptor tag: the home (filesystem) block of the log block that follows, its flags, and the
 * checksum of the logged bytes (v2 keeps the low 16 bits, v3 all 32; 0 without checksums).
 */
public record BlockTag(long fsBlock, int flags, int checksum) {
  /** The logged block's first word was the journal magic and was zeroed; restore it on replay. */
  public static final int FLAG_ESCAPE = 1;
  /** No uuid follows this tag. */
  public static final int FLAG_SAME_UUID = 2;
  /** Defined by jbd2, never set by current writers. */
  public static final int FLAG_DELETED = 4;
  /** The last tag of its descriptor. */
  public static final int FLAG_LAST_TAG = 8;

  public boolean escaped() {
    return (flags & FLAG_ESCAPE) != 0;
  }

  public boolean last() {
    return (flags & FLAG_LAST_TAG) != 0;
  }
}
