package io.ext4j.fs.fastcommit;

import io.ext4j.block.Crc32c;
import io.ext4j.fs.format.LittleEndian;
import io.ext4j.jbd2.JournalCorruptException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The fast-commit area of a jbd2 journal (the blocks {@code [fastCommitFirst, s_maxlen)} after the
 * circular log, with {@code journal_fast_commit}): decodes it and finds the fast commits recovery
 * must replay, as the kernel's scan pass does. Pure: blocks come from a function, nothing is written.
 *
 * <h2>On-disk grammar (little-endian)</h2>
 * <pre>
 * area    := block+                    read in order from area block 0; records may not span blocks
 * block   := record* (the rest of the block is never a record header: fewer than 4 bytes remain)
 * record  := u16 tag, u16 len, u8 value[len]
 * HEAD    (9) := u32 features (0), u32 tid           len 8; the first record of block 0
 * ADD_RANGE (1) := u32 ino, struct ext4_extent (12)   len 16
 * DEL_RANGE (2) := u32 ino, u32 lblk, u32 len         len 12
 * CREAT (3) | LINK (4) | UNLINK (5) := u32 parent, u32 ino, u8 name[len − 8]    1 ≤ name ≤ 255
 * INODE (6) := u32 ino, u8 raw_inode[len − 4]         the inode's first 128 + i_extra_isize bytes
 * PAD   (7) := u8 zero[len]                            fills a block's end
 * TAIL  (8) := u32 tid, u32 crc, u8 pad[len − 8]      closes one fast commit; pads to the block end
 * </pre>
 * The crc of a TAIL is crc32c, seeded with 0 and without inversion, over every record byte since
 * the previous TAIL (or the area's start) up to and including the TAIL's tid.
 *
 * <h2>Which fast commits count</h2>
 * Fast commits apply on top of the last full commit the log replays: {@code expectedTid} is the
 * first tid that is not in the log (jbd2's {@code end_transaction}), and the kernel writes fast
 * commits with the running transaction's tid. So:
 * <ul>
 *   <li>Block 0 not starting with HEAD: no fast commits.
 *   <li>HEAD with unknown features: unsupported, an error. HEAD of another tid: the area is left
 *       over from an earlier transaction; no fast commits (the kernel's rule; e2fsck 1.47 fails the
 *       recovery with EINVAL instead, which ext4j does not copy).
 *   <li>A TAIL with {@code expectedTid} and a matching crc ends a valid fast commit. Every record up
 *       to the last valid TAIL is replayed.
 *   <li>After at least one valid fast commit, anything that does not fit (a bad TAIL, an unknown tag,
 *       a length out of range) ends the area. Before the first one it is corruption and recovery
 *       fails, as in the kernel and e2fsck: a fast commit was started for this transaction and none
 *       can be trusted.
 * </ul>
 */
public final class FastCommitArea {
  private FastCommitArea() {}

  /** The size of a record header (u16 tag, u16 len). */
  public static final int HEADER = 4;

  /**
   * What {@link #scan} found.
   *
   * @param tags the records to replay, in order, up to and including the last valid TAIL (empty
   *     when there are no fast commits)
   * @param commits how many fast commits (valid TAILs) they hold
   * @param blocksUsed area blocks holding them
   * @param why when {@code commits == 0}, why there are none; otherwise what ended the area
   */
  public record Scan(List<FastCommitTag> tags, int commits, int blocksUsed, String why) {
    public Scan {
      tags = List.copyOf(tags);
    }
  }

  /**
   * Scans the area.
   *
   * @param device for messages
   * @param firstJournalBlock the journal block of area block 0, for messages
   * @param blocks area block i, {@code 0 <= i < count}, each {@code blockSize} bytes (may be read
   *     lazily; the scan stops reading once the area ends)
   * @param inodeSize the filesystem's inode size (bounds INODE records)
   * @throws JournalCorruptException when the area holds a fast commit of {@code expectedTid} that is
   *     not valid and none before it is, or a HEAD with features ext4j does not know
   */
  public static Scan scan(String device, long firstJournalBlock, IntFunction<byte[]> blocks, int count, int blockSize,
      int expectedTid, int inodeSize) throws JournalCorruptException {
    if (count == 0) {
      return new Scan(List.of(), 0, 0, "the fast-commit area is empty");
    }
    List<FastCommitTag> pending = new ArrayList<>();
    List<FastCommitTag> valid = new ArrayList<>();
    int commits = 0;
    int usedBlocks = 0;
    int crc = 0;
    for (int bi = 0; bi < count; bi++) {
      byte[] b = blocks.apply(bi);
      if (bi == 0 && LittleEndian.le16(b, 0) != FastCommitTag.HEAD) {
        return new Scan(List.of(), 0, 0, "the fast-commit area does not start with a HEAD record");
      }
      int off = 0;
      while (off + HEADER <= blockSize) {
        int tag = LittleEndian.le16(b, off);
        int len = LittleEndian.le16(b, off + 2);
        long journalBlock = firstJournalBlock + bi;
        String bad = lengthProblem(tag, len, inodeSize);
        if (bad == null && off + HEADER + len > blockSize) {
          bad = "its " + len + "-byte value runs past the block's end";
        }
        if (bad == null && tag == FastCommitTag.ADD_RANGE && (LittleEndian.le16(b, off + HEADER + 8) & 0x7FFF) == 0) {
          bad = "its extent maps no blocks";
        }
        if (bad != null) {
          String what = FastCommitTag.name(tag) + " record at offset " + off + ": " + bad;
          if (commits > 0) {
            return new Scan(valid, commits, usedBlocks, "the area ends at journal block " + journalBlock + ", " + what);
          }
          throw new JournalCorruptException(device, journalBlock, "fast-commit record", what + " before any valid fast commit");
        }
        byte[] value = java.util.Arrays.copyOfRange(b, off + HEADER, off + HEADER + len);
        FastCommitTag t = new FastCommitTag(tag, bi, off, value);
        if (tag == FastCommitTag.HEAD) {
          int features = LittleEndian.le32(value, 0);
          if (features != 0) {
            throw new JournalCorruptException(device, journalBlock, "fast-commit HEAD features",
                String.format("0x%x is not a feature ext4j knows", features));
          }
          if (t.tid() != expectedTid) {
            String why = "the fast-commit area is of tid " + Integer.toUnsignedString(t.tid()) + ", not of "
                + Integer.toUnsignedString(expectedTid) + " (left over from an earlier transaction)";
            if (commits > 0) {
              return new Scan(valid, commits, usedBlocks, why);
            }
            return new Scan(List.of(), 0, 0, why);
          }
        }
        if (tag == FastCommitTag.TAIL) {
          crc = Crc32c.update(crc, b, off, HEADER + 4);
          int stored = LittleEndian.le32(value, 4);
          if (t.tid() == expectedTid && stored == crc) {
            pending.add(t);
            valid.addAll(pending);
            pending.clear();
            commits++;
            usedBlocks = bi + 1;
          } else {
            String what = "TAIL at offset " + off + " (tid " + Integer.toUnsignedString(t.tid()) + String.format(", crc 0x%08x", stored)
                + ") does not close a fast commit of tid " + Integer.toUnsignedString(expectedTid) + String.format(" (crc 0x%08x)", crc);
            if (commits > 0) {
              return new Scan(valid, commits, usedBlocks, "the area ends at journal block " + journalBlock + ", " + what);
            }
            throw new JournalCorruptException(device, journalBlock, "fast-commit tail", what);
          }
          crc = 0;
        } else {
          crc = Crc32c.update(crc, b, off, HEADER + len);
          pending.add(t);
        }
        off += HEADER + len;
      }
    }
    if (commits == 0) {
      throw new JournalCorruptException(device, firstJournalBlock, "fast-commit area",
          "a fast commit of tid " + Integer.toUnsignedString(expectedTid) + " starts here but no valid TAIL closes it");
    }
    return new Scan(valid, commits, usedBlocks, "the area ends at its last block");
  }

  /** Why a record of {@code tag} cannot have a {@code len}-byte value, or null if it can. */
  static String lengthProblem(int tag, int len, int inodeSize) {
    return switch (tag) {
      case FastCommitTag.ADD_RANGE -> len == 16 ? null : "length " + len + ", expected 16";
      case FastCommitTag.DEL_RANGE -> len == 12 ? null : "length " + len + ", expected 12";
      case FastCommitTag.CREAT, FastCommitTag.LINK, FastCommitTag.UNLINK ->
          len > 8 && len <= 8 + 255 ? null : "length " + len + ", expected 9..263 (a name of 1..255 bytes)";
      case FastCommitTag.INODE -> len >= 4 + 128 && len <= 4 + inodeSize ? null
          : "length " + len + ", expected " + (4 + 128) + ".." + (4 + inodeSize);
      case FastCommitTag.PAD -> null;
      case FastCommitTag.TAIL -> len >= 8 ? null : "length " + len + ", expected at least 8";
      case FastCommitTag.HEAD -> len == 8 ? null : "length " + len + ", expected 8";
      default -> "unknown tag " + tag;
    };
  }
}
