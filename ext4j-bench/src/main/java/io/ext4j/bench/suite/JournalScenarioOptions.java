package io.ext4j.bench.suite;

import io.ext4j.jbd2.BatchingPolicies;
import io.ext4j.jbd2.BatchingPolicy;
import io.ext4j.jbd2.CommitWakeup;
import io.ext4j.jbd2.JournalOptions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What the {@code journal} scenario measures beyond the suite's options (thread counts, time per
 * cell, slices, warmup); {@link SuiteOptions#journal()}. Build with {@link #builder()}; the
 * constructor validates, as the journal benchmark's options did.
 *
 * @param policies batching policies to measure (default: only {@link BatchingPolicies#defaultPolicy()})
 * @param wakeups commit wake-ups to measure, each with every policy (default: only
 *     {@link CommitWakeup#FUTEX_BROADCAST}); a row with another than the default is labelled
 *     {@code policy/wake-up}, e.g. {@code adaptive/unpark-each}
 * @param blocksPerOp blocks each handle modifies, 1 or 2 (default 1)
 * @param baseline also run the pwrite + fdatasync rows (default true)
 * @param ceiling also run the group-commit ceiling rows (default false)
 * @param journalOptions the template of every row's journal options; the policy and the wake-up
 *     are replaced per row (default: {@link JournalOptions#defaults()} with async commit on)
 * @param jitWarmup unmeasured time before the first slice, shared by every row (baseline and
 *     ceiling included) at up to 4 threads, so that the first slices are
 *     not measured while the JIT compiles — the journal is far more code than pwrite + fdatasync
 *     (default 2 s; zero skips it)
 */
public record JournalScenarioOptions(List<BatchingPolicy> policies, List<CommitWakeup> wakeups, int blocksPerOp, boolean baseline,
    boolean ceiling, JournalOptions journalOptions, Duration jitWarmup) {
  /**
   * The default template: {@link JournalOptions#defaults()} with async commit on. One instance, so
   * that options built from it compare equal (its clock has no equality of its own).
   */
  public static final JournalOptions DEFAULT_JOURNAL = JournalOptions.builder().asyncCommit(true).build();

  public JournalScenarioOptions {
    policies = List.copyOf(policies);
    wakeups = List.copyOf(wakeups);
    Objects.requireNonNull(journalOptions, "journalOptions");
    Objects.requireNonNull(jitWarmup, "jitWarmup");
    if (policies.isEmpty() && !baseline && !ceiling) {
      throw new IllegalArgumentException("nothing to run: no policy, no baseline and no ceiling");
    }
    if (blocksPerOp < 1 || blocksPerOp > 2) {
      throw new IllegalArgumentException("blocksPerOp must be 1 or 2: " + blocksPerOp);
    }
    if (wakeups.isEmpty()) {
      throw new IllegalArgumentException("at least one commit wake-up");
    }
    if (jitWarmup.isNegative()) {
      throw new IllegalArgumentException("jitWarmup must not be negative: " + jitWarmup);
    }
  }

  /** Every default: the default policy with the futex wake-up and the baseline, one block per handle, async commit. */
  public static JournalScenarioOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The command-line name of a commit wake-up: {@code futex-broadcast}, {@code unpark-each}. */
  public static String wakeupName(CommitWakeup w) {
    return w.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The commit wake-up of a command-line name, or IllegalArgumentException naming the known ones. */
  public static CommitWakeup wakeup(String name) {
    for (CommitWakeup w : CommitWakeup.values()) {
      if (wakeupName(w).equals(name)) {
        return w;
      }
    }
    throw new IllegalArgumentException("unknown commit wake-up " + name + " (known: "
        + String.join(", ", Arrays.stream(CommitWakeup.values()).map(JournalScenarioOptions::wakeupName).toList()) + ")");
  }

  /** Builds {@link JournalScenarioOptions}; defaults as documented there. */
  public static final class Builder {
    private List<BatchingPolicy> policies = List.of(BatchingPolicies.defaultPolicy());
    private List<CommitWakeup> wakeups = List.of(CommitWakeup.FUTEX_BROADCAST);
    private int blocksPerOp = 1;
    private boolean baseline = true;
    private boolean ceiling;
    private JournalOptions journalOptions = DEFAULT_JOURNAL;
    private Duration jitWarmup = Duration.ofSeconds(2);

    private Builder() {}

    public Builder policies(List<BatchingPolicy> v) {
      policies = v;
      return this;
    }

    public Builder wakeups(List<CommitWakeup> v) {
      wakeups = v;
      return this;
    }

    public Builder blocksPerOp(int v) {
      blocksPerOp = v;
      return this;
    }

    public Builder baseline(boolean v) {
      baseline = v;
      return this;
    }

    public Builder ceiling(boolean v) {
      ceiling = v;
      return this;
    }

    public Builder journalOptions(JournalOptions v) {
      journalOptions = v;
      return this;
    }

    public Builder jitWarmup(Duration v) {
      jitWarmup = v;
      return this;
    }

    public JournalScenarioOptions build() {
      return new JournalScenarioOptions(policies, wakeups, blocksPerOp, baseline, ceiling, journalOptions, jitWarmup);
    }
  }
}
