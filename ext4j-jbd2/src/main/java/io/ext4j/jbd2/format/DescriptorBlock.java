package io.ext4j.jbd2.format;

import io.ext4j.jbd2.JournalCorruptException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Codec for descriptor blocks, which list the home blocks of the log blocks that follow them.
 *
 * <h2>Grammar (big-endian)</h2>
 * <pre>
 * header(magic, type 1, tid)
 * tag [uuid(16)]  tag  tag ... tag(LAST_TAG)      a uuid follows every tag without SAME_UUID
 * zeros
 * tail: crc32c(seed, block with tail = 0)          last 4 bytes, checksum v2/v3 only
 *
 * v3 tag (16 bytes):       blocknr(4) flags(4) blocknr_high(4) checksum(4)
 * classic tag (8/10/12/14): blocknr(4) [checksum16(2), v2] flags16 at offset 6 ... blocknr_high(4) if 64bit
 * </pre>
 * In both tag forms the 16-bit flags sit at byte 6 of the tag. {@code blocknr_high} is interpreted only
 * with INCOMPAT_64BIT. Each tag consumes exactly one following log block, in order.
 */
public final class DescriptorBlock {
  private DescriptorBlock() {}

  /**
   * Encodes a descriptor for {@code tags} (at most {@link LogFormat#tagsPerDescriptor()}). The
   * SAME_UUID and LAST_TAG flags are set here; the tags' own flags contribute ESCAPE.
   */
  public static ByteBuffer encode(LogFormat f, int tid, List<BlockTag> tags) {
    return encode(f, tid, tags, new byte[f.blockSize()]);
  }

  /** {@link #encode(LogFormat, int, List)} into {@code block} (one block long; overwritten whole). */
  public static ByteBuffer encode(LogFormat f, int tid, List<BlockTag> tags, byte[] block) {
    if (tags.isEmpty() || tags.size() > f.tagsPerDescriptor()) {
      throw new IllegalArgumentException(tags.size() + " tags; a descriptor holds 1.." + f.tagsPerDescriptor());
    }
    java.util.Arrays.fill(block, (byte) 0);
    ByteBuffer b = ByteBuffer.wrap(block, 0, f.blockSize()).order(ByteOrder.BIG_ENDIAN);
    JournalHeader.put(b, JournalHeader.TYPE_DESCRIPTOR, tid);
    int pos = JournalHeader.SIZE;
    for (int i = 0; i < tags.size(); i++) {
      BlockTag t = tags.get(i);
      int flags = t.flags() & BlockTag.FLAG_ESCAPE;
      if (i > 0) {
        flags |= BlockTag.FLAG_SAME_UUID;
      }
      if (i == tags.size() - 1) {
        flags |= BlockTag.FLAG_LAST_TAG;
      }
      putTag(f, b, pos, t.fsBlock(), flags, t.checksum());
      pos += f.tagBytes();
      if (i == 0) {
        b.put(pos, f.uuid(), 0, 16);
        pos += 16;
      }
    }
    if (f.checksummed()) {
      b.putInt(f.blockSize() - 4, f.tailChecksum(b));
    }
    return b;
  }

  private static void putTag(LogFormat f, ByteBuffer b, int pos, long block, int flags, int checksum) {
    b.putInt(pos, (int) block);
    if (f.checksumVersion() == 3) {
      b.putInt(pos + 4, flags);
      b.putInt(pos + 8, f.bit64() ? (int) (block >>> 32) : 0);
      b.putInt(pos + 12, checksum);
    } else {
      if (f.checksumVersion() == 2) {
        b.putShort(pos + 4, (short) checksum);
      }
      b.putShort(pos + 6, (short) flags);
      if (f.bit64()) {
        b.putInt(pos + 8, (int) (block >>> 32));
      }
    }
  }

  /**
   * Decodes the tags of a descriptor block as jbd2's reader does: walk while a whole tag fits before
   * the tail, skip a uuid after every tag without SAME_UUID, stop after LAST_TAG. The header and
   * checksum are the caller's to check ({@link #verifyTail}).
   */
  public static List<BlockTag> decodeTags(LogFormat f, ByteBuffer block) {
    ByteBuffer b = block.duplicate().order(ByteOrder.BIG_ENDIAN);
    int base = b.position();
    List<BlockTag> tags = new ArrayList<>();
    int pos = JournalHeader.SIZE;
    int end = f.blockSize() - f.tailBytes();
    while (pos + f.tagBytes() <= end) {
      int at = base + pos;
      long lo = Integer.toUnsignedLong(b.getInt(at));
      int flags = Short.toUnsignedInt(b.getShort(at + 6));
      long hi = 0;
      int checksum = 0;
      if (f.checksumVersion() == 3) {
        hi = f.bit64() ? Integer.toUnsignedLong(b.getInt(at + 8)) : 0;
        checksum = b.getInt(at + 12);
      } else {
        if (f.checksumVersion() == 2) {
          checksum = Short.toUnsignedInt(b.getShort(at + 4));
        }
        if (f.bit64()) {
          hi = Integer.toUnsignedLong(b.getInt(at + 8));
        }
      }
      tags.add(new BlockTag(hi << 32 | lo, flags, checksum));
      pos += f.tagBytes();
      if ((flags & BlockTag.FLAG_SAME_UUID) == 0) {
        pos += 16;
      }
      if ((flags & BlockTag.FLAG_LAST_TAG) != 0) {
        break;
      }
    }
    return tags;
  }

  /** Whether a logged block's bytes match its tag's checksum (always true without checksums). */
  public static boolean tagChecksumMatches(LogFormat f, BlockTag tag, int tid, ByteBuffer logged) {
    return switch (f.checksumVersion()) {
      case 3 -> f.dataBlockChecksum(tid, logged) == tag.checksum();
      case 2 -> (f.dataBlockChecksum(tid, logged) & 0xFFFF) == tag.checksum();
      default -> true;
    };
  }

  /**
   * Checks the tail checksum of a descriptor or revoke block.
   *
   * @throws JournalCorruptException naming the block and both values when it does not match
   */
  public static void verifyTail(LogFormat f, ByteBuffer block, String device, long journalBlock, String kind)
      throws JournalCorruptException {
    if (!tailMatches(f, block)) {
      throw JournalCorruptException.mismatch(device, journalBlock, kind + " block checksum", f.tailChecksum(block),
          block.getInt(block.position() + f.blockSize() - 4));
    }
  }

  /** Whether a descriptor or revoke block's tail checksum matches (true without checksums). */
  public static boolean tailMatches(LogFormat f, ByteBuffer block) {
    if (!f.checksummed()) {
      return true;
    }
    ByteBuffer b = block.duplicate().order(ByteOrder.BIG_ENDIAN);
    return f.tailChecksum(b) == b.getInt(b.position() + f.blockSize() - 4);
  }
}
