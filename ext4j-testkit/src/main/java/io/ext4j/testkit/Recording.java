package io.ext4j.testkit;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.testkit.RecordingBlockDevice.Event;
import io.ext4j.testkit.RecordingBlockDevice.Flush;
import io.ext4j.testkit.RecordingBlockDevice.Mark;
import io.ext4j.testkit.RecordingBlockDevice.Write;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * A frozen log from a {@link RecordingBlockDevice}: the base image and the events after it.
 * Immutable; {@link #materialize(int)} builds device states from it, and {@link CrashStates}
 * enumerates the states a crash could leave.
 */
public final class Recording {
  private final String name;
  private final MemoryBlockDevice base; // never written
  private final List<Event> events;

  Recording(String name, MemoryBlockDevice base, List<Event> events) {
    this.name = name;
    this.base = base;
    this.events = events;
  }

  /** The recorded device's name. */
  public String name() {
    return name;
  }

  public int blockSize() {
    return base.blockSize();
  }

  public long blockCount() {
    return base.blockCount();
  }

  /** The events in log order; {@code events().get(i).seq() == i}. */
  public List<Event> events() {
    return events;
  }

  /** The marks in log order. */
  public List<Mark> marks() {
    return events.stream().filter(Mark.class::isInstance).map(Mark.class::cast).toList();
  }

  /** The number of flushes. */
  public int flushCount() {
    return (int) events.stream().filter(Flush.class::isInstance).count();
  }

  /** A fresh writable copy of the image before the first event. */
  public MemoryBlockDevice base() {
    return base.snapshot(name);
  }

  /**
   * A fresh writable device holding the base plus every write among the first {@code eventCount}
   * events: the state if everything issued up to there had landed.
   */
  public MemoryBlockDevice materialize(int eventCount) {
    MemoryBlockDevice d = base.snapshot(name + "@" + eventCount);
    for (Event e : events.subList(0, eventCount)) {
      if (e instanceof Write w) {
        apply(d, w);
      }
    }
    return d;
  }

  /** Every write applied: what a device that lost nothing would hold. */
  public MemoryBlockDevice latest() {
    return materialize(events.size());
  }

  /** Only writes before the last flush: the least a crash may leave. */
  public MemoryBlockDevice durable() {
    int end = 0;
    for (Event e : events) {
      if (e instanceof Flush f) {
        end = (int) f.seq();
      }
    }
    return materialize(end);
  }

  MemoryBlockDevice baseImage() {
    return base;
  }

  static void apply(MemoryBlockDevice d, Write w) {
    try {
      d.write(w.block(), ByteBuffer.wrap(w.bytes()));
    } catch (java.io.IOException e) {
      throw new IllegalStateException("a fresh memory device refused a logged write", e);
    }
  }

  @Override
  public String toString() {
    return "Recording[" + name + ", " + events.size() + " events, " + flushCount() + " flushes]";
  }
}
