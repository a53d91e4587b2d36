package io.ext4j.tools.mkfs;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/** Runs the steps listed in {@link Geometry}'s doc, in order. Pure; package-private. */
final class LayoutPlanner {
  private LayoutPlanner() {}

  static Geometry plan(MkfsParameters p) {
    rejectUnmodelled(p.features());
    GroupSizing.Sizing s = GroupSizing.compute(p);
    FeatureSet f = s.features();
    int groups = Math.toIntExact(s.groups());
    long fdb = s.firstDataBlock();
    int logFlex = f.hasIncompat(FeatureSet.INCOMPAT_FLEX_BG) ? p.logGroupsPerFlex() : 0;

    // 1. superblock, descriptor and reserved GDT copies
    BlockSpace space = new BlockSpace(fdb, s.blocksCount(), s.blocksPerGroup(), groups);
    boolean metaBg = f.hasIncompat(FeatureSet.INCOMPAT_META_BG);
    int[] descIn = new int[groups];
    int[] rsvIn = new int[groups];
    long freeForJournalCheck = 0; // mke2fs's free count before it places tables: without them under flex_bg
    for (int g = 0; g < groups; g++) {
      boolean sb = GroupSizing.hasSuper(f, g);
      descIn[g] = metaBg ? metaBgDescriptorBlocks(g, s.descriptorsPerBlock()) : sb ? (int) s.descriptorBlocks() : 0;
      rsvIn[g] = sb ? s.reservedGdtBlocks() : 0;
      space.markUsed(space.groupFirst(g), (sb ? 1 : 0) + descIn[g] + rsvIn[g]);
      freeForJournalCheck += space.freeInGroup(g) - (logFlex == 0 ? 2 + s.inodeTableBlocks() : 0);
    }

    // 2. bitmaps and tables; the free counts before any file
    GroupTables tables = GroupTables.place(space, groups, s.blocksPerGroup(), s.inodeTableBlocks(), logFlex);
    int[] freeBefore = new int[groups];
    long metadata = 0;
    for (int g = 0; g < groups; g++) {
      freeBefore[g] = space.freeInGroup(g);
      metadata += space.groupLast(g) - space.groupFirst(g) + 1 - freeBefore[g];
    }

    // 3. mke2fs's files, in its order
    long journalBlocks = journalBlocks(p, f, s.blocksCount(), freeForJournalCheck);
    if (journalBlocks == 0) {
      f = f.withCompat(FeatureSet.COMPAT_HAS_JOURNAL, false).withCompat(FeatureSet.COMPAT_ORPHAN_FILE, false);
    }
    long orphanBlocks = !f.hasCompat(FeatureSet.COMPAT_ORPHAN_FILE) ? 0
        : p.orphanFileBlocks() > 0 ? p.orphanFileBlocks() : defaultOrphanBlocks(s.blocksCount());
    FilePlacement place = new FilePlacement(space, s.blockSize(), groups, s.inodesPerGroup(), logFlex);
    FileBlocks root = place.blockByBlock(1, place.inodeGoal(2));
    FileBlocks lostFound = place.blockByBlock(FilePlacement.lostFoundBlocks(s.blockSize()),
        place.inodeGoal(GroupSizing.FIRST_INODE));
    long dind = f.hasCompat(FeatureSet.COMPAT_RESIZE_INODE)
        ? place.one(fdb + s.descriptorBlocks() + s.reservedGdtBlocks() + 2 + s.inodeTableBlocks())
        : 0;
    FileBlocks journal = journalBlocks > 0
        ? place.preallocate(journalBlocks, space.groupFirst(place.journalGroup(fdb)))
        : FileBlocks.NONE;
    FileBlocks orphan = orphanBlocks > 0 ? place.blockByBlock(orphanBlocks, fdb) : FileBlocks.NONE;

    // 4. flags and counts
    BitSet initializedBitmaps = tables.hosts();
    initializedBitmaps.or(place.touched());
    initializedBitmaps.or(newInodeGroups(s.inodesPerGroup(), orphanBlocks > 0));
    long usedInodes = (long) GroupSizing.FIRST_INODE + (orphanBlocks > 0 ? 1 : 0);
    boolean csum = f.hasGroupDescriptorChecksums();
    boolean zeroed = !p.lazyItableInit() || p.targetReadsZeros();
    List<GroupLayout> layouts = new ArrayList<>(groups);
    for (int g = 0; g < groups; g++) {
      int used = Math.clamp(usedInodes - (long) g * s.inodesPerGroup(), 0, s.inodesPerGroup());
      int flags = zeroed ? GroupLayout.ITABLE_ZEROED : 0;
      if (csum && used == 0) {
        flags |= GroupLayout.INODE_UNINIT;
      }
      if (csum && g != groups - 1 && !initializedBitmaps.get(g)) {
        flags |= GroupLayout.BLOCK_UNINIT;
      }
      layouts.add(new GroupLayout(g, space.groupFirst(g), (int) (space.groupLast(g) - space.groupFirst(g) + 1),
          GroupSizing.hasSuper(f, g), descIn[g], rsvIn[g], tables.blockBitmap(g), tables.inodeBitmap(g),
          tables.inodeTable(g), flags, csum ? s.inodesPerGroup() - used : 0, used, freeBefore[g],
          freeBefore[g] - space.freeInGroup(g)));
    }
    return new Geometry(s.blockSize(), s.blocksCount(), fdb, s.blocksPerGroup(), s.inodesPerGroup(), groups,
        s.inodesCount(), p.inodeSize(), s.inodeTableBlocks(), s.descriptorSize(), s.descriptorBlocks(),
        s.reservedGdtBlocks(), s.reservedBlocks(), f, logFlex, 0, fdb + metadata + journal.dataBlocks(), layouts,
        new Geometry.Files(root, lostFound, dind, journal, orphan));
  }

  /**
   * The journal's size: 0 without has_journal or under 2048 blocks (even when a size was asked for);
   * else the asked-for size — 1024…10 240 000 blocks and at most half of {@code freeBlocks} — or the
   * default for the block count.
   */
  private static long journalBlocks(MkfsParameters p, FeatureSet f, long blocks, long freeBlocks) {
    long byDefault = f.hasCompat(FeatureSet.COMPAT_HAS_JOURNAL) ? defaultJournalBlocks(blocks) : 0;
    if (byDefault == 0 || p.journalBlocks() <= 0) {
      return byDefault;
    }
    long asked = p.journalBlocks();
    if (asked < 1024 || asked > 10_240_000) {
      throw new IllegalArgumentException("the requested journal of " + asked + " blocks is not between 1024 and 10240000 blocks");
    }
    if (asked > freeBlocks / 2) {
      throw new IllegalArgumentException("total journal size too big for filesystem: " + asked
          + " blocks, more than half of the " + freeBlocks + " free blocks");
    }
    return asked;
  }

  /**
   * Groups that lose BLOCK_UNINIT to inode allocation. mke2fs gives root its fixed inode 2, then
   * allocates lost+found (11) as a new inode, marks 3–10 and 1, then allocates the orphan file (12)
   * as a new inode; a new inode taken from a group that no earlier inode touched (still INODE_UNINIT)
   * initializes that group's bitmaps, clearing BLOCK_UNINIT too. That happens only with fewer than
   * 11 inodes per group (lost+found outside group 0).
   */
  static BitSet newInodeGroups(int inodesPerGroup, boolean orphanFile) {
    BitSet touchedByInode = new BitSet();
    BitSet cleared = new BitSet();
    touchedByInode.set(groupOfInode(2, inodesPerGroup));
    long[] order = orphanFile ? new long[] {11, 3, 4, 5, 6, 7, 8, 9, 10, 1, 12} : new long[] {11, 3, 4, 5, 6, 7, 8, 9, 10, 1};
    for (long ino : order) {
      int g = groupOfInode(ino, inodesPerGroup);
      boolean allocatedAsNew = ino == 11 || ino == 12;
      if (allocatedAsNew && !touchedByInode.get(g)) {
        cleared.set(g);
      }
      touchedByInode.set(g);
    }
    return cleared;
  }

  private static int groupOfInode(long ino, int inodesPerGroup) {
    return (int) ((ino - 1) / inodesPerGroup);
  }

  /** With meta_bg (s_first_meta_bg 0): one descriptor block in each meta group's first, second and last group. */
  static int metaBgDescriptorBlocks(long g, int descriptorsPerBlock) {
    long at = g % descriptorsPerBlock;
    return at == 0 || at == 1 || at == descriptorsPerBlock - 1 ? 1 : 0;
  }

  /** The default journal size in blocks for a filesystem of {@code blocks} blocks; 0 = too small for one. */
  static long defaultJournalBlocks(long blocks) {
    long ki = 1024;
    if (blocks < 2048) {
      return 0;
    } else if (blocks < 32 * ki) {
      return 1024;
    } else if (blocks < 256 * ki) {
      return 4096;
    } else if (blocks < 512 * ki) {
      return 8192;
    } else if (blocks < 4096 * ki) {
      return 16384;
    } else if (blocks < 8192 * ki) {
      return 32768;
    } else if (blocks < 16384 * ki) {
      return 65536;
    } else if (blocks < 32768 * ki) {
      return 131072;
    }
    return 262144;
  }

  /** The default orphan file size: 32 blocks under 128 Ki blocks, else blocks / 4096 but at most 512. */
  static long defaultOrphanBlocks(long blocks) {
    return blocks < 128 * 1024 ? 32 : Math.min(512, blocks / 4096);
  }

  private static void rejectUnmodelled(FeatureSet f) {
    reject(f.hasRoCompat(FeatureSet.RO_COMPAT_BIGALLOC), "bigalloc: cluster geometry is not modelled");
    reject(f.hasCompat(FeatureSet.COMPAT_SPARSE_SUPER2), "sparse_super2: its two backups are not modelled");
    reject(f.hasRoCompat(FeatureSet.RO_COMPAT_QUOTA) || f.hasRoCompat(FeatureSet.RO_COMPAT_PROJECT),
        "quota/project: quota inodes are not modelled");
    reject(f.hasIncompat(FeatureSet.INCOMPAT_MMP), "mmp: the MMP block is not modelled");
    reject(f.hasCompat(FeatureSet.COMPAT_FAST_COMMIT), "fast_commit: the fast-commit area is not modelled");
    reject(f.hasIncompat(FeatureSet.INCOMPAT_INLINE_DATA), "inline_data: inline root and lost+found are not modelled");
    reject(f.hasIncompat(FeatureSet.INCOMPAT_JOURNAL_DEV), "journal_dev: an external journal device has no groups");
    reject(!f.hasIncompat(FeatureSet.INCOMPAT_EXTENTS)
            && (f.hasCompat(FeatureSet.COMPAT_HAS_JOURNAL) || f.hasCompat(FeatureSet.COMPAT_ORPHAN_FILE)),
        "a block-mapped (no extent feature) journal or orphan file is not modelled");
  }

  private static void reject(boolean unmodelled, String what) {
    if (unmodelled) {
      throw new UnsupportedOperationException(what);
    }
  }
}
