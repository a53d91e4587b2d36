package io.ext4j.tools.check;

import io.ext4j.block.Crc32c;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.DxBlock;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.format.RawInode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * Byte-level edits of an image for the corruption suite, through the format codecs: read and write
 * blocks, inodes and group descriptors, and put back the checksums an edit would otherwise break —
 * so each corruption is exactly the one intended (or, with the {@code raw} variants, a checksum
 * broken on purpose).
 */
final class ImageEditor implements AutoCloseable {
  final FileBlockDevice dev;
  final Ext4Superblock sb;
  final FsLayout lay;
  final int bs;

  private ImageEditor(FileBlockDevice dev, Ext4Superblock sb) {
    this.dev = dev;
    this.sb = sb;
    this.lay = FsLayout.of(dev.name(), sb);
    this.bs = sb.blockSize();
  }

  static ImageEditor open(Path image) throws IOException {
    FileBlockDevice dev = FileBlockDevice.open(image, CheckImage.blockSize(image), FileBlockDevice.Options.defaults());
    byte[] raw = new byte[Ext4Superblock.SIZE];
    ByteBuffer b = ByteBuffer.allocate(dev.blockSize());
    long blk = Ext4Superblock.OFFSET / dev.blockSize();
    dev.read(blk, b);
    System.arraycopy(b.array(), (int) (Ext4Superblock.OFFSET - blk * dev.blockSize()), raw, 0, raw.length);
    return new ImageEditor(dev, Ext4Superblock.decodeUnverified(dev.name(), raw));
  }

  byte[] block(long b) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(bs);
    dev.read(b, buf);
    return buf.array();
  }

  void put(long b, byte[] bytes) throws IOException {
    dev.write(b, ByteBuffer.wrap(bytes));
  }

  static ByteBuffer le(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }

  // ----------------------------------------------------------------- superblock

  byte[] superblockBytes() throws IOException {
    long blk = Ext4Superblock.OFFSET / bs;
    byte[] b = block(blk);
    byte[] raw = new byte[Ext4Superblock.SIZE];
    System.arraycopy(b, (int) (Ext4Superblock.OFFSET - blk * bs), raw, 0, raw.length);
    return raw;
  }

  void putSuperblock(byte[] raw) throws IOException {
    long blk = Ext4Superblock.OFFSET / bs;
    byte[] b = block(blk);
    System.arraycopy(raw, 0, b, (int) (Ext4Superblock.OFFSET - blk * bs), raw.length);
    put(blk, b);
  }

  // ----------------------------------------------------------------- group descriptors

  GroupDescriptor gd(int g) throws IOException {
    return GroupDescriptor.decodeUnchecked(sb, block(lay.descriptorBlock(g)), lay.descriptorOffset(g));
  }

  /** Writes {@code d} as group {@code g}'s descriptor with a correct checksum. */
  void putGd(int g, GroupDescriptor d) throws IOException {
    byte[] b = block(lay.descriptorBlock(g));
    d.encode(sb, g, b, lay.descriptorOffset(g));
    put(lay.descriptorBlock(g), b);
  }

  /** Overwrites two bytes of group {@code g}'s descriptor, leaving its checksum as it was. */
  void putGdRaw16(int g, int fieldOffset, int value) throws IOException {
    byte[] b = block(lay.descriptorBlock(g));
    le(b).putShort(lay.descriptorOffset(g) + fieldOffset, (short) value);
    put(lay.descriptorBlock(g), b);
  }

  void fixBitmapChecksums(int g) throws IOException {
    GroupDescriptor d = gd(g);
    int bb = GroupDescriptor.bitmapChecksum(sb, block(d.blockBitmap()), (int) (sb.clustersPerGroup() / 8));
    int ib = GroupDescriptor.bitmapChecksum(sb, block(d.inodeBitmap()), (int) (sb.inodesPerGroup() / 8));
    putGd(g, d.withBitmapChecksums(bb, ib));
  }

  /** Sets or clears the block bitmap bit of {@code b} and fixes the bitmap checksum. */
  void blockBit(long b, boolean set) throws IOException {
    int g = (int) lay.groupOfBlock(b);
    GroupDescriptor d = gd(g);
    byte[] bm = block(d.blockBitmap());
    int i = (int) (b - lay.groupFirstBlock(g));
    bm[i >>> 3] = (byte) (set ? bm[i >>> 3] | 1 << (i & 7) : bm[i >>> 3] & ~(1 << (i & 7)));
    put(d.blockBitmap(), bm);
    if (sb.hasMetadataCsum()) {
      fixBitmapChecksums(g);
    }
  }

  boolean blockBitSet(long b) throws IOException {
    int g = (int) lay.groupOfBlock(b);
    byte[] bm = block(gd(g).blockBitmap());
    int i = (int) (b - lay.groupFirstBlock(g));
    return (bm[i >>> 3] & 1 << (i & 7)) != 0;
  }

  void inodeBit(long ino, boolean set) throws IOException {
    int g = (int) lay.groupOfInode(ino);
    GroupDescriptor d = gd(g);
    byte[] bm = block(d.inodeBitmap());
    int i = lay.indexInGroup(ino);
    bm[i >>> 3] = (byte) (set ? bm[i >>> 3] | 1 << (i & 7) : bm[i >>> 3] & ~(1 << (i & 7)));
    put(d.inodeBitmap(), bm);
    if (sb.hasMetadataCsum()) {
      fixBitmapChecksums(g);
    }
  }

  // ----------------------------------------------------------------- inodes

  private long inodeBlock(long ino) throws IOException {
    return lay.inodeBlock(gd((int) lay.groupOfInode(ino)).inodeTable(), ino);
  }

  RawInode inode(long ino) throws IOException {
    return new RawInode(block(inodeBlock(ino)), lay.inodeOffset(ino), sb.inodeSize());
  }

  /** Writes the inode with its checksum recomputed (metadata_csum). */
  void putInode(long ino, RawInode r) throws IOException {
    long b = inodeBlock(ino);
    byte[] blk = block(b);
    r.writeTo(blk, lay.inodeOffset(ino), ino, sb.hasMetadataCsum() ? sb.checksumSeed() : null);
    put(b, blk);
  }

  /** Writes the inode's bytes as they are (its stored checksum untouched). */
  void putInodeRaw(long ino, RawInode r) throws IOException {
    long b = inodeBlock(ino);
    byte[] blk = block(b);
    r.writeTo(blk, lay.inodeOffset(ino), ino, null);
    put(b, blk);
  }

  int inodeSeed(long ino) throws IOException {
    return RawInode.inodeSeed(sb.checksumSeed(), ino, inode(ino).generation());
  }

  // ----------------------------------------------------------------- per-block checksums

  void fixDirTail(long dirIno, byte[] b) throws IOException {
    if (sb.hasMetadataCsum() && DirBlock.hasTail(b, bs)) {
      DirBlock.setTail(b, bs, inodeSeed(dirIno));
    }
  }

  void fixDx(long dirIno, byte[] b, int countOffset) throws IOException {
    if (sb.hasMetadataCsum()) {
      DxBlock.setChecksum(b, countOffset, inodeSeed(dirIno));
    }
  }

  void fixExtentTail(long ino, byte[] b) throws IOException {
    if (sb.hasMetadataCsum()) {
      int tail = 12 + 12 * ExtentNode.headerMax(b, 0);
      le(b).putInt(tail, Crc32c.update(inodeSeed(ino), b, 0, tail));
    }
  }

  private boolean closed;

  /** Flushes and closes; idempotent (a corruption may close early to let debugfs at the image). */
  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      dev.flush();
      dev.close();
    }
  }
}
