package io.ext4j.fs.namespace;

import io.ext4j.fs.inode.Inode;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The dentry cache: what a name in a directory resolves to — an inode (its number and generation)
 * or nothing (a negative entry) — so that looking up a name already looked up, or known to be
 * absent, reads no directory block (Linux's dcache, fs/dcache.c).
 *
 * <h2>Exactness</h2>
 * The namespace operations keep it exact themselves: each changes a directory under that
 * directory's exclusive rw lock and, before releasing it, records the names it added (positive),
 * removed (negative) or moved; an operation that fails part way forgets the names it touched. A
 * lookup that misses fills the entry while holding the directory's shared lock, which excludes
 * every change, so a fill never records a state older than the last change. A lookup that hits
 * takes no lock: it reads the value the last completed change (or fill) stored, and linearizes
 * there. ".." is cached as a name (a directory moved to another parent has it changed by the
 * move); "." never is.
 *
 * <p>Entries are keyed by the directory's inode number and generation, so a directory removed and
 * its number reused for another never meets its predecessor's entries. The cache holds at most
 * {@code capacity} entries; past that, arbitrary entries are dropped (a dropped entry only costs a
 * directory read). Thread-safe.
 */
public final class DentryCache {
  /** A cached entry: the inode a name resolves to, or {@link #NEGATIVE}. */
  public record Dentry(long ino, int generation) {
    public boolean negative() {
      return ino == 0;
    }
  }

  /** The name is known to be absent. */
  public static final Dentry NEGATIVE = new Dentry(0, 0);

  private record Key(long dir, int dirGeneration, byte[] name, int hash) {
    static Key of(Inode dir, byte[] name) {
      int h = Long.hashCode(dir.ino) * 31 + dir.generation();
      h = h * 31 + Arrays.hashCode(name);
      return new Key(dir.ino, dir.generation(), name, h);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.hash == hash && k.dir == dir && k.dirGeneration == dirGeneration && Arrays.equals(k.name, name);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  private final ConcurrentHashMap<Key, Dentry> entries = new ConcurrentHashMap<>();
  private final int capacity;
  private final LongAdder hits = new LongAdder(); // counters only: LongAdder, so that lookups on many threads share no line
  private final LongAdder misses = new LongAdder();

  /** @param capacity entries kept; 0 keeps none (every lookup reads the directory) */
  public DentryCache(int capacity) {
    this.capacity = capacity;
  }

  /** The cached entry of {@code name} in {@code dir}, or null when nothing is known (a miss, counted). */
  public Dentry get(Inode dir, byte[] name) {
    Dentry d = capacity == 0 ? null : entries.get(Key.of(dir, name));
    (d == null ? misses : hits).increment();
    return d;
  }

  /** Records that {@code name} in {@code dir} resolves to {@code child}. Caller holds dir's rw lock (shared for a fill). */
  public void positive(Inode dir, byte[] name, Inode child) {
    put(dir, name, new Dentry(child.ino, child.generation()));
  }

  /** Records that {@code name} in {@code dir} resolves to inode {@code ino} of generation {@code generation}. */
  public void positive(Inode dir, byte[] name, long ino, int generation) {
    put(dir, name, new Dentry(ino, generation));
  }

  /** Records that {@code name} is absent from {@code dir}. Caller holds dir's rw lock. */
  public void negative(Inode dir, byte[] name) {
    put(dir, name, NEGATIVE);
  }

  /** Forgets {@code name} in {@code dir} (after an operation on it failed part way). */
  public void forget(Inode dir, byte[] name) {
    entries.remove(Key.of(dir, name));
  }

  private void put(Inode dir, byte[] name, Dentry d) {
    if (capacity == 0) {
      return;
    }
    entries.put(Key.of(dir, name.clone()), d);
    if (entries.size() > capacity) {
      shrink();
    }
  }

  /** Drops entries until an eighth of the capacity is free again. */
  private void shrink() {
    int target = capacity - capacity / 8;
    Iterator<Key> it = entries.keySet().iterator();
    while (entries.size() > target && it.hasNext()) {
      it.next();
      it.remove();
    }
  }

  /** Lookups answered from the cache. */
  public long hits() {
    return hits.sum();
  }

  /** Lookups that had to read the directory. */
  public long misses() {
    return misses.sum();
  }

  public int size() {
    return entries.size();
  }
}
