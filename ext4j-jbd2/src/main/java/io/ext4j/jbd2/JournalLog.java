package io.ext4j.jbd2;

import io.ext4j.block.BlockDevice;
import io.ext4j.jbd2.format.BlockTag;
import io.ext4j.jbd2.format.DescriptorBlock;
import io.ext4j.jbd2.format.JournalHeader;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.jbd2.format.LogFormat;
import io.ext4j.jbd2.format.RevokeBlock;
import io.ext4j.jbd2.internal.LogBlocks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A read-only listing of the transactions in a journal's log, for {@code journal dump}. It lists
 * what {@code debugfs -R "logdump -a"} lists, by the same walk: nothing for a clean journal
 * ({@code s_start == 0}); otherwise from {@code s_start} expecting tid {@code s_sequence}, every
 * descriptor, revoke and commit block carrying the expected tid, until a block without the jbd2
 * magic, with another tid, or of an unknown type. Unlike recovery it checks no checksum, so the last
 * transaction listed may be one recovery would not replay (no commit block, or a bad one): see
 * {@link Transaction#committed()}. Fs block numbers are full 64-bit values (logdump prints only the
 * low 32 bits of a tag).
 *
 * @param superblock the journal superblock
 * @param transactions the transactions found, oldest first
 * @param endBlock the journal block where the walk stopped (0 for a clean journal)
 * @param endReason why it stopped, e.g. "no magic number at block 122"
 */
public record JournalLog(JournalSuperblock superblock, List<Transaction> transactions, long endBlock, String endReason) {

  public JournalLog {
    transactions = List.copyOf(transactions);
  }

  /** A logged block: its home (fs) block, the journal block holding its copy, and its tag flags. */
  public record TaggedBlock(long fsBlock, long journalBlock, int flags) {}

  /** A revoke record: the revoked fs block and the journal block of the revoke block listing it. */
  public record RevokedBlock(long fsBlock, long journalBlock) {}

  /**
   * One transaction as found in the log.
   *
   * @param commitBlock the journal block of its commit block, or -1 when the walk ended before one
   */
  public record Transaction(int tid, List<Long> descriptorBlocks, List<Long> revokeBlocks, long commitBlock,
      List<TaggedBlock> blocks, List<RevokedBlock> revoked) {
    public Transaction {
      descriptorBlocks = List.copyOf(descriptorBlocks);
      revokeBlocks = List.copyOf(revokeBlocks);
      blocks = List.copyOf(blocks);
      revoked = List.copyOf(revoked);
    }

    /** Whether a commit block with this tid was found (its checksum is not checked here). */
    public boolean committed() {
      return commitBlock >= 0;
    }
  }

  /** Reads and validates the superblock, then walks the log. */
  public static JournalLog read(BlockDevice device, JournalMap map) throws IOException {
    return read(device, map, JournalRecovery.readSuperblock(device, map));
  }

  /** Walks the log described by {@code sb}. Reads only. */
  public static JournalLog read(BlockDevice device, JournalMap map, JournalSuperblock sb) throws IOException {
    List<Transaction> out = new ArrayList<>();
    if (!sb.needsRecovery()) {
      return new JournalLog(sb, out, 0, "journal is clean (s_start = 0)");
    }
    LogBlocks log = new LogBlocks(device, map, sb);
    LogFormat format = sb.logFormat();
    int tid = sb.sequence();
    long block = sb.start();
    Builder tx = null;
    String reason;
    long walked = 0;
    while (true) {
      if (walked++ > log.logBlocks()) {
        reason = "walked the whole log at block " + block;
        break;
      }
      long at = block;
      ByteBuffer b = log.read(at);
      JournalHeader h = JournalHeader.peek(b);
      if (!h.hasMagic()) {
        reason = "no magic number at block " + at;
        break;
      }
      if (h.sequence() != tid) {
        reason = "found sequence " + Integer.toUnsignedString(h.sequence()) + " (not " + Integer.toUnsignedString(tid)
            + ") at block " + at;
        break;
      }
      if (h.type() != JournalHeader.TYPE_DESCRIPTOR && h.type() != JournalHeader.TYPE_COMMIT
          && h.type() != JournalHeader.TYPE_REVOKE) {
        reason = "unexpected block type " + h.type() + " at block " + at;
        break;
      }
      if (tx == null) {
        tx = new Builder(tid);
      }
      block = log.next(at);
      switch (h.type()) {
        case JournalHeader.TYPE_DESCRIPTOR -> {
          tx.descriptors.add(at);
          for (BlockTag tag : DescriptorBlock.decodeTags(format, b)) {
            tx.blocks.add(new TaggedBlock(tag.fsBlock(), block, tag.flags()));
            block = log.next(block);
          }
        }
        case JournalHeader.TYPE_REVOKE -> {
          tx.revokeBlocks.add(at);
          for (long fs : revokeRecords(format, b)) {
            tx.revoked.add(new RevokedBlock(fs, at));
          }
        }
        default -> { // commit
          out.add(tx.build(at));
          tx = null;
          tid++;
        }
      }
    }
    if (tx != null) {
      out.add(tx.build(-1));
    }
    return new JournalLog(sb, out, block, reason);
  }

  /** Revoke records as logdump reads them: while the offset is below {@code r_count} (capped at the block). */
  private static long[] revokeRecords(LogFormat f, ByteBuffer b) {
    long max = Math.min(Integer.toUnsignedLong(b.getInt(12)), f.blockSize());
    int size = f.revokeRecordBytes();
    List<Long> recs = new ArrayList<>();
    for (int off = RevokeBlock.HEADER_BYTES; off < max && off + size <= f.blockSize(); off += size) {
      recs.add(size == 8 ? b.getLong(off) : Integer.toUnsignedLong(b.getInt(off)));
    }
    return recs.stream().mapToLong(Long::longValue).toArray();
  }

  private static final class Builder {
    final int tid;
    final List<Long> descriptors = new ArrayList<>();
    final List<Long> revokeBlocks = new ArrayList<>();
    final List<TaggedBlock> blocks = new ArrayList<>();
    final List<RevokedBlock> revoked = new ArrayList<>();

    Builder(int tid) {
      this.tid = tid;
    }

    Transaction build(long commitBlock) {
      return new Transaction(tid, descriptors, revokeBlocks, commitBlock, blocks, revoked);
    }
  }
}
