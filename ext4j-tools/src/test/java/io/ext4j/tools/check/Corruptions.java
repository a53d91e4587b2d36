package io.ext4j.tools.check;

import io.ext4j.fs.format.Extent;
import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.DxBlock;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.format.OrphanBlock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.SuperblockEditor;
import io.ext4j.fs.format.XattrCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The corruption suite's catalogue: one targeted change each, made by byte edits through
 * {@link ImageEditor} (checksums put back unless the checksum is the point) or by debugfs, with what
 * the checker must then report — errors naming the inode and/or block, a note, or nothing. Targets
 * (which file, which bit, which entry) are chosen from the seed.
 */
final class Corruptions {
  private Corruptions() {}

  /** What the checker must say after a corruption. */
  record Expect(Kind kind, String structure, long inode, long block, List<Expect> also) {
    enum Kind { ERROR, NOTE, SILENT }

    static Expect error(String structure, long inode, long block) {
      return new Expect(Kind.ERROR, structure, inode, block, List.of());
    }

    static Expect inode(long ino) {
      return error(null, ino, Problem.NO_BLOCK);
    }

    static Expect block(long b) {
      return error(null, Problem.NO_INODE, b);
    }

    static Expect structure(String s) {
      return error(s, Problem.NO_INODE, Problem.NO_BLOCK);
    }

    static Expect note(String structure) {
      return new Expect(Kind.NOTE, structure, Problem.NO_INODE, Problem.NO_BLOCK, List.of());
    }

    static Expect silent() {
      return new Expect(Kind.SILENT, null, Problem.NO_INODE, Problem.NO_BLOCK, List.of());
    }

    Expect and(Expect other) {
      List<Expect> l = new ArrayList<>(also);
      l.add(other);
      return new Expect(kind, structure, inode, block, l);
    }

    /** Whether {@code p} is a finding this expectation names. */
    boolean names(Problem p) {
      return (structure == null || structure.equals(p.structure())) && (inode == Problem.NO_INODE || inode == p.inode())
          && (block == Problem.NO_BLOCK || block == p.block());
    }

    @Override
    public String toString() {
      return kind + (structure != null ? " " + structure : "") + (inode != Problem.NO_INODE ? " inode " + inode : "")
          + (block != Problem.NO_BLOCK ? " block " + block : "") + (also.isEmpty() ? "" : " and " + also);
    }
  }

  /** Where things are in the populated base image. */
  record Targets(long dir, long sub, long deeper, long a, long big, long sparse, long fast, long slow, long fifo,
      long chr, long hdir, List<Extent> bigExtents, List<long[]> hdirBlocks, long dirBlock, long subBlock) {
    long[] files() {
      return new long[] {a, big, sparse};
    }
  }

  /** The context of one corruption: the copy's editor and path, the targets, the seed's stream. */
  record Ctx(ImageEditor ed, java.nio.file.Path image, Targets t, SplittableRandom r) {
    <T> T pick(T[] xs) {
      return xs[r.nextInt(xs.length)];
    }

    long pick(long[] xs) {
      return xs[r.nextInt(xs.length)];
    }

    void debugfs(String... commands) throws Exception {
      E2fsprogs.debugfs(image, true, List.of(commands));
    }
  }

  @FunctionalInterface
  interface Action {
    Expect apply(Ctx c) throws Exception;
  }

  /** One kind of corruption; {@code needs} says which filesystems it applies to. */
  record Corruption(String name, Needs needs, Action action) {
    @Override
    public String toString() {
      return name;
    }
  }

  enum Needs { ANY, METADATA_CSUM, ORPHAN_FILE, MULTI_GROUP }

  static List<Corruption> all() {
    List<Corruption> k = new ArrayList<>();
    // ---- bitmaps and counts
    k.add(new Corruption("block bitmap: a used block marked free", Needs.ANY, c -> {
      Extent e = c.t.bigExtents.get(c.r.nextInt(c.t.bigExtents.size()));
      long b = e.pblk() + c.r.nextLong(e.len());
      c.ed.blockBit(b, false);
      return Expect.block(b);
    }));
    k.add(new Corruption("block bitmap: a free block marked used", Needs.ANY, c -> {
      long b;
      do {
        b = c.ed.lay.firstDataBlock() + c.r.nextLong(c.ed.sb.blocksCount() - c.ed.lay.firstDataBlock());
      } while (c.ed.blockBitSet(b));
      c.ed.blockBit(b, true);
      return Expect.block(b);
    }));
    k.add(new Corruption("inode bitmap: an in-use inode marked free", Needs.ANY, c -> {
      long ino = c.pick(c.t.files());
      c.ed.inodeBit(ino, false);
      return Expect.inode(ino);
    }));
    k.add(new Corruption("block bitmap checksum", Needs.METADATA_CSUM, c -> {
      GroupDescriptor d = c.ed.gd(0);
      c.ed.putGd(0, d.withBitmapChecksums(d.blockBitmapChecksum() ^ (1 + c.r.nextInt(0xFFFF)), d.inodeBitmapChecksum()));
      return Expect.block(d.blockBitmap());
    }));
    k.add(new Corruption("inode bitmap checksum", Needs.METADATA_CSUM, c -> {
      GroupDescriptor d = c.ed.gd(0);
      c.ed.putGd(0, d.withBitmapChecksums(d.blockBitmapChecksum(), d.inodeBitmapChecksum() ^ (1 + c.r.nextInt(0xFFFF))));
      return Expect.block(d.inodeBitmap());
    }));
    k.add(new Corruption("group descriptor checksum (e2fsck -fn: a message, exit 0)", Needs.ANY, c -> {
      c.ed.putGdRaw16(0, 0x1E, c.ed.gd(0).checksum() ^ (1 + c.r.nextInt(0xFFFF)));
      return Expect.note(Problem.GROUP_DESCRIPTOR);
    }));
    k.add(new Corruption("group free blocks count", Needs.ANY, c -> {
      GroupDescriptor d = c.ed.gd(0);
      c.ed.putGd(0, d.withCounts(d.freeBlocks() + 1 + c.r.nextInt(5), d.freeInodes(), d.usedDirs(), d.itableUnused()));
      return Expect.structure(Problem.GROUP_COUNTS);
    }));
    k.add(new Corruption("group free inodes count", Needs.ANY, c -> {
      GroupDescriptor d = c.ed.gd(0);
      c.ed.putGd(0, d.withCounts(d.freeBlocks(), d.freeInodes() - 1 - c.r.nextInt(3), d.usedDirs(), d.itableUnused()));
      return Expect.structure(Problem.GROUP_COUNTS);
    }));
    k.add(new Corruption("group directories count", Needs.ANY, c -> {
      GroupDescriptor d = c.ed.gd(0);
      c.ed.putGd(0, d.withCounts(d.freeBlocks(), d.freeInodes(), d.usedDirs() + 1, d.itableUnused()));
      return Expect.structure(Problem.GROUP_COUNTS);
    }));
    k.add(new Corruption("itable_unused above the free inodes", Needs.ANY, c -> {
      GroupDescriptor d = c.ed.gd(0);
      c.ed.putGd(0, d.withCounts(d.freeBlocks(), d.freeInodes(), d.usedDirs(), d.freeInodes() + 1));
      return Expect.structure(Problem.GROUP_DESCRIPTOR);
    }));
    k.add(new Corruption("itable_unused hides in-use inodes", Needs.ANY, c -> {
      GroupDescriptor d = c.ed.gd(0);
      long unused = c.ed.sb.inodesPerGroup() - c.t.hdir; // the watermark drops below the htree's names
      c.ed.putGd(0, d.withCounts(d.freeBlocks(), Math.max(d.freeInodes(), unused), d.usedDirs(), unused));
      return Expect.inode(c.t.hdir);
    }));
    k.add(new Corruption("BLOCK_UNINIT on the last group", Needs.ANY, c -> {
      int g = (int) c.ed.lay.groups() - 1;
      GroupDescriptor d = c.ed.gd(g);
      c.ed.putGd(g, d.withFlags(d.flags() | GroupDescriptor.BLOCK_UNINIT));
      return Expect.structure(Problem.GROUP_DESCRIPTOR);
    }));
    k.add(new Corruption("inode bitmap padding", Needs.ANY, c -> {
      GroupDescriptor d = c.ed.gd(0);
      byte[] bm = c.ed.block(d.inodeBitmap());
      int at = (int) (c.ed.sb.inodesPerGroup() / 8) + c.r.nextInt(c.ed.bs - (int) (c.ed.sb.inodesPerGroup() / 8));
      bm[at] = (byte) c.r.nextInt(0xFF);
      c.ed.put(d.inodeBitmap(), bm);
      return Expect.block(d.inodeBitmap());
    }));
    k.add(new Corruption("superblock free totals (e2fsck -fn: a message, exit 0)", Needs.ANY, c -> {
      SuperblockEditor e = new SuperblockEditor(c.ed.superblockBytes());
      e.freeBlocksCount(c.ed.sb.freeBlocksCount() - 1 - c.r.nextInt(50));
      c.ed.putSuperblock(e.encode());
      return Expect.note(Problem.FREE_TOTALS);
    }));
    k.add(new Corruption("superblock checksum", Needs.METADATA_CSUM, c -> {
      byte[] raw = c.ed.superblockBytes();
      raw[0x3FC + c.r.nextInt(4)] ^= (byte) (1 + c.r.nextInt(255));
      c.ed.putSuperblock(raw);
      return Expect.structure(Problem.SUPERBLOCK);
    }));
    k.add(new Corruption("orphan_present with a clean orphan file", Needs.ORPHAN_FILE, c -> {
      SuperblockEditor e = new SuperblockEditor(c.ed.superblockBytes());
      e.featureRoCompat(c.ed.sb.featureRoCompat() | Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT);
      c.ed.putSuperblock(e.encode());
      return Expect.structure(Problem.SUPERBLOCK);
    }));
    k.add(new Corruption("orphan file block not clean", Needs.ORPHAN_FILE, c -> {
      long ino = c.ed.sb.orphanFileInode();
      RawInode r = c.ed.inode(ino);
      ExtentNode root = ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, 60, 4, null);
      long blk = root.values()[0] + c.r.nextInt(root.lengths()[0]);
      int[] slots = new int[OrphanBlock.slots(c.ed.bs)];
      slots[c.r.nextInt(slots.length)] = (int) c.t.a;
      byte[] b = new byte[c.ed.bs];
      OrphanBlock.encode(slots, b, c.ed.bs, c.ed.inodeSeed(ino), blk, c.ed.sb.hasMetadataCsum());
      c.ed.put(blk, b);
      return Expect.error(Problem.ORPHANS, ino, blk);
    }));
    // ---- inodes
    k.add(new Corruption("inode checksum", Needs.METADATA_CSUM, c -> {
      long ino = c.pick(new long[] {c.t.a, c.t.big, c.t.dir, c.t.fast, c.t.fifo});
      RawInode r = c.ed.inode(ino);
      r.bytes()[0x7C + c.r.nextInt(2)] ^= (byte) (1 + c.r.nextInt(255));
      c.ed.putInodeRaw(ino, r);
      return Expect.inode(ino);
    }));
    k.add(new Corruption("link count of a file", Needs.ANY, c -> editInode(c, c.pick(c.t.files()), r -> r.links(r.links() + 1))));
    k.add(new Corruption("link count of a directory", Needs.ANY,
        c -> editInode(c, c.pick(new long[] {c.t.dir, c.t.sub, c.t.deeper}), r -> r.links(r.links() + 1 + c.r.nextInt(3)))));
    k.add(new Corruption("i_blocks", Needs.ANY, c -> editInode(c, c.pick(c.t.files()),
        r -> r.blocksRaw(r.blocksRaw() + (c.ed.bs / 512L) * (1 + c.r.nextInt(3))))));
    k.add(new Corruption("dtime on an in-use inode", Needs.ANY, c -> editInode(c, c.pick(c.t.files()), r -> r.dtime(1_700_000_000))));
    k.add(new Corruption("deleted inode with zero dtime", Needs.ANY, c -> {
      c.debugfs("rm /slow");
      return editInode(c, c.t.slow, r -> r.dtime(0));
    }));
    k.add(new Corruption("i_extra_isize invalid", Needs.ANY, c -> editInode(c, c.pick(c.t.files()),
        r -> r.extraIsize(c.pick(new Integer[] {34, 130, 2, 200})))));
    k.add(new Corruption("fast symlink size", Needs.ANY, c -> editInode(c, c.t.fast, r -> r.sizeBytes(r.sizeBytes() + 1 + c.r.nextInt(5)))));
    k.add(new Corruption("device with EXTENTS_FL", Needs.ANY, c -> editInode(c, c.t.chr, r -> r.flags(r.flags() | RawInode.FL_EXTENTS))));
    k.add(new Corruption("FIFO with a size", Needs.ANY, c -> editInode(c, c.t.fifo, r -> r.sizeBytes(1 + c.r.nextInt(1000)))));
    k.add(new Corruption("INDEX_FL on a file", Needs.ANY, c -> editInode(c, c.pick(c.t.files()), r -> r.flags(r.flags() | RawInode.FL_INDEX))));
    k.add(new Corruption("directory i_size", Needs.ANY, c -> editInode(c, c.t.dir, r -> r.sizeBytes(r.sizeBytes() + c.ed.bs))));
    k.add(new Corruption("file i_size below its blocks", Needs.ANY, c -> editInode(c, c.t.big, r -> r.sizeBytes(1 + c.r.nextInt(4000)))));
    k.add(new Corruption("i_faddr set", Needs.ANY, c -> editInode(c, c.pick(c.t.files()),
        r -> ByteBuffer.wrap(r.bytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0x70, 1 + c.r.nextInt(99)))));
    k.add(new Corruption("in-inode xattr hash", Needs.ANY, c -> editInode(c, c.t.a, r -> {
      int entry = 128 + r.extraIsize() + 4;
      ImageEditor.le(r.bytes()).putInt(entry + 12, 0x1234567 + c.r.nextInt(1000));
    })));
    k.add(new Corruption("unattached inode", Needs.ANY, c -> {
      c.debugfs("unlink /dir/a", "unlink /dir/a-link");
      return Expect.inode(c.t.a);
    }));
    // ---- extent trees and blocks
    k.add(new Corruption("extent block checksum", Needs.METADATA_CSUM, c -> {
      long leaf = extentLeaf(c, c.t.sparse);
      byte[] b = c.ed.block(leaf);
      b[12 + 12 * ExtentNode.headerMax(b, 0) + c.r.nextInt(4)] ^= (byte) (1 + c.r.nextInt(255));
      c.ed.put(leaf, b);
      return Expect.error(Problem.EXTENT_TREE, c.t.sparse, leaf);
    }));
    k.add(new Corruption("extents out of order", Needs.ANY, c -> {
      long leaf = extentLeaf(c, c.t.sparse);
      byte[] b = c.ed.block(leaf);
      int n = ImageEditor.le(b).getShort(2);
      int i = c.r.nextInt(n - 1);
      byte[] tmp = new byte[12];
      System.arraycopy(b, 12 + 12 * i, tmp, 0, 12);
      System.arraycopy(b, 12 + 12 * (i + 1), b, 12 + 12 * i, 12);
      System.arraycopy(tmp, 0, b, 12 + 12 * (i + 1), 12);
      c.ed.fixExtentTail(c.t.sparse, b);
      c.ed.put(leaf, b);
      return Expect.inode(c.t.sparse);
    }));
    k.add(new Corruption("extent beyond the filesystem", Needs.ANY, c -> editRootExtent(c, c.t.a, c.ed.sb.blocksCount() + c.r.nextInt(1000))));
    k.add(new Corruption("blocks shared by two files", Needs.ANY, c -> {
      Extent first = c.t.bigExtents.get(0);
      editRootExtent(c, c.t.a, first.pblk() + c.r.nextInt(first.len() - 4));
      return Expect.inode(c.t.a).and(Expect.inode(c.t.big));
    }));
    k.add(new Corruption("extent tree could be shorter (e2fsck -fn: a message, exit 0)", Needs.ANY, c -> {
      long leaf = extentLeaf(c, c.t.sparse);
      byte[] b = c.ed.block(leaf);
      int n = ImageEditor.le(b).getShort(2);
      int keep = 1 + c.r.nextInt(3);
      List<String> free = new ArrayList<>();
      long blocks = 1;
      for (int i = 0; i < n; i++) {
        ByteBuffer e = ImageEditor.le(b);
        long start = Integer.toUnsignedLong(e.getInt(12 + 12 * i + 8));
        int len = e.getShort(12 + 12 * i + 4);
        if (i >= keep) {
          free.add("freeb " + start + " " + len);
        } else {
          blocks += len;
        }
      }
      ImageEditor.le(b).putShort(2, (short) keep);
      c.ed.fixExtentTail(c.t.sparse, b);
      c.ed.put(leaf, b);
      long charged = blocks * (c.ed.bs / 512);
      editInode(c, c.t.sparse, r -> r.blocksRaw(charged));
      c.ed.close();
      c.debugfs(free.toArray(String[]::new)); // clears the bitmap bits; the counts are put right below
      try (ImageEditor after = ImageEditor.open(c.image)) {
        long freed = 0;
        for (String f : free) {
          String[] w = f.split(" ", -1);
          long start = Long.parseLong(w[1]);
          long count = Long.parseLong(w[2]);
          int g = (int) after.lay.groupOfBlock(start);
          GroupDescriptor d = after.gd(g);
          after.putGd(g, d.withCounts(d.freeBlocks() + count, d.freeInodes(), d.usedDirs(), d.itableUnused()));
          if (after.sb.hasMetadataCsum()) {
            after.fixBitmapChecksums(g);
          }
          freed += count;
        }
        SuperblockEditor e = new SuperblockEditor(after.superblockBytes());
        e.freeBlocksCount(after.sb.freeBlocksCount() + freed);
        after.putSuperblock(e.encode());
      }
      return Expect.note(Problem.EXTENT_TREE);
    }));
    k.add(new Corruption("xattr block checksum", Needs.METADATA_CSUM, c -> {
      long blk = c.ed.inode(c.t.big).fileAcl();
      byte[] b = c.ed.block(blk);
      b[0x10 + c.r.nextInt(4)] ^= (byte) (1 + c.r.nextInt(255));
      c.ed.put(blk, b);
      return Expect.error(Problem.XATTR_BLOCK, c.t.big, blk);
    }));
    k.add(new Corruption("xattr block refcount", Needs.ANY, c -> {
      long blk = c.ed.inode(c.t.big).fileAcl();
      byte[] b = c.ed.block(blk);
      ImageEditor.le(b).putInt(4, 2 + c.r.nextInt(5));
      if (c.ed.sb.hasMetadataCsum()) {
        ImageEditor.le(b).putInt(0x10, XattrCodec.blockChecksum(b, blk, c.ed.sb.checksumSeed()));
      }
      c.ed.put(blk, b);
      return Expect.block(blk);
    }));
    k.add(new Corruption("resize inode map", Needs.ANY, c -> {
      RawInode r = c.ed.inode(7);
      long dind = Integer.toUnsignedLong(r.iBlockWord(13));
      byte[] b = c.ed.block(dind);
      long gdt = c.ed.lay.gdtBlocks();
      int slot = (int) ((gdt + c.r.nextInt(c.ed.sb.reservedGdtBlocks())) % (c.ed.bs / 4));
      ImageEditor.le(b).putInt(4 * slot, 0);
      c.ed.put(dind, b);
      return Expect.inode(7);
    }));
    k.add(new Corruption("journal superblock magic (e2fsck -fn gives up: exit 12)", Needs.ANY, c -> {
      RawInode r = c.ed.inode(8);
      long j0 = ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, 60, 4, null).values()[0];
      byte[] b = c.ed.block(j0);
      b[c.r.nextInt(4)] ^= (byte) (1 + c.r.nextInt(255));
      c.ed.put(j0, b);
      return Expect.inode(8);
    }));
    // ---- what e2fsck accepts: the checker must accept it too
    k.add(new Corruption("COMPR flag on a file (accepted)", Needs.ANY, c -> {
      editInode(c, c.t.big, r -> r.flags(r.flags() | 0x4));
      return Expect.silent();
    }));
    k.add(new Corruption("i_extra_isize 0 or 4 (accepted)", Needs.ANY, c -> {
      editInode(c, c.t.sparse, r -> r.extraIsize(c.pick(new Integer[] {0, 4})));
      return Expect.silent();
    }));
    k.add(new Corruption("an orphan list head (e2fsck -fn ignores it)", Needs.ANY, c -> {
      SuperblockEditor e = new SuperblockEditor(c.ed.superblockBytes());
      e.lastOrphan(c.t.a);
      c.ed.putSuperblock(e.encode());
      return Expect.silent();
    }));
    k.add(new Corruption("immutable FIFO (e2fsck -fn: a message, exit 0)", Needs.ANY, c -> {
      editInode(c, c.t.fifo, r -> r.flags(r.flags() | RawInode.FL_IMMUTABLE));
      return Expect.note(Problem.INODE);
    }));
    k.add(new Corruption("last mount time in the future (e2fsck -fn: a message, exit 0)", Needs.ANY, c -> {
      SuperblockEditor e = new SuperblockEditor(c.ed.superblockBytes());
      e.mountTime(System.currentTimeMillis() / 1000 + 3600 + c.r.nextInt(500_000));
      c.ed.putSuperblock(e.encode());
      return Expect.note(Problem.SUPERBLOCK);
    }));
    k.addAll(DirectoryCorruptions.kinds());
    return k;
  }

  // ------------------------------------------------------------------- helpers

  interface InodeEdit {
    void edit(RawInode r) throws Exception;
  }

  static Expect editInode(Ctx c, long ino, InodeEdit e) throws Exception {
    RawInode r = c.ed.inode(ino);
    e.edit(r);
    c.ed.putInode(ino, r);
    return Expect.inode(ino);
  }

  /** Points the single extent of {@code ino}'s depth-0 root at {@code pblk}. */
  static Expect editRootExtent(Ctx c, long ino, long pblk) throws Exception {
    return editInode(c, ino, r -> {
      ExtentNode root = ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, 60, 4, null);
      long[] values = root.values().clone();
      values[0] = pblk;
      new ExtentNode(root.depth(), root.keys(), values, root.lengths(), root.unwritten())
          .encode(r.bytes(), RawInode.I_BLOCK, 60, ExtentNode.headerMax(r.bytes(), RawInode.I_BLOCK), null);
    });
  }

  static long extentLeaf(Ctx c, long ino) throws Exception {
    RawInode r = c.ed.inode(ino);
    ExtentNode root = ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, 60, 4, null);
    if (root.depth() != 1) {
      throw new AssertionError("inode " + ino + " should have a depth-1 extent tree, has depth " + root.depth());
    }
    return root.values()[0];
  }

  /** Offsets of the live entries of a linear block, "." and ".." excluded when {@code dots}. */
  static List<Integer> entries(byte[] b, int bs, boolean skipDots) {
    List<Integer> out = new ArrayList<>();
    int usable = DirBlock.hasTail(b, bs) ? bs - DirBlock.TAIL_SIZE : bs;
    for (int off = 0; off < usable; off += DirBlock.getRecLen(b, off, bs)) {
      boolean dot = skipDots && off < 24;
      if (ImageEditor.le(b).getInt(off) != 0 && !dot) {
        out.add(off);
      }
    }
    return out;
  }

  interface EntryEdit {
    void edit(byte[] b, int off) throws Exception;
  }

  /** Edits a random live entry (not "." or "..") of a directory block and fixes its tail. */
  static Expect editEntry(Ctx c, long dir, long pblk, EntryEdit e) throws Exception {
    byte[] b = c.ed.block(pblk);
    List<Integer> offs = entries(b, c.ed.bs, true);
    e.edit(b, offs.get(c.r.nextInt(offs.size())));
    c.ed.fixDirTail(dir, b);
    c.ed.put(pblk, b);
    return Expect.inode(dir);
  }

  interface DxEdit {
    void edit(byte[] b, int countOffset) throws Exception;
  }

  static Expect editDxRoot(Ctx c, DxEdit e, boolean fixChecksum) throws Exception {
    long root = c.t.hdirBlocks.get(0)[1];
    byte[] b = c.ed.block(root);
    e.edit(b, DxBlock.ROOT_COUNT_OFFSET);
    if (fixChecksum && DxBlock.tailFits(b, DxBlock.ROOT_COUNT_OFFSET, c.ed.bs)) {
      c.ed.fixDx(c.t.hdir, b, DxBlock.ROOT_COUNT_OFFSET);
    }
    c.ed.put(root, b);
    return Expect.inode(c.t.hdir);
  }
}
