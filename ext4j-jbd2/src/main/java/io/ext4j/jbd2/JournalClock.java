package io.ext4j.jbd2;

import java.time.Instant;
import java.time.InstantSource;
import java.util.function.LongSupplier;

/** The journal's time sources: a monotonic nanosecond clock and the wall clock for commit stamps. */
public interface JournalClock {
  /** Monotonic nanoseconds, like {@link System#nanoTime()}. */
  long nanoTime();

  /** Wall-clock time, stamped into commit blocks. */
  Instant now();

  /** The system clocks. */
  static JournalClock system() {
    return of(System::nanoTime, InstantSource.system());
  }

  static JournalClock of(LongSupplier nanos, InstantSource wall) {
    return new JournalClock() {
      @Override
      public long nanoTime() {
        return nanos.getAsLong();
      }

      @Override
      public Instant now() {
        return wall.instant();
      }
    };
  }
}
