package io.ext4j.testkit;

import java.security.SecureRandom;

/**
 * The seed of a randomized test: {@code -Dext4j.seed=<n>} when set, else a fresh random one. Every
 * {@link #seed()} prints {@code ext4j.seed=<n> (replay with -Dext4j.seed=<n>)} to stdout, so a failing
 * run can be replayed exactly. Derive independent streams for sub-tasks (threads, crash-state
 * sampling) with {@link #derive(long, String)} rather than sharing one {@code Random}.
 */
public final class Seeds {
  /** The system property that fixes the seed. */
  public static final String PROPERTY = "ext4j.seed";

  private static final SecureRandom FRESH = new SecureRandom(); // thread-safe

  private Seeds() {}

  /**
   * The seed for one test use: the {@value #PROPERTY} property if set, else random. Prints the replay
   * line to stdout.
   *
   * @throws IllegalArgumentException if the property is set but is not a long
   */
  public static long seed() {
    String fixed = System.getProperty(PROPERTY);
    long seed;
    if (fixed == null || fixed.isBlank()) {
      seed = FRESH.nextLong();
    } else {
      try {
        seed = Long.parseLong(fixed.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("-D" + PROPERTY + "=" + fixed + " is not a long", e);
      }
    }
    System.out.println(replayLine(seed));
    return seed;
  }

  /** {@code ext4j.seed=<n> (replay with -Dext4j.seed=<n>)}. */
  public static String replayLine(long seed) {
    return PROPERTY + "=" + seed + " (replay with -D" + PROPERTY + "=" + seed + ")";
  }

  /** A sub-seed for the named purpose: deterministic, and unrelated to other purposes' sub-seeds. */
  public static long derive(long seed, String purpose) {
    long h = seed;
    for (int i = 0; i < purpose.length(); i++) {
      h = mix(h ^ purpose.charAt(i));
    }
    return mix(h ^ purpose.length());
  }

  /** A sub-seed for the {@code index}th task (a thread, an epoch). */
  public static long derive(long seed, long index) {
    return mix(mix(seed) ^ mix(index + 0x9E3779B97F4A7C15L));
  }

  /** SplitMix64's finalizer: a bijection that scatters nearby inputs. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
