package io.ext4j.jbd2;

import java.time.Duration;
import java.util.Objects;

/**
 * The journal's settings, validated once by {@link Builder#build()}. Defaults are jbd2's unless
 * noted.
 *
 * @param commitInterval a running transaction commits at most this long after it began (jbd2: 5 s)
 * @param batchingPolicy sync batching (default {@link BatchingPolicies#ADAPTIVE}, ext4j's own)
 * @param minBatchTime floor of batching waits (jbd2 {@code min_batch_time}: 0)
 * @param maxBatchTime ceiling of batching waits (jbd2 {@code max_batch_time}: 15 ms; 0 disables jbd2's sleep)
 * @param tick the scheduler tick the historical policies sleep (1 ms, HZ=1000)
 * @param asyncCommit write the commit block with the log blocks and flush once after it
 *     (journal_async_commit; needs checksums; default off). Not safe with ordered data, which is
 *     therefore refused while it is on.
 * @param checksumV3 turn on journal_checksum_v3 when opening a clean journal that has no checksums
 *     (as ext4 does on a metadata_csum filesystem; default on)
 * @param bit64 turn on journal_64bit when opening a clean journal (default on; needed for devices
 *     past 2^32 blocks)
 * @param committedCheck lock-free or locked {@link Journal#isCommitted(int)} (default lock-free)
 * @param writeAccessPath the get-write-access fast path (default lock-free)
 * @param checkpointInterval how often the background home-writer wakes on its own (default 1 s);
 *     it also wakes after commits when the log is a quarter full and whenever space runs short
 * @param maxTransactionBuffers 0 (default) for jbd2's journal length / 4; a smaller value caps
 *     transactions (tests use it to force wrap-around quickly)
 * @param clock time sources (default {@link JournalClock#system()})
 * @param commitWakeup how the committer wakes the threads waiting for a commit (default
 *     {@link CommitWakeup#FUTEX_BROADCAST} where available, see there)
 */
public record JournalOptions(
    Duration commitInterval,
    BatchingPolicy batchingPolicy,
    Duration minBatchTime,
    Duration maxBatchTime,
    Duration tick,
    boolean asyncCommit,
    boolean checksumV3,
    boolean bit64,
    CommittedCheck committedCheck,
    WriteAccessPath writeAccessPath,
    Duration checkpointInterval,
    int maxTransactionBuffers,
    JournalClock clock,
    CommitWakeup commitWakeup) {

  public JournalOptions {
    Objects.requireNonNull(commitInterval, "commitInterval");
    Objects.requireNonNull(batchingPolicy, "batchingPolicy");
    Objects.requireNonNull(minBatchTime, "minBatchTime");
    Objects.requireNonNull(maxBatchTime, "maxBatchTime");
    Objects.requireNonNull(tick, "tick");
    Objects.requireNonNull(committedCheck, "committedCheck");
    Objects.requireNonNull(writeAccessPath, "writeAccessPath");
    Objects.requireNonNull(checkpointInterval, "checkpointInterval");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(commitWakeup, "commitWakeup");
    if (commitInterval.isNegative() || commitInterval.isZero()) {
      throw new IllegalArgumentException("commitInterval must be positive: " + commitInterval);
    }
    if (minBatchTime.isNegative() || maxBatchTime.isNegative() || (minBatchTime.compareTo(maxBatchTime) > 0 && !maxBatchTime.isZero())) {
      throw new IllegalArgumentException("batch times must satisfy 0 <= min <= max: " + minBatchTime + ", " + maxBatchTime);
    }
    if (tick.isNegative() || tick.isZero()) {
      throw new IllegalArgumentException("tick must be positive: " + tick);
    }
    if (checkpointInterval.isNegative() || checkpointInterval.isZero()) {
      throw new IllegalArgumentException("checkpointInterval must be positive: " + checkpointInterval);
    }
    if (maxTransactionBuffers < 0) {
      throw new IllegalArgumentException("maxTransactionBuffers must be >= 0: " + maxTransactionBuffers);
    }
  }

  /** The defaults. */
  public static JournalOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.commitInterval = commitInterval;
    b.batchingPolicy = batchingPolicy;
    b.minBatchTime = minBatchTime;
    b.maxBatchTime = maxBatchTime;
    b.tick = tick;
    b.asyncCommit = asyncCommit;
    b.checksumV3 = checksumV3;
    b.bit64 = bit64;
    b.committedCheck = committedCheck;
    b.writeAccessPath = writeAccessPath;
    b.checkpointInterval = checkpointInterval;
    b.maxTransactionBuffers = maxTransactionBuffers;
    b.clock = clock;
    b.commitWakeup = commitWakeup;
    return b;
  }

  /** Builds {@link JournalOptions}; each setter documents nothing beyond the record's components. */
  public static final class Builder {
    private Duration commitInterval = Duration.ofSeconds(5);
    private BatchingPolicy batchingPolicy = BatchingPolicies.defaultPolicy();
    private Duration minBatchTime = Duration.ZERO;
    private Duration maxBatchTime = Duration.ofMillis(15);
    private Duration tick = Duration.ofMillis(1);
    private boolean asyncCommit;
    private boolean checksumV3 = true;
    private boolean bit64 = true;
    private CommittedCheck committedCheck = CommittedCheck.LOCK_FREE;
    private WriteAccessPath writeAccessPath = WriteAccessPath.LOCK_FREE_FAST_PATH;
    private Duration checkpointInterval = Duration.ofSeconds(1);
    private int maxTransactionBuffers;
    private JournalClock clock = JournalClock.system();
    private CommitWakeup commitWakeup = CommitWakeup.FUTEX_BROADCAST;

    private Builder() {}

    public Builder commitWakeup(CommitWakeup v) {
      commitWakeup = v;
      return this;
    }

    public Builder commitInterval(Duration v) {
      commitInterval = v;
      return this;
    }

    public Builder batchingPolicy(BatchingPolicy v) {
      batchingPolicy = v;
      return this;
    }

    public Builder minBatchTime(Duration v) {
      minBatchTime = v;
      return this;
    }

    public Builder maxBatchTime(Duration v) {
      maxBatchTime = v;
      return this;
    }

    public Builder tick(Duration v) {
      tick = v;
      return this;
    }

    public Builder asyncCommit(boolean v) {
      asyncCommit = v;
      return this;
    }

    public Builder checksumV3(boolean v) {
      checksumV3 = v;
      return this;
    }

    public Builder bit64(boolean v) {
      bit64 = v;
      return this;
    }

    public Builder committedCheck(CommittedCheck v) {
      committedCheck = v;
      return this;
    }

    public Builder writeAccessPath(WriteAccessPath v) {
      writeAccessPath = v;
      return this;
    }

    public Builder checkpointInterval(Duration v) {
      checkpointInterval = v;
      return this;
    }

    public Builder maxTransactionBuffers(int v) {
      maxTransactionBuffers = v;
      return this;
    }

    public Builder clock(JournalClock v) {
      clock = v;
      return this;
    }

    public JournalOptions build() {
      if (asyncCommit && !checksumV3) {
        throw new IllegalArgumentException("asyncCommit needs journal checksums (checksumV3)");
      }
      return new JournalOptions(commitInterval, batchingPolicy, minBatchTime, maxBatchTime, tick, asyncCommit,
          checksumV3, bit64, committedCheck, writeAccessPath, checkpointInterval, maxTransactionBuffers, clock,
          commitWakeup);
    }
  }
}
