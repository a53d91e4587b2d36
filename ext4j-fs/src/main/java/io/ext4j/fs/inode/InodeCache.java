package io.ext4j.fs.inode;

import io.ext4j.fs.format.RawInode;
import java.io.IOException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The inodes in memory, one {@link Inode} per number while anyone uses it. {@link #get} returns the
 * inode referenced; {@link #put} drops the reference. Unreferenced, unopened inodes are evicted when
 * the cache grows past its capacity: their bytes are already in the inode table (every change is
 * written there in its Tx), so eviction loses nothing.
 *
 * <h2>Races</h2>
 * A reference is a CAS on {@code refs}; eviction claims an unreferenced inode by CAS from 0 to -1 and
 * then removes it, so a concurrent {@code get} either referenced it first (eviction skips it) or sees
 * -1 and loads a fresh copy after the removal. Two loads of one inode race through putIfAbsent; the
 * loser's copy is dropped. {@code opens} and {@code orphaned} are guarded by this object's monitor.
 */
public final class InodeCache {
  private final InodeTable table;
  private final java.util.function.Supplier<java.util.OptionalInt> runningTid;
  private final int capacity;
  private final ConcurrentHashMap<Long, Inode> inodes = new ConcurrentHashMap<>();

  /** @param runningTid the journal's running transaction, if any (see {@link Inode#tidsKnown()}) */
  public InodeCache(InodeTable table, java.util.function.Supplier<java.util.OptionalInt> runningTid, int capacity) {
    this.table = table;
    this.runningTid = runningTid;
    this.capacity = Math.max(64, capacity);
  }

  /** The inode, referenced (pair with {@link #put}), read from the inode table if not in memory. */
  public Inode get(long ino) throws IOException {
    while (true) {
      Inode i = inodes.get(ino);
      if (i != null) {
        if (tryRef(i)) {
          return i;
        }
        Thread.onSpinWait();
        continue;
      }
      RawInode raw = table.read(ino);
      Inode fresh = new Inode(ino, raw, runningTid.get());
      fresh.refs.set(1);
      if (inodes.putIfAbsent(ino, fresh) == null) {
        maybeEvict();
        return fresh;
      }
    }
  }

  /**
   * Installs a newly allocated inode with its initial bytes, referenced. Any stale copy of a freed
   * inode with the same number is replaced.
   */
  public Inode install(long ino, RawInode raw) {
    Inode fresh = new Inode(ino, raw, java.util.OptionalInt.empty());
    fresh.refs.set(1);
    inodes.put(ino, fresh); // a holder of a stale copy keeps it, detached
    maybeEvict();
    return fresh;
  }

  /** Drops a reference from {@link #get} or {@link #install}. */
  public void put(Inode i) {
    int left = i.refs.decrementAndGet();
    if (left < 0) {
      i.refs.incrementAndGet();
      throw new IllegalStateException(i + " released more often than referenced");
    }
  }

  /** Counts an open file of {@code i} (keeps an unlinked inode alive). */
  public synchronized void opened(Inode i) {
    i.opens++;
  }

  /** Counts a close; returns the opens left. */
  public synchronized int closed(Inode i) {
    if (i.opens <= 0) {
      throw new IllegalStateException(i + " closed more often than opened");
    }
    return --i.opens;
  }

  public synchronized int opens(Inode i) {
    return i.opens;
  }

  /** Marks or clears "on the orphan list because unlinked while open". */
  public synchronized void orphaned(Inode i, boolean orphaned) {
    i.orphaned = orphaned;
  }

  public synchronized boolean isOrphaned(Inode i) {
    return i.orphaned;
  }

  /**
   * Forgets {@code i} (after it was freed on disk); references held keep their detached object.
   * Only that object leaves the map: once its number is free in the bitmap, another thread may
   * allocate and install the number again before this runs, and removing that new inode made a
   * later {@link #get} load a second copy of a live inode (seen as a close counted on the wrong copy).
   */
  public void forget(Inode i) {
    inodes.remove(i.ino, i);
  }

  /** Another reference to {@code i}, which the caller already holds referenced (pair with {@link #put}). */
  public Inode ref(Inode i) {
    if (i.refs.getAndIncrement() < 0) {
      throw new IllegalStateException(i + " referenced again after it was evicted");
    }
    return i;
  }

  /** Calls {@code f} for every inode in memory (a snapshot; for shutdown and statistics). */
  public void forEach(Consumer<Inode> f) {
    inodes.values().forEach(f);
  }

  public int size() {
    return inodes.size();
  }

  private static boolean tryRef(Inode i) {
    while (true) {
      int r = i.refs.get();
      if (r < 0) {
        return false;
      }
      if (i.refs.compareAndSet(r, r + 1)) {
        return true;
      }
    }
  }

  private void maybeEvict() {
    if (inodes.size() <= capacity) {
      return;
    }
    int target = capacity - capacity / 8;
    for (Inode i : inodes.values()) {
      if (inodes.size() <= target) {
        break;
      }
      boolean idle;
      synchronized (this) {
        idle = i.opens == 0 && !i.orphaned;
      }
      if (idle && i.refs.compareAndSet(0, -1)) {
        inodes.remove(i.ino, i);
      }
    }
  }
}
