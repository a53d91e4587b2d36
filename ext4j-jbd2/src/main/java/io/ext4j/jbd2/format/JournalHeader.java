package io.ext4j.jbd2.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The 12-byte header of descriptor, commit, revoke and superblock blocks: big-endian magic
 * {@code 0xC03B3998}, block type, and the owning transaction's tid.
 *
 * @param type one of the {@code TYPE_} constants (or anything, for a block that is not a header)
 * @param sequence the tid
 */
public record JournalHeader(int magic, int type, int sequence) {
  public static final int MAGIC = 0xC03B3998;
  public static final int SIZE = 12;
  public static final int TYPE_DESCRIPTOR = 1;
  public static final int TYPE_COMMIT = 2;
  public static final int TYPE_SUPERBLOCK_V1 = 3;
  public static final int TYPE_SUPERBLOCK_V2 = 4;
  public static final int TYPE_REVOKE = 5;

  /** Reads the header at the start of {@code block} (absolute indexing; the position is not moved). */
  public static JournalHeader peek(ByteBuffer block) {
    ByteBuffer b = block.duplicate().order(ByteOrder.BIG_ENDIAN);
    int p = b.position();
    return new JournalHeader(b.getInt(p), b.getInt(p + 4), b.getInt(p + 8));
  }

  /** Whether the magic matches: blocks without it are data, or the end of the log. */
  public boolean hasMagic() {
    return magic == MAGIC;
  }

  static void put(ByteBuffer b, int type, int sequence) {
    b.putInt(0, MAGIC).putInt(4, type).putInt(8, sequence);
  }

  /** A printable name for a block type. */
  public static String typeName(int type) {
    return switch (type) {
      case TYPE_DESCRIPTOR -> "descriptor";
      case TYPE_COMMIT -> "commit";
      case TYPE_SUPERBLOCK_V1 -> "superblock v1";
      case TYPE_SUPERBLOCK_V2 -> "superblock v2";
      case TYPE_REVOKE -> "revoke";
      default -> "unknown type " + type;
    };
  }
}
