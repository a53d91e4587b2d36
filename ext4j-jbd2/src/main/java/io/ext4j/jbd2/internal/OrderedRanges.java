package io.ext4j.jbd2.internal;

import io.ext4j.jbd2.OrderedData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One owner's ordered-data ranges in one transaction: disjoint, merged as they are added (adjacent
 * and overlapping ranges become one), trimmed when the owner shrinks. Not thread-safe: the owning
 * transaction's ordered map guards it (see {@link Transaction#ordered}).
 */
final class OrderedRanges {
  private final TreeMap<Long, Long> ranges = new TreeMap<>(); // first -> end (exclusive); disjoint, not adjacent

  /** Adds {@code [first, first + count)}, merging with what it touches. */
  void add(long first, long count) {
    long start = first;
    long end = first + count;
    Map.Entry<Long, Long> before = ranges.floorEntry(start);
    if (before != null && before.getValue() >= start) {
      start = before.getKey();
      end = Math.max(end, before.getValue());
      ranges.remove(before.getKey());
    }
    for (Map.Entry<Long, Long> e = ranges.ceilingEntry(start); e != null && e.getKey() <= end; e = ranges.ceilingEntry(start)) {
      end = Math.max(end, e.getValue());
      ranges.remove(e.getKey());
    }
    ranges.put(start, end);
  }

  /** Drops every block at or past {@code from}. */
  void trimFrom(long from) {
    ranges.tailMap(from, true).clear();
    Map.Entry<Long, Long> last = ranges.lastEntry();
    if (last != null && last.getValue() > from) {
      ranges.put(last.getKey(), from);
    }
  }

  /** Whether any range has a block at or past {@code from}. */
  boolean reaches(long from) {
    Map.Entry<Long, Long> last = ranges.lastEntry();
    return last != null && last.getValue() > from;
  }

  boolean isEmpty() {
    return ranges.isEmpty();
  }

  /** The ranges, sorted. */
  List<OrderedData.Range> toList() {
    List<OrderedData.Range> out = new ArrayList<>(ranges.size());
    ranges.forEach((first, end) -> out.add(new OrderedData.Range(first, end - first)));
    return out;
  }
}
