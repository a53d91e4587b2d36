package io.ext4j.tools.mkfs;

/**
 * The counts of a new filesystem: blocks, groups, inodes per group, descriptor and reserved GDT
 * blocks, reserved blocks (steps 2–6 of §2 of the format brief, as mke2fs 1.47.0's
 * {@code ext2fs_initialize} does them). Pure.
 *
 * <h2>Rules</h2>
 * <ol>
 *   <li>first data block = 1 for 1 KiB blocks, else 0; blocks per group start at 8 × block size,
 *       at most 65528.
 *   <li>inodes = the requested count, or requested blocks × block size / ratio (with 64bit clamped to
 *       2³² − 1, else refused above it); refused if inodes × inode size ≥ the filesystem's bytes. This
 *       count is fixed: later passes divide the same number by their own group count. Only if it is 0
 *       (a ratio larger than the filesystem) does each pass take one inode per 4 KiB of its own
 *       block count (one per block for blocks of 4 KiB and more). Either way at least 12
 *       (first_ino + 1). The final count (ipg × groups) must exceed 11, or lost+found has no inode.
 *   <li>r_blocks = ⌊percent × requested blocks / 100⌋ (in doubles, as mke2fs).
 *   <li>Each pass: groups = ⌈(blocks − first data block) / bpg⌉; descriptor blocks =
 *       ⌈groups / (bs / DS)⌉ (DS 64 with 64bit, else 32); ipg = ⌈inodes / groups⌉. If ipg exceeds
 *       8 × bs (one bitmap block), bpg shrinks by 8, the block count returns to the requested one
 *       (r_blocks keeps whatever an earlier pass made it) and the pass restarts; with bpg below 256 it
 *       is refused. ipg is capped at 65536 − inodes per block, then raised to fill its last inode-table
 *       block, then made at least 8 and rounded down to a multiple of 8 (table blocks recomputed); if
 *       ipg × groups exceeds 2³² − 1, ipg is lowered by one and rounded again.
 *   <li>Reserved GDT blocks (resize_inode only): room to grow to min(1024 × blocks, 2³² − 1) blocks
 *       (the 32-bit limit is taken once blocks ≥ 4194303): ⌈⌈(that − first data block) / bpg⌉ /
 *       (bs / DS)⌉ − descriptor blocks, at most bs / 4. If reserved + descriptor blocks exceed ¾ bpg,
 *       meta_bg is turned on, resize_inode off, and nothing is reserved.
 *   <li>Refused when 3 + table blocks + reserved + (meta_bg ? 1 : descriptor blocks) exceeds bpg.
 *   <li>The last group must hold its overhead — 2 + table blocks, plus 1 + descriptor blocks +
 *       reserved if it has a superblock backup — plus 50 blocks. If not, its blocks are dropped,
 *       r_blocks becomes (100 × r₀ / B₀) × blocks / 100 with r₀, B₀ the requested ones, and the pass
 *       restarts. (A lone group that cannot hold its overhead is refused.)
 * </ol>
 */
final class GroupSizing {
  static final int FIRST_INODE = 11;

  private GroupSizing() {}

  /** The result; {@code features} has meta_bg/resize_inode as rule 5 left them. */
  record Sizing(
      int blockSize,
      long blocksCount,
      long firstDataBlock,
      int blocksPerGroup,
      long groups,
      int descriptorSize,
      long descriptorBlocks,
      int inodesPerGroup,
      int inodeTableBlocks,
      long inodesCount,
      int reservedGdtBlocks,
      long reservedBlocks,
      FeatureSet features) {

    int descriptorsPerBlock() {
      return blockSize / descriptorSize;
    }
  }

  static Sizing compute(MkfsParameters p) {
    FeatureSet f = p.features();
    int bs = p.resolvedBlockSize();
    int isz = p.inodeSize();
    long fdb = bs == 1024 ? 1 : 0;
    long requested = p.requestedBlocks();
    boolean is64 = f.hasIncompat(FeatureSet.INCOMPAT_64BIT);
    int ds = is64 ? 64 : 32;

    long bytes;
    try {
      bytes = Math.multiplyExact(requested, bs);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(requested + " blocks of " + bs + " bytes overflow 2^63 bytes", e);
    }
    long inodes = p.inodesCount();
    if (inodes == 0) {
      inodes = bytes / p.resolvedInodeRatio();
      if (inodes > MkfsParameters.MAX_32) {
        if (!is64) {
          throw new IllegalArgumentException("too many inodes (" + inodes + "); raise the inode ratio");
        }
        inodes = MkfsParameters.MAX_32;
      }
    }
    if (inodes * isz >= bytes) {
      throw new IllegalArgumentException("inode size (" + isz + ") × inodes count (" + inodes
          + ") too big for a filesystem with " + requested + " blocks of " + bs);
    }
    long fixedInodes = inodes;

    long r0 = (long) (p.reservedPercent() * requested / 100.0);
    long reserved = r0;
    int bpg = Math.min(8 * bs, 65528);
    long blocks = requested;
    while (true) {
      long groups = ceilDiv(blocks - fdb, bpg);
      long descBlocks = ceilDiv(groups, bs / ds);
      inodes = fixedInodes != 0 ? fixedInodes : defaultInodes(blocks, bs, is64);
      inodes = Math.max(inodes, FIRST_INODE + 1);
      long ipg = ceilDiv(inodes, groups);
      if (ipg > 8L * bs) {
        if (bpg < 256) {
          throw new IllegalArgumentException("too many inodes (" + inodes + ") for " + groups + " groups");
        }
        bpg -= 8;
        blocks = requested;
        continue;
      }
      ipg = Math.min(ipg, 65536 - bs / isz);
      int itb;
      long filled;
      while (true) {
        long tableBlocks = ceilDiv(ipg * isz, bs);
        filled = Math.max(tableBlocks * bs / isz, 8) & ~7L;
        itb = (int) ceilDiv(filled * isz, bs);
        if (filled * groups <= MkfsParameters.MAX_32) {
          break;
        }
        ipg--;
      }

      int rsv = f.hasCompat(FeatureSet.COMPAT_RESIZE_INODE) ? reservedGdt(blocks, fdb, bpg, bs, ds, descBlocks) : 0;
      if (rsv + descBlocks > bpg * 3L / 4) {
        f = f.withIncompat(FeatureSet.INCOMPAT_META_BG, true).withCompat(FeatureSet.COMPAT_RESIZE_INODE, false);
        rsv = 0;
      }
      boolean metaBg = f.hasIncompat(FeatureSet.INCOMPAT_META_BG);
      long maxOverhead = 3L + itb + rsv + (metaBg ? 1 : descBlocks);
      if (maxOverhead > bpg) {
        throw new IllegalArgumentException("too many inodes: a group's metadata (" + maxOverhead
            + " blocks) exceeds its " + bpg + " blocks");
      }
      long lastOverhead = 2L + itb + (hasSuper(f, groups - 1) ? 1 + descBlocks + rsv : 0);
      long rem = (blocks - fdb) % bpg;
      if (groups == 1 && rem != 0 && rem < lastOverhead) {
        throw new IllegalArgumentException("filesystem too small: " + blocks + " blocks cannot hold one group's "
            + lastOverhead + " blocks of metadata");
      }
      if (rem != 0 && rem < lastOverhead + 50) {
        if (groups == 1) {
          throw new IllegalArgumentException("filesystem too small: " + blocks + " blocks");
        }
        blocks -= rem;
        reserved = (long) (100.0 * r0 / requested * blocks / 100.0);
        continue;
      }
      if (filled * groups < FIRST_INODE + 1) {
        throw new IllegalArgumentException("only " + filled * groups + " inodes: lost+found (inode "
            + FIRST_INODE + ") cannot be allocated");
      }
      return new Sizing(bs, blocks, fdb, bpg, groups, ds, descBlocks, (int) filled, itb, filled * groups,
          rsv, reserved, f);
    }
  }

  /** The inode count of a pass when the ratio gave none: one per 4 KiB (per block if larger). */
  static long defaultInodes(long blocks, int bs, boolean is64) {
    long n = blocks / Math.max(1, 4096 / bs);
    return is64 && n > MkfsParameters.MAX_32 ? MkfsParameters.MAX_32 : n;
  }

  /** Reserved GDT blocks for growth to min(1024 × blocks, 2³² − 1) blocks (rule 5). */
  static int reservedGdt(long blocks, long fdb, int bpg, int bs, int ds, long descBlocks) {
    long max = MkfsParameters.MAX_32;
    if (blocks < max / 1024) {
      max = blocks * 1024;
    }
    long groups = ceilDiv(max - fdb, bpg);
    long rsv = ceilDiv(groups, bs / ds) - descBlocks;
    return (int) Math.max(0, Math.min(rsv, bs / 4));
  }

  /**
   * Whether group {@code g} holds a superblock and descriptor copy: group 0 always; every group without
   * sparse_super; else groups 1 and powers of 3, 5 and 7.
   */
  static boolean hasSuper(FeatureSet f, long g) {
    if (g == 0 || !f.hasRoCompat(FeatureSet.RO_COMPAT_SPARSE_SUPER) || g == 1) {
      return true;
    }
    if ((g & 1) == 0) {
      return false;
    }
    return isPowerOf(g, 3) || isPowerOf(g, 5) || isPowerOf(g, 7);
  }

  private static boolean isPowerOf(long g, int base) {
    long x = base;
    while (x < g) {
      x *= base;
    }
    return x == g;
  }

  static long ceilDiv(long a, long b) {
    return Math.ceilDiv(a, b);
  }
}
