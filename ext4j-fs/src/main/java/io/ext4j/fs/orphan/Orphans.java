package io.ext4j.fs.orphan;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.format.OrphanBlock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Inodes whose removal or truncation is in progress, recorded on disk so that the next mount
 * finishes it after a crash: an inode unlinked while open, a truncate freeing blocks over several
 * transactions, a removal freeing a large file.
 *
 * <h2>Two places</h2>
 * With orphan_file, a slot of the orphan file (inode {@code s_orphan_file_inum}: blocks of le32 inode
 * numbers with a checksummed tail), used first as the kernel does; else, or when it is full, the
 * classic list: {@code s_last_orphan} names the newest orphan and each orphan's {@code i_dtime}
 * names the next, 0 ending it. Both are mirrored in memory to find a slot or a predecessor at once.
 *
 * <h2>Locks and durability</h2>
 * {@code this} guards the in-memory mirrors and the order of the on-disk edits (the list's
 * predecessor relinking touches another inode's bytes, under that inode's fields lock). Every edit
 * is part of the caller's Tx.
 */
public final class Orphans {
  private final Fs fs;
  @GuardedBy("this") private final List<Long> chain = new ArrayList<>(); // the classic list, newest first
  @GuardedBy("this") private final Map<Long, int[]> slotOf = new HashMap<>(); // inode -> {orphan-file block, slot}
  @GuardedBy("this") private int[][] slots; // orphan-file contents per block, null without an orphan file
  @GuardedBy("this") private long[] physical; // each orphan-file block's physical block
  private Inode orphanFile; // referenced for the filesystem's life, null without one

  public Orphans(Fs fs) {
    this.fs = fs;
  }

  /**
   * Reads the orphan file's blocks and the classic list into memory (at mount, before recovery).
   *
   * @throws Ext4Exception EFSCORRUPTED if an orphan-file block fails its magic or checksum, or the list loops
   */
  public synchronized void load() throws IOException {
    if (fs.lay.orphanFile()) {
      orphanFile = fs.inodes.get(fs.lay.orphanFileIno());
      int bs = fs.lay.blockSize();
      int blocks = (int) (orphanFile.size() / bs);
      slots = new int[blocks][];
      physical = new long[blocks];
      int seed = RawInode.inodeSeed(fs.lay.checksumSeed(), orphanFile.ino, orphanFile.generation());
      for (int b = 0; b < blocks; b++) {
        Extent e = fs.extents.find(orphanFile, b);
        if (e == null || !e.contains(b)) {
          throw Ext4Exception.corrupted(fs.lay.name(), orphanFile.ino, "orphan file has a hole at block " + b);
        }
        physical[b] = e.physical(b);
        try (Buf buf = fs.meta.read(physical[b])) {
          try {
            slots[b] = OrphanBlock.decode(buf.array(), bs, seed, physical[b], fs.lay.metadataCsum(), "orphan file block " + b);
          } catch (IOException bad) {
            throw Ext4Exception.corrupted(fs.lay.name(), orphanFile.ino, bad.getMessage());
          }
        }
        for (int s = 0; s < slots[b].length; s++) {
          if (slots[b][s] != 0) {
            slotOf.put(Integer.toUnsignedLong(slots[b][s]), new int[] {b, s});
          }
        }
      }
    }
    long ino = fs.superblock.current().lastOrphan();
    int guard = 0;
    while (ino != 0) {
      if (!fs.itable.valid(ino) || ++guard > fs.lay.inodesCount()) {
        throw Ext4Exception.corrupted(fs.lay.name(), ino, "orphan list points at an invalid inode or loops");
      }
      chain.add(ino);
      ino = fs.itable.read(ino).dtime();
    }
  }

  /** Every inode on the orphan list or in the orphan file, as mounted (for recovery). */
  public synchronized List<Long> all() {
    List<Long> out = new ArrayList<>(chain);
    out.addAll(slotOf.keySet());
    return out;
  }

  public synchronized boolean contains(long ino) {
    return slotOf.containsKey(ino) || chain.contains(ino);
  }

  /** Records {@code inode} as an orphan in {@code tx} (no-op if it already is one). */
  public synchronized void add(Tx tx, Inode inode) throws IOException {
    if (contains(inode.ino)) {
      return;
    }
    if (slots != null && addToFile(tx, inode.ino)) {
      return;
    }
    long head = fs.superblock.current().lastOrphan();
    inode.fields.lock();
    try {
      inode.raw().dtime(head);
    } finally {
      inode.fields.unlock();
    }
    fs.writeInode(tx, inode, false);
    fs.superblock.change(e -> e.lastOrphan(inode.ino));
    fs.superblock.writeIn(tx);
    chain.addFirst(inode.ino);
  }

  @GuardedBy("this")
  private boolean addToFile(Tx tx, long ino) throws IOException {
    for (int b = 0; b < slots.length; b++) {
      for (int s = 0; s < slots[b].length; s++) {
        if (slots[b][s] == 0) {
          slots[b][s] = (int) ino;
          writeFileBlock(tx, b);
          slotOf.put(ino, new int[] {b, s});
          return true;
        }
      }
    }
    return false;
  }

  @GuardedBy("this")
  private void writeFileBlock(Tx tx, int b) throws IOException {
    int seed = RawInode.inodeSeed(fs.lay.checksumSeed(), orphanFile.ino, orphanFile.generation());
    try (Buf buf = tx.read(physical[b])) {
      tx.modify(buf);
      OrphanBlock.encode(slots[b], buf.array(), fs.lay.blockSize(), seed, physical[b], fs.lay.metadataCsum());
      tx.dirty(buf);
    }
  }

  /** Removes {@code inode} from the orphans in {@code tx} (no-op if it is not one); its dtime becomes 0. */
  public synchronized void remove(Tx tx, Inode inode) throws IOException {
    int[] where = slotOf.remove(inode.ino);
    if (where != null) {
      slots[where[0]][where[1]] = 0;
      writeFileBlock(tx, where[0]);
      return;
    }
    int i = chain.indexOf(inode.ino);
    if (i < 0) {
      return;
    }
    long next = i + 1 < chain.size() ? chain.get(i + 1) : 0;
    if (i == 0) {
      fs.superblock.change(e -> e.lastOrphan(next));
      fs.superblock.writeIn(tx);
    } else {
      Inode prev = fs.inodes.get(chain.get(i - 1));
      try {
        prev.fields.lock();
        try {
          prev.raw().dtime(next);
        } finally {
          prev.fields.unlock();
        }
        fs.writeInode(tx, prev, false);
      } finally {
        fs.inodes.put(prev);
      }
    }
    inode.fields.lock();
    try {
      inode.raw().dtime(0);
    } finally {
      inode.fields.unlock();
    }
    fs.writeInode(tx, inode, false);
    chain.remove(i);
  }

  /** Whether the orphan file (if any) is empty and the list too: the clean state e2fsck expects at unmount. */
  public synchronized boolean empty() {
    return chain.isEmpty() && slotOf.isEmpty();
  }

  /** Drops the orphan file reference (at close). */
  public synchronized void close() {
    if (orphanFile != null) {
      fs.inodes.put(orphanFile);
      orphanFile = null;
    }
  }
}
