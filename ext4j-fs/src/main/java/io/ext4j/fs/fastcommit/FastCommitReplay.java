package io.ext4j.fs.fastcommit;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.LittleEndian;
import io.ext4j.fs.format.RawInode;
import java.io.IOException;

/**
 * Applies the fast commits {@link FastCommitArea#scan} found to a filesystem whose full commits
 * have just been replayed, the way e2fsck's fast-commit replay does (so that ext4j's recovery and
 * {@code e2fsck -E journal_only} leave the same blocks):
 * <ul>
 *   <li><b>INODE</b>: the logged inode image replaces the inode's first 128 + i_extra_isize bytes,
 *       except i_block (the mapping, which ADD_RANGE and DEL_RANGE rebuild) — an extent inode
 *       without a valid root gets an empty one, an inline-data inode takes the logged i_block;
 *       i_blocks is recounted from the mapping on disk; the inode bitmap bit follows the link count.
 *   <li><b>ADD_RANGE / DEL_RANGE</b>: change the inode's extent list in memory (the range is
 *       punched out of what is mapped, then the new extent added, adjacent extents merged); blocks
 *       no longer mapped are freed in the bitmap, every mapped block marked used. The list is
 *       written back as a new extent tree (in the inode when it has at most 4 extents) when the
 *       next record is about another inode, a dentry, or the commit's TAIL.
 *   <li><b>CREAT / LINK</b>: an entry of the same name and inode is removed, then the entry is
 *       added: in a linear directory in the first block with room (the directory grows by one
 *       block when none has), in an htree directory in the leaf its index names, splitting the
 *       leaf and growing the index when full; <b>UNLINK</b> removes the entry if it is there.
 *   <li>At the end every group's free block and inode counts, unused-inode count and the
 *       superblock's totals are recomputed from the bitmaps.
 * </ul>
 * The work is split by record: {@link ExtentReplay} (ranges), {@link EntryReplay} (entries), over
 * one {@link ReplayStore}.
 *
 * <p>Where e2fsck 1.47 does not do what the kernel does, ext4j follows the kernel: a symlink's
 * CREAT is linked (e2fsck skips it), a full linear directory grows by a block (e2fsck's link
 * fails), and no block a later ADD_RANGE maps is allocated for a tree or directory block before
 * that record is applied (e2fsck's allocator may take it, overwriting the file's data). Blocks differ from e2fsck's only where it leaves bytes it never set (past the entries of
 * an htree leaf it split) or where the allocation is not e2fsck's (an extent tree deeper than one
 * index level). An entry for an htree directory whose index is full at the depth the
 * filesystem allows fails the replay with ENOSPC, as e2fsck's does (the kernel could not have
 * made it).
 *
 * <h2>Durability and crashes</h2>
 * All writes go through a cache that {@link #run} writes back and flushes before it returns
 * (after a failure, what the cache still holds is dropped). The journal is still marked as needing recovery while this runs, so a crash during the replay repeats
 * the whole recovery: full commits are replayed again over the blocks they log, and every record
 * here states an outcome (this inode image, this mapping, this entry) rather than a change, so
 * applying them again over a partly replayed image gives the same result.
 */
public final class FastCommitReplay {
  /** What the replay did. */
  public record Stats(int commits, int records, int inodes, int entriesAdded, int entriesRemoved, int leavesSplit,
      long blocksMapped, long blocksUnmapped) {}

  private final ReplayStore store;
  private final ExtentReplay extents;
  private final EntryReplay entries;
  private int inodes; // replay thread only
  private final java.util.Set<Long> touched = new java.util.TreeSet<>(); // inodes with INODE or range records; replay thread only

  private FastCommitReplay(BlockDevice dev, Ext4Superblock sb) throws IOException {
    this.store = new ReplayStore(dev, sb);
    this.extents = new ExtentReplay(store);
    this.entries = new EntryReplay(store, extents);
  }

  /**
   * Replays {@code scan}'s records into the filesystem on {@code device} (the superblock as it is
   * now, after the full commits' replay), writes everything back and flushes.
   *
   * @throws Ext4Exception when a record cannot be applied (a structure it needs is corrupt),
   *     naming the record; nothing more is written then
   */
  public static Stats run(BlockDevice device, FastCommitArea.Scan scan) throws IOException {
    if (scan.commits() == 0) {
      return new Stats(0, 0, 0, 0, 0, 0, 0, 0);
    }
    FastCommitReplay r = new FastCommitReplay(device, Ext4JournalLocator.readSuperblock(device));
    r.store.reserve(scan.tags());
    try {
      for (FastCommitTag t : scan.tags()) {
        try {
          r.apply(t);
        } catch (Ext4Exception e) {
          throw e;
        } catch (IOException | RuntimeException e) {
          throw new Ext4Exception(Errno.EFSCORRUPTED, t.inode(), null,
              device.name() + ": fast-commit replay of " + t + " failed: " + e.getMessage(), e);
        }
      }
      r.extents.flushExtents(0);
      r.markMapped();
      r.store.recount(); // writes everything back, then the superblock
      device.flush();
    } finally {
      r.store.tx.close(); // after a failure nothing more is written: the journal still needs recovery, which starts over
    }
    return new Stats(scan.commits(), scan.tags().size(), r.inodes, r.entries.added, r.entries.removed, r.entries.splits,
        r.extents.mapped, r.extents.unmapped);
  }

  /**
   * Marks every block each inode the records touched maps (data, tree and xattr blocks) as used,
   * as the kernel's replay ends: records come per inode, not in the order the kernel made the
   * changes, so a DEL_RANGE of one inode may have freed blocks an earlier ADD_RANGE of another had
   * marked. A no-op when the records were in order.
   */
  private void markMapped() throws IOException {
    for (long ino : touched) {
      RawInode r = store.readInode(ino);
      if (r.links() == 0) {
        continue;
      }
      if (r.hasFlag(RawInode.FL_EXTENTS)) {
        java.util.List<long[]> mapping = new java.util.ArrayList<>();
        java.util.List<Long> tree = new java.util.ArrayList<>();
        extents.walk(ino, r, mapping, tree);
        for (long[] e : mapping) {
          store.setBlockBits(e[1], e[2], true);
        }
        for (long b : tree) {
          store.setBlockBits(b, 1, true);
        }
      }
      if (r.fileAcl() != 0 && r.fileAcl() < store.lay.blocksCount()) {
        store.setBlockBits(r.fileAcl(), 1, true);
      }
    }
  }

  private void apply(FastCommitTag t) throws IOException {
    if (t.tag() == FastCommitTag.INODE || t.tag() == FastCommitTag.ADD_RANGE || t.tag() == FastCommitTag.DEL_RANGE) {
      touched.add(t.inode());
    }
    switch (t.tag()) {
      case FastCommitTag.INODE -> replayInode(t);
      case FastCommitTag.ADD_RANGE -> {
        extents.flushExtents(t.inode());
        extents.load(t.inode());
        long[] e = t.extent();
        extents.modify(e[0], e[2], e);
      }
      case FastCommitTag.DEL_RANGE -> {
        extents.flushExtents(t.inode());
        extents.load(t.inode());
        long[] r = t.range();
        extents.modify(r[0], r[1], null);
      }
      case FastCommitTag.CREAT, FastCommitTag.LINK -> {
        extents.flushExtents(0);
        entries.link(t.parent(), t.name(), t.inode());
      }
      case FastCommitTag.UNLINK -> {
        extents.flushExtents(t.inode());
        entries.unlink(t.parent(), t.name(), t.inode());
      }
      case FastCommitTag.TAIL -> extents.flushExtents(0);
      default -> { } // HEAD, PAD
    }
  }

  private void replayInode(FastCommitTag t) throws IOException {
    long ino = t.inode();
    extents.flushExtents(ino);
    byte[] logged = t.rawInode();
    RawInode r = store.readInode(ino);
    byte[] raw = r.bytes();
    int len = 128;
    if (store.lay.inodeSize() > 128) {
      int extra = logged.length >= 0x82 ? LittleEndian.le16(logged, 0x80) : 0;
      if (extra < 4 || extra > store.lay.inodeSize() - 128 || 128 + extra > logged.length) {
        throw new Ext4Exception(Errno.EFSCORRUPTED, ino, null, store.dev.name() + ": fast-commit INODE record of inode " + ino
            + " has i_extra_isize " + extra + " (the inode holds " + (store.lay.inodeSize() - 128) + " extra bytes, the record "
            + (logged.length - 128) + ")");
      }
      len += extra;
    }
    System.arraycopy(logged, 0, raw, 0, RawInode.I_BLOCK);
    int afterBlock = RawInode.I_BLOCK + RawInode.I_BLOCK_SIZE;
    System.arraycopy(logged, afterBlock, raw, afterBlock, len - afterBlock);
    if (r.hasFlag(RawInode.FL_EXTENTS)) {
      if (LittleEndian.le16(raw, RawInode.I_BLOCK) != ExtentNode.MAGIC) {
        java.util.Arrays.fill(raw, RawInode.I_BLOCK, RawInode.I_BLOCK + 12, (byte) 0);
        LittleEndian.putLe16(raw, RawInode.I_BLOCK, ExtentNode.MAGIC);
        LittleEndian.putLe16(raw, RawInode.I_BLOCK + 4, ExtentNode.ROOT_MAX);
      }
    } else if (r.hasFlag(RawInode.FL_INLINE_DATA)) {
      System.arraycopy(logged, RawInode.I_BLOCK, raw, RawInode.I_BLOCK, RawInode.I_BLOCK_SIZE);
    }
    extents.setBlocks(r, extents.countBlocks(ino, r));
    store.writeInode(ino, r);
    boolean used = r.links() > 0;
    store.setInodeBit(ino, used);
    inodes++;
  }

}
