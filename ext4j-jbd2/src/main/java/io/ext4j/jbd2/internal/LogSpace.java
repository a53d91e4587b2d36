package io.ext4j.jbd2.internal;

/**
 * The circular log's geometry and cursors: blocks {@code [first, last)} of the journal, a head where
 * the next log block goes, and a tail before which everything is checkpointed. Pure arithmetic; the
 * owner ({@link JournalEngine}) guards an instance with its state lock.
 */
final class LogSpace {
  /** Blocks kept free beyond every reservation (jbd2's slack). */
  static final int SLACK = 32;

  final long first;
  final long last;
  long head; // next block to write
  long tail; // oldest block still needed
  long free; // blocks from head up to tail

  LogSpace(long first, long last) {
    if (first < 1 || last <= first) {
      throw new IllegalArgumentException("log [" + first + ", " + last + ")");
    }
    this.first = first;
    this.last = last;
    reset(first);
  }

  /** Empties the log with head and tail at {@code at}. */
  void reset(long at) {
    head = at;
    tail = at;
    free = last - first;
  }

  long size() {
    return last - first;
  }

  /** Takes the next log block, wrapping at the end. */
  long next() {
    if (free <= 0) {
      throw new IllegalStateException("log full: head " + head + ", tail " + tail);
    }
    long b = head;
    head = head + 1 == last ? first : head + 1;
    free--;
    return b;
  }

  /** Blocks from {@code from} forward to {@code to} (exclusive), with wrap. */
  long distance(long from, long to) {
    long d = to - from;
    return d >= 0 ? d : d + (last - first);
  }

  /** Moves the tail forward to {@code newTail}, returning the freed blocks. */
  long advanceTail(long newTail) {
    long freed = distance(tail, newTail);
    tail = newTail;
    free += freed;
    if (free > last - first) {
      throw new IllegalStateException("tail moved past head: free " + free + " of " + (last - first));
    }
    return freed;
  }
}
