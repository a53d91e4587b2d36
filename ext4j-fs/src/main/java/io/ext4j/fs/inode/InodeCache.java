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
 * loser's copy is dropped. Pinned inodes ({@link #pin}) are never evicted: a pin is taken while
 * holding a reference, so the evictor's CAS of the references fails when a pin came after it looked.
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

  /** The pins state of an inode claimed for deletion: no pin can be taken any more. */
  private static final long DEAD = Long.MIN_VALUE;

  /**
   * Takes a long-lived reference to {@code i} that keeps it alive after its last link goes (an
   * open file, a lookup reference a FUSE kernel holds, an operation in progress): while pinned it
   * is neither evicted nor deleted, and the last {@link #unpin} of an inode without links deletes
   * it. The caller holds a reference from {@link #get} or {@link #install} meanwhile; the pin takes
   * one of its own while any pin is held, which the last {@link #unpin} drops.
   *
   * <p>Returns false — and pins nothing — when the inode is dead (claimed for deletion) or has no
   * links and no pins: nobody may bring such an inode back, since its deletion may already be
   * under way (or done, when {@code i} is a fresh copy of a freed inode read from the table).
   * A pin racing the unlink of the last name either lands first (the unlink then leaves the
   * deletion to the last unpin) or fails here after {@link #claim} marked it dead.
   */
  public boolean pin(Inode i) {
    while (true) {
      long p = i.pins.get();
      if (p < 0 || (p == 0 && i.unlinked())) {
        return false;
      }
      if (i.pins.compareAndSet(p, p + 1)) {
        if (p == 0) {
          i.refs.incrementAndGet(); // the pins hold one reference together: a pinned inode is never evicted
        }
        return true;
      }
    }
  }

  /** Pins an inode just created and not yet visible to anyone (an O_TMPFILE inode, born without links). */
  public void pinCreated(Inode i) {
    if (!i.pins.compareAndSet(0, 1)) {
      throw new IllegalStateException(i + " pinned or dead before its creator pinned it");
    }
    i.refs.incrementAndGet();
  }

  /**
   * Drops {@code n} pins (a FUSE FORGET drops many at once). Returns true when that left an inode
   * with no links and no pins, which this call then claimed (it is dead): the caller deletes it.
   * Dropping a pin of a dead inode (the filesystem closed under an open file) does nothing.
   */
  public boolean unpin(Inode i, long n) {
    while (true) {
      long p = i.pins.get();
      if (p < 0) {
        return false;
      }
      if (p < n) {
        throw new IllegalStateException(i + " unpinned more often than pinned (" + n + " of " + p + ")");
      }
      if (i.pins.compareAndSet(p, p - n)) {
        if (p != n) {
          return false;
        }
        boolean gone = i.unlinked() && i.pins.compareAndSet(0, DEAD); // dead: never evicted, forgotten once deleted
        i.refs.decrementAndGet(); // the pins' reference
        return gone;
      }
    }
  }

  /** {@link #unpin(Inode, long)} of one pin. */
  public boolean unpin(Inode i) {
    return unpin(i, 1);
  }

  /**
   * Claims an inode whose last link just went, for deletion: true (it is now dead, the caller
   * deletes it) when nobody pins it; false when pinned (the last unpin deletes it) or already dead.
   */
  public boolean claim(Inode i) {
    return i.unlinked() && i.pins.compareAndSet(0, DEAD);
  }

  /**
   * At close: claims an unlinked inode whatever its pins (files the caller left open), so that
   * close deletes it; false when it has links or is already dead.
   */
  public boolean claimAtClose(Inode i) {
    while (true) {
      long p = i.pins.get();
      if (p < 0 || !i.unlinked()) {
        return false;
      }
      if (i.pins.compareAndSet(p, DEAD)) {
        return true;
      }
    }
  }

  /** The pins held (0 when dead). */
  public long pins(Inode i) {
    return Math.max(0, i.pins.get());
  }

  /** Whether {@code i} was claimed for deletion (or deleted): a handle to it is stale. */
  public boolean isDead(Inode i) {
    return i.pins.get() < 0;
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
      if (i.pins.get() == 0 && i.refs.compareAndSet(0, -1)) { // a pin holds a reference, so the CAS fails if one came meanwhile
        inodes.remove(i.ino, i);
      }
    }
  }
}
