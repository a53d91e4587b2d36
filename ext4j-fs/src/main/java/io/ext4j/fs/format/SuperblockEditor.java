package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Changes fields of a superblock image (1024 bytes, the layout documented on {@link Ext4Superblock})
 * and produces the bytes with the checksum recomputed. Not thread-safe; a value of its own, never
 * shared. Every setter keeps the bytes it does not name.
 */
public final class SuperblockEditor {
  private final byte[] raw;
  private final ByteBuffer b;

  /** Starts from a copy of {@code bytes} (1024 bytes). */
  public SuperblockEditor(byte[] bytes) {
    if (bytes.length != Ext4Superblock.SIZE) {
      throw new IllegalArgumentException("superblock must be " + Ext4Superblock.SIZE + " bytes, got " + bytes.length);
    }
    this.raw = bytes.clone();
    this.b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Starts from zeros: for mkfs. */
  public static SuperblockEditor blank() {
    return new SuperblockEditor(new byte[Ext4Superblock.SIZE]);
  }

  /** Starts from a decoded superblock's bytes. */
  public static SuperblockEditor of(Ext4Superblock sb) {
    return new SuperblockEditor(sb.toBytes());
  }

  /** The bytes, with s_checksum recomputed when metadata_csum is set. */
  public byte[] encode() {
    byte[] out = raw.clone();
    ByteBuffer o = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
    int roCompat = o.getInt(0x64);
    if ((roCompat & Ext4Superblock.RO_COMPAT_METADATA_CSUM) != 0) {
      o.putInt(Ext4Superblock.CHECKSUM_AT, Crc32c.update(0xFFFFFFFF, out, 0, Ext4Superblock.CHECKSUM_AT));
    }
    return out;
  }

  /** The edited superblock, decoded (and so validated). */
  public Ext4Superblock toSuperblock(String device) throws io.ext4j.fs.Ext4FormatException {
    return Ext4Superblock.decode(device, encode());
  }

  private boolean is64() {
    return (b.getInt(0x60) & Ext4Superblock.INCOMPAT_64BIT) != 0;
  }

  private void put64(int lo, int hi, long v) {
    b.putInt(lo, (int) v);
    if (is64()) {
      b.putInt(hi, (int) (v >>> 32));
    } else if (v >>> 32 != 0) {
      throw new IllegalArgumentException("value " + v + " needs the 64bit feature");
    }
  }

  private void putTime(int lo, int hiByte, long seconds) {
    b.putInt(lo, (int) seconds);
    raw[hiByte] = (byte) (seconds >>> 32);
  }

  public SuperblockEditor inodesCount(long v) { b.putInt(0x00, (int) v); return this; }
  public SuperblockEditor blocksCount(long v) { put64(0x04, 0x150, v); return this; }
  public SuperblockEditor reservedBlocksCount(long v) { put64(0x08, 0x154, v); return this; }
  public SuperblockEditor freeBlocksCount(long v) { put64(0x0C, 0x158, v); return this; }
  public SuperblockEditor freeInodesCount(long v) { b.putInt(0x10, (int) v); return this; }
  public SuperblockEditor firstDataBlock(long v) { b.putInt(0x14, (int) v); return this; }

  /** s_log_block_size and s_log_cluster_size (equal without bigalloc). */
  public SuperblockEditor blockSize(int bytes) {
    int log = Integer.numberOfTrailingZeros(bytes) - 10;
    if (Integer.bitCount(bytes) != 1 || log < 0 || log > 6) {
      throw new IllegalArgumentException("block size " + bytes);
    }
    b.putInt(0x18, log);
    b.putInt(0x1C, log);
    return this;
  }

  /** s_blocks_per_group and s_clusters_per_group. */
  public SuperblockEditor blocksPerGroup(long v) { b.putInt(0x20, (int) v); b.putInt(0x24, (int) v); return this; }
  public SuperblockEditor inodesPerGroup(long v) { b.putInt(0x28, (int) v); return this; }
  public SuperblockEditor mountTime(long s) { putTime(0x2C, 0x275, s); return this; }
  public SuperblockEditor writeTime(long s) { putTime(0x30, 0x274, s); return this; }
  public SuperblockEditor mountCount(int v) { b.putShort(0x34, (short) v); return this; }
  public SuperblockEditor maxMountCount(int v) { b.putShort(0x36, (short) v); return this; }
  public SuperblockEditor magic() { b.putShort(0x38, (short) Ext4Superblock.MAGIC); return this; }
  public SuperblockEditor state(int v) { b.putShort(0x3A, (short) v); return this; }
  public SuperblockEditor errorBehaviour(int v) { b.putShort(0x3C, (short) v); return this; }
  public SuperblockEditor minorRevLevel(int v) { b.putShort(0x3E, (short) v); return this; }
  public SuperblockEditor lastCheckTime(long s) { putTime(0x40, 0x277, s); return this; }
  public SuperblockEditor checkInterval(int v) { b.putInt(0x44, v); return this; }
  public SuperblockEditor creatorOs(int v) { b.putInt(0x48, v); return this; }
  public SuperblockEditor revLevel(int v) { b.putInt(0x4C, v); return this; }
  public SuperblockEditor defaultReserved(int uid, int gid) { b.putShort(0x50, (short) uid); b.putShort(0x52, (short) gid); return this; }
  public SuperblockEditor firstInode(long v) { b.putInt(0x54, (int) v); return this; }
  public SuperblockEditor inodeSize(int v) { b.putShort(0x58, (short) v); return this; }
  public SuperblockEditor blockGroupNr(int v) { b.putShort(0x5A, (short) v); return this; }
  public SuperblockEditor featureCompat(int v) { b.putInt(0x5C, v); return this; }
  public SuperblockEditor featureIncompat(int v) { b.putInt(0x60, v); return this; }
  public SuperblockEditor featureRoCompat(int v) { b.putInt(0x64, v); return this; }

  public SuperblockEditor uuid(byte[] uuid16) {
    if (uuid16.length != 16) {
      throw new IllegalArgumentException("uuid must be 16 bytes");
    }
    System.arraycopy(uuid16, 0, raw, 0x68, 16);
    return this;
  }

  /** s_volume_name, at most 16 bytes of UTF-8, NUL-padded. */
  public SuperblockEditor volumeName(String label) {
    byte[] l = label.getBytes(StandardCharsets.UTF_8);
    if (l.length > 16) {
      throw new IllegalArgumentException("volume label '" + label + "' is longer than 16 bytes");
    }
    Arrays.fill(raw, 0x78, 0x88, (byte) 0);
    System.arraycopy(l, 0, raw, 0x78, l.length);
    return this;
  }

  /** s_last_mounted, at most 63 bytes. */
  public SuperblockEditor lastMounted(String dir) {
    byte[] d = dir.getBytes(StandardCharsets.UTF_8);
    Arrays.fill(raw, 0x88, 0xC8, (byte) 0);
    System.arraycopy(d, 0, raw, 0x88, Math.min(63, d.length));
    return this;
  }

  public SuperblockEditor reservedGdtBlocks(int v) { b.putShort(0xCE, (short) v); return this; }
  public SuperblockEditor journalInode(long v) { b.putInt(0xE0, (int) v); return this; }
  public SuperblockEditor lastOrphan(long v) { b.putInt(0xE8, (int) v); return this; }

  public SuperblockEditor hashSeed(int[] seed) {
    for (int i = 0; i < 4; i++) {
      b.putInt(0xEC + 4 * i, seed[i]);
    }
    return this;
  }

  public SuperblockEditor defaultHashVersion(int v) { raw[0xFC] = (byte) v; return this; }
  public SuperblockEditor journalBackupType(int v) { raw[0xFD] = (byte) v; return this; }
  public SuperblockEditor descriptorSize(int v) { b.putShort(0xFE, (short) v); return this; }
  public SuperblockEditor defaultMountOptions(int v) { b.putInt(0x100, v); return this; }
  public SuperblockEditor firstMetaBg(long v) { b.putInt(0x104, (int) v); return this; }
  public SuperblockEditor mkfsTime(long s) { putTime(0x108, 0x276, s); return this; }

  /** s_jnl_blocks: the journal inode's 15 i_block words, then i_size_high and i_size. */
  public SuperblockEditor journalBackup(int[] words17) {
    if (words17.length != 17) {
      throw new IllegalArgumentException("s_jnl_blocks has 17 words");
    }
    for (int i = 0; i < 17; i++) {
      b.putInt(0x10C + 4 * i, words17[i]);
    }
    return this;
  }

  public SuperblockEditor extraIsize(int min, int want) { b.putShort(0x15C, (short) min); b.putShort(0x15E, (short) want); return this; }
  public SuperblockEditor flags(int v) { b.putInt(0x160, v); return this; }
  public SuperblockEditor logGroupsPerFlex(int v) { raw[0x174] = (byte) v; return this; }
  public SuperblockEditor checksumType(int v) { raw[0x175] = (byte) v; return this; }
  public SuperblockEditor kbytesWritten(long v) { b.putLong(0x178, v); return this; }
  public SuperblockEditor overheadClusters(long v) { b.putInt(0x248, (int) v); return this; }
  public SuperblockEditor checksumSeed(int v) { b.putInt(0x270, v); return this; }
  public SuperblockEditor orphanFileInode(long v) { b.putInt(0x280, (int) v); return this; }

  /**
   * Records an error as ext4's {@code save_error_info} does: sets the "errors" state, counts it,
   * fills the first-error fields if none were recorded, and always the last-error fields.
   *
   * @param code the s_*_error_errcode value (2 EIO, 5 EFSCORRUPTED, …)
   */
  public SuperblockEditor recordError(long timeSeconds, long inode, long block, String function, int line, int code) {
    int state = Short.toUnsignedInt(b.getShort(0x3A));
    b.putShort(0x3A, (short) (state | Ext4Superblock.STATE_ERRORS));
    b.putInt(0x194, b.getInt(0x194) + 1);
    byte[] func = Arrays.copyOf(function.getBytes(StandardCharsets.ISO_8859_1), 32);
    long firstTime = Integer.toUnsignedLong(b.getInt(0x198)) | (long) Byte.toUnsignedInt(raw[0x278]) << 32;
    if (firstTime == 0) {
      putTime(0x198, 0x278, timeSeconds);
      b.putInt(0x19C, (int) inode);
      b.putLong(0x1A0, block);
      System.arraycopy(func, 0, raw, 0x1A8, 32);
      b.putInt(0x1C8, line);
      raw[0x27A] = (byte) code;
    }
    putTime(0x1CC, 0x279, timeSeconds);
    b.putInt(0x1D0, (int) inode);
    b.putInt(0x1D4, line);
    b.putLong(0x1D8, block);
    System.arraycopy(func, 0, raw, 0x1E0, 32);
    raw[0x27B] = (byte) code;
    return this;
  }

  /** The current incompat bits (for read-modify-write of flags). */
  public int featureIncompat() {
    return b.getInt(0x60);
  }

  public int featureRoCompat() {
    return b.getInt(0x64);
  }

  public int featureCompat() {
    return b.getInt(0x5C);
  }

  public int state() {
    return Short.toUnsignedInt(b.getShort(0x3A));
  }
}
