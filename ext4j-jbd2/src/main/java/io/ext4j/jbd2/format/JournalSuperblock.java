package io.ext4j.jbd2.format;

import io.ext4j.block.Crc32c;
import io.ext4j.jbd2.JournalCorruptException;
import io.ext4j.jbd2.UnsupportedJournalFeatureException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;

/**
 * The jbd2 journal superblock: the first 1024 bytes of journal block 0. Immutable; the {@code with…}
 * methods return changed copies, keeping every byte this class does not interpret (user list,
 * padding) as it was.
 *
 * <h2>Grammar (big-endian)</h2>
 * <pre>
 * 0x000 header: magic 0xC03B3998, blocktype 3 (v1) or 4 (v2), sequence (unused)
 * 0x00C blocksize   0x010 maxlen   0x014 first   0x018 sequence   0x01C start (0 = clean)
 * 0x020 errno   0x024 feature_compat   0x028 feature_incompat   0x02C feature_ro_compat
 * 0x030 uuid[16]   0x040 nr_users   0x044 dynsuper   0x048 max_transaction   0x04C max_trans_data
 * 0x050 checksum_type (u8; 4 = crc32c)   0x054 num_fc_blks   0x058 head
 * 0x0FC checksum: crc32c(~0, the 1024 bytes with this field zeroed), v2/v3 only
 * 0x100 users[16 * 48]
 * </pre>
 * A v1 superblock has no feature words; they read as zero.
 */
public final class JournalSuperblock {
  /** Bytes of the superblock that carry meaning. */
  public static final int SIZE = 1024;
  public static final int CRC32C_CHECKSUM_TYPE = 4;
  /** The smallest journal jbd2 accepts, in blocks. */
  public static final int MIN_JOURNAL_BLOCKS = 1024;

  private final byte[] raw; // never mutated after construction

  private JournalSuperblock(byte[] raw) {
    this.raw = raw;
  }

  /**
   * Decodes and validates a superblock as jbd2 does on load.
   *
   * @param device for messages
   * @param bytes at least 1024 bytes; the first 1024 are used
   * @param blockSize the device (and filesystem) block size the journal must match
   * @param regionBlocks how many blocks the journal region really has (the inode's size, or the
   *     standalone region's length)
   * @throws JournalCorruptException on bad magic, block type, geometry or checksum, each with its own message
   * @throws UnsupportedJournalFeatureException on an unknown incompat or ro-compat bit
   */
  public static JournalSuperblock decode(String device, byte[] bytes, int blockSize, long regionBlocks)
      throws JournalCorruptException, UnsupportedJournalFeatureException {
    JournalSuperblock sb = new JournalSuperblock(Arrays.copyOf(bytes, SIZE));
    int magic = sb.i32(0x0);
    if (magic != JournalHeader.MAGIC) {
      throw JournalCorruptException.mismatch(device, 0, "superblock magic", JournalHeader.MAGIC, magic);
    }
    int type = sb.i32(0x4);
    if (type != JournalHeader.TYPE_SUPERBLOCK_V1 && type != JournalHeader.TYPE_SUPERBLOCK_V2) {
      throw new JournalCorruptException(device, 0, "superblock block type", "expected 3 or 4, found " + type);
    }
    if (sb.blockSize() != blockSize) {
      throw new JournalCorruptException(device, 0, "superblock block size",
          "expected " + blockSize + " (the device's), found " + sb.blockSize());
    }
    long maxLen = sb.maxLen();
    if (maxLen > regionBlocks) {
      throw new JournalCorruptException(device, 0, "superblock length",
          "s_maxlen " + maxLen + " exceeds the journal's " + regionBlocks + " blocks");
    }
    if (maxLen < MIN_JOURNAL_BLOCKS) {
      throw new JournalCorruptException(device, 0, "superblock length",
          "s_maxlen " + maxLen + " is below the minimum of " + MIN_JOURNAL_BLOCKS + " blocks");
    }
    long first = sb.first();
    if (first == 0 || first >= maxLen) {
      throw new JournalCorruptException(device, 0, "superblock first log block", "s_first " + first + " not in [1, " + maxLen + ")");
    }
    long start = sb.start();
    if (start != 0 && (start < first || start >= maxLen)) {
      throw new JournalCorruptException(device, 0, "superblock log start", "s_start " + start + " not in [" + first + ", " + maxLen + ")");
    }
    if (sb.isV2()) {
      // Checksum before features (as jbd2: journal_check_superblock, then the feature test at
      // load): a flipped bit in a feature word is corruption, not an unknown feature.
      boolean v2 = sb.has(JournalFeature.CSUM_V2);
      boolean v3 = sb.has(JournalFeature.CSUM_V3);
      if (v2 && v3) {
        throw new JournalCorruptException(device, 0, "superblock features", "both journal_checksum_v2 and journal_checksum_v3 are set");
      }
      if ((v2 || v3) && sb.has(JournalFeature.CHECKSUM)) {
        throw new JournalCorruptException(device, 0, "superblock features", "journal_checksum together with v2/v3 checksums");
      }
      if (v2 || v3) {
        if (sb.checksumType() != CRC32C_CHECKSUM_TYPE) {
          throw new JournalCorruptException(device, 0, "superblock checksum type", "expected 4 (crc32c), found " + sb.checksumType());
        }
        int expected = sb.computeChecksum();
        if (expected != sb.storedChecksum()) {
          throw JournalCorruptException.mismatch(device, 0, "superblock checksum", expected, sb.storedChecksum());
        }
      }
      int unknownIncompat = sb.featureIncompat() & ~JournalFeature.SUPPORTED_INCOMPAT;
      if (unknownIncompat != 0) {
        throw new UnsupportedJournalFeatureException(device, featureName(JournalFeature.Kind.INCOMPAT, unknownIncompat));
      }
      if (sb.featureRoCompat() != 0) {
        throw new UnsupportedJournalFeatureException(device, featureName(JournalFeature.Kind.RO_COMPAT, sb.featureRoCompat()));
      }
      if (sb.has(JournalFeature.FAST_COMMIT)) {
        long logEnd = maxLen - sb.fastCommitAreaBlocks();
        if (sb.numFastCommitBlocks() < 0 || logEnd < MIN_JOURNAL_BLOCKS) {
          throw new JournalCorruptException(device, 0, "superblock fast-commit length", "s_num_fc_blks "
              + Integer.toUnsignedString(sb.numFastCommitBlocks()) + " leaves fewer than " + MIN_JOURNAL_BLOCKS
              + " of the " + maxLen + " blocks for the log");
        }
        if (first >= logEnd || (start != 0 && start >= logEnd)) {
          throw new JournalCorruptException(device, 0, "superblock log start", "s_first " + first + " / s_start " + start
              + " not below the fast-commit area at block " + logEnd);
        }
      }
    }
    return sb;
  }

  /**
   * A fresh v2 superblock for a new journal of {@code maxLen} blocks starting its log at block 1,
   * clean, with sequence {@code sequence} and the given incompat features (checksum type set when
   * v3 is requested).
   */
  public static JournalSuperblock create(int blockSize, long maxLen, byte[] uuid, int sequence, int incompat) {
    byte[] raw = new byte[SIZE];
    JournalSuperblock sb = new JournalSuperblock(raw);
    ByteBuffer b = sb.buf();
    b.putInt(0x0, JournalHeader.MAGIC).putInt(0x4, JournalHeader.TYPE_SUPERBLOCK_V2);
    b.putInt(0xC, blockSize).putInt(0x10, (int) maxLen).putInt(0x14, 1).putInt(0x18, sequence);
    b.putInt(0x28, incompat);
    b.put(0x30, uuid, 0, 16);
    b.putInt(0x40, 1);
    if ((incompat & (JournalFeature.CSUM_V2.mask() | JournalFeature.CSUM_V3.mask())) != 0) {
      raw[0x50] = CRC32C_CHECKSUM_TYPE;
    }
    return sb.sealed();
  }

  /** The 1024 bytes as they should be written, checksum included. */
  public byte[] encode() {
    return raw.clone();
  }

  public boolean isV2() {
    return i32(0x4) == JournalHeader.TYPE_SUPERBLOCK_V2;
  }

  public int blockSize() {
    return i32(0xC);
  }

  public long maxLen() {
    return Integer.toUnsignedLong(i32(0x10));
  }

  public long first() {
    return Integer.toUnsignedLong(i32(0x14));
  }

  /** The tid expected at {@link #start()}. */
  public int sequence() {
    return i32(0x18);
  }

  /** The log block of the oldest live transaction, or 0 when the journal is clean. */
  public long start() {
    return Integer.toUnsignedLong(i32(0x1C));
  }

  public boolean needsRecovery() {
    return start() != 0;
  }

  public int errno() {
    return i32(0x20);
  }

  public int featureCompat() {
    return isV2() ? i32(0x24) : 0;
  }

  public int featureIncompat() {
    return isV2() ? i32(0x28) : 0;
  }

  public int featureRoCompat() {
    return isV2() ? i32(0x2C) : 0;
  }

  public boolean has(JournalFeature f) {
    int word = switch (f.kind()) {
      case COMPAT -> featureCompat();
      case INCOMPAT -> featureIncompat();
      case RO_COMPAT -> featureRoCompat();
    };
    return (word & f.mask()) != 0;
  }

  public List<JournalFeature> features() {
    return JournalFeature.decode(featureCompat(), featureIncompat(), featureRoCompat());
  }

  public byte[] uuid() {
    return Arrays.copyOfRange(raw, 0x30, 0x40);
  }

  public int nrUsers() {
    return i32(0x40);
  }

  /** The UUIDs in s_users of the filesystems sharing this journal: the first nr_users of its 48 slots. */
  public List<byte[]> users() {
    List<byte[]> out = new java.util.ArrayList<>();
    for (int u = 0; u < Math.min(Math.max(nrUsers(), 0), 48); u++) {
      out.add(Arrays.copyOfRange(raw, 0x100 + 16 * u, 0x110 + 16 * u));
    }
    return out;
  }

  public int checksumType() {
    return raw[0x50] & 0xFF;
  }

  /** {@code s_num_fc_blks} as stored (0 means the default, {@link #DEFAULT_FAST_COMMIT_BLOCKS}). */
  public int numFastCommitBlocks() {
    return i32(0x54);
  }

  /** jbd2's fast-commit area size when {@code s_num_fc_blks} is 0. */
  public static final int DEFAULT_FAST_COMMIT_BLOCKS = 256;

  /**
   * Blocks at the end of the journal set apart for fast commits: {@code s_num_fc_blks} (or 256 when
   * it is 0) with {@code journal_fast_commit}, else 0.
   */
  public long fastCommitAreaBlocks() {
    if (!has(JournalFeature.FAST_COMMIT)) {
      return 0;
    }
    int n = numFastCommitBlocks();
    return n == 0 ? DEFAULT_FAST_COMMIT_BLOCKS : Integer.toUnsignedLong(n);
  }

  /**
   * One past the last block of the circular log (jbd2's {@code j_last}): {@code s_maxlen}, less the
   * fast-commit area when there is one.
   */
  public long logEnd() {
    return maxLen() - fastCommitAreaBlocks();
  }

  /**
   * The first journal block fast commits are written to (jbd2's {@code j_fc_first}): one past
   * {@link #logEnd()} — block {@code logEnd()} itself belongs to neither. Fast-commit blocks are
   * {@code [fastCommitFirst(), maxLen())}; meaningful only with {@code journal_fast_commit}.
   */
  public long fastCommitFirst() {
    return logEnd() + 1;
  }

  public long head() {
    return Integer.toUnsignedLong(i32(0x58));
  }

  public int storedChecksum() {
    return i32(0xFC);
  }

  /** The checksum this superblock should carry (meaningful for v2/v3 checksums). */
  public int computeChecksum() {
    byte[] copy = raw.clone();
    ByteBuffer.wrap(copy).putInt(0xFC, 0);
    return Crc32c.update(0xFFFFFFFF, copy);
  }

  /** The log format (tag size, checksums) these features imply. */
  public LogFormat logFormat() {
    return LogFormat.of(blockSize(), featureIncompat(), uuid());
  }

  /** A copy with the log tail moved: {@code s_sequence} and {@code s_start} (0 marks the journal clean). */
  public JournalSuperblock withTail(int sequence, long start) {
    return edit(b -> b.putInt(0x18, sequence).putInt(0x1C, (int) start));
  }

  /** A copy with {@code s_head} set (recorded when marking the journal clean). */
  public JournalSuperblock withHead(long head) {
    return edit(b -> b.putInt(0x58, (int) head));
  }

  public JournalSuperblock withErrno(int errno) {
    return edit(b -> b.putInt(0x20, errno));
  }

  /** A copy with the feature words replaced; upgrades a v1 superblock to v2 and sets the checksum type for v2/v3. */
  public JournalSuperblock withFeatures(int compat, int incompat, int roCompat) {
    return edit(b -> {
      b.putInt(0x4, JournalHeader.TYPE_SUPERBLOCK_V2);
      b.putInt(0x24, compat).putInt(0x28, incompat).putInt(0x2C, roCompat);
      if ((incompat & (JournalFeature.CSUM_V2.mask() | JournalFeature.CSUM_V3.mask())) != 0) {
        b.put(0x50, (byte) CRC32C_CHECKSUM_TYPE);
      }
    });
  }

  private JournalSuperblock edit(java.util.function.Consumer<ByteBuffer> change) {
    JournalSuperblock copy = new JournalSuperblock(raw.clone());
    change.accept(copy.buf());
    return copy.sealed();
  }

  private JournalSuperblock sealed() {
    boolean csum = isV2() && (has(JournalFeature.CSUM_V2) || has(JournalFeature.CSUM_V3));
    buf().putInt(0xFC, csum ? computeChecksum() : 0);
    return this;
  }

  private ByteBuffer buf() {
    return ByteBuffer.wrap(raw).order(ByteOrder.BIG_ENDIAN);
  }

  private int i32(int off) {
    return buf().getInt(off);
  }

  private static String featureName(JournalFeature.Kind kind, int bits) {
    StringBuilder sb = new StringBuilder();
    for (JournalFeature f : JournalFeature.values()) {
      if (f.kind() == kind && (bits & f.mask()) != 0) {
        bits &= ~f.mask();
        sb.append(sb.isEmpty() ? "" : ", ").append(f.displayName());
      }
    }
    for (int bit = 1; bits != 0; bit <<= 1) {
      if ((bits & bit) != 0) {
        bits &= ~bit;
        sb.append(sb.isEmpty() ? "" : ", ").append(JournalFeature.unknownName(kind, bit));
      }
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "JournalSuperblock[maxlen=" + maxLen() + ", first=" + first() + ", sequence=" + Integer.toUnsignedString(sequence())
        + ", start=" + start() + ", features=" + features() + "]";
  }
}
