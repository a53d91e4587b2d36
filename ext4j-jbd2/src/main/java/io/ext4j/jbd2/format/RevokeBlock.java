package io.ext4j.jbd2.format;

import io.ext4j.jbd2.JournalCorruptException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Codec for revoke blocks, which cancel replay of older log copies of the listed home blocks.
 *
 * <h2>Grammar (big-endian)</h2>
 * <pre>
 * header(magic, type 5, tid)  r_count(4)      r_count = bytes used, the 16 header bytes included
 * record...                                   home block numbers: 4 bytes each, 8 with 64bit
 * zeros
 * tail: crc32c(seed, block with tail = 0)     last 4 bytes, checksum v2/v3 only
 * </pre>
 */
public final class RevokeBlock {
  public static final int HEADER_BYTES = 16;

  private RevokeBlock() {}

  /** Encodes {@code blocks[from, to)}, at most {@link LogFormat#revokeRecordsPerBlock()} of them. */
  public static ByteBuffer encode(LogFormat f, int tid, long[] blocks, int from, int to) {
    int n = to - from;
    if (n <= 0 || n > f.revokeRecordsPerBlock()) {
      throw new IllegalArgumentException(n + " records; a revoke block holds 1.." + f.revokeRecordsPerBlock());
    }
    ByteBuffer b = ByteBuffer.allocate(f.blockSize()).order(ByteOrder.BIG_ENDIAN);
    JournalHeader.put(b, JournalHeader.TYPE_REVOKE, tid);
    int pos = HEADER_BYTES;
    for (int i = from; i < to; i++) {
      if (f.bit64()) {
        b.putLong(pos, blocks[i]);
      } else {
        b.putInt(pos, (int) blocks[i]);
      }
      pos += f.revokeRecordBytes();
    }
    b.putInt(12, pos);
    if (f.checksummed()) {
      b.putInt(f.blockSize() - 4, f.tailChecksum(b));
    }
    return b;
  }

  /**
   * Decodes the records of a revoke block whose header was already recognised.
   *
   * @throws JournalCorruptException when {@code r_count} exceeds the block (less its tail)
   */
  public static long[] decode(LogFormat f, ByteBuffer block, String device, long journalBlock) throws JournalCorruptException {
    ByteBuffer b = block.duplicate().order(ByteOrder.BIG_ENDIAN);
    int base = b.position();
    int count = b.getInt(base + 12);
    int limit = f.blockSize() - f.tailBytes();
    if (count < 0 || count > limit) {
      throw new JournalCorruptException(device, journalBlock, "revoke block record count",
          "r_count " + Integer.toUnsignedString(count) + " exceeds " + limit);
    }
    // jbd2 reads records while offset + record size <= r_count: an r_count below 16 means no records.
    int n = Math.max(0, count - HEADER_BYTES) / f.revokeRecordBytes();
    long[] out = new long[n];
    int pos = base + HEADER_BYTES;
    for (int i = 0; i < n; i++) {
      out[i] = f.bit64() ? b.getLong(pos) : Integer.toUnsignedLong(b.getInt(pos));
      pos += f.revokeRecordBytes();
    }
    return out;
  }
}
