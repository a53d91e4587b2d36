package io.ext4j.fs;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.format.Ext4Inode;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.FileBlockMap;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.format.MappedRange;
import io.ext4j.jbd2.JournalRecovery;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the internal jbd2 journal of an ext4 filesystem, and sets or clears its {@code needs_recovery}
 * flag. Reads only the superblock, one group descriptor, the journal inode and its extent tree.
 *
 * <p>The device may use any block size; reads and writes cover the device blocks that hold the bytes
 * needed. Returned block numbers are filesystem blocks.
 *
 * <h2>Durability</h2>
 * {@link #setNeedsRecovery} writes the device block(s) holding the superblock and does not flush; the
 * change is durable once the caller's next {@link BlockDevice#flush()} returns.
 */
public final class Ext4JournalLocator {
  private Ext4JournalLocator() {}

  /**
   * Locates the internal journal.
   *
   * @throws Ext4FormatException if the device holds no ext4 filesystem (bad magic), a checksum fails,
   *     the filesystem has no journal or an external one, the journal inode is not a regular file, or
   *     its block map has holes or bad pointers; the message names the device and byte offset
   * @throws UnsupportedOperationException if the descriptors are laid out in a way not read here
   * @throws IOException if the device fails
   */
  public static JournalLocation locate(BlockDevice device) throws IOException {
    return locate(device, readSuperblock(device));
  }

  /** Locates the internal journal through a superblock the caller already read (perhaps unverified). */
  public static JournalLocation locate(BlockDevice device, Ext4Superblock sb) throws IOException {
    String name = device.name();
    if ((sb.featureIncompat() & Ext4Superblock.INCOMPAT_JOURNAL_DEV) != 0) {
      throw new Ext4FormatException(name, Ext4Superblock.OFFSET + 0x60,
          "this is an external journal device (journal_dev), not an ext4 filesystem with a journal");
    }
    if (!sb.hasJournal()) {
      throw new Ext4FormatException(name, Ext4Superblock.OFFSET + 0x5C,
          "ext4 filesystem has no journal (has_journal feature is not set)");
    }
    if (sb.unknownIncompatFeatures() != 0) {
      throw new Ext4FormatException(name, Ext4Superblock.OFFSET + 0x60,
          "unsupported incompat features " + Ext4Superblock.incompatNames(sb.unknownIncompatFeatures()));
    }
    if (sb.journalInode() == 0) {
      if (sb.journalDevice() != 0) {
        throw new Ext4FormatException(name, Ext4Superblock.OFFSET + 0xE4, String.format(
            "the journal is external (s_journal_dev 0x%X, journal UUID %s); only internal journals are supported",
            sb.journalDevice(), sb.journalUuid()));
      }
      throw new Ext4FormatException(name, Ext4Superblock.OFFSET + 0xE0, "has_journal is set but s_journal_inum is 0");
    }
    try {
      return locateThrough(device, sb, readInode(device, sb, sb.journalInode()), null);
    } catch (Ext4FormatException bad) {
      if (sb.journalBackupType() != JNL_BACKUP_BLOCKS) {
        throw bad;
      }
      try {
        return locateThrough(device, sb, backupInode(sb), bad.getMessage());
      } catch (Ext4FormatException alsoBad) {
        bad.addSuppressed(alsoBad);
        throw bad;
      }
    }
  }

  /**
   * Locates an external journal (mke2fs -O journal_dev) that {@code device} holds from block
   * {@code start} on — a {@link io.ext4j.block.ConcatBlockDevice} of the filesystem and the journal
   * device — for the filesystem whose superblock is {@code fs}. Journal block numbers are the
   * journal device's own block numbers, as jbd2 numbers an external log; its superblock, after the
   * device's ext4 superblock, is journal block 0 of the returned map.
   *
   * @throws Ext4FormatException if the journal device is not one (no journal_dev feature), has
   *     another block size, or its UUID is not the filesystem's s_journal_uuid, or the journal does
   *     not list the filesystem among its users; the message names both
   */
  public static JournalLocation locateExternal(BlockDevice device, long start, Ext4Superblock fs, String journalName)
      throws IOException {
    byte[] raw = readBytes(device, start * device.blockSize() + Ext4Superblock.OFFSET, Ext4Superblock.SIZE);
    Ext4Superblock j = Ext4Superblock.decode(journalName, raw);
    if ((j.featureIncompat() & Ext4Superblock.INCOMPAT_JOURNAL_DEV) == 0) {
      throw new Ext4FormatException(journalName, Ext4Superblock.OFFSET + 0x60,
          "is not an external journal device (its superblock lacks journal_dev)");
    }
    if (j.blockSize() != fs.blockSize()) {
      throw new Ext4FormatException(journalName, Ext4Superblock.OFFSET + 0x18, "has " + j.blockSize()
          + "-byte blocks but the filesystem " + device.name() + " has " + fs.blockSize());
    }
    if (!j.uuid().equals(fs.journalUuid())) {
      throw new Ext4FormatException(journalName, Ext4Superblock.OFFSET + 0x68, "is journal " + j.uuid()
          + " but the filesystem " + device.name() + " names journal " + fs.journalUuid() + " (s_journal_uuid)");
    }
    long jsb = j.firstDataBlock() + 1; // the block after the one holding the device's ext4 superblock
    long blocks = device.blockCount() - start;
    List<JournalLocation.Extent> extents = List.of(new JournalLocation.Extent(0, start + jsb, 1),
        new JournalLocation.Extent(1, start + 1, blocks - 1));
    JournalLocation loc = new JournalLocation(fs, extents, null);
    List<byte[]> users = JournalRecovery.readSuperblock(device, loc.journalMap()).users();
    if (users.stream().noneMatch(u -> java.util.Arrays.equals(u, fs.uuidBytes()))) {
      throw new Ext4FormatException(journalName, jsb * device.blockSize() + 0x100, "does not list the filesystem "
          + device.name() + " (" + fs.uuid() + ") among its " + users.size() + " users");
    }
    return loc;
  }

  /** s_jnl_backup_type when s_jnl_blocks holds a copy of the journal inode's i_block and size (EXT3_JNL_BACKUP_BLOCKS). */
  public static final int JNL_BACKUP_BLOCKS = 1;

  /**
   * The journal inode as the superblock's backup (s_jnl_blocks) describes it, as e2fsck builds it
   * when the inode itself is damaged: a regular file with one link, i_block and size from the
   * backup, extent-mapped when the copied i_block starts with an extent header.
   */
  static Ext4Inode backupInode(Ext4Superblock sb) {
    int[] j = sb.journalBackup();
    java.nio.ByteBuffer ib = java.nio.ByteBuffer.allocate(60).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < 15; i++) {
      ib.putInt(4 * i, j[i]);
    }
    long size = Integer.toUnsignedLong(j[16]) | Integer.toUnsignedLong(j[15]) << 32;
    boolean extents = Short.toUnsignedInt(ib.getShort(0)) == io.ext4j.fs.format.ExtentNode.MAGIC;
    return new Ext4Inode(sb.journalInode(), 0x8180, size, extents ? Ext4Inode.FLAG_EXTENTS : 0, 0, ib.array());
  }

  /**
   * Rewrites a damaged journal inode from the superblock's backup, as e2fsck does after it used the
   * backup: mode 0100600, one link, the backup's i_block and size, i_blocks counting the journal's
   * blocks and its map's blocks, a fresh checksum. Only when {@code loc} came from the backup; the
   * write goes straight to the device, before any journal is open. Does not flush.
   */
  public static void repairJournalInode(BlockDevice device, Ext4Superblock sb, JournalLocation loc) throws IOException {
    if (loc.damagedInode() == null) {
      return;
    }
    Ext4Inode backup = backupInode(sb);
    io.ext4j.fs.format.RawInode r = io.ext4j.fs.format.RawInode.blank(sb.inodeSize());
    r.mode(0x8180);
    r.links(1);
    r.sizeBytes(backup.size());
    r.flags(backup.flags());
    r.iBlock(backup.iBlock());
    if (sb.inodeSize() > 128) {
      r.extraIsize(32);
    }
    long mapped = loc.length();
    r.blocksRaw((mapped + mapBlocks(device, sb, backup, mapped)) * (sb.blockSize() / 512));
    long ino = sb.journalInode();
    byte[] slot = new byte[sb.inodeSize()];
    r.writeTo(slot, 0, ino, io.ext4j.fs.format.FsLayout.of(device.name(), sb).csumSeedOrNull());
    writeBytes(device, inodeOffset(device, sb, ino), slot);
  }

  /** The blocks of a file's map itself: extent tree nodes below the root, or indirect blocks. */
  private static long mapBlocks(BlockDevice device, Ext4Superblock sb, Ext4Inode inode, long mapped) throws IOException {
    if (!inode.usesExtents()) {
      long apb = sb.blockSize() / 4;
      long rest = mapped - 12;
      long n = 0;
      if (rest > 0) {
        n += 1; // the indirect block
        rest -= apb;
      }
      if (rest > 0) {
        long covered = Math.min(rest, apb * apb);
        n += 1 + Math.ceilDiv(covered, apb); // double indirect and its indirect blocks
        rest -= covered;
      }
      if (rest > 0) {
        n += 1 + Math.ceilDiv(rest, apb * apb) + Math.ceilDiv(rest, apb);
      }
      return n;
    }
    try {
      return nodesBelow(device, sb, io.ext4j.fs.format.ExtentNode.decode(inode.iBlock(), 0, 60,
          io.ext4j.fs.format.ExtentNode.ROOT_MAX, null), 0);
    } catch (io.ext4j.fs.format.ExtentNode.Malformed m) {
      throw new Ext4FormatException(device.name(), -1, "the journal inode's backup extent root: " + m.getMessage());
    }
  }

  private static long nodesBelow(BlockDevice device, Ext4Superblock sb, io.ext4j.fs.format.ExtentNode n, int depth)
      throws IOException, io.ext4j.fs.format.ExtentNode.Malformed {
    if (n.depth() == 0 || depth > 5) {
      return 0;
    }
    long count = 0;
    for (int i = 0; i < n.count(); i++) {
      byte[] b = readFsBlock(device, sb, n.values()[i]);
      count += 1 + nodesBelow(device, sb, io.ext4j.fs.format.ExtentNode.decode(b, 0, b.length,
          io.ext4j.fs.format.ExtentNode.blockMax(sb.blockSize()), null), depth + 1);
    }
    return count;
  }

  private static JournalLocation locateThrough(BlockDevice device, Ext4Superblock sb, Ext4Inode inode, String damaged)
      throws IOException {
    String name = device.name();
    if (inode.fileType() != 0x8000) {
      throw new Ext4FormatException(name, -1, String.format(
          "journal inode %d is not a regular file (mode 0%o)", inode.number(), inode.mode()));
    }
    List<MappedRange> ranges = FileBlockMap.map(name, sb, inode, block -> readFsBlock(device, sb, block));
    long fileBlocks = Math.ceilDiv(inode.size(), sb.blockSize());
    List<JournalLocation.Extent> extents = new ArrayList<>();
    long next = 0;
    for (MappedRange r : ranges) {
      if (r.logical() != next || r.uninitialized()) {
        throw new Ext4FormatException(name, -1, "journal inode " + inode.number() + " has a hole or unwritten extent at journal block "
            + next + " (next mapped range " + r + ")");
      }
      extents.add(new JournalLocation.Extent(r.logical(), r.physical(), r.length()));
      next += r.length();
    }
    if (next < fileBlocks || next == 0) {
      throw new Ext4FormatException(name, -1, "journal inode " + inode.number() + " maps " + next
          + " blocks but its size is " + inode.size() + " bytes (" + fileBlocks + " blocks)");
    }
    return new JournalLocation(sb, extents, damaged);
  }

  /**
   * Reads and decodes the superblock at byte 1024.
   *
   * @throws Ext4FormatException on a bad magic or checksum, naming the device and byte offset
   */
  public static Ext4Superblock readSuperblock(BlockDevice device) throws IOException {
    long needed = Ext4Superblock.OFFSET + Ext4Superblock.SIZE;
    if (device.blockCount() * device.blockSize() < needed) {
      throw new Ext4FormatException(device.name(), 0, "not an ext4 filesystem (device of "
          + device.blockCount() * device.blockSize() + " bytes is too small for a superblock)");
    }
    return Ext4Superblock.decode(device.name(), readBytes(device, Ext4Superblock.OFFSET, Ext4Superblock.SIZE));
  }

  /**
   * Rewrites the superblock with {@code needs_recovery} set or cleared and its checksum recomputed.
   * Not flushed (see Durability).
   *
   * @throws Ext4FormatException if the current superblock does not decode
   */
  public static void setNeedsRecovery(BlockDevice device, boolean needsRecovery) throws IOException {
    Ext4Superblock sb = readSuperblock(device);
    writeBytes(device, Ext4Superblock.OFFSET, sb.withNeedsRecovery(needsRecovery));
  }

  /**
   * Rewrites the superblock with the "errors detected" state bit set and its checksum recomputed, as
   * e2fsck does for a journal whose {@code s_errno} records an abort. Not flushed (see Durability).
   *
   * @throws Ext4FormatException if the current superblock does not decode
   */
  public static void markErrorsDetected(BlockDevice device) throws IOException {
    Ext4Superblock sb = readSuperblock(device);
    writeBytes(device, Ext4Superblock.OFFSET, sb.withErrorsDetected());
  }

  static Ext4Inode readInode(BlockDevice device, Ext4Superblock sb, long ino) throws IOException {
    if (ino < 1 || ino > sb.inodesCount()) {
      throw new Ext4FormatException(device.name(), -1, "inode " + ino + " is outside [1, " + sb.inodesCount() + "]");
    }
    long at = inodeOffset(device, sb, ino);
    byte[] bytes = readBytes(device, at, sb.inodeSize());
    return Ext4Inode.decode(device.name(), at, sb, ino, bytes, 0);
  }

  /** The byte offset on the device of inode {@code ino}'s slot in its group's inode table. */
  public static long inodeOffset(BlockDevice device, Ext4Superblock sb, long ino) throws IOException {
    long group = (ino - 1) / sb.inodesPerGroup();
    long index = (ino - 1) % sb.inodesPerGroup();
    return readGroupDescriptor(device, sb, group).inodeTable() * sb.blockSize() + index * sb.inodeSize();
  }

  static GroupDescriptor readGroupDescriptor(BlockDevice device, Ext4Superblock sb, long group) throws IOException {
    if (group >= sb.groupCount()) {
      throw new Ext4FormatException(device.name(), -1, "group " + group + " is outside the " + sb.groupCount() + " groups");
    }
    long perBlock = sb.blockSize() / sb.descriptorSize();
    boolean metaBg = (sb.featureIncompat() & Ext4Superblock.INCOMPAT_META_BG) != 0;
    if (metaBg && group / perBlock >= sb.firstMetaBg()) {
      // Meta group m's descriptors sit in the first block after group (m * perBlock)'s superblock
      // backup; only meta group 0's (group 0 always has the primary superblock) is read here.
      if (group / perBlock != 0) {
        throw new UnsupportedOperationException(device.name() + ": reading descriptors of group " + group
            + " under meta_bg is not supported");
      }
    }
    long at = (sb.firstDataBlock() + 1) * sb.blockSize() + group * sb.descriptorSize();
    byte[] bytes = readBytes(device, at, sb.descriptorSize());
    return GroupDescriptor.decode(device.name(), at, sb, group, bytes, 0);
  }

  static byte[] readFsBlock(BlockDevice device, Ext4Superblock sb, long block) throws IOException {
    return readBytes(device, block * sb.blockSize(), sb.blockSize());
  }

  /** Reads {@code length} bytes at byte {@code offset}, through the device blocks that cover them. */
  public static byte[] readBytes(BlockDevice device, long offset, int length) throws IOException {
    int bs = device.blockSize();
    long first = offset / bs;
    long last = (offset + length - 1) / bs;
    ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact((last - first + 1) * bs));
    device.read(first, buf);
    byte[] out = new byte[length];
    buf.get(Math.toIntExact(offset - first * bs), out);
    return out;
  }

  /**
   * Writes the 1024 bytes of a superblock (checksum already set) over the primary superblock. Not
   * flushed.
   */
  public static void writeSuperblockBytes(BlockDevice device, byte[] bytes) throws IOException {
    if (bytes.length != Ext4Superblock.SIZE) {
      throw new IllegalArgumentException("a superblock is " + Ext4Superblock.SIZE + " bytes, not " + bytes.length);
    }
    writeBytes(device, Ext4Superblock.OFFSET, bytes);
  }

  /** Writes {@code bytes} at byte {@code offset}: read-modify-write of the covering device blocks. */
  static void writeBytes(BlockDevice device, long offset, byte[] bytes) throws IOException {
    int bs = device.blockSize();
    long first = offset / bs;
    long last = (offset + bytes.length - 1) / bs;
    ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact((last - first + 1) * bs));
    device.read(first, buf);
    buf.put(Math.toIntExact(offset - first * bs), bytes);
    buf.clear();
    device.write(first, buf);
  }
}
