package io.ext4j.tools.check;

import java.time.InstantSource;
import java.util.Objects;

/**
 * How {@link Checker#check} runs. Immutable; start from {@link #defaults()} and change with the
 * {@code with…} methods.
 *
 * @param replayJournal when the superblock says the journal needs recovery, replay it first into an
 *     in-memory overlay and check the image as the replay leaves it; the device is never written
 *     (default true: what {@code ext4j fsck -n} checks). When false such an image is checked as it
 *     is, with a note (e2fsck -fn's "skipping journal recovery").
 * @param strict also count as problems what e2fsck -fn reports but exits 0 on, and what a clean
 *     unmount never leaves: superblock free totals that differ from the groups' sums, a group
 *     descriptor checksum mismatch, a non-empty orphan list, a journal that still needs recovery
 *     (default false: they are notes and the exit code is e2fsck's)
 * @param maxProblems how many problems and notes the report keeps; later ones are only counted
 *     (default 1000, at least 1)
 * @param clock the "now" against which superblock times are judged (default the system clock)
 */
public record CheckOptions(boolean replayJournal, boolean strict, int maxProblems, InstantSource clock) {
  public CheckOptions {
    Objects.requireNonNull(clock, "clock");
    if (maxProblems < 1) {
      throw new IllegalArgumentException("maxProblems must be at least 1, got " + maxProblems);
    }
  }

  /** Replay into an overlay, e2fsck's exit codes, 1000 problems, the system clock. */
  public static CheckOptions defaults() {
    return new CheckOptions(true, false, 1000, InstantSource.system());
  }

  public CheckOptions withReplayJournal(boolean replay) {
    return new CheckOptions(replay, strict, maxProblems, clock);
  }

  public CheckOptions withStrict(boolean strict) {
    return new CheckOptions(replayJournal, strict, maxProblems, clock);
  }

  public CheckOptions withMaxProblems(int max) {
    return new CheckOptions(replayJournal, strict, max, clock);
  }

  public CheckOptions withClock(InstantSource clock) {
    return new CheckOptions(replayJournal, strict, maxProblems, clock);
  }
}
