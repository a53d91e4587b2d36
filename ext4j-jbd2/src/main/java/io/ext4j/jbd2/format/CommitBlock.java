package io.ext4j.jbd2.format;

import io.ext4j.block.Crc32c;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Codec for commit blocks, whose arrival makes a transaction part of the log.
 *
 * <h2>Grammar (big-endian; 60 meaningful bytes, the rest zero)</h2>
 * <pre>
 * 0x00 header(magic, type 2, tid)
 * 0x0C chksum_type(1) chksum_size(1) pad(2)     v1 checksums: 1 and 4; v2/v3: 0 and 0
 * 0x10 chksum[8] (4 bytes each)                 v2/v3: [0] = crc32c(seed, whole block with [0]=0)
 * 0x30 commit_sec(8)  0x38 commit_nsec(4)
 * </pre>
 * Recovery also accepts a torn commit block whose first sector landed: the checksum over the 60-byte
 * header followed by zeros ({@link Check#TORN_OK}).
 */
public final class CommitBlock {
  /** Bytes of {@code struct commit_header}. */
  public static final int HEADER_BYTES = 60;

  private CommitBlock() {}

  /** The outcome of checking a commit block's checksum. */
  public enum Check {
    /** No v2/v3 checksum to check. */
    UNCHECKED,
    /** The whole block matches. */
    OK,
    /** Only the header sector matches: a torn write of a commit block whose tail sectors did not land. */
    TORN_OK,
    /** Neither matches. */
    BAD
  }

  /** A decoded commit block. */
  public record Commit(int tid, long commitSeconds, int commitNanos, Check check) {}

  public static ByteBuffer encode(LogFormat f, int tid, long seconds, int nanos) {
    return encode(f, tid, seconds, nanos, new byte[f.blockSize()]);
  }

  /** {@link #encode(LogFormat, int, long, int)} into {@code block} (one block long; overwritten whole). */
  public static ByteBuffer encode(LogFormat f, int tid, long seconds, int nanos, byte[] block) {
    java.util.Arrays.fill(block, (byte) 0);
    ByteBuffer b = ByteBuffer.wrap(block, 0, f.blockSize()).order(ByteOrder.BIG_ENDIAN);
    JournalHeader.put(b, JournalHeader.TYPE_COMMIT, tid);
    b.putLong(0x30, seconds).putInt(0x38, nanos);
    if (f.checksummed()) {
      b.putInt(0x10, Crc32c.update(f.checksumSeed(), b.duplicate().clear()));
    }
    return b;
  }

  /**
   * Whether a commit block satisfies jbd2's v1 ({@code COMPAT_CHECKSUM}) rule for a transaction whose
   * blocks chain to {@code crc} ({@link Crc32Be} from {@code ~0} over every descriptor and logged data
   * block): {@code chksum_type} 1, {@code chksum_size} 4 and {@code chksum[0] == crc}; or no v1
   * checksum at all (type, size and {@code chksum[0]} all 0), which jbd2 also accepts.
   */
  public static boolean v1Matches(ByteBuffer block, int crc) {
    ByteBuffer b = block.duplicate().order(ByteOrder.BIG_ENDIAN);
    int base = b.position();
    int type = Byte.toUnsignedInt(b.get(base + 0x0C));
    int size = Byte.toUnsignedInt(b.get(base + 0x0D));
    int stored = b.getInt(base + 0x10);
    return (type == V1_CRC32_TYPE && size == V1_CRC32_SIZE && stored == crc) || (type == 0 && size == 0 && stored == 0);
  }

  /** {@code JBD2_CRC32_CHKSUM}: the v1 commit block's {@code chksum_type}. */
  public static final int V1_CRC32_TYPE = 1;
  /** {@code JBD2_CRC32_CHKSUM_SIZE}: the v1 commit block's {@code chksum_size}. */
  public static final int V1_CRC32_SIZE = 4;

  /** Decodes a commit block whose header was already recognised, checking its checksum. */
  public static Commit decode(LogFormat f, ByteBuffer block) {
    ByteBuffer b = block.duplicate().order(ByteOrder.BIG_ENDIAN);
    int base = b.position();
    int tid = b.getInt(base + 8);
    long sec = b.getLong(base + 0x30);
    int nsec = b.getInt(base + 0x38);
    if (!f.checksummed()) {
      return new Commit(tid, sec, nsec, Check.UNCHECKED);
    }
    byte[] copy = new byte[f.blockSize()];
    b.get(base, copy);
    int stored = ByteBuffer.wrap(copy).getInt(0x10);
    ByteBuffer c = ByteBuffer.wrap(copy).order(ByteOrder.BIG_ENDIAN);
    c.putInt(0x10, 0);
    if (Crc32c.update(f.checksumSeed(), copy) == stored) {
      return new Commit(tid, sec, nsec, Check.OK);
    }
    java.util.Arrays.fill(copy, HEADER_BYTES, copy.length, (byte) 0);
    if (Crc32c.update(f.checksumSeed(), copy) == stored) {
      return new Commit(tid, sec, nsec, Check.TORN_OK);
    }
    return new Commit(tid, sec, nsec, Check.BAD);
  }
}
