package io.ext4j.testkit;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when a test {@linkplain #advance(Duration) advances} it. It is an
 * {@link InstantSource} for wall time and offers {@link #nanoTime()} for monotonic time; both move
 * together. Code under test takes one of those shapes (or a {@code LongSupplier} via
 * {@code clock::nanoTime}), never this class. Thread-safe.
 */
public final class ManualClock implements InstantSource {
  /** Where a clock made with {@link #ManualClock()} starts: 2024-01-01T00:00:00Z. */
  public static final Instant DEFAULT_START = Instant.parse("2024-01-01T00:00:00Z");

  private final Instant start;
  private final AtomicLong elapsedNanos = new AtomicLong(); // the only mutable state; atomic

  /** A clock at {@link #DEFAULT_START} whose {@link #nanoTime()} reads 0. */
  public ManualClock() {
    this(DEFAULT_START);
  }

  /** A clock at {@code start} whose {@link #nanoTime()} reads 0. */
  public ManualClock(Instant start) {
    this.start = Objects.requireNonNull(start, "start");
  }

  @Override
  public Instant instant() {
    return start.plusNanos(elapsedNanos.get());
  }

  /** Monotonic nanoseconds since this clock was made, like {@link System#nanoTime()}. */
  public long nanoTime() {
    return elapsedNanos.get();
  }

  /**
   * Moves time forward.
   *
   * @throws IllegalArgumentException if {@code by} is negative: monotonic time never goes back
   */
  public void advance(Duration by) {
    if (by.isNegative()) {
      throw new IllegalArgumentException("a clock cannot go back by " + by);
    }
    elapsedNanos.addAndGet(by.toNanos());
  }

  @Override
  public String toString() {
    return "ManualClock[" + instant() + "]";
  }
}
