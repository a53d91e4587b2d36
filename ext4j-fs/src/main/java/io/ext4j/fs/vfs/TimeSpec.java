package io.ext4j.fs.vfs;

import java.time.Instant;

/**
 * A timestamp utimensat(2) sets: {@link #NOW} (UTIME_NOW, the engine's clock) or a given instant.
 * An omitted time (UTIME_OMIT) is a null TimeSpec.
 */
public sealed interface TimeSpec {
  /** The filesystem's clock at the moment of the change. */
  TimeSpec NOW = new Now();

  /** A given instant. */
  static TimeSpec at(Instant t) {
    return new At(t);
  }

  /** UTIME_NOW. */
  record Now() implements TimeSpec {}

  /** A given time. */
  record At(Instant instant) implements TimeSpec {
    public At {
      java.util.Objects.requireNonNull(instant, "instant");
    }
  }
}
