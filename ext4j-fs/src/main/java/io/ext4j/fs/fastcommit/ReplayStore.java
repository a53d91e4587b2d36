package io.ext4j.fs.fastcommit;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.alloc.Bitmaps;
import io.ext4j.fs.alloc.Groups;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.format.OrphanBlock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.SuperblockEditor;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.meta.UnjournaledStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the fast-commit replay works on: the filesystem's layout, its metadata through a cache
 * without a journal (one open Tx), its groups and bitmaps; raw inode reads and writes (checksums
 * set), block and inode bitmap changes, first-fit allocation and, at the end, the counts
 * recomputed. Used by one replay thread only.
 *
 * <h2>Durability</h2>
 * Changes are made in the cache; {@link #recount} writes them back, then the superblock, and the
 * caller flushes.
 */
final class ReplayStore {
  final BlockDevice dev;
  final FsLayout lay;
  final UnjournaledStore meta;
  final Groups groups;
  final Tx tx;

  ReplayStore(BlockDevice dev, Ext4Superblock sb) throws IOException {
    this.dev = dev;
    this.lay = FsLayout.of(dev.name(), sb);
    this.meta = new UnjournaledStore(dev, new BlockCache(dev, BlockCache.Options.ofBytes(16L << 20, lay.blockSize())));
    this.groups = Groups.load(lay, sb, meta);
    this.tx = meta.begin(0, 0);
  }

  void checkIno(long ino) throws Ext4Exception {
    if (ino < 1 || ino > lay.inodesCount()) {
      throw new Ext4Exception(Errno.EFSCORRUPTED, ino, null, dev.name() + ": fast commit names inode " + ino
          + ", outside [1, " + lay.inodesCount() + "]");
    }
  }

  long inodeBlock(long ino) {
    GroupDescriptor d = groups.group(lay.groupOfInode(ino)).desc();
    return lay.inodeBlock(d.inodeTable(), ino);
  }

  RawInode readInode(long ino) throws IOException {
    checkIno(ino);
    try (Buf b = meta.read(inodeBlock(ino))) {
      return new RawInode(b.array(), lay.inodeOffset(ino), lay.inodeSize());
    }
  }

  void writeInode(long ino, RawInode r) throws IOException {
    try (Buf b = tx.read(inodeBlock(ino))) {
      tx.modify(b);
      r.writeTo(b.array(), lay.inodeOffset(ino), ino, lay.csumSeedOrNull());
      tx.dirty(b);
    }
  }

  Integer inodeSeed(long ino, RawInode r) {
    return lay.metadataCsum() ? OrphanBlock.inodeSeed(lay.checksumSeed(), (int) ino, r.generation()) : null;
  }

  long flexGroupOf(long ino) {
    long g = lay.groupOfInode(ino);
    int per = Math.max(1, lay.groupsPerFlex());
    return g - g % per;
  }

  @SuppressWarnings("GuardedBy") // the bitmap is opened in the try-with-resources just after lock(); Error Prone counts only the block as locked
  void setBlockBits(long first, long count, boolean used) throws IOException {
    long b = first;
    long end = first + count;
    while (b < end) {
      long g = lay.groupOfBlock(b);
      long gFirst = lay.groupFirstBlock(g);
      long gEnd = Math.min(end, gFirst + lay.groupBlockCount(g));
      Groups.Group group = groups.group(g);
      group.lock.lock();
      try (Buf bits = groups.blockBitmapForUpdate(tx, group)) {
        for (long x = b; x < gEnd; x++) {
          if (used) {
            Bitmaps.set(bits.array(), (int) (x - gFirst));
          } else {
            Bitmaps.clear(bits.array(), (int) (x - gFirst));
          }
        }
        tx.dirty(bits);
      } finally {
        group.lock.unlock();
      }
      b = gEnd;
    }
  }

  /**
   * Physical blocks some ADD_RANGE of the replay maps, sorted {start, end} runs: free in the bitmap
   * until their record is applied, never to be allocated before (the kernel's replay keeps the
   * same list, from its scan pass). Set once before the replay.
   */
  private long[][] reserved = new long[0][];

  /** Keeps {@link #allocate} away from every block the records {@code tags} map. */
  void reserve(List<FastCommitTag> tags) {
    List<long[]> runs = new ArrayList<>();
    for (FastCommitTag t : tags) {
      if (t.tag() == FastCommitTag.ADD_RANGE) {
        long[] e = t.extent();
        runs.add(new long[] {e[1], e[1] + e[2]});
      }
    }
    runs.sort(java.util.Comparator.comparingLong(r -> r[0]));
    reserved = runs.toArray(long[][]::new);
  }

  private boolean isReserved(long block) {
    for (long[] r : reserved) { // few runs: one per logged range
      if (block >= r[0] && block < r[1]) {
        return true;
      }
      if (r[0] > block) {
        break;
      }
    }
    return false;
  }

  /** The first free block at or after {@code goal} (wrapping) that no record maps, marked used. */
  long allocate(long goal, long ino) throws IOException {
    long n = lay.blocksCount() - lay.firstDataBlock();
    long start = Math.max(lay.firstDataBlock(), Math.min(goal, lay.blocksCount() - 1));
    long bitsGroup = -1;
    byte[] bits = null; // the group's bitmap, copied once per group the search enters
    for (long i = 0; i < n; i++) {
      long b = start + i;
      if (b >= lay.blocksCount()) {
        b -= n;
      }
      long g = lay.groupOfBlock(b);
      if (g != bitsGroup) {
        bits = groups.blockBitmapCopy(groups.group(g));
        bitsGroup = g;
      }
      if (!groups.overlapsSystemZone(b, 1) && !isReserved(b) && !Bitmaps.test(bits, (int) (b - lay.groupFirstBlock(g)))) {
        setBlockBits(b, 1, true);
        return b;
      }
    }
    throw new Ext4Exception(Errno.ENOSPC, ino, null, dev.name() + ": no free block for the fast-commit replay");
  }

  @SuppressWarnings("GuardedBy") // the bitmap is opened in the try-with-resources just after lock(); Error Prone counts only the block as locked
  void setInodeBit(long ino, boolean used) throws IOException {
    Groups.Group group = groups.group(lay.groupOfInode(ino));
    group.lock.lock();
    try (Buf bits = groups.inodeBitmapForUpdate(tx, group)) {
      if (used) {
        Bitmaps.set(bits.array(), lay.indexInGroup(ino));
      } else {
        Bitmaps.clear(bits.array(), lay.indexInGroup(ino));
      }
      tx.dirty(bits);
    } finally {
      group.lock.unlock();
    }
  }

  /**
   * Recomputes every group's counts and the superblock's totals from the bitmaps, as e2fsck does
   * after a replay; as there, no block bitmap stays uninitialized (BLOCK_UNINIT is cleared, the
   * bitmap written), then writes everything back.
   */
  void recount() throws IOException {
    long freeBlocks = 0;
    long freeInodes = 0;
    boolean uninitBg = lay.metadataCsum() || lay.gdtCsum();
    for (int gi = 0; gi < groups.count(); gi++) {
      Groups.Group g = groups.group(gi);
      g.lock.lock();
      try {
        if (g.desc().has(GroupDescriptor.BLOCK_UNINIT)) {
          // e2fsck writes every group's block bitmap after its replay, none left uninitialized
          groups.blockBitmapForUpdate(tx, g).close();
        }
        GroupDescriptor d = g.desc();
        byte[] bb = groups.blockBitmapCopy(g);
        int blocks = lay.groupBlockCount(gi);
        long fb = (long) blocks - Bitmaps.countSetRange(bb, 0, blocks);
        int ipg = (int) lay.inodesPerGroup();
        byte[] ib = groups.inodeBitmapCopy(g);
        long fi = (long) ipg - Bitmaps.countSetRange(ib, 0, ipg);
        long unused = d.itableUnused();
        if (uninitBg && fi < ipg) {
          int last = ipg - 1;
          while (last >= 0 && !Bitmaps.test(ib, last)) {
            last--;
          }
          unused = (long) ipg - (last + 1);
        }
        GroupDescriptor now = d.withCounts(fb, fi, d.usedDirs(), unused)
            .withBitmapChecksums(groups.blockBitmapChecksum(bb),
                d.has(GroupDescriptor.INODE_UNINIT) ? d.inodeBitmapChecksum() : groups.inodeBitmapChecksum(ib));
        if (!now.equals(d)) {
          groups.update(tx, g, now);
        }
        freeBlocks += fb;
        freeInodes += fi;
      } finally {
        g.lock.unlock();
      }
    }
    meta.sync();
    byte[] raw = Ext4JournalLocator.readBytes(dev, Ext4Superblock.OFFSET, Ext4Superblock.SIZE);
    if (Ext4Superblock.decodeIgnoringChecksum(dev.name(), raw).freeBlocksCount() != freeBlocks
        || Ext4Superblock.decodeIgnoringChecksum(dev.name(), raw).freeInodesCount() != freeInodes) {
      SuperblockEditor e = new SuperblockEditor(raw).freeBlocksCount(freeBlocks).freeInodesCount(freeInodes);
      Ext4JournalLocator.writeSuperblockBytes(dev, e.encode());
    }
  }
}
