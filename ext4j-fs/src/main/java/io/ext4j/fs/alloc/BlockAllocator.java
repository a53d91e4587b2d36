package io.ext4j.fs.alloc;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.MetaStore;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;

/**
 * Allocates and frees blocks in the group bitmaps.
 *
 * <h2>Policy</h2>
 * A request names a goal block (the block after the file's last one, or its group's start) and a
 * length range {@code [min, want]}. The goal's group is searched first: a free run starting at the
 * goal, else the first run of {@code want} blocks after it, else the longest run of at least
 * {@code min} blocks in the group; then the following groups in order, wrapping. Files written
 * sequentially thus stay contiguous, and new files of one directory land near each other.
 *
 * <h2>Freed blocks</h2>
 * A free clears the bits in the same transaction, but with a journal the blocks stay unusable for
 * new allocations until that transaction's commit is durable ({@link PendingFrees}): after a crash
 * that loses the freeing transaction, the old owner must not find someone else's data in them.
 *
 * <h2>Locks and durability</h2>
 * One group lock at a time, taken inside the caller's Tx (see {@link Groups}). Bitmap and
 * descriptor changes are part of the caller's Tx.
 */
public final class BlockAllocator {
  private final FsLayout lay;
  private final Groups groups;
  private final MetaStore meta;
  private final java.util.concurrent.ConcurrentHashMap<Long, long[]> newFileGoals = new java.util.concurrent.ConcurrentHashMap<>(); // flex group's first group -> {goal, freedBlocks when computed, reuses}; each array guarded by itself

  public BlockAllocator(FsLayout lay, Groups groups, MetaStore meta) {
    this.lay = lay;
    this.groups = groups;
    this.meta = meta;
  }

  /** An allocated run of blocks. */
  public record Run(long start, int length) {
    public long end() {
      return start + length;
    }
  }

  /**
   * How many blocks the calls in this scope must leave free: set by the engine for a caller that may
   * not use the root-reserved blocks (ext4_has_free_clusters); unbound means none.
   */
  public static final ScopedValue<Long> KEEP_FREE = ScopedValue.newInstance();

  /**
   * Allocates between {@code min} and {@code want} contiguous blocks near {@code goal} (any value;
   * out-of-range goals mean the first data group).
   *
   * @throws Ext4Exception ENOSPC when no group has {@code min} contiguous usable blocks
   */
  public Run allocate(Tx tx, long goal, int min, int want) throws IOException {
    if (min < 1 || want < min) {
      throw new IllegalArgumentException("allocation of [" + min + ", " + want + "] blocks");
    }
    long keep = KEEP_FREE.orElse(0L);
    if (keep > 0) {
      long room = groups.freeBlocks() - keep;
      if (room < min) {
        throw new Ext4Exception(Errno.ENOSPC, 0, null, lay.name() + ": " + groups.freeBlocks() + " blocks free, and "
            + keep + " of them are reserved for root (-m) and for the filesystem's own use");
      }
      want = (int) Math.min(want, room);
    }
    if (goal < lay.firstDataBlock() || goal >= lay.blocksCount()) {
      goal = lay.firstDataBlock();
    }
    long g0 = lay.groupOfBlock(goal);
    int n = groups.count();
    for (int i = 0; i < n; i++) {
      long g = (g0 + i) % n;
      Groups.Group grp = groups.group(g);
      if (grp.desc().freeBlocks() < min) {
        continue;
      }
      int offset = g == g0 ? (int) (goal - lay.groupFirstBlock(g)) : 0;
      Run r = allocateInGroup(tx, grp, offset, min, want);
      if (r != null) {
        return r;
      }
    }
    throw new Ext4Exception(Errno.ENOSPC, 0, null, lay.name() + ": no free run of " + min + " blocks ("
        + groups.freeBlocks() + " blocks free" + (meta.journaled() ? ", some perhaps waiting for their freeing commit" : "") + ")");
  }

  /**
   * Where a new file's data should start: the start of the longest free span (runs may continue
   * across group boundaries) among the groups of the inode's flex group, so that a file that turns
   * out large is laid out in as few extents as the space allows, while small files still pack
   * together near their inode. Falls back to the flex group's first block. The answer is a hint,
   * computed again after {@value #GOAL_REUSES} new files or {@value #FREED_BEFORE_RECOMPUTE} freed
   * blocks: computing it scans the bitmaps of the whole flex group.
   */
  public long goalForNewFile(long ino) {
    int flex = Math.max(1, lay.groupsPerFlex());
    long first = lay.groupOfInode(ino) / flex * flex;
    long freed = groups.freedBlocks();
    long[] cached = newFileGoals.get(first);
    if (cached != null) {
      synchronized (cached) {
        // Allocations only shorten the chosen span from its start, and the allocator goes on from the
        // goal to the next free block; only frees can make another span the longest, and a few
        // freed blocks (a small file's unlink) rarely do.
        if (freed - cached[1] < FREED_BEFORE_RECOMPUTE && cached[2] < GOAL_REUSES) {
          cached[2]++;
          return cached[0];
        }
      }
    }
    long goal = longestSpanStart(first, Math.min(groups.count(), first + flex));
    newFileGoals.put(first, new long[] {goal, freed, 0});
    return goal;
  }

  /** How many new files start at one computed goal before it is computed again. */
  private static final int GOAL_REUSES = 256;

  /**
   * How many blocks may be freed (anywhere) before the goal is computed again: computing it scans
   * the group's bitmap for its longest free span, too costly to repeat after every free in a
   * create-and-unlink workload.
   */
  private static final int FREED_BEFORE_RECOMPUTE = 1024;

  /** The start of the longest free run of groups [first, end) (runs continue across group boundaries). */
  private long longestSpanStart(long first, long end) {
    long bestStart = lay.groupFirstBlock(first);
    long bestLen = 0;
    long runStart = -1;
    long runLen = 0;
    for (long g = first; g < end; g++) {
      int[] s;
      try {
        s = spans(groups.group(g));
      } catch (IOException e) {
        return lay.groupFirstBlock(first); // a bad bitmap shows up when allocating; no placement hint here
      }
      int count = lay.groupBlockCount(g);
      long gStart = lay.groupFirstBlock(g);
      if (runLen > 0 && s[0] > 0) {
        runLen += s[0]; // the span goes on into this group
      } else {
        runStart = gStart;
        runLen = s[0];
      }
      if (runLen > bestLen) {
        bestLen = runLen;
        bestStart = runStart;
      }
      if (s[0] == count) {
        continue; // a wholly free group: the span may continue
      }
      if (s[3] > bestLen) {
        bestLen = s[3];
        bestStart = gStart + s[2];
      }
      runStart = gStart + count - s[1];
      runLen = s[1];
      if (runLen > bestLen) {
        bestLen = runLen;
        bestStart = runStart;
      }
    }
    return bestStart;
  }

  /** The group's free-run summary, computed from its bitmap when stale. */
  private int[] spans(Groups.Group grp) throws IOException {
    grp.lock.lock();
    try {
      if (grp.spans != null) {
        return grp.spans;
      }
      grp.pending.expire(meta::isCommitted);
      int count = lay.groupBlockCount(grp.number);
      byte[] bits = groups.blockBitmapCopy(grp);
      int head = 0;
      int bestStart = 0;
      int bestLen = 0;
      int i = 0;
      int lastEnd = 0;
      int tail = 0;
      while (i < count) {
        i = Bitmaps.nextClear(bits, i, count);
        if (i >= count) {
          break;
        }
        int skipped = grp.pending.skip(i);
        if (skipped != i) {
          i = skipped;
          continue;
        }
        int e = Math.min(Math.min(Bitmaps.nextSet(bits, i, count), grp.pending.nextPending(i)), count);
        if (i == 0) {
          head = e;
        }
        if (e - i > bestLen) {
          bestLen = e - i;
          bestStart = i;
        }
        lastEnd = e;
        tail = e == count ? e - i : 0;
        i = e;
      }
      if (lastEnd < count) {
        tail = 0;
      }
      grp.spans = new int[] {head, tail, bestStart, bestLen};
      return grp.spans;
    } finally {
      grp.lock.unlock();
    }
  }

  /**
   * Whether {@code [start, start + length)} may belong to a file: inside the filesystem and clear of
   * group metadata (what the kernel's block_validity checks of every extent and block pointer).
   */
  public boolean validFileBlocks(long start, long length) {
    return length > 0 && start >= lay.firstDataBlock() && start + length <= lay.blocksCount() && start + length > start
        && !groups.overlapsSystemZone(start, length);
  }

  /** Whether some freed blocks wait for a commit before they can be reused (a reason to commit and retry on ENOSPC). */
  public boolean hasPendingFrees() {
    for (int g = 0; g < groups.count(); g++) {
      Groups.Group grp = groups.group(g);
      grp.lock.lock();
      try {
        grp.pending.expire(meta::isCommitted);
        if (!grp.pending.isEmpty()) {
          return true;
        }
      } finally {
        grp.lock.unlock();
      }
    }
    return false;
  }

  // The bitmap callback below runs synchronously inside readBlockBitmap, under grp.lock taken here;
  // Error Prone cannot see into the lambda.
  @SuppressWarnings("GuardedBy")
  private Run allocateInGroup(Tx tx, Groups.Group grp, int offset, int min, int want) throws IOException {
    grp.lock.lock();
    try {
      PendingFrees pending = grp.pending;
      pending.expire(meta::isCommitted);
      GroupDescriptor d = grp.desc;
      if (d.freeBlocks() - pending.blocks() < min) {
        return null;
      }
      int count = lay.groupBlockCount(grp.number);
      int[] found = groups.readBlockBitmap(grp, view -> {
        groups.checkBlockCounts(grp, view);
        return find(view, pending, count, Math.min(offset, count), min, want);
      });
      if (found == null) {
        return null;
      }
      int start = found[0];
      int len = found[1];
      long first = lay.groupFirstBlock(grp.number) + start;
      if (groups.overlapsSystemZone(first, len)) {
        throw groups.corrupted(grp, "the block bitmap (block " + d.blockBitmap() + ") marks blocks " + first + "+" + len
            + " free, but they hold filesystem metadata");
      }
      try (Buf bitmap = groups.blockBitmapForUpdate(tx, grp)) {
        byte[] bits = bitmap.array();
        if (!Bitmaps.allClear(bits, start, start + len)) {
          throw groups.corrupted(grp, "bitmap changed under its lock at blocks " + start + "+" + len);
        }
        Bitmaps.setRange(bits, start, start + len);
        tx.dirty(bitmap);
        GroupDescriptor now = grp.desc;
        groups.update(tx, grp, now.withCounts(now.freeBlocks() - len, now.freeInodes(), now.usedDirs(), now.itableUnused())
            .withBitmapChecksums(groups.blockBitmapChecksum(bits), now.inodeBitmapChecksum()));
      }
      return new Run(lay.groupFirstBlock(grp.number) + start, len);
    } finally {
      grp.lock.unlock();
    }
  }

  /**
   * Chooses a run in a group's bitmap: at the goal if free, else the first run of {@code want} at or
   * after it, else the longest run of at least {@code min} anywhere. Returns {start, length} or null.
   */
  static int[] find(byte[] bits, PendingFrees pending, int count, int goal, int min, int want) {
    int bestStart = -1;
    int bestLen = 0;
    for (int pass = 0; pass < 2; pass++) {
      int from = pass == 0 ? goal : 0;
      int limit = pass == 0 ? count : Math.min(count, goal + want);
      int i = from;
      while (i < limit) {
        i = Bitmaps.nextClear(bits, i, limit);
        if (i >= limit) {
          break;
        }
        int skipped = pending.skip(i);
        if (skipped != i) {
          i = skipped;
          continue;
        }
        // A run is only measured up to want blocks: a longer one is taken at that length anyway
        // (scanning on to its end cost a whole group's bitmap per allocation in an empty group).
        int end = Math.min(Bitmaps.nextSet(bits, i, (int) Math.min(count, (long) i + want)), pending.nextPending(i));
        int len = end - i;
        if (len >= want) {
          return new int[] {i, want};
        }
        if (pass == 0 && i == goal && len >= min) {
          return new int[] {i, len}; // continue the file where it ends, even if shorter than wanted
        }
        if (len > bestLen) {
          bestLen = len;
          bestStart = i;
        }
        i = end;
      }
    }
    return bestLen >= min ? new int[] {bestStart, bestLen} : null;
  }

  /**
   * Frees blocks {@code [start, start + length)} (they may span groups). With a journal they become
   * reusable once {@code tx}'s transaction has committed.
   *
   * @throws Ext4Exception EFSCORRUPTED if a block is already free or is group metadata
   */
  public void free(Tx tx, long start, long length) throws IOException {
    if (start < lay.firstDataBlock() || start + length > lay.blocksCount() || length <= 0) {
      throw Ext4Exception.corrupted(lay.name(), 0, "freeing blocks " + start + "+" + length + " outside the filesystem");
    }
    if (groups.overlapsSystemZone(start, length)) {
      throw Ext4Exception.corrupted(lay.name(), 0, start, "freeing blocks " + start + "+" + length + ", which hold filesystem metadata");
    }
    long at = start;
    long end = start + length;
    while (at < end) {
      long g = lay.groupOfBlock(at);
      long groupEnd = lay.groupFirstBlock(g) + lay.groupBlockCount(g);
      int from = (int) (at - lay.groupFirstBlock(g));
      int len = (int) (Math.min(end, groupEnd) - at);
      freeInGroup(tx, groups.group(g), from, len);
      at += len;
    }
  }

  private void freeInGroup(Tx tx, Groups.Group grp, int from, int len) throws IOException {
    grp.lock.lock();
    try {
      try (Buf bitmap = groups.blockBitmapForUpdate(tx, grp)) {
        byte[] bits = bitmap.array();
        groups.checkBlockCounts(grp, bits);
        if (!Bitmaps.allSet(bits, from, from + len)) {
          throw groups.corrupted(grp, "freeing blocks " + (lay.groupFirstBlock(grp.number) + from) + "+" + len
              + " of which some are already free");
        }
        for (int i = from; i < from + len; i++) {
          Bitmaps.clear(bits, i);
        }
        tx.dirty(bitmap);
        GroupDescriptor now = grp.desc;
        groups.update(tx, grp, now.withCounts(now.freeBlocks() + len, now.freeInodes(), now.usedDirs(), now.itableUnused())
            .withBitmapChecksums(groups.blockBitmapChecksum(bits), now.inodeBitmapChecksum()));
      }
      if (meta.journaled()) {
        grp.pending.add(from, len, tx.tid());
      }
    } finally {
      grp.lock.unlock();
    }
  }

  /** Marks {@code [start, start + length)} in use (mkfs and recovery of known-used ranges). */
  @SuppressWarnings("GuardedBy") // the bitmap is opened in the try-with-resources just after lock(); Error Prone counts only the block as locked
  public void markUsed(Tx tx, long start, long length) throws IOException {
    long at = start;
    long end = start + length;
    while (at < end) {
      long g = lay.groupOfBlock(at);
      long groupEnd = lay.groupFirstBlock(g) + lay.groupBlockCount(g);
      int from = (int) (at - lay.groupFirstBlock(g));
      int len = (int) (Math.min(end, groupEnd) - at);
      Groups.Group grp = groups.group(g);
      grp.lock.lock();
      try (Buf bitmap = groups.blockBitmapForUpdate(tx, grp)) {
        byte[] bits = bitmap.array();
        int newly = len - Bitmaps.countSetRange(bits, from, from + len);
        Bitmaps.setRange(bits, from, from + len);
        tx.dirty(bitmap);
        GroupDescriptor now = grp.desc;
        groups.update(tx, grp, now.withCounts(now.freeBlocks() - newly, now.freeInodes(), now.usedDirs(), now.itableUnused())
            .withBitmapChecksums(groups.blockBitmapChecksum(bits), now.inodeBitmapChecksum()));
      } finally {
        grp.lock.unlock();
      }
      at += len;
    }
  }
}
