package io.ext4j.fs.alloc;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;

/**
 * Allocates and frees inode numbers in the group inode bitmaps.
 *
 * <h2>Policy (an outline of the kernel's)</h2>
 * A directory made in the root goes to the group with the fewest directories among those with at
 * least the average free inodes and free blocks (Orlov's spreading of top-level directories; ties go
 * to the first such group from a starting group the kernel draws at random, here a hash of the
 * filesystem's directory hash seed and a count of top-level directories made since it was opened,
 * so the same changes to the same image allocate the same inodes: mkfs -d with a fixed UUID is
 * reproducible); any
 * other inode goes to its parent's group, else the next group with a free inode. In the group, the
 * lowest free inode. The group's descriptor keeps its free and used-directory counts and its
 * itable_unused watermark (the kernel's: e2fsck skips slots past it); an INODE_UNINIT group's
 * bitmap is materialized first, and a BLOCK_UNINIT group's block bitmap too, as the kernel does.
 *
 * <h2>Locks and durability</h2>
 * One group lock at a time, inside the caller's Tx; changes are part of that Tx.
 */
public final class InodeAllocator {
  private final FsLayout lay;
  private final Groups groups;
  private final long spreadSeed; // from the superblock's hash seed
  private final java.util.concurrent.atomic.AtomicLong topLevelDirs = new java.util.concurrent.atomic.AtomicLong();

  public InodeAllocator(FsLayout lay, Groups groups) {
    this.lay = lay;
    this.groups = groups;
    long seed = 0x9E3779B97F4A7C15L;
    for (int w : lay.hashSeed()) {
      seed = (seed ^ (w & 0xFFFFFFFFL)) * 0xBF58476D1CE4E5B9L;
    }
    this.spreadSeed = seed;
  }

  /**
   * Allocates an inode number for a new inode whose parent directory is {@code parent}.
   *
   * @throws Ext4Exception ENOSPC when every group is out of inodes
   */
  public long allocate(Tx tx, long parent, boolean directory) throws IOException {
    int n = groups.count();
    long start = parent == 0 ? 0 : lay.groupOfInode(parent);
    if (directory && parent == 2 && n > 1) {
      start = spreadTopLevel(parent);
    }
    for (int i = 0; i < n; i++) {
      long g = (start + i) % n;
      Groups.Group grp = groups.group(g);
      GroupDescriptor d = grp.desc();
      if (d.freeInodes() == 0 || (directory && d.freeBlocks() == 0 && i < n - 1)) {
        continue;
      }
      long ino = allocateInGroup(tx, grp, directory);
      if (ino != 0) {
        return ino;
      }
    }
    throw new Ext4Exception(Errno.ENOSPC, 0, null, lay.name() + ": no free inode (" + lay.inodesCount() + " inodes, all in use)");
  }

  private long spreadTopLevel(long parent) {
    int n = groups.count();
    long avgInodes = groups.freeInodes() / n;
    long avgBlocks = groups.freeBlocks() / n;
    long best = -1;
    long bestDirs = Long.MAX_VALUE;
    long h = (spreadSeed + parent * 0x9E3779B97F4A7C15L + topLevelDirs.getAndIncrement()) * 0x94D049BB133111EBL;
    int offset = (int) Long.remainderUnsigned(h ^ (h >>> 31), n);
    for (int i = 0; i < n; i++) {
      long g = ((long) offset + i) % n;
      GroupDescriptor d = groups.group(g).desc();
      if (d.freeInodes() == 0 || d.freeInodes() < avgInodes || d.freeBlocks() < avgBlocks) {
        continue;
      }
      if (d.usedDirs() < bestDirs) {
        bestDirs = d.usedDirs();
        best = g;
      }
    }
    return best >= 0 ? best : lay.groupOfInode(parent);
  }

  private long allocateInGroup(Tx tx, Groups.Group grp, boolean directory) throws IOException {
    grp.lock.lock();
    try {
      GroupDescriptor d = grp.desc;
      if (d.freeInodes() == 0) {
        return 0;
      }
      int ipg = (int) lay.inodesPerGroup();
      int first = grp.number == 0 ? (int) (lay.firstIno() - 1) : 0;
      if (d.has(GroupDescriptor.BLOCK_UNINIT) && (lay.metadataCsum() || lay.gdtCsum())) {
        try (Buf bb = groups.blockBitmapForUpdate(tx, grp)) {
          // materialized: the group's inode table is about to be in use
        }
      }
      try (Buf bitmap = groups.inodeBitmapForUpdate(tx, grp)) {
        byte[] bits = bitmap.array();
        groups.checkInodeCounts(grp, bits);
        int index = Bitmaps.nextClear(bits, first, ipg);
        if (index >= ipg) {
          throw groups.corrupted(grp, "descriptor counts " + d.freeInodes() + " free inodes but the inode bitmap has none");
        }
        Bitmaps.set(bits, index);
        tx.dirty(bitmap);
        GroupDescriptor now = grp.desc;
        long unused = now.itableUnused();
        if ((lay.metadataCsum() || lay.gdtCsum()) && ipg - unused <= index) {
          unused = ipg - (index + 1L);
        }
        groups.update(tx, grp, now.withCounts(now.freeBlocks(), now.freeInodes() - 1, now.usedDirs() + (directory ? 1 : 0), unused)
            .withBitmapChecksums(now.blockBitmapChecksum(), groups.inodeBitmapChecksum(bits)));
        return grp.number * lay.inodesPerGroup() + index + 1;
      }
    } finally {
      grp.lock.unlock();
    }
  }

  /**
   * Frees inode {@code ino}'s number.
   *
   * @throws Ext4Exception EFSCORRUPTED if it is already free
   */
  @SuppressWarnings("GuardedBy") // the bitmap is opened in the try-with-resources just after lock(); Error Prone counts only the block as locked
  public void free(Tx tx, long ino, boolean directory) throws IOException {
    Groups.Group grp = groups.group(lay.groupOfInode(ino));
    int index = lay.indexInGroup(ino);
    grp.lock.lock();
    try (Buf bitmap = groups.inodeBitmapForUpdate(tx, grp)) {
      byte[] bits = bitmap.array();
      groups.checkInodeCounts(grp, bits);
      if (!Bitmaps.test(bits, index)) {
        throw groups.corrupted(grp, "freeing inode " + ino + ", which is already free");
      }
      Bitmaps.clear(bits, index);
      tx.dirty(bitmap);
      GroupDescriptor now = grp.desc;
      groups.update(tx, grp, now.withCounts(now.freeBlocks(), now.freeInodes() + 1, Math.max(0, now.usedDirs() - (directory ? 1 : 0)), now.itableUnused())
          .withBitmapChecksums(now.blockBitmapChecksum(), groups.inodeBitmapChecksum(bits)));
    } finally {
      grp.lock.unlock();
    }
  }

  /** Whether {@code ino}'s bit is set. */
  public boolean inUse(long ino) throws IOException {
    Groups.Group grp = groups.group(lay.groupOfInode(ino));
    return Bitmaps.test(groups.inodeBitmapCopy(grp), lay.indexInGroup(ino));
  }
}
