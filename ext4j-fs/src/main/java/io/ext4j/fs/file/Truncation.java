package io.ext4j.fs.file;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.orphan.Orphans;
import java.io.IOException;
import java.time.Instant;
import java.util.List;

/**
 * Changing a file's size: shrinking frees the blocks past it through the orphan list (crash-safe),
 * growing leaves a hole; and freeing a whole file's blocks, extent-mapped or indirect.
 */
final class Truncation {
  private final Fs fs;
  private final Orphans orphans;
  private final BlockMapping map;
  private final BufferedIo buffered;
  private final IndirectMap indirect;
  private final int bs;

  Truncation(Fs fs, Orphans orphans, BlockMapping map, BufferedIo buffered) {
    this.fs = fs;
    this.orphans = orphans;
    this.map = map;
    this.buffered = buffered;
    this.indirect = new IndirectMap(fs.lay, fs.meta);
    this.bs = fs.lay.blockSize();
  }

  /** Sets the size: shrinking frees the blocks past it (crash-safe through the orphan list), growing leaves a hole. */
  public void truncate(Inode inode, long newSize) throws IOException {
    fs.checkWritable();
    if (newSize < 0) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "negative size " + newSize);
    }
    inode.rw.writeLock().lock();
    try {
      truncateLocked(inode, newSize);
    } finally {
      inode.rw.writeLock().unlock();
    }
  }

  /** {@link #truncate} with the inode's rw lock held exclusive. */
  public void truncateLocked(Inode inode, long newSize) throws IOException {
    RawInode raw = inode.snapshot();
    if ((raw.flags() & (RawInode.FL_IMMUTABLE | RawInode.FL_APPEND)) != 0) {
      throw new Ext4Exception(Errno.EPERM, inode.ino, null, "the file is immutable or append-only");
    }
    long max = raw.hasFlag(RawInode.FL_EXTENTS) ? fs.lay.maxFileSize() : fs.lay.maxIndirectFileSize();
    if (newSize > max) {
      throw new Ext4Exception(Errno.EFBIG, inode.ino, null, "size " + newSize + " is past the largest file size " + max);
    }
    long old = raw.sizeBytes();
    if (newSize >= old) {
      try (Tx tx = fs.meta.begin(4, 0)) {
        buffered.zeroPastEof(inode, old, newSize);
        setSizeAndTimes(inode, newSize);
        fs.writeInode(tx, inode, true);
      }
      return;
    }
    try (Tx tx = fs.meta.begin(6, 0)) {
      orphans.add(tx, inode);
      setSizeAndTimes(inode, newSize);
      fs.writeInode(tx, inode, true);
    }
    freeFrom(inode, Math.ceilDiv(newSize, bs));
    try (Tx tx = fs.meta.begin(6, 0)) {
      orphans.remove(tx, inode);
      fs.writeInode(tx, inode, false);
    }
  }

  void setSizeAndTimes(Inode inode, long size) {
    Instant now = fs.clock.now();
    inode.fields.lock();
    try {
      RawInode r = inode.raw();
      r.sizeBytes(size);
      r.time(RawInode.Time.MTIME, now);
      r.time(RawInode.Time.CTIME, now);
      inode.timesRecorded();
    } finally {
      inode.fields.unlock();
    }
  }

  /**
   * Frees every block of the file from logical block {@code from} on, the last extents first, a
   * bounded number per Tx. Caller holds rw exclusive (nothing else changes the map meanwhile) and
   * has the inode on the orphan list when the operation must survive a crash.
   */
  public void freeFrom(Inode inode, long from) throws IOException {
    if (!hasBlockMap(inode.snapshot())) {
      return;
    }
    if (!inode.usesExtents()) {
      if (from > 0) {
        throw new Ext4Exception(Errno.EOPNOTSUPP, inode.ino, null, "truncating a block-mapped file other than to 0 is not supported");
      }
      freeIndirect(inode);
      return;
    }
    List<Extent> all;
    inode.map.readLock().lock();
    try {
      all = fs.extents.extents(inode, from, Long.MAX_VALUE);
    } finally {
      inode.map.readLock().unlock();
    }
    // A directory's blocks are journaled metadata: each freed one is revoked, so a batch is bounded
    // by blocks (revoke records) as well as by extents (bitmap and descriptor credits).
    boolean metadata = inode.isDirectory();
    long end = 1L << 32;
    int i = all.size();
    while (i > 0) {
      int j = i - 1;
      long cut = Math.max(from, all.get(j).lblk());
      if (metadata) {
        cut = Math.max(cut, Math.min(end, all.get(j).end()) - METADATA_FREE_BATCH);
      } else {
        while (j > 0 && i - j < 16) {
          j--;
        }
        cut = Math.max(from, all.get(j).lblk());
      }
      int revokes = metadata ? (int) Math.min(METADATA_FREE_BATCH, end - cut) : 0;
      try (Tx tx = fs.meta.begin(fs.extents.credits(inode, 1) + 4 * (i - j) + 8, revokes)) {
        long freed = 0;
        inode.map.writeLock().lock();
        try {
          List<Extent> removed = fs.extents.replace(tx, inode, cut, end, List.of());
          for (Extent e : removed) {
            if (metadata) {
              for (long b = e.pblk(); b < e.pblk() + e.len(); b++) {
                tx.forget(b);
              }
              fs.blocks.free(tx, e.pblk(), e.len());
            } else {
              map.freeData(tx, e.pblk(), e.len());
            }
            freed += e.len();
          }
        } finally {
          inode.map.writeLock().unlock();
        }
        map.chargeBlocks(inode, -freed);
        fs.writeInode(tx, inode, true);
      }
      if (cut <= from) {
        break; // everything from {@code from} on is gone
      }
      end = cut;
      while (i > 0 && all.get(i - 1).lblk() >= cut) {
        i--;
      }
    }
  }

  /** Directory blocks freed (and revoked) per Tx. */
  static final int METADATA_FREE_BATCH = 256;

  /**
   * Whether i_block maps blocks: extent trees always; otherwise regular files, directories and slow
   * symlinks (fast symlinks keep their target there, devices their number, inline files their data).
   */
  public boolean hasBlockMap(RawInode raw) {
    if (raw.hasFlag(RawInode.FL_INLINE_DATA)) {
      return false;
    }
    if (raw.hasFlag(RawInode.FL_EXTENTS)) {
      return true;
    }
    return switch (raw.fileType()) {
      case RawInode.S_IFREG, RawInode.S_IFDIR -> true;
      case RawInode.S_IFLNK -> raw.blocksRaw() - (raw.fileAcl() != 0 ? fs.lay.sectorsPerBlock() : 0) > 0;
      default -> false;
    };
  }

  private void freeIndirect(Inode inode) throws IOException {
    RawInode raw = inode.snapshot();
    List<long[]> runs = indirect.allBlocks(inode.ino, raw.iBlock());
    int k = 0;
    while (k < runs.size()) {
      try (Tx tx = fs.meta.begin(4 * Math.min(16, runs.size() - k) + 4, 64 + 32)) {
        long freed = 0;
        int revoked = 0;
        for (int n = 0; n < 16 && k < runs.size() && revoked < 32; n++) {
          long[] r = runs.get(k);
          boolean metadata = r[2] == 1 || inode.isDirectory();
          long len = metadata ? Math.min(r[1], 32 - revoked) : r[1];
          for (long b = r[0]; b < r[0] + len; b++) {
            if (metadata) {
              tx.forget(b);
              revoked++;
            } else {
              map.dropCachedPage(b);
            }
          }
          fs.blocks.free(tx, r[0], len);
          freed += len;
          if (len < r[1]) {
            runs.set(k, new long[] {r[0] + len, r[1] - len, r[2]}); // the rest in the next Tx
          } else {
            k++;
          }
        }
        map.chargeBlocks(inode, -freed);
        if (k >= runs.size()) {
          inode.fields.lock();
          try {
            inode.raw().iBlock(new byte[RawInode.I_BLOCK_SIZE]);
          } finally {
            inode.fields.unlock();
          }
        }
        fs.writeInode(tx, inode, true);
      }
    }
  }
}
