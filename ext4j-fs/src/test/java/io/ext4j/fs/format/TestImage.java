package io.ext4j.fs.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Just enough of an image file for the codec oracles: the superblock, descriptors and inode table
 * through the existing codecs, raw inode and block bytes, and writes back of both (an inode's
 * checksum recomputed). Reads the whole file; meant for the few-MiB images the tests make.
 */
final class TestImage {
  final Path path;
  final Ext4Superblock sb;
  private byte[] bytes;

  private TestImage(Path path) throws IOException {
    this.path = path;
    this.bytes = Files.readAllBytes(path);
    this.sb = Ext4Superblock.decode(path.toString(), Arrays.copyOfRange(bytes, 1024, 2048));
  }

  static TestImage open(Path path) throws IOException {
    return new TestImage(path);
  }

  int blockSize() {
    return sb.blockSize();
  }

  /** The device byte offset of inode {@code ino}. */
  long inodeOffset(long ino) throws IOException {
    long group = (ino - 1) / sb.inodesPerGroup();
    long index = (ino - 1) % sb.inodesPerGroup();
    long gdAt = descriptorOffset(group);
    GroupDescriptor gd = GroupDescriptor.decode(path.toString(), gdAt, sb, group, bytes, Math.toIntExact(gdAt));
    return gd.inodeTable() * sb.blockSize() + index * sb.inodeSize();
  }

  /** The device byte offset of group {@code g}'s descriptor. */
  long descriptorOffset(long g) {
    return (sb.firstDataBlock() + 1) * sb.blockSize() + g * sb.descriptorSize();
  }

  /** bg_free_blocks_count (lo, and hi with 64-byte descriptors) of group {@code g}. */
  long groupFreeBlocks(long g) {
    int at = Math.toIntExact(descriptorOffset(g));
    long lo = LittleEndian.le16(bytes, at + 0x0C);
    return sb.descriptorSize() >= 64 ? lo | (long) LittleEndian.le16(bytes, at + 0x2C) << 16 : lo;
  }

  /** s_free_blocks_count (lo, and hi with 64bit). */
  long freeBlocks() {
    long lo = Integer.toUnsignedLong(LittleEndian.le32(bytes, 1024 + 0x0C));
    return sb.is64Bit() ? lo | Integer.toUnsignedLong(LittleEndian.le32(bytes, 1024 + 0x158)) << 32 : lo;
  }

  /** The raw s_inode_size bytes of inode {@code ino}. */
  byte[] inode(long ino) throws IOException {
    int at = Math.toIntExact(inodeOffset(ino));
    return Arrays.copyOfRange(bytes, at, at + sb.inodeSize());
  }

  byte[] block(long nr) {
    int at = Math.toIntExact(nr * sb.blockSize());
    return Arrays.copyOfRange(bytes, at, at + sb.blockSize());
  }

  /** 128 + i_extra_isize: where the in-inode xattr area starts. */
  static int xattrAreaOffset(byte[] inode) {
    return inode.length > 128 ? 128 + LittleEndian.le16(inode, 0x80) : 128;
  }

  /** i_file_acl (lo and hi). */
  static long fileAcl(byte[] inode) {
    return Integer.toUnsignedLong(LittleEndian.le32(inode, 0x68)) | (long) LittleEndian.le16(inode, 0x76) << 32;
  }

  static int generation(byte[] inode) {
    return LittleEndian.le32(inode, 0x64);
  }

  /** The decoded inode {@code ino} (checksum verified with metadata_csum). */
  Ext4Inode decodedInode(long ino) throws IOException {
    return Ext4Inode.decode(path.toString(), inodeOffset(ino), sb, ino, inode(ino), 0);
  }

  /** The first {@code size} bytes of inode {@code ino}'s data, through its block map (holes read as zeros). */
  byte[] fileData(long ino, int size) throws IOException {
    byte[] out = new byte[size];
    for (MappedRange r : FileBlockMap.map(path.toString(), sb, decodedInode(ino), this::block)) {
      for (long i = 0; i < r.length(); i++) {
        long at = (r.logical() + i) * sb.blockSize();
        if (at < size) {
          byte[] b = block(r.physical() + i);
          System.arraycopy(b, 0, out, (int) at, (int) Math.min(b.length, size - at));
        }
      }
    }
    return out;
  }

  /** Every xattr of inode {@code ino}: its in-inode area, then its block (checksum verified with metadata_csum). */
  java.util.List<XattrEntry> xattrs(long ino) throws IOException {
    byte[] inode = inode(ino);
    java.util.List<XattrEntry> all = new java.util.ArrayList<>(
        XattrCodec.decodeInodeArea(inode, xattrAreaOffset(inode), inode.length, path + " inode " + ino));
    long acl = fileAcl(inode);
    if (acl != 0) {
      all.addAll(XattrCodec.decodeBlock(block(acl), acl, sb.checksumSeed(), sb.hasMetadataCsum(),
          path + " xattr block " + acl + " of inode " + ino).entries());
    }
    return all;
  }

  /** Writes inode {@code ino} back with its checksum recomputed (metadata_csum). */
  void writeInode(long ino, byte[] inode) throws IOException {
    byte[] copy = inode.clone();
    if (sb.hasMetadataCsum()) {
      boolean hasHi = copy.length > 128 && LittleEndian.le16(copy, 0x80) >= 4;
      int csum = Ext4Inode.computeChecksum(sb, ino, generation(copy), copy, 0, hasHi);
      copy[0x7C] = (byte) csum;
      copy[0x7D] = (byte) (csum >>> 8);
      if (hasHi) {
        copy[0x82] = (byte) (csum >>> 16);
        copy[0x83] = (byte) (csum >>> 24);
      }
    }
    write(inodeOffset(ino), copy);
  }

  void writeBlock(long nr, byte[] block) throws IOException {
    if (block.length != sb.blockSize()) {
      throw new IllegalArgumentException("block of " + block.length + " bytes");
    }
    write(nr * sb.blockSize(), block);
  }

  private void write(long at, byte[] data) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.WRITE)) {
      ByteBuffer buf = ByteBuffer.wrap(data);
      while (buf.hasRemaining()) {
        ch.write(buf, at + buf.position());
      }
    }
    System.arraycopy(data, 0, bytes, Math.toIntExact(at), data.length);
  }
}
