package io.ext4j.fs.alloc;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FormatException;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.MetaStore;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The block groups of an open filesystem: their descriptors in memory, one lock per group, and the
 * group's bitmaps — materialized from their UNINIT flags when first changed, as the kernel does.
 * Also the filesystem-wide free counters (the kernel's percpu counters), kept equal to the sum of
 * the descriptors.
 *
 * <h2>Locks</h2>
 * {@link Group#lock} guards the group's descriptor, its bitmaps' contents and its pending frees.
 * Groups are locked one at a time, or in ascending order. A caller holds a Tx (journal handle)
 * before taking a group lock, never the other way round: a thread waiting for a handle while
 * holding a group lock could stall a commit that waits for a handle blocked on that lock.
 *
 * <h2>Durability</h2>
 * Descriptor and bitmap changes are journaled (or cached) in the caller's Tx, like every metadata change.
 */
public final class Groups {
  /** One block group. */
  public static final class Group {
    public final long number;
    public final ReentrantLock lock = new ReentrantLock();
    GroupDescriptor desc; // lock (volatile read for statistics)
    @GuardedBy("lock") final PendingFrees pending = new PendingFrees();
    @GuardedBy("lock") int[] spans; // {free blocks at the start, free blocks at the end, longest inner run start, its length}; null = stale
    @GuardedBy("lock") boolean blockCountsChecked; // the block bitmap and the descriptor were found to agree
    @GuardedBy("lock") boolean inodeCountsChecked; // the inode bitmap and the descriptor were found to agree

    Group(long number, GroupDescriptor desc) {
      this.number = number;
      this.desc = desc;
    }

    /** The descriptor as last written (read without the lock it may be a moment stale). */
    public synchronized GroupDescriptor desc() {
      return desc;
    }

    synchronized void set(GroupDescriptor d) {
      desc = d;
    }
  }

  private final FsLayout lay;
  private final Ext4Superblock sb;
  private final MetaStore meta;
  private final Group[] groups;
  private final AtomicLong freeBlocks = new AtomicLong(); // sum of descriptors' free blocks
  private final AtomicLong freeInodes = new AtomicLong();
  private final AtomicLong usedDirs = new AtomicLong();
  private final AtomicLong freedBlocks = new AtomicLong(); // blocks freed since open: the sum of descriptors' free-count rises
  private final long[] zoneStart; // the system zone: sorted, disjoint [start, end) runs of group metadata; immutable
  private final long[] zoneEnd;

  private Groups(FsLayout lay, Ext4Superblock sb, MetaStore meta, Group[] groups, long[][] zone) {
    this.lay = lay;
    this.sb = sb;
    this.meta = meta;
    this.groups = groups;
    this.zoneStart = zone[0];
    this.zoneEnd = zone[1];
    for (Group g : groups) {
      freeBlocks.addAndGet(g.desc.freeBlocks());
      freeInodes.addAndGet(g.desc.freeInodes());
      usedDirs.addAndGet(g.desc.usedDirs());
    }
  }

  /**
   * Reads and checks every group descriptor.
   *
   * @throws Ext4FormatException naming the group and block of a descriptor that fails its checksum
   *     or points outside the filesystem
   */
  public static Groups load(FsLayout lay, Ext4Superblock sb, MetaStore meta) throws IOException {
    if (lay.groups() > Integer.MAX_VALUE) {
      throw new Ext4FormatException(lay.name(), -1, lay.groups() + " block groups are more than ext4j handles");
    }
    Group[] groups = new Group[(int) lay.groups()];
    long block = -1;
    Buf buf = null;
    try {
      for (int g = 0; g < groups.length; g++) {
        long b = lay.descriptorBlock(g);
        if (b != block) {
          if (buf != null) {
            buf.close();
          }
          buf = meta.read(b);
          block = b;
        }
        int off = lay.descriptorOffset(g);
        GroupDescriptor d = GroupDescriptor.decode(lay.name(), b * lay.blockSize() + off, sb, g, buf.array(), off);
        check(lay, g, d, b * lay.blockSize() + off);
        groups[g] = new Group(g, d);
      }
    } finally {
      if (buf != null) {
        buf.close();
      }
    }
    return new Groups(lay, sb, meta, groups, systemZone(lay, groups));
  }

  /**
   * The blocks no file may own — each group's superblock backup and descriptor blocks, and every
   * bitmap and inode table — as sorted disjoint runs (the kernel's "system zone", block_validity).
   *
   * @throws Ext4FormatException if two of them overlap (a descriptor pointing into another's
   *     metadata, as the kernel's ext4_check_descriptors refuses)
   */
  private static long[][] systemZone(FsLayout lay, Group[] groups) throws Ext4FormatException {
    long itBlocks = Math.ceilDiv(lay.inodesPerGroup() * lay.inodeSize(), lay.blockSize());
    int n = 0;
    long[][] runs = new long[groups.length * 4][];
    for (Group g : groups) {
      long first = lay.groupFirstBlock(g.number);
      int overhead = lay.superBackupOverhead(g.number);
      if (overhead > 0) {
        runs[n++] = new long[] {first, first + overhead, g.number, 0};
      }
      runs[n++] = new long[] {g.desc.blockBitmap(), g.desc.blockBitmap() + 1, g.number, 1};
      runs[n++] = new long[] {g.desc.inodeBitmap(), g.desc.inodeBitmap() + 1, g.number, 2};
      runs[n++] = new long[] {g.desc.inodeTable(), g.desc.inodeTable() + itBlocks, g.number, 3};
    }
    long[][] sorted = java.util.Arrays.copyOf(runs, n);
    java.util.Arrays.sort(sorted, java.util.Comparator.comparingLong((long[] r) -> r[0]));
    String[] names = {"superblock and descriptor blocks", "block bitmap", "inode bitmap", "inode table"};
    long[] starts = new long[n];
    long[] ends = new long[n];
    int m = 0;
    long[] prev = null;
    for (long[] r : sorted) {
      if (prev != null && r[0] < prev[1]) {
        throw new Ext4FormatException(lay.name(), lay.descriptorBlock(r[2]) * lay.blockSize() + lay.descriptorOffset(r[2]),
            "group " + r[2] + "'s " + names[(int) r[3]] + " at block " + r[0] + " overlaps group " + prev[2] + "'s "
                + names[(int) prev[3]] + " (blocks " + prev[0] + "-" + (prev[1] - 1) + ")");
      }
      if (m > 0 && r[0] == ends[m - 1]) {
        ends[m - 1] = r[1];
      } else {
        starts[m] = r[0];
        ends[m] = r[1];
        m++;
      }
      prev = r;
    }
    return new long[][] {java.util.Arrays.copyOf(starts, m), java.util.Arrays.copyOf(ends, m)};
  }

  /** Whether any of {@code [start, start + length)} is group metadata (the system zone). */
  public boolean overlapsSystemZone(long start, long length) {
    int i = java.util.Arrays.binarySearch(zoneStart, start);
    int at = i >= 0 ? i : -i - 2; // the last run starting at or before start
    if (at >= 0 && zoneEnd[at] > start) {
      return true;
    }
    return at + 1 < zoneStart.length && zoneStart[at + 1] < start + length;
  }

  /**
   * Checks, the first time a group's block bitmap is used, that it and the descriptor agree on the
   * number of free blocks (the kernel's check when it first loads a group for allocation); every
   * change after that keeps the two in step. Caller holds g's lock.
   *
   * @throws Ext4Exception EFSCORRUPTED naming the group and both counts
   */
  @GuardedBy("g.lock")
  public void checkBlockCounts(Group g, byte[] bits) throws Ext4Exception {
    assert g.lock.isHeldByCurrentThread();
    if (g.blockCountsChecked) {
      return;
    }
    int count = lay.groupBlockCount(g.number);
    int free = count - Bitmaps.countSet(bits, count);
    if (free != g.desc.freeBlocks()) {
      throw corrupted(g, "the block bitmap (block " + g.desc.blockBitmap() + ") has " + free
          + " free blocks but the descriptor counts " + g.desc.freeBlocks());
    }
    g.blockCountsChecked = true;
  }

  /** As {@link #checkBlockCounts} for the inode bitmap and the free-inode count. */
  @GuardedBy("g.lock")
  public void checkInodeCounts(Group g, byte[] bits) throws Ext4Exception {
    assert g.lock.isHeldByCurrentThread();
    if (g.inodeCountsChecked) {
      return;
    }
    int ipg = (int) lay.inodesPerGroup();
    int free = ipg - Bitmaps.countSet(bits, ipg);
    if (free != g.desc.freeInodes()) {
      throw corrupted(g, "the inode bitmap (block " + g.desc.inodeBitmap() + ") has " + free
          + " free inodes but the descriptor counts " + g.desc.freeInodes());
    }
    g.inodeCountsChecked = true;
  }

  private static void check(FsLayout lay, long g, GroupDescriptor d, long at) throws Ext4FormatException {
    long[][] where = {{d.blockBitmap(), 1}, {d.inodeBitmap(), 1},
        {d.inodeTable(), Math.ceilDiv(lay.inodesPerGroup() * lay.inodeSize(), lay.blockSize())}};
    String[] names = {"block bitmap", "inode bitmap", "inode table"};
    for (int i = 0; i < 3; i++) {
      long first = where[i][0];
      long end = first + where[i][1];
      if (first < lay.firstDataBlock() || end > lay.blocksCount()) {
        throw new Ext4FormatException(lay.name(), at, "group " + g + "'s " + names[i] + " at block " + first
            + " lies outside the filesystem [" + lay.firstDataBlock() + ", " + lay.blocksCount() + ")");
      }
    }
    if (d.freeBlocks() > lay.groupBlockCount(g) || d.freeInodes() > lay.inodesPerGroup()) {
      throw new Ext4FormatException(lay.name(), at, "group " + g + " claims " + d.freeBlocks() + " free blocks and "
          + d.freeInodes() + " free inodes, more than it has");
    }
  }

  public int count() {
    return groups.length;
  }

  public Group group(long g) {
    return groups[(int) g];
  }

  /** How many blocks have been freed since the filesystem was opened (grows with every group's free count). */
  public long freedBlocks() {
    return freedBlocks.get();
  }

  public long freeBlocks() {
    return freeBlocks.get();
  }

  public long freeInodes() {
    return freeInodes.get();
  }

  public long usedDirs() {
    return usedDirs.get();
  }

  /** Writes {@code d} as {@code g}'s descriptor in {@code tx} and updates the totals. Caller holds g's lock. */
  @GuardedBy("g.lock")
  public void update(Tx tx, Group g, GroupDescriptor d) throws IOException {
    assert g.lock.isHeldByCurrentThread();
    GroupDescriptor old = g.desc;
    long block = lay.descriptorBlock(g.number);
    try (Buf buf = tx.read(block)) {
      tx.modify(buf);
      d.encode(sb, g.number, buf.array(), lay.descriptorOffset(g.number));
      tx.dirty(buf);
    }
    g.set(d);
    g.spans = null; // the bitmap or the counts changed: free-run summary is stale
    freeBlocks.addAndGet(d.freeBlocks() - old.freeBlocks());
    if (d.freeBlocks() > old.freeBlocks()) {
      freedBlocks.addAndGet(d.freeBlocks() - old.freeBlocks());
    }
    freeInodes.addAndGet(d.freeInodes() - old.freeInodes());
    usedDirs.addAndGet(d.usedDirs() - old.usedDirs());
  }

  // ------------------------------------------------------------------ bitmaps

  /**
   * The group's block bitmap for changing it in {@code tx}: a BLOCK_UNINIT group's bitmap is
   * computed, written and the flag cleared first. Caller holds g's lock and closes the buffer.
   */
  @GuardedBy("g.lock")
  public Buf blockBitmapForUpdate(Tx tx, Group g) throws IOException {
    assert g.lock.isHeldByCurrentThread();
    GroupDescriptor d = g.desc;
    if (d.has(GroupDescriptor.BLOCK_UNINIT)) {
      Buf buf = tx.create(d.blockBitmap());
      byte[] bits = uninitBlockBitmap(g.number, d);
      System.arraycopy(bits, 0, buf.array(), 0, bits.length);
      tx.dirty(buf);
      update(tx, g, d.withFlags(d.flags() & ~GroupDescriptor.BLOCK_UNINIT)
          .withBitmapChecksums(blockBitmapChecksum(buf.array()), d.inodeBitmapChecksum()));
      return buf;
    }
    Buf buf = tx.read(d.blockBitmap());
    tx.modify(buf);
    return buf;
  }

  /** The group's inode bitmap for changing it; INODE_UNINIT materializes a zero bitmap and clears the flag. */
  @GuardedBy("g.lock")
  public Buf inodeBitmapForUpdate(Tx tx, Group g) throws IOException {
    assert g.lock.isHeldByCurrentThread();
    GroupDescriptor d = g.desc;
    if (d.has(GroupDescriptor.INODE_UNINIT)) {
      Buf buf = tx.create(d.inodeBitmap());
      byte[] bits = uninitInodeBitmap();
      System.arraycopy(bits, 0, buf.array(), 0, bits.length);
      tx.dirty(buf);
      update(tx, g, d.withFlags(d.flags() & ~GroupDescriptor.INODE_UNINIT)
          .withBitmapChecksums(d.blockBitmapChecksum(), inodeBitmapChecksum(buf.array())));
      return buf;
    }
    Buf buf = tx.read(d.inodeBitmap());
    tx.modify(buf);
    return buf;
  }

  /** Reads a bitmap lent to it. */
  @FunctionalInterface
  public interface BitmapReader<T> {
    T read(byte[] bits) throws IOException;
  }

  /**
   * Lends {@code reader} the group's block bitmap as it reads now, without copying it (a copy per
   * allocation was most of what allocating blocks allocated): the cached block's own bytes, or a
   * computed bitmap for BLOCK_UNINIT. The caller holds the group's lock, so no one changes them
   * meanwhile; the reader must not change or keep them.
   */
  public <T> T readBlockBitmap(Group g, BitmapReader<T> reader) throws IOException {
    assert g.lock.isHeldByCurrentThread();
    GroupDescriptor d = g.desc();
    if (d.has(GroupDescriptor.BLOCK_UNINIT)) {
      return reader.read(uninitBlockBitmap(g.number, d));
    }
    try (Buf b = meta.read(d.blockBitmap())) {
      return reader.read(b.array());
    }
  }

  /** A copy of the group's block bitmap as it reads now (computed for BLOCK_UNINIT). */
  public byte[] blockBitmapCopy(Group g) throws IOException {
    GroupDescriptor d = g.desc();
    if (d.has(GroupDescriptor.BLOCK_UNINIT)) {
      return uninitBlockBitmap(g.number, d);
    }
    try (Buf b = meta.read(d.blockBitmap())) {
      return b.array().clone();
    }
  }

  /** A copy of the group's inode bitmap as it reads now (zeros for INODE_UNINIT). */
  public byte[] inodeBitmapCopy(Group g) throws IOException {
    GroupDescriptor d = g.desc();
    if (d.has(GroupDescriptor.INODE_UNINIT)) {
      return uninitInodeBitmap();
    }
    try (Buf b = meta.read(d.inodeBitmap())) {
      return b.array().clone();
    }
  }

  public int blockBitmapChecksum(byte[] bitmap) {
    return GroupDescriptor.bitmapChecksum(sb, bitmap, (int) (lay.blocksPerGroup() / 8));
  }

  public int inodeBitmapChecksum(byte[] bitmap) {
    return GroupDescriptor.bitmapChecksum(sb, bitmap, (int) (lay.inodesPerGroup() / 8));
  }

  /**
   * What a BLOCK_UNINIT group's bitmap stands for: its own superblock backup, descriptor and reserved
   * descriptor blocks, its own bitmaps and inode table where they lie inside the group, and every
   * bit past the group's end set (the padding e2fsck expects).
   */
  byte[] uninitBlockBitmap(long group, GroupDescriptor d) {
    byte[] bits = new byte[lay.blockSize()];
    long first = lay.groupFirstBlock(group);
    int count = lay.groupBlockCount(group);
    int overhead = lay.superBackupOverhead(group);
    Bitmaps.setRange(bits, 0, overhead);
    long itBlocks = Math.ceilDiv(lay.inodesPerGroup() * lay.inodeSize(), lay.blockSize());
    markIfInside(bits, first, count, d.blockBitmap(), 1);
    markIfInside(bits, first, count, d.inodeBitmap(), 1);
    markIfInside(bits, first, count, d.inodeTable(), itBlocks);
    Bitmaps.setRange(bits, count, lay.blockSize() * 8);
    return bits;
  }

  byte[] uninitInodeBitmap() {
    byte[] bits = new byte[lay.blockSize()];
    Bitmaps.setRange(bits, (int) lay.inodesPerGroup(), lay.blockSize() * 8);
    return bits;
  }

  private static void markIfInside(byte[] bits, long first, int count, long start, long len) {
    long from = Math.max(start, first);
    long to = Math.min(start + len, first + count);
    if (from < to) {
      Bitmaps.setRange(bits, (int) (from - first), (int) (to - first));
    }
  }

  /** The superblock the descriptors were encoded against. */
  public Ext4Superblock superblock() {
    return sb;
  }

  /** Fails with EFSCORRUPTED naming the group: for allocator inconsistencies found while changing it. */
  Ext4Exception corrupted(Group g, String what) {
    return Ext4Exception.corrupted(lay.name(), 0, "block group " + g.number + ": " + what);
  }

  /** Counts of each group's descriptor, for statfs and the checker. */
  public long[] freeBlocksPerGroup() {
    return Arrays.stream(groups).mapToLong(g -> g.desc().freeBlocks()).toArray();
  }
}
