package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;

/**
 * The bytes of one on-disk inode ({@code s_inode_size} bytes) with typed accessors: the in-memory
 * inode keeps its fields here, so what is encoded is exactly what is read, and bytes ext4j does not
 * interpret (the in-inode extended-attribute area, fields of newer kernels) survive every write.
 * Not thread-safe: the owner guards it.
 *
 * <h2>On-disk grammar (little-endian; {@code ext2_inode_large})</h2>
 * <pre>
 * 0x00 u16 i_mode        0x02 u16 i_uid_lo       0x04 u32 i_size_lo      0x08 u32 i_atime
 * 0x0C u32 i_ctime       0x10 u32 i_mtime        0x14 u32 i_dtime        0x18 u16 i_gid_lo
 * 0x1A u16 i_links_count 0x1C u32 i_blocks_lo    0x20 u32 i_flags        0x24 u32 i_version_lo
 * 0x28 u8[60] i_block    0x64 u32 i_generation   0x68 u32 i_file_acl_lo  0x6C u32 i_size_high
 * 0x70 u32 i_faddr       0x74 u16 i_blocks_hi    0x76 u16 i_file_acl_hi  0x78 u16 i_uid_hi
 * 0x7A u16 i_gid_hi      0x7C u16 i_checksum_lo  0x7E u16 reserved
 * 0x80 u16 i_extra_isize 0x82 u16 i_checksum_hi  0x84 u32 i_ctime_extra  0x88 u32 i_mtime_extra
 * 0x8C u32 i_atime_extra 0x90 u32 i_crtime       0x94 u32 i_crtime_extra 0x98 u32 i_version_hi
 * 0x9C u32 i_projid      [128 + i_extra_isize .. s_inode_size): in-inode xattrs (magic 0xEA020000)
 * </pre>
 * A field past 0x80 exists only when it fits in {@code 128 + i_extra_isize}. Times: the base is a
 * signed 32-bit second count; {@code _extra} is {@code nsec << 2 | epoch} with
 * {@code seconds = (s32) base + (epoch << 32)}. Checksum (metadata_csum): crc32c(ino_seed, the whole
 * inode with both checksum fields zeroed), ino_seed = crc32c(crc32c(fs_seed, le32 ino), le32
 * i_generation); the high 16 bits are stored only when i_extra_isize ≥ 4.
 */
public final class RawInode {
  public static final int S_IFMT = 0xF000;
  public static final int S_IFSOCK = 0xC000;
  public static final int S_IFLNK = 0xA000;
  public static final int S_IFREG = 0x8000;
  public static final int S_IFBLK = 0x6000;
  public static final int S_IFDIR = 0x4000;
  public static final int S_IFCHR = 0x2000;
  public static final int S_IFIFO = 0x1000;

  public static final int FL_SYNC = 0x8;
  public static final int FL_IMMUTABLE = 0x10;
  public static final int FL_APPEND = 0x20;
  public static final int FL_NOATIME = 0x80;
  public static final int FL_INDEX = 0x1000;
  public static final int FL_DIRSYNC = 0x10000;
  public static final int FL_TOPDIR = 0x20000;
  /** EXT4_DAX_FL: access the file's data directly on persistent memory (FS_XFLAG_DAX); inherited by new entries. */
  public static final int FL_DAX = 0x02000000;
  public static final int FL_HUGE_FILE = 0x40000;
  public static final int FL_EXTENTS = 0x80000;
  public static final int FL_EA_INODE = 0x200000;
  public static final int FL_INLINE_DATA = 0x10000000;

  static final int CHECKSUM_LO = 0x7C;
  static final int EXTRA_ISIZE = 0x80;
  static final int CHECKSUM_HI = 0x82;
  public static final int I_BLOCK = 0x28;
  public static final int I_BLOCK_SIZE = 60;

  private final byte[] raw;
  private final ByteBuffer b;

  /** Wraps a copy of {@code bytes[off, off + size)}. */
  public RawInode(byte[] bytes, int off, int size) {
    this.raw = new byte[size];
    System.arraycopy(bytes, off, raw, 0, size);
    this.b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** A zeroed inode of {@code size} bytes. */
  public static RawInode blank(int size) {
    return new RawInode(new byte[size], 0, size);
  }

  public int size() {
    return raw.length;
  }

  /** The live bytes (not a copy). */
  public byte[] bytes() {
    return raw;
  }

  public RawInode copy() {
    return new RawInode(raw, 0, raw.length);
  }

  /** Copies the bytes into {@code dst[off..]}, with the checksum set when {@code seed} is non-null. */
  public void writeTo(byte[] dst, int off, long ino, Integer fsSeed) {
    if (fsSeed != null) {
      setChecksum(computeChecksum(fsSeed, ino));
    }
    System.arraycopy(raw, 0, dst, off, raw.length);
  }

  // --------------------------------------------------------------- fields

  public int mode() { return Short.toUnsignedInt(b.getShort(0x00)); }
  public void mode(int v) { b.putShort(0x00, (short) v); }
  public int fileType() { return mode() & S_IFMT; }
  public boolean isDirectory() { return fileType() == S_IFDIR; }
  public boolean isRegular() { return fileType() == S_IFREG; }
  public boolean isSymlink() { return fileType() == S_IFLNK; }

  public long uid() { return Short.toUnsignedInt(b.getShort(0x02)) | (long) Short.toUnsignedInt(b.getShort(0x78)) << 16; }
  public void uid(long v) { b.putShort(0x02, (short) v); b.putShort(0x78, (short) (v >>> 16)); }
  public long gid() { return Short.toUnsignedInt(b.getShort(0x18)) | (long) Short.toUnsignedInt(b.getShort(0x7A)) << 16; }
  public void gid(long v) { b.putShort(0x18, (short) v); b.putShort(0x7A, (short) (v >>> 16)); }

  public long sizeBytes() { return Integer.toUnsignedLong(b.getInt(0x04)) | Integer.toUnsignedLong(b.getInt(0x6C)) << 32; }
  public void sizeBytes(long v) { b.putInt(0x04, (int) v); b.putInt(0x6C, (int) (v >>> 32)); }

  public int links() { return Short.toUnsignedInt(b.getShort(0x1A)); }
  public void links(int v) { b.putShort(0x1A, (short) v); }

  /** i_blocks as stored (48 bits): 512-byte units unless HUGE_FILE_FL. */
  public long blocksRaw() { return Integer.toUnsignedLong(b.getInt(0x1C)) | (long) Short.toUnsignedInt(b.getShort(0x74)) << 32; }
  public void blocksRaw(long v) {
    if (v >>> 48 != 0) {
      throw new IllegalArgumentException("i_blocks " + v + " exceeds 48 bits");
    }
    b.putInt(0x1C, (int) v);
    b.putShort(0x74, (short) (v >>> 32));
  }

  public int flags() { return b.getInt(0x20); }
  public void flags(int v) { b.putInt(0x20, v); }
  public boolean hasFlag(int f) { return (flags() & f) != 0; }

  public long dtime() { return Integer.toUnsignedLong(b.getInt(0x14)); }
  public void dtime(long v) { b.putInt(0x14, (int) v); }

  public int generation() { return b.getInt(0x64); }
  public void generation(int v) { b.putInt(0x64, v); }

  public long fileAcl() { return Integer.toUnsignedLong(b.getInt(0x68)) | (long) Short.toUnsignedInt(b.getShort(0x76)) << 32; }
  public void fileAcl(long v) { b.putInt(0x68, (int) v); b.putShort(0x76, (short) (v >>> 32)); }

  public int extraIsize() { return raw.length > 128 ? Short.toUnsignedInt(b.getShort(EXTRA_ISIZE)) : 0; }
  public void extraIsize(int v) {
    if (raw.length <= 128) {
      throw new IllegalStateException("a 128-byte inode has no i_extra_isize");
    }
    b.putShort(EXTRA_ISIZE, (short) v);
  }

  /** Whether the field at {@code offset} of {@code size} bytes exists (fits in 128 + i_extra_isize). */
  public boolean hasExtraField(int offset, int size) {
    return raw.length > 128 && offset + size <= 128 + extraIsize();
  }

  public int projectId() { return hasExtraField(0x9C, 4) ? b.getInt(0x9C) : 0; }
  public void projectId(int v) { if (hasExtraField(0x9C, 4)) { b.putInt(0x9C, v); } }

  public long version() {
    long lo = Integer.toUnsignedLong(b.getInt(0x24));
    return hasExtraField(0x98, 4) ? lo | Integer.toUnsignedLong(b.getInt(0x98)) << 32 : lo;
  }
  public void version(long v) {
    b.putInt(0x24, (int) v);
    if (hasExtraField(0x98, 4)) {
      b.putInt(0x98, (int) (v >>> 32));
    }
  }

  /** The 60 bytes of i_block (a copy). */
  public byte[] iBlock() {
    byte[] out = new byte[I_BLOCK_SIZE];
    System.arraycopy(raw, I_BLOCK, out, 0, I_BLOCK_SIZE);
    return out;
  }

  public void iBlock(byte[] v) {
    if (v.length != I_BLOCK_SIZE) {
      throw new IllegalArgumentException("i_block is 60 bytes");
    }
    System.arraycopy(v, 0, raw, I_BLOCK, I_BLOCK_SIZE);
  }

  public int iBlockWord(int i) { return b.getInt(I_BLOCK + 4 * i); }
  public void iBlockWord(int i, int v) { b.putInt(I_BLOCK + 4 * i, v); }

  // --------------------------------------------------------------- times

  /** Which timestamp: the base offset and the _extra offset (-1 for dtime-like ones without one). */
  public enum Time {
    ATIME(0x08, 0x8C), CTIME(0x0C, 0x84), MTIME(0x10, 0x88), CRTIME(0x90, 0x94);

    final int base;
    final int extra;

    Time(int base, int extra) {
      this.base = base;
      this.extra = extra;
    }
  }

  /** The timestamp; crtime is {@link Instant#EPOCH} when the inode has no room for it. */
  public Instant time(Time t) {
    if (t == Time.CRTIME && !hasExtraField(t.base, 4)) {
      return Instant.EPOCH;
    }
    long base = b.getInt(t.base); // signed
    if (!hasExtraField(t.extra, 4)) {
      return Instant.ofEpochSecond(base);
    }
    int extra = b.getInt(t.extra);
    long seconds = base + ((long) (extra & 3) << 32);
    int nanos = extra >>> 2;
    return Instant.ofEpochSecond(seconds, Math.min(nanos, 999_999_999));
  }

  /**
   * Sets a timestamp, clamped to what the inode can store: [1901-12-13, 2446-05-10] with
   * nanoseconds when it has the _extra field, else a signed 32-bit second count.
   */
  public void time(Time t, Instant when) {
    if (t == Time.CRTIME && !hasExtraField(t.base, 4)) {
      return;
    }
    long sec = when.getEpochSecond();
    int nanos = when.getNano();
    if (!hasExtraField(t.extra, 4)) {
      sec = Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, sec));
      b.putInt(t.base, (int) sec);
      return;
    }
    long min = Integer.MIN_VALUE;
    long max = Integer.MAX_VALUE + (3L << 32);
    if (sec < min) {
      sec = min;
      nanos = 0;
    } else if (sec > max) {
      sec = max;
      nanos = 999_999_999;
    }
    int epoch = (int) ((sec - (int) sec) >> 32) & 3;
    b.putInt(t.base, (int) sec);
    b.putInt(t.extra, nanos << 2 | epoch);
  }

  // --------------------------------------------------------------- checksum

  public int storedChecksum() {
    int lo = Short.toUnsignedInt(b.getShort(CHECKSUM_LO));
    return hasChecksumHi() ? lo | Short.toUnsignedInt(b.getShort(CHECKSUM_HI)) << 16 : lo;
  }

  boolean hasChecksumHi() {
    return raw.length > 128 && extraIsize() >= 4;
  }

  void setChecksum(int crc) {
    b.putShort(CHECKSUM_LO, (short) crc);
    if (hasChecksumHi()) {
      b.putShort(CHECKSUM_HI, (short) (crc >>> 16));
    }
  }

  /** The checksum as stored: 32 bits when there is a hi half, else the low 16. */
  public int computeChecksum(int fsSeed, long ino) {
    int saveLo = b.getShort(CHECKSUM_LO);
    boolean hi = hasChecksumHi();
    int saveHi = hi ? b.getShort(CHECKSUM_HI) : 0;
    b.putShort(CHECKSUM_LO, (short) 0);
    if (hi) {
      b.putShort(CHECKSUM_HI, (short) 0);
    }
    int crc = Crc32c.update(inodeSeed(fsSeed, ino, generation()), raw, 0, raw.length);
    b.putShort(CHECKSUM_LO, (short) saveLo);
    if (hi) {
      b.putShort(CHECKSUM_HI, (short) saveHi);
    }
    return hi ? crc : crc & 0xFFFF;
  }

  /** Whether the stored checksum matches (an all-zero inode counts as valid, as e2fsprogs accepts it). */
  public boolean checksumValid(int fsSeed, long ino) {
    boolean allZero = true;
    for (byte x : raw) {
      if (x != 0) {
        allZero = false;
        break;
      }
    }
    return allZero || computeChecksum(fsSeed, ino) == storedChecksum();
  }

  /**
   * Whether the inode of {@code size} bytes at {@code bytes[off..]} carries a valid checksum for
   * inode number {@code ino}, computed in place (no copy): a checker's test of every inode slot.
   * An all-zero inode does not pass here; callers skip those first.
   */
  public static boolean checksumMatches(byte[] bytes, int off, int size, int fsSeed, long ino) {
    int generation = LittleEndian.le32(bytes, off + 0x64);
    boolean hi = size > 128 && LittleEndian.le16(bytes, off + EXTRA_ISIZE) >= 4;
    int crc = inodeSeed(fsSeed, ino, generation);
    crc = Crc32c.update(crc, bytes, off, CHECKSUM_LO);
    crc = Crc32c.update(crc, ZERO2, 0, 2);
    crc = Crc32c.update(crc, bytes, off + CHECKSUM_LO + 2, EXTRA_ISIZE - CHECKSUM_LO - 2);
    if (size > 128) {
      crc = Crc32c.update(crc, bytes, off + EXTRA_ISIZE, 2);
      crc = hi ? Crc32c.update(crc, ZERO2, 0, 2) : Crc32c.update(crc, bytes, off + CHECKSUM_HI, 2);
      crc = Crc32c.update(crc, bytes, off + CHECKSUM_HI + 2, size - CHECKSUM_HI - 2);
    }
    int stored = LittleEndian.le16(bytes, off + CHECKSUM_LO) | (hi ? LittleEndian.le16(bytes, off + CHECKSUM_HI) << 16 : 0);
    return (hi ? crc : crc & 0xFFFF) == stored;
  }

  private static final byte[] ZERO2 = new byte[2];

  /** ino_seed: crc32c(crc32c(fs_seed, le32 ino), le32 generation), the seed of every checksum of the inode's blocks. */
  public static int inodeSeed(int fsSeed, long ino, int generation) {
    return Crc32c.updateLittleEndianInt(Crc32c.updateLittleEndianInt(fsSeed, (int) ino), generation);
  }

  /** Zero everything from byte {@code from} on (e.g. a freed inode's extra fields are kept; callers choose). */
  public void zeroFrom(int from) {
    java.util.Arrays.fill(raw, from, raw.length, (byte) 0);
  }
}
