package io.ext4j.tools.check;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.SuperblockEditor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Seeded mutations of an image, for the fuzzer: the raw damage of {@link CheckerRobustnessOracleTest}
 * (bit flips, byte runs, zeroed and random blocks) and field-aware mutations that put an
 * interesting value (0, 1, all ones, off by one, doubled, a block or inode number at the edge of
 * the filesystem, random) into one field of a superblock (checksum recomputed, mostly), group
 * descriptor, inode, extent header or entry, directory entry, htree root, xattr block header or
 * entry, or journal block. The same seed on the same base gives the same mutant.
 */
final class Mutator {
  /** Where the structures of one base image are (physical blocks, inode numbers). */
  record Targets(long[] metadata, long[] inodes, long[] inodeTables, long[] dirBlocks, long[] htreeRoots, long[] xattrBlocks,
      long[] journal) {}

  private final BlockDevice dev;
  private final Ext4Superblock sb;
  private final Targets t;
  private final SplittableRandom r;
  private final FsLayout lay;
  private final StringBuilder what = new StringBuilder();

  private Mutator(BlockDevice dev, Ext4Superblock sb, Targets t, SplittableRandom r) {
    this.dev = dev;
    this.sb = sb;
    this.t = t;
    this.r = r;
    this.lay = FsLayout.of(dev.name(), sb);
  }

  /** Applies one to three mutations to {@code dev}; returns what was done. */
  static String mutate(BlockDevice dev, Ext4Superblock sb, Targets t, long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    Mutator m = new Mutator(dev, sb, t, r);
    int n = 1 + r.nextInt(3);
    for (int k = 0; k < n; k++) {
      m.one();
    }
    return m.what.toString();
  }

  private void one() throws Exception {
    int kind = r.nextInt(10);
    switch (kind) {
      case 0, 1 -> what.append("raw: ").append(CheckerRobustnessOracleTest.damage(dev, t.metadata(), r));
      case 2 -> superblockField();
      case 3 -> descriptorField();
      case 4, 5 -> inodeField();
      case 6 -> dirent();
      case 7 -> field("htree root", t.htreeRoots(), new int[][] {{0x1C, 1}, {0x1D, 1}, {0x1E, 1}, {0x1F, 1}, {0x20, 2},
          {0x22, 2}, {0x24, 4}, {0x28, 4}, {0x2C, 4}, {0x30, 4}, {0x34, 4}, {0x08, 2}, {0x14, 2}});
      case 8 -> field("xattr block", t.xattrBlocks(), new int[][] {{0, 4}, {4, 4}, {8, 4}, {0x10, 4}, {0x20, 1}, {0x21, 1},
          {0x22, 2}, {0x24, 4}, {0x28, 4}, {0x2C, 4}, {0x30, 1}, {0x32, 2}, {0x38, 4}});
      default -> field("journal block", t.journal(), new int[][] {{0, 4}, {4, 4}, {8, 4}, {0xC, 4}, {0x10, 4}, {0x14, 4},
          {0x18, 4}, {0x1C, 4}, {0x20, 4}, {0x24, 4}, {0x28, 4}, {0x2C, 4}, {0x40, 4}, {0x50, 1}, {0x54, 4}, {0x0C, 4}});
    }
    what.append("; ");
  }

  private void superblockField() throws IOException {
    int[][] fields = {{0x0, 4}, {0x4, 4}, {0x8, 4}, {0xC, 4}, {0x10, 4}, {0x14, 4}, {0x18, 4}, {0x1C, 4}, {0x20, 4},
        {0x24, 4}, {0x28, 4}, {0x38, 2}, {0x3A, 2}, {0x3C, 2}, {0x4C, 4}, {0x54, 4}, {0x58, 2}, {0x5C, 4}, {0x60, 4},
        {0x64, 4}, {0xCE, 2}, {0xE0, 4}, {0xE8, 4}, {0xFC, 1}, {0xFE, 2}, {0x104, 4}, {0x150, 4}, {0x15C, 2},
        {0x15E, 2}, {0x160, 4}, {0x174, 1}, {0x175, 1}, {0x270, 4}, {0x280, 4}, {0x10C, 4}, {0x194, 4}};
    int[] f = fields[r.nextInt(fields.length)];
    long blk = Ext4Superblock.OFFSET / dev.blockSize();
    int base = (int) (Ext4Superblock.OFFSET - blk * dev.blockSize());
    byte[] b = read(blk);
    long v = change(b, base + f[0], f[1], ByteOrder.LITTLE_ENDIAN);
    boolean fix = r.nextInt(5) != 0;
    if (fix) {
      byte[] raw = java.util.Arrays.copyOfRange(b, base, base + Ext4Superblock.SIZE);
      System.arraycopy(new SuperblockEditor(raw).encode(), 0, b, base, Ext4Superblock.SIZE);
    }
    write(blk, b);
    what.append(String.format("superblock field 0x%X := %d%s", f[0], v, fix ? " (checksum fixed)" : ""));
  }

  private void descriptorField() throws IOException {
    int ds = sb.is64Bit() ? sb.descriptorSize() : 32;
    int g = r.nextInt((int) Math.min(lay.groups(), 64));
    long blk = lay.descriptorBlock(g);
    int at = lay.descriptorOffset(g);
    int[][] fields = {{0x0, 4}, {0x4, 4}, {0x8, 4}, {0xC, 2}, {0xE, 2}, {0x10, 2}, {0x12, 2}, {0x1C, 2}, {0x1E, 2},
        {0x20, 4}, {0x24, 4}, {0x28, 4}};
    int[] f = fields[r.nextInt(ds == 32 ? 9 : fields.length)];
    byte[] b = read(blk);
    long v = change(b, at + f[0], f[1], ByteOrder.LITTLE_ENDIAN);
    write(blk, b);
    what.append(String.format("group %d descriptor field 0x%X := %d", g, f[0], v));
  }

  private void inodeField() throws IOException {
    long ino = t.inodes()[r.nextInt(t.inodes().length)];
    int[][] fields = {{0x0, 2}, {0x4, 4}, {0x6C, 4}, {0x1A, 2}, {0x20, 4}, {0x1C, 4}, {0x68, 4}, {0x80, 2}, {0x28, 2},
        {0x2A, 2}, {0x2C, 2}, {0x2E, 2}, {0x34, 4}, {0x38, 2}, {0x3A, 2}, {0x3C, 4}, {0x40, 4}, {0x44, 2}, {0x48, 4},
        {0x28, 4}, {0x2C, 4}, {0x30, 4}, {0x54, 4}, {0x60, 4}, {0x64, 4}, {0x82, 2}, {0x8C, 4}};
    int[] f = fields[r.nextInt(fields.length)];
    if (f[0] >= 0x80 && sb.inodeSize() <= 128) {
      f = fields[0];
    }
    long group = (ino - 1) / sb.inodesPerGroup();
    long index = (ino - 1) % sb.inodesPerGroup();
    long table = t.inodeTables()[(int) group]; // of the base: an earlier mutation may have moved the descriptor's
    long byteAt = index * sb.inodeSize();
    long blk = table + byteAt / dev.blockSize();
    int at = (int) (byteAt % dev.blockSize());
    byte[] b = read(blk);
    long v = change(b, at + f[0], f[1], ByteOrder.LITTLE_ENDIAN);
    write(blk, b);
    what.append(String.format("inode %d field 0x%X := %d", ino, f[0], v));
  }

  /** A field of one directory entry, found by walking the records of a directory block. */
  private void dirent() throws IOException {
    long[] blocks = t.dirBlocks();
    if (blocks.length == 0) {
      what.append("no directory block");
      return;
    }
    long blk = blocks[r.nextInt(blocks.length)];
    byte[] b = read(blk);
    int at = 0;
    int pick = r.nextInt(12);
    for (int k = 0; k < pick; k++) {
      int len = (int) get(b, at + 4, 2);
      if (len < 12 || at + len + 12 > b.length) {
        break;
      }
      at += len;
    }
    int[][] fields = {{0, 4}, {4, 2}, {6, 1}, {7, 1}, {8, 1}};
    int[] f = fields[r.nextInt(fields.length)];
    long v = change(b, at + f[0], f[1], ByteOrder.LITTLE_ENDIAN);
    write(blk, b);
    what.append(String.format("directory block %d entry at %d field %d := %d", blk, at, f[0], v));
  }

  private void field(String structure, long[] blocks, int[][] fields) throws IOException {
    if (blocks.length == 0) {
      what.append("no ").append(structure);
      return;
    }
    long blk = blocks[r.nextInt(blocks.length)];
    int[] f = fields[r.nextInt(fields.length)];
    byte[] b = read(blk);
    ByteOrder order = structure.startsWith("journal") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    long v = change(b, f[0], f[1], order);
    write(blk, b);
    what.append(String.format("%s %d field 0x%X := %d", structure, blk, f[0], v));
  }

  /** Replaces the {@code width}-byte field at {@code at} of {@code b} with an {@link #interesting} value; returns it. */
  private long change(byte[] b, int at, int width, ByteOrder order) {
    long v = interesting(get(b, at, width, order), width);
    put(b, at, width, v, order);
    return v;
  }

  /** An interesting replacement for a field of {@code width} bytes now holding {@code current}. */
  private long interesting(long current, int width) {
    long max = width == 8 ? -1L : (1L << (8 * width)) - 1;
    long[] edges = {0, 1, 2, max, max >>> 1, (max >>> 1) + 1, current + 1, current - 1, current * 2, current ^ (1L << r.nextInt(8 * width)),
        sb.blocksCount(), sb.blocksCount() - 1, sb.blocksCount() + 1, sb.inodesCount(), sb.inodesCount() + 1,
        sb.firstDataBlock(), 0x8000, 0xFFFF, r.nextLong()};
    return edges[r.nextInt(edges.length)] & max;
  }

  private byte[] read(long blk) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(dev.blockSize());
    dev.read(blk, b);
    return b.array();
  }

  private void write(long blk, byte[] b) throws IOException {
    dev.write(blk, ByteBuffer.wrap(b));
  }

  private static long get(byte[] b, int at, int width) {
    return get(b, at, width, ByteOrder.LITTLE_ENDIAN);
  }

  private static long get(byte[] b, int at, int width, ByteOrder order) {
    ByteBuffer bb = ByteBuffer.wrap(b).order(order);
    return switch (width) {
      case 1 -> Byte.toUnsignedLong(b[at]);
      case 2 -> Short.toUnsignedLong(bb.getShort(at));
      default -> Integer.toUnsignedLong(bb.getInt(at));
    };
  }

  private static void put(byte[] b, int at, int width, long v, ByteOrder order) {
    ByteBuffer bb = ByteBuffer.wrap(b).order(order);
    switch (width) {
      case 1 -> b[at] = (byte) v;
      case 2 -> bb.putShort(at, (short) v);
      default -> bb.putInt(at, (int) v);
    }
  }
}
