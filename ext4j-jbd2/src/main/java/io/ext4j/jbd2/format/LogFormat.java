package io.ext4j.jbd2.format;

import io.ext4j.block.Crc32c;
import java.nio.ByteBuffer;

/**
 * Everything the block codecs need to know about a journal's on-disk dialect, derived from its
 * superblock: block size, 64-bit block numbers, the checksum version and the uuid-derived seed.
 *
 * @param blockSize journal block size in bytes
 * @param bit64 INCOMPAT_64BIT: tags carry a high word, revoke records are 8 bytes
 * @param checksumVersion 0 (none, or the legacy v1 which this engine does not write), 2 or 3
 * @param checksumSeed {@code crc32c(~0, uuid)}, the seed of every v2/v3 block checksum
 * @param uuid the journal uuid (written after the first tag of each descriptor)
 */
public record LogFormat(int blockSize, boolean bit64, int checksumVersion, int checksumSeed, byte[] uuid) {

  public LogFormat {
    if (checksumVersion != 0 && checksumVersion != 2 && checksumVersion != 3) {
      throw new IllegalArgumentException("checksum version " + checksumVersion);
    }
    uuid = uuid.clone();
  }

  /** The format implied by a superblock's incompat word. */
  public static LogFormat of(int blockSize, int incompat, byte[] uuid) {
    int version = (incompat & JournalFeature.CSUM_V3.mask()) != 0 ? 3 : (incompat & JournalFeature.CSUM_V2.mask()) != 0 ? 2 : 0;
    return new LogFormat(blockSize, (incompat & JournalFeature.BIT64.mask()) != 0, version,
        Crc32c.update(0xFFFFFFFF, uuid, 0, 16), uuid);
  }

  /** True for checksum v2 or v3: block tails and commit checksums exist. */
  public boolean checksummed() {
    return checksumVersion >= 2;
  }

  /** Bytes of one descriptor tag. */
  public int tagBytes() {
    if (checksumVersion == 3) {
      return 16;
    }
    return (bit64 ? 12 : 8) + (checksumVersion == 2 ? 2 : 0);
  }

  /** Bytes at the end of descriptor and revoke blocks reserved for their checksum. */
  public int tailBytes() {
    return checksummed() ? 4 : 0;
  }

  /** Bytes of one revoke record. */
  public int revokeRecordBytes() {
    return bit64 ? 8 : 4;
  }

  /** Records that fit in one revoke block. */
  public int revokeRecordsPerBlock() {
    return (blockSize - RevokeBlock.HEADER_BYTES - tailBytes()) / revokeRecordBytes();
  }

  /**
   * Tags the writer puts in one descriptor: the space after the header, less one uuid, the tail and
   * 16 bytes of slack, divided by the tag size — the count jbd2 budgets with.
   */
  public int tagsPerDescriptor() {
    return (blockSize - JournalHeader.SIZE - 16 - tailBytes() - 16) / tagBytes();
  }

  /** The checksum of a logged data block: {@code crc32c(seed, be32(tid) ++ block)}. */
  public int dataBlockChecksum(int tid, ByteBuffer logged) {
    return Crc32c.update(Crc32c.updateBigEndianInt(checksumSeed, tid), logged);
  }

  /** The tail checksum of a descriptor or revoke block: the whole block with its last word zeroed. */
  int tailChecksum(ByteBuffer block) {
    int p = block.position();
    int saved = block.getInt(p + blockSize - 4);
    block.putInt(p + blockSize - 4, 0);
    int c = Crc32c.update(checksumSeed, block.duplicate().limit(p + blockSize));
    block.putInt(p + blockSize - 4, saved);
    return c;
  }
}
