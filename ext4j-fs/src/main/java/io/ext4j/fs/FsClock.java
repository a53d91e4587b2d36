package io.ext4j.fs;

import java.time.Instant;

/**
 * Where the engine gets the time for timestamps. {@link #system()} is coarse, as the kernel's
 * {@code current_time}: it advances once per millisecond, so that a run of writes within one tick
 * changes no timestamp and needs no inode update (the kernel's coarse clock has the same effect,
 * with a tick of 1–10 ms). Tests pass a fixed or manual clock.
 */
@FunctionalInterface
public interface FsClock {
  Instant now();

  /** The system clock truncated to milliseconds. */
  static FsClock system() {
    return () -> {
      long ms = System.currentTimeMillis();
      return Instant.ofEpochMilli(ms);
    };
  }

  /** A clock that never moves (reproducible images). */
  static FsClock fixed(Instant at) {
    return () -> at;
  }
}
