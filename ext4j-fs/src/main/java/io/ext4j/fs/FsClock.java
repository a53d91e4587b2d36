package io.ext4j.fs;

import java.time.Instant;

/**
 * Where the engine gets the time for timestamps. {@link #system()} has millisecond precision; the
 * write path coarsens it as the kernel does (see {@code FileIo.touch}: one inode update per 4 ms tick
 * for a stream of writes nobody stats). Tests pass a fixed or manual clock.
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
