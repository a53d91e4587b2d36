package io.ext4j.fs.alloc;

import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * Blocks of one group that a transaction freed but that may not be reused until that transaction's
 * commit is durable (mballoc's rule: after a crash the freeing might not have happened, and the old
 * owner would find another file's data in its block). Ranges are in group-relative block numbers,
 * never overlapping. Not thread-safe: guarded by the group's lock.
 */
final class PendingFrees {
  private record Range(int length, int tid) {}

  private final TreeMap<Integer, Range> ranges = new TreeMap<>();
  private long blocks;

  /** Records blocks [start, start + length) freed by {@code tid}. */
  void add(int start, int length, int tid) {
    ranges.put(start, new Range(length, tid));
    blocks += length;
  }

  /** Drops every range whose transaction has committed. */
  void expire(IntPredicate committed) {
    Iterator<Map.Entry<Integer, Range>> it = ranges.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Integer, Range> e = it.next();
      if (committed.test(e.getValue().tid)) {
        blocks -= e.getValue().length;
        it.remove();
      }
    }
  }

  boolean isEmpty() {
    return ranges.isEmpty();
  }

  long blocks() {
    return blocks;
  }

  /**
   * If block {@code b} is pending, the first block after its range; else {@code b} itself. Lets a
   * bitmap scan skip pending ranges in one step.
   */
  int skip(int b) {
    Map.Entry<Integer, Range> e = ranges.floorEntry(b);
    if (e != null && b < e.getKey() + e.getValue().length) {
      return e.getKey() + e.getValue().length;
    }
    return b;
  }

  /** The first pending block at or after {@code b}, or Integer.MAX_VALUE. */
  int nextPending(int b) {
    Integer k = ranges.ceilingKey(b);
    return k == null ? Integer.MAX_VALUE : k;
  }
}
