package io.ext4j.tools.mkfs;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.Crc32c;
import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.format.OrphanBlock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.SuperblockEditor;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalMap;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes an empty ext4 filesystem with the layout {@link Geometry} computes — what mke2fs 1.47.0
 * lays down for the same parameters: superblock and its backups, descriptor tables, bitmaps of the
 * groups that need them (the rest UNINIT), the used part of the inode tables (lazy init), the
 * reserved inodes, the root directory, lost+found, the resize inode, the journal and the orphan file.
 *
 * <h2>What is written</h2>
 * Only non-zero blocks when the target is known to read zeros (a fresh sparse image file): making
 * a 1 TiB image writes a few megabytes. Otherwise every block mke2fs would leave zeroed is written
 * (inode table blocks in use, the journal).
 *
 * <h2>Durability</h2>
 * The device is flushed before {@link #format} returns: the filesystem is complete and durable.
 */
public final class Mkfs {
  /**
   * Who the new filesystem is: its UUID, directory hash seed, creation time and label. For
   * reproducible images derive them with {@link #reproducible}; by default the UUID and seed are
   * random and the time is now.
   *
   * @param uuid the 16 bytes of s_uuid (also the journal's UUID)
   * @param hashSeed s_hash_seed
   * @param time every timestamp mkfs writes
   * @param label s_volume_name ("" for none; at most 16 bytes)
   * @param rootUid owner of the root directory
   * @param rootGid group of the root directory
   */
  public record Identity(byte[] uuid, int[] hashSeed, Instant time, String label, long rootUid, long rootGid) {
    public Identity {
      if (uuid.length != 16 || hashSeed.length != 4) {
        throw new IllegalArgumentException("uuid is 16 bytes and the hash seed 4 words");
      }
      if (label.getBytes(StandardCharsets.UTF_8).length > 16) {
        throw new IllegalArgumentException("volume label '" + label + "' is longer than 16 bytes");
      }
      uuid = uuid.clone();
      hashSeed = hashSeed.clone();
    }

    /** A random UUID and hash seed, the given time. */
    public static Identity random(Instant time) {
      java.security.SecureRandom r = new java.security.SecureRandom();
      byte[] u = new byte[16];
      r.nextBytes(u);
      u[6] = (byte) ((u[6] & 0x0F) | 0x40); // version 4
      u[8] = (byte) ((u[8] & 0x3F) | 0x80);
      int[] seed = {r.nextInt(), r.nextInt(), r.nextInt(), r.nextInt()};
      return new Identity(u, seed, time, "", 0, 0);
    }

    /** The UUID given; the hash seed derived from it, so that two runs make the same image. */
    public static Identity reproducible(byte[] uuid, Instant time) {
      int[] seed = new int[4];
      int c = 0x5EED;
      for (int i = 0; i < 4; i++) {
        c = Crc32c.update(c, uuid, 0, 16);
        c = Crc32c.updateLittleEndianInt(c, i);
        seed[i] = c;
      }
      return new Identity(uuid, seed, time, "", 0, 0);
    }

    public Identity withLabel(String l) {
      return new Identity(uuid, hashSeed, time, l, rootUid, rootGid);
    }

    public Identity withRootOwner(long uid, long gid) {
      return new Identity(uuid, hashSeed, time, label, uid, gid);
    }
  }

  static final int ROOT = 2;
  static final int RESIZE = 7;
  static final int JOURNAL = 8;
  static final int LOST_FOUND = 11;
  static final int ORPHAN_FILE = 12;

  private final Geometry g;
  private final BlockDevice dev;
  private final Identity id;
  private final boolean zeroTarget;
  private final int bs;
  private final boolean csum;
  private final boolean gdtCsum;
  private final TreeMap<Long, byte[]> blocks = new TreeMap<>(); // what to write, by block
  private int fsSeed;
  private Ext4Superblock sb; // the primary, for the descriptor encoder

  private Mkfs(Geometry g, BlockDevice dev, Identity id, boolean zeroTarget) {
    this.g = g;
    this.dev = dev;
    this.id = id;
    this.zeroTarget = zeroTarget;
    this.bs = g.blockSize();
    this.csum = g.features().hasRoCompat(FeatureSet.RO_COMPAT_METADATA_CSUM);
    this.gdtCsum = !csum && g.features().hasRoCompat(FeatureSet.RO_COMPAT_GDT_CSUM);
  }

  /**
   * Writes an empty filesystem of layout {@code g} to {@code dev} (whose block size must be the
   * filesystem's, and which must hold {@code g.blocksCount()} blocks).
   *
   * @param zeroTarget the device reads zeros everywhere (a new sparse image): zero blocks are skipped
   */
  public static void format(BlockDevice dev, Geometry g, Identity id, boolean zeroTarget) throws IOException {
    if (dev.blockSize() != g.blockSize()) {
      throw new IllegalArgumentException(dev.name() + " has blocks of " + dev.blockSize() + " bytes, the filesystem " + g.blockSize());
    }
    if (dev.blockCount() < g.blocksCount()) {
      throw new IllegalArgumentException(dev.name() + " holds " + dev.blockCount() + " blocks, the filesystem needs " + g.blocksCount());
    }
    new Mkfs(g, dev, id, zeroTarget).run();
  }

  private void run() throws IOException {
    byte[] primary = superblock();
    sb = Ext4Superblock.decodeIgnoringChecksum(dev.name(), primary);
    fsSeed = sb.checksumSeed();
    List<GroupDescriptor> descs = new ArrayList<>();
    for (GroupLayout gl : g.groups()) {
      descs.add(groupBitmaps(gl));
    }
    writeDescriptorTables(descs);
    writeSuperblocks(primary);
    writeInodes();
    writeResizeInode();
    flushBlocks();
    writeJournal();
    dev.flush();
  }

  private byte[] block(long b) {
    return blocks.computeIfAbsent(b, k -> new byte[bs]);
  }

  // ------------------------------------------------------------------ superblock

  private byte[] superblock() {
    FeatureSet f = g.features();
    long now = id.time().getEpochSecond();
    SuperblockEditor e = SuperblockEditor.blank().featureIncompat(f.incompat()); // 64bit first: counts depend on it
    e.featureCompat(f.compat()).featureRoCompat(f.roCompat())
        .inodesCount(g.inodesCount()).blocksCount(g.blocksCount()).reservedBlocksCount(g.reservedBlocks())
        .freeBlocksCount(g.freeBlocksAfterMkfs()).freeInodesCount(g.inodesCount() - usedInodes())
        .firstDataBlock(g.firstDataBlock()).blockSize(bs).blocksPerGroup(g.blocksPerGroup())
        .inodesPerGroup(g.inodesPerGroup()).mountTime(0).writeTime(now).mountCount(0).maxMountCount(-1).magic()
        .state(Ext4Superblock.STATE_VALID).errorBehaviour(1).minorRevLevel(0).lastCheckTime(now).checkInterval(0)
        .creatorOs(0).revLevel(1).defaultReserved(0, 0).firstInode(11).inodeSize(g.inodeSize()).blockGroupNr(0)
        .uuid(id.uuid()).volumeName(id.label()).lastMounted("").reservedGdtBlocks(g.reservedGdtBlocks())
        .hashSeed(id.hashSeed()).defaultHashVersion(1).descriptorSize(f.hasIncompat(FeatureSet.INCOMPAT_64BIT) ? g.descriptorSize() : 0)
        .defaultMountOptions(0x0C).firstMetaBg(g.firstMetaBg()).mkfsTime(now).flags(Ext4Superblock.FLAG_SIGNED_HASH)
        .logGroupsPerFlex(g.logGroupsPerFlex()).kbytesWritten(1).overheadClusters(g.overheadClusters());
    if (g.inodeSize() > 128) {
      e.extraIsize(32, 32);
    }
    if (f.hasCompat(FeatureSet.COMPAT_HAS_JOURNAL) && g.journalBlocks() > 0) {
      e.journalInode(JOURNAL).journalBackupType(1).journalBackup(journalBackup());
    }
    if (csum) {
      e.checksumType(1);
      if (f.hasIncompat(FeatureSet.INCOMPAT_CSUM_SEED)) {
        e.checksumSeed(Crc32c.update(0xFFFFFFFF, id.uuid(), 0, 16));
      }
    }
    if (f.hasCompat(FeatureSet.COMPAT_ORPHAN_FILE) && g.orphanFileBlocks() > 0) {
      e.orphanFileInode(ORPHAN_FILE);
    }
    return e.encode();
  }

  private long usedInodes() {
    return g.groups().stream().mapToLong(GroupLayout::usedInodes).sum();
  }

  private int[] journalBackup() {
    RawInode j = fileInode(JOURNAL, g.files().journal(), 0100600);
    int[] words = new int[17];
    for (int i = 0; i < 15; i++) {
      words[i] = j.iBlockWord(i);
    }
    long size = g.journalBlocks() * bs;
    words[15] = (int) (size >>> 32);
    words[16] = (int) size;
    return words;
  }

  private void writeSuperblocks(byte[] primary) {
    for (GroupLayout gl : g.groups()) {
      if (!gl.hasSuperblockBackup()) {
        continue;
      }
      if (gl.group() == 0) {
        int off = bs == 1024 ? 0 : 1024;
        long blk = bs == 1024 ? 1 : 0;
        System.arraycopy(primary, 0, block(blk), off, Ext4Superblock.SIZE);
      } else {
        // backups: their group number, VALID cleared (as e2fsprogs writes them)
        SuperblockEditor e = new SuperblockEditor(primary).blockGroupNr((int) gl.group()).state(0);
        System.arraycopy(e.encode(), 0, block(gl.firstBlock()), 0, Ext4Superblock.SIZE);
      }
    }
  }

  // ------------------------------------------------------------------ groups

  /** Writes the group's bitmaps (unless UNINIT) and returns its descriptor. */
  private GroupDescriptor groupBitmaps(GroupLayout gl) {
    int bbCsum = 0;
    int ibCsum = 0;
    if (!gl.hasFlag(GroupLayout.BLOCK_UNINIT) || !(csum || gdtCsum)) {
      byte[] bb = block(gl.blockBitmap());
      markGroupBlocks(gl, bb);
      bbCsum = GroupDescriptor.bitmapChecksum(sb, bb, g.blocksPerGroup() / 8);
    }
    if (!gl.hasFlag(GroupLayout.INODE_UNINIT) || !(csum || gdtCsum)) {
      byte[] ib = block(gl.inodeBitmap());
      for (int i = 0; i < gl.usedInodes(); i++) {
        set(ib, i);
      }
      for (int i = g.inodesPerGroup(); i < bs * 8; i++) {
        set(ib, i);
      }
      ibCsum = GroupDescriptor.bitmapChecksum(sb, ib, g.inodesPerGroup() / 8);
    }
    long usedDirs = (groupOfInode(ROOT) == gl.group() ? 1L : 0L) + (groupOfInode(LOST_FOUND) == gl.group() ? 1L : 0L);
    int flags = (csum || gdtCsum) ? gl.flags() : gl.flags() & GroupLayout.ITABLE_ZEROED;
    return new GroupDescriptor(gl.blockBitmap(), gl.inodeBitmap(), gl.inodeTable(), gl.freeBlocksAfterMkfs(),
        g.inodesPerGroup() - gl.usedInodes(), usedDirs, flags, 0, bbCsum, ibCsum, (csum || gdtCsum) ? gl.itableUnused() : 0, 0);
  }

  private long groupOfInode(long ino) {
    return (ino - 1) / g.inodesPerGroup();
  }

  /** Marks every block of {@code gl} that is in use after mkfs, and the padding past the group's end. */
  private void markGroupBlocks(GroupLayout gl, byte[] bb) {
    long first = gl.firstBlock();
    long end = first + gl.blockCount();
    int own = (gl.hasSuperblockBackup() ? 1 : 0) + gl.descriptorBlocks() + gl.reservedGdtBlocks();
    for (int i = 0; i < own; i++) {
      set(bb, i);
    }
    for (GroupLayout other : g.groups()) { // bitmaps and tables may live in another group (flex_bg)
      markRange(bb, first, end, other.blockBitmap(), 1);
      markRange(bb, first, end, other.inodeBitmap(), 1);
      markRange(bb, first, end, other.inodeTable(), g.inodeTableBlocks());
    }
    Geometry.Files f = g.files();
    for (FileBlocks fb : List.of(f.rootDirectory(), f.lostFound(), f.journal(), f.orphanFile())) {
      for (BlockRun r : fb.extents()) {
        markRange(bb, first, end, r.start(), r.count());
      }
      for (long leaf : fb.leafBlocks()) {
        markRange(bb, first, end, leaf, 1);
      }
    }
    if (f.resizeInodeBlock() != 0) {
      markRange(bb, first, end, f.resizeInodeBlock(), 1);
    }
    for (int i = gl.blockCount(); i < bs * 8; i++) {
      set(bb, i);
    }
  }

  private static void markRange(byte[] bb, long first, long end, long start, long count) {
    long a = Math.max(first, start);
    long b = Math.min(end, start + count);
    for (long x = a; x < b; x++) {
      set(bb, (int) (x - first));
    }
  }

  private static void set(byte[] bits, int i) {
    bits[i >>> 3] |= (byte) (1 << (i & 7));
  }

  private void writeDescriptorTables(List<GroupDescriptor> descs) {
    int ds = g.descriptorSize();
    int perBlock = bs / ds;
    boolean metaBg = g.features().hasIncompat(FeatureSet.INCOMPAT_META_BG);
    byte[][] table = new byte[(int) Math.ceilDiv(g.groupCount(), perBlock)][];
    for (int i = 0; i < table.length; i++) {
      table[i] = new byte[bs];
    }
    for (int i = 0; i < descs.size(); i++) {
      descs.get(i).encode(sb, i, table[i / perBlock], (i % perBlock) * ds);
    }
    for (GroupLayout gl : g.groups()) {
      if (gl.descriptorBlocks() == 0) {
        continue;
      }
      if (!metaBg || gl.group() / perBlock < g.firstMetaBg()) {
        for (int k = 0; k < gl.descriptorBlocks(); k++) {
          block(gl.descriptorStart() + k); // allocate, then copy
          System.arraycopy(table[k], 0, block(gl.descriptorStart() + k), 0, bs);
        }
      } else {
        int meta = (int) (gl.group() / perBlock);
        System.arraycopy(table[meta], 0, block(gl.descriptorStart()), 0, bs);
      }
    }
  }

  // ------------------------------------------------------------------ inodes

  private RawInode baseInode(int mode, int links) {
    RawInode r = RawInode.blank(g.inodeSize());
    if (g.inodeSize() > 128) {
      r.extraIsize(32);
    }
    Instant t = id.time();
    r.mode(mode);
    r.links(links);
    r.time(RawInode.Time.ATIME, t);
    r.time(RawInode.Time.CTIME, t);
    r.time(RawInode.Time.MTIME, t);
    r.time(RawInode.Time.CRTIME, t);
    return r;
  }

  /** An extent-mapped file over {@code fb} (depth 1 with its leaf blocks when it has more than 4 extents). */
  private RawInode fileInode(long ino, FileBlocks fb, int mode) {
    RawInode r = baseInode(mode, 1);
    r.flags(RawInode.FL_EXTENTS);
    r.sizeBytes(fb.dataBlocks() * bs);
    r.blocksRaw(fb.allBlocks() * (bs / 512));
    List<long[]> rows = new ArrayList<>();
    long lblk = 0;
    for (BlockRun run : fb.extents()) {
      for (long done = 0; done < run.count(); done += 32768) {
        long n = Math.min(32768, run.count() - done);
        rows.add(new long[] {lblk, run.start() + done, n, 0});
        lblk += n;
      }
    }
    byte[] ib = new byte[RawInode.I_BLOCK_SIZE];
    if (fb.leafBlocks().isEmpty()) {
      ExtentNode.leaf(rows).encode(ib, 0, ib.length, ExtentNode.ROOT_MAX, null);
    } else {
      int per = ExtentNode.blockMax(bs);
      int seed = RawInode.inodeSeed(fsSeed, ino, 0);
      List<long[]> index = new ArrayList<>();
      int at = 0;
      for (long leaf : fb.leafBlocks()) {
        List<long[]> part = rows.subList(at, Math.min(rows.size(), at + per));
        if (part.isEmpty()) {
          break;
        }
        ExtentNode.leaf(part).encode(block(leaf), 0, bs, per, csum ? seed : null);
        index.add(new long[] {part.getFirst()[0], leaf});
        at += part.size();
      }
      ExtentNode.index(1, index).encode(ib, 0, ib.length, ExtentNode.ROOT_MAX, null);
    }
    r.iBlock(ib);
    return r;
  }

  private void writeInodes() {
    Map<Long, RawInode> inodes = new TreeMap<>();
    for (long i = 1; i < 11; i++) {
      inodes.put(i, RawInode.blank(g.inodeSize())); // reserved: zero, with a checksum
    }
    RawInode bad = baseInode(0, 0);
    inodes.put(1L, bad);
    Geometry.Files f = g.files();
    RawInode root = fileInode(ROOT, f.rootDirectory(), RawInode.S_IFDIR | 0755);
    root.links(3);
    root.uid(id.rootUid());
    root.gid(id.rootGid());
    inodes.put((long) ROOT, root);
    writeDirBlock(f.rootDirectory().firstBlock(), ROOT, true);
    RawInode lf = fileInode(LOST_FOUND, f.lostFound(), RawInode.S_IFDIR | 0700);
    lf.links(2);
    inodes.put((long) LOST_FOUND, lf);
    boolean firstBlock = true;
    for (BlockRun run : f.lostFound().extents()) {
      for (long b = run.start(); b < run.end(); b++) {
        writeDirBlock(b, LOST_FOUND, firstBlock);
        firstBlock = false;
      }
    }
    if (g.journalBlocks() > 0) {
      inodes.put((long) JOURNAL, fileInode(JOURNAL, f.journal(), RawInode.S_IFREG | 0600));
    }
    if (g.orphanFileBlocks() > 0) {
      inodes.put((long) ORPHAN_FILE, fileInode(ORPHAN_FILE, f.orphanFile(), RawInode.S_IFREG | 0600));
      int seed = RawInode.inodeSeed(fsSeed, ORPHAN_FILE, 0);
      for (BlockRun run : f.orphanFile().extents()) {
        for (long b = run.start(); b < run.end(); b++) {
          System.arraycopy(OrphanBlock.pristine(bs, seed, b, csum), 0, block(b), 0, bs);
        }
      }
    }
    GroupLayout g0 = g.group(0);
    if (!zeroTarget) {
      for (GroupLayout gl : g.groups()) { // the used part of every inode table
        long usedBlocks = Math.ceilDiv((long) gl.usedInodes() * g.inodeSize(), bs);
        for (long b = 0; b < usedBlocks; b++) {
          block(gl.inodeTable() + b);
        }
      }
    }
    for (Map.Entry<Long, RawInode> e : inodes.entrySet()) {
      long ino = e.getKey();
      GroupLayout gl = g.group((ino - 1) / g.inodesPerGroup());
      long index = (ino - 1) % g.inodesPerGroup();
      long blk = gl.inodeTable() + index * g.inodeSize() / bs;
      int off = (int) (index * g.inodeSize() % bs);
      if (ino != RESIZE) {
        e.getValue().writeTo(block(blk), off, ino, csum ? fsSeed : null);
      }
    }
    assert g0 != null;
  }

  /** A directory block: the first of a directory ("." and ".."; root also lists lost+found) or an empty one. */
  private void writeDirBlock(long b, long self, boolean first) {
    byte[] a = block(b);
    Integer tail = csum ? RawInode.inodeSeed(fsSeed, self, 0) : null;
    int usable = csum ? bs - DirBlock.TAIL_SIZE : bs;
    boolean ft = g.features().hasIncompat(FeatureSet.INCOMPAT_FILETYPE);
    if (!first) {
      DirBlock.initEmpty(a, bs, tail);
      return;
    }
    long parent = ROOT;
    DirBlock.writeEntry(a, 0, self, 12, ".".getBytes(StandardCharsets.US_ASCII), ft ? 2 : 0, bs);
    if (self == ROOT) {
      DirBlock.writeEntry(a, 12, parent, 12, "..".getBytes(StandardCharsets.US_ASCII), ft ? 2 : 0, bs);
      DirBlock.writeEntry(a, 24, LOST_FOUND, usable - 24, "lost+found".getBytes(StandardCharsets.US_ASCII), ft ? 2 : 0, bs);
    } else {
      DirBlock.writeEntry(a, 12, parent, usable - 12, "..".getBytes(StandardCharsets.US_ASCII), ft ? 2 : 0, bs);
    }
    if (tail != null) {
      DirBlock.setTail(a, bs, tail);
    }
  }

  /**
   * Inode 7: block-mapped, only its double-indirect block set, whose slot (k mod bs/4) for descriptor
   * block index k in [descriptor blocks, descriptor blocks + reserved) points at the primary
   * reserved-GDT block; that block, read as an indirect block, lists its copies in the backup groups.
   */
  private void writeResizeInode() {
    long dind = g.files().resizeInodeBlock();
    if (!zeroTarget) {
      for (GroupLayout gl : g.groups()) { // reserved GDT copies: zeros (the primaries get their lists below)
        for (int j = 0; j < gl.reservedGdtBlocks(); j++) {
          block(gl.reservedGdtStart() + j);
        }
      }
    }
    RawInode r = dind == 0 ? RawInode.blank(g.inodeSize()) : baseInode(RawInode.S_IFREG | 0600, 1);
    long apb = bs / 4;
    long charged = 0;
    if (dind != 0) {
      GroupLayout g0 = g.group(0);
      ByteBuffer d = ByteBuffer.wrap(block(dind)).order(ByteOrder.LITTLE_ENDIAN);
      charged++;
      List<GroupLayout> backups = g.groups().stream().filter(x -> x.group() != 0 && x.reservedGdtBlocks() > 0).toList();
      for (int j = 0; j < g.reservedGdtBlocks(); j++) {
        long k = (long) g0.descriptorBlocks() + j;
        long primary = g0.reservedGdtStart() + j;
        d.putInt((int) (4 * (k % apb)), (int) primary);
        ByteBuffer ind = ByteBuffer.wrap(block(primary)).order(ByteOrder.LITTLE_ENDIAN);
        charged++;
        for (int i = 0; i < backups.size() && i < apb; i++) {
          ind.putInt(4 * i, (int) (primary + backups.get(i).firstBlock() - g0.firstBlock()));
          charged++;
        }
      }
      r.iBlockWord(13, (int) dind);
      r.sizeBytes((apb * apb + apb + 12) * bs);
    }
    r.blocksRaw(charged * (bs / 512));
    GroupLayout gl = g.group(0);
    long index = RESIZE - 1;
    long blk = gl.inodeTable() + index * g.inodeSize() / bs;
    r.writeTo(block(blk), (int) (index * g.inodeSize() % bs), RESIZE, csum ? fsSeed : null);
  }

  // ------------------------------------------------------------------ output

  private void flushBlocks() throws IOException {
    List<Map.Entry<Long, byte[]>> all = new ArrayList<>(blocks.entrySet());
    int i = 0;
    while (i < all.size()) {
      if (zeroTarget && allZero(all.get(i).getValue())) {
        i++;
        continue;
      }
      int j = i + 1;
      while (j < all.size() && j - i < 256 && all.get(j).getKey() == all.get(j - 1).getKey() + 1
          && !(zeroTarget && allZero(all.get(j).getValue()))) {
        j++;
      }
      ByteBuffer[] run = new ByteBuffer[j - i];
      for (int k = i; k < j; k++) {
        run[k - i] = ByteBuffer.wrap(all.get(k).getValue());
      }
      dev.write(all.get(i).getKey(), run);
      i = j;
    }
    blocks.clear();
  }

  private static boolean allZero(byte[] a) {
    for (byte x : a) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  private void writeJournal() throws IOException {
    FileBlocks j = g.files().journal();
    if (j.extents().isEmpty()) {
      return;
    }
    List<JournalMap.Extent> map = new ArrayList<>();
    long lblk = 0;
    for (BlockRun run : j.extents()) {
      if (!zeroTarget) {
        dev.zeroOut(run.start(), run.count());
      }
      map.add(new JournalMap.Extent(lblk, run.start(), run.count()));
      lblk += run.count();
    }
    Journal.format(dev, JournalMap.ofExtents(map), id.uuid(), 1);
  }
}
