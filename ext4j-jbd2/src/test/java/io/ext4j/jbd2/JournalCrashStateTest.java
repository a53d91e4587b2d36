package io.ext4j.jbd2;

import static io.ext4j.jbd2.JournalFixtures.MAP;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.testkit.CrashState;
import io.ext4j.testkit.CrashStates;
import io.ext4j.testkit.Recording;
import io.ext4j.testkit.RecordingBlockDevice;
import io.ext4j.testkit.Seeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Crash states of seeded multi-threaded handle workloads (the CrashMonkey method, see
 * testing.md): every state a power cut could leave, recovered with the production code, must hold
 * exactly the home blocks after <em>some</em> prefix of the transactions, and that prefix must include
 * every transaction whose synchronous stop had returned (a mark) before the state's last flush.
 *
 * <p>The workload: a few threads, each running handles that overwrite 1–3 of 20 home blocks with
 * recognisable whole-block images (some starting with the jbd2 magic, so they are escaped), now and
 * then revoking a block; a third of the stops are synchronous. Transactions are capped at 16 buffers
 * and the log is 1023 blocks, so it wraps and checkpoints run during the workload (crashes during
 * checkpoint come for free); the run ends with a clean close (crashes during the final checkpoint).
 * Inside each handle, under one lock, the workload records the tid and exact bytes it wrote: the
 * state after prefix {@code k} is the base plus those writes of tids {@code <= k}, in order. A block
 * whose last event in the prefix is a revoke may hold any of its older contents.
 *
 * <p>Thread interleavings are not reproducible, so a failure prints the seed (the workload's choices),
 * the crash state id and the events that matter.
 */
@Tag("crash")
@Timeout(value = 600, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JournalCrashStateTest {
  static final long HOME0 = 100;
  static final int HOMES = 20;
  /** Blocks a tiny-cache workload reads (and never writes) to keep its cache churning. */
  static final long OTHER0 = 600;
  static final int OTHERS = 64;
  static final AtomicLong STATES = new AtomicLong();
  static final AtomicLong RECOVERY_STATES = new AtomicLong();
  static final long START_NANOS = System.nanoTime();

  @AfterAll
  static void report() {
    System.out.printf("JournalCrashStateTest: %d crash states checked (%d of them crashes during recovery) in %.1f s%n",
        STATES.get() + RECOVERY_STATES.get(), RECOVERY_STATES.get(), (System.nanoTime() - START_NANOS) / 1e9);
  }

  /** What one recorded run is made of. */
  record Workload(String name, int threads, int handlesPerThread, boolean asyncCommit, int firstTid,
      BatchingPolicy policy, boolean reuseRevokedInSameTransaction, int cacheBlocks) {
    Workload(String name, int threads, int handlesPerThread, boolean asyncCommit, int firstTid, BatchingPolicy policy) {
      this(name, threads, handlesPerThread, asyncCommit, firstTid, policy, false, 0);
    }

    Workload(String name, int threads, int handlesPerThread, boolean asyncCommit, int firstTid, BatchingPolicy policy,
        boolean reuseRevokedInSameTransaction) {
      this(name, threads, handlesPerThread, asyncCommit, firstTid, policy, reuseRevokedInSameTransaction, 0);
    }

    /** The same workload with its buffers in a shared cache of {@code blocks} blocks (fewer than the home blocks). */
    Workload withCache(int blocks) {
      return new Workload(name + "-cache" + blocks, threads, handlesPerThread, asyncCommit, firstTid, policy,
          reuseRevokedInSameTransaction, blocks);
    }
  }

  /** One event the workload recorded under its lock: {@code image == null} is a revoke. */
  record Entry(int tid, int home, byte[] image) {}

  @Test
  void syncCommit_everyCrashState_recoversToAPrefixIncludingEveryAcknowledgedTransaction() throws Exception {
    long seed = Seeds.seed();
    int scale = JournalFixtures.SOAK ? 4 : 1;
    checkAllStates(seed, new Workload("sync", 3, 400 * scale, false, 1, BatchingPolicies.NONE));
  }

  @Test
  void syncCommit_defaultBatching_fourThreads_everyCrashStateRecoversToAnAcknowledgedPrefix() throws Exception {
    long seed = Seeds.seed();
    int scale = JournalFixtures.SOAK ? 4 : 1;
    checkAllStates(seed, new Workload("sync-adaptive", 4, 250 * scale, false, 1, BatchingPolicies.defaultPolicy()));
  }

  @Test
  void asyncCommit_everyCrashState_recoversToAPrefixIncludingEveryAcknowledgedTransaction() throws Exception {
    long seed = Seeds.seed();
    int scale = JournalFixtures.SOAK ? 4 : 1;
    checkAllStates(seed, new Workload("async", 3, 300 * scale, true, 1, BatchingPolicies.NONE));
  }

  /**
   * The same with a 16-block cache for 20 home blocks: buffers the journal still needs stay cached,
   * clean ones are evicted and read back from home, and every crash state still recovers right.
   */
  @Test
  void syncCommit_tinyBlockCache_everyCrashStateRecoversToAnAcknowledgedPrefix() throws Exception {
    long seed = Seeds.seed();
    checkAllStates(seed, new Workload("sync", 3, 300, false, 1, BatchingPolicies.NONE).withCache(16));
  }

  @Test
  void asyncCommit_tinyBlockCache_everyCrashStateRecoversToAnAcknowledgedPrefix() throws Exception {
    long seed = Seeds.seed();
    checkAllStates(seed, new Workload("async", 3, 300, true, 1, BatchingPolicies.NONE, true).withCache(16));
  }

  @Test
  void tidsWrappingPast2To32_everyCrashState_recoversToAnAcknowledgedPrefix() throws Exception {
    long seed = Seeds.seed();
    // the first tid used is firstTid + 1; a few hundred transactions cross 2^32
    checkAllStates(seed, new Workload("tid-wrap", 3, 300, false, -60, BatchingPolicies.NONE));
  }

  /** A block revoked and then reused in the same transaction (JournalApiTest's revokeThen… tests, crash by crash). */
  @Test
  void revokeThenReuseInTheSameTransaction_everyCrashState_recoversToAnAcknowledgedPrefix() throws Exception {
    long seed = Seeds.seed();
    checkAllStates(seed, new Workload("revoke-reuse", 3, 250, false, 1, BatchingPolicies.NONE, true));
  }

  @Test
  void crashDuringRecovery_recoveringAgainGivesTheFirstRecoverysImage() throws Exception {
    long seed = Seeds.seed();
    Run run = record(seed, new Workload("recovery-crash", 3, 80, false, 1, BatchingPolicies.NONE));
    CrashStates states = CrashStates.of(run.recording, seed);
    List<CrashState> needingReplay = new ArrayList<>();
    for (CrashState cs : (Iterable<CrashState>) states.stream()::iterator) {
      MemoryBlockDevice d = cs.materialize();
      JournalSuperblock sb = JournalFixtures.superblock(d);
      if (sb.needsRecovery() && !JournalRecovery.scan(d, MAP, sb).transactions().isEmpty()) {
        needingReplay.add(cs);
      }
    }
    assertThat(needingReplay).as("crash states whose recovery replays something").hasSizeGreaterThan(20);
    SplittableRandom pick = new SplittableRandom(Seeds.derive(seed, "pick"));
    int samples = JournalFixtures.SOAK ? 200 : 40;
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    List<CrashState> chosen = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      chosen.add(needingReplay.get(pick.nextInt(needingReplay.size())));
    }
    chosen.parallelStream().forEach(cs -> {
      try {
        checkRecoveryIsIdempotent(seed, cs, failures);
      } catch (Exception | AssertionError e) {
        failures.add(cs + ": " + e);
      }
    });
    if (!failures.isEmpty()) {
      org.junit.jupiter.api.Assertions.fail(String.format("seed %d: %d crashes during recovery recovered differently; the first 5:%n%s",
          seed, failures.size(), String.join("\n", failures.stream().limit(5).toList())));
    }
  }

  // ---------------------------------------------------------------- recording a workload

  /** Passes everything to the recording device, counting reads of the home blocks. */
  static final class ReadCounting implements BlockDevice {
    final RecordingBlockDevice d;
    final AtomicInteger homeReads = new AtomicInteger();

    ReadCounting(RecordingBlockDevice d) {
      this.d = d;
    }

    @Override public String name() { return d.name(); }
    @Override public int blockSize() { return d.blockSize(); }
    @Override public long blockCount() { return d.blockCount(); }
    @Override public boolean isReadOnly() { return false; }
    @Override public void write(long block, java.nio.ByteBuffer src) throws java.io.IOException { d.write(block, src); }
    @Override public void write(long block, java.nio.ByteBuffer... srcs) throws java.io.IOException { d.write(block, srcs); }
    @Override public void flush() throws java.io.IOException { d.flush(); }
    @Override public void close() { d.close(); }

    @Override
    public void read(long block, java.nio.ByteBuffer dst) throws java.io.IOException {
      if (block >= HOME0 && block < HOME0 + HOMES) {
        homeReads.incrementAndGet();
      }
      d.read(block, dst);
    }
  }

  /** A recorded run and its oracle. */
  static final class Run {
    Workload workload;
    Recording recording;
    byte[][] baseImages;
    /** expected[k][i]: home block i after the first k transactions; null = any older content (revoked). */
    byte[][][] expected;
    int maxOrdinal;
    int firstTid;
    boolean logWrapped;
    /** Per home block: "W<ordinal>" for each write, "R<ordinal>" for each revoke, in order. */
    List<List<String>> history = new ArrayList<>();

    int ordinal(int tid) {
      return (int) ((tid - firstTid) & 0xffffffffL);
    }
  }

  static Run record(long seed, Workload w) throws Exception {
    MemoryBlockDevice base = JournalFixtures.device("crash-" + w.name());
    Journal.format(base, MAP, JournalFixtures.uuid(seed), w.firstTid());
    byte[][] baseImages = new byte[HOMES][];
    for (int i = 0; i < HOMES; i++) {
      baseImages[i] = JournalFixtures.image(-1, 0, HOME0 + i, false);
      JournalFixtures.write(base, HOME0 + i, baseImages[i]);
    }
    RecordingBlockDevice rec = new RecordingBlockDevice(base);
    JournalOptions options = JournalOptions.builder()
        .maxTransactionBuffers(16)
        .asyncCommit(w.asyncCommit())
        .batchingPolicy(w.policy())
        .commitInterval(Duration.ofMillis(50))
        .checkpointInterval(Duration.ofMillis(5))
        .build();
    List<Entry> entries = new ArrayList<>(); // guarded by entries
    int[] revokedIn = new int[HOMES]; // guarded by entries: the tid that last revoked each home block
    Arrays.fill(revokedIn, w.firstTid()); // never a tid the workload uses
    ReadCounting counted = new ReadCounting(rec);
    BlockCache cache = w.cacheBlocks() > 0 ? new BlockCache(counted, new BlockCache.Options(w.cacheBlocks(), 4)) : null;
    Journal j = cache == null ? Journal.open(rec, MAP, options) : Journal.open(counted, MAP, options, cache);
    ExecutorService pool = Executors.newFixedThreadPool(w.threads());
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < w.threads(); t++) {
        int writer = t;
        futures.add(pool.submit(() -> {
          SplittableRandom r = new SplittableRandom(Seeds.derive(seed, writer));
          for (int n = 0; n < w.handlesPerThread(); n++) {
            Handle h = j.start(3, 1);
            int tid = h.tid();
            if (cache != null) {
              j.buffer(OTHER0 + r.nextInt(OTHERS)).release(); // a read elsewhere: the cache evicts what it may
            }
            synchronized (entries) {
              if (r.nextInt(16) == 0) {
                int home = r.nextInt(HOMES);
                h.revoke(HOME0 + home);
                entries.add(new Entry(tid, home, null));
                revokedIn[home] = tid;
              }
              Set<Integer> done = new HashSet<>();
              int count = 1 + r.nextInt(3);
              for (int k = 0; k < count; k++) {
                int home = r.nextInt(HOMES);
                if (!done.add(home) || (revokedIn[home] == tid && !w.reuseRevokedInSameTransaction())) {
                  continue; // see JournalApiTest for reuse after a revoke in the same transaction
                }
                byte[] img = JournalFixtures.image(writer, n, HOME0 + home, r.nextInt(10) == 0);
                try (JournalBuffer b = j.buffer(HOME0 + home)) {
                  h.getWriteAccess(b);
                  b.data().put(img);
                  h.dirtyMetadata(b);
                }
                entries.add(new Entry(tid, home, img));
              }
            }
            boolean sync = r.nextInt(3) == 0;
            h.setSync(sync);
            h.stop();
            if (sync) {
              rec.mark("tid " + Integer.toUnsignedString(tid));
            }
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get(); // rethrows a worker's failure here, in the test thread
      }
    } finally {
      pool.shutdown();
    }
    j.close();
    rec.mark("closed");
    if (cache != null) {
      System.out.printf("workload %s: %d reads of home blocks, %s%n", w.name(), counted.homeReads.get(), cache.stats());
      assertThat(counted.homeReads.get()).as("home blocks read from the device again after eviction from the %d-block cache",
          w.cacheBlocks()).isGreaterThan(HOMES);
    }
    Run run = new Run();
    run.workload = w;
    run.recording = rec.crash();
    run.baseImages = baseImages;
    run.firstTid = w.firstTid();
    List<Entry> sorted;
    synchronized (entries) {
      sorted = new ArrayList<>(entries);
    }
    sorted.sort((a, b) -> Integer.compare(run.ordinal(a.tid()), run.ordinal(b.tid()))); // stable
    int max = sorted.isEmpty() ? 0 : run.ordinal(sorted.getLast().tid());
    run.maxOrdinal = max;
    run.expected = new byte[max + 1][][];
    for (int i = 0; i < HOMES; i++) {
      run.history.add(new ArrayList<>());
    }
    for (Entry en : sorted) {
      run.history.get(en.home()).add((en.image() == null ? "R" : "W") + run.ordinal(en.tid()));
    }
    byte[][] state = baseImages.clone();
    int e = 0;
    for (int k = 0; k <= max; k++) {
      while (e < sorted.size() && run.ordinal(sorted.get(e).tid()) == k) {
        state[sorted.get(e).home()] = sorted.get(e).image();
        e++;
      }
      run.expected[k] = state.clone();
    }
    run.logWrapped = logWrapped(run.recording);
    System.out.printf("workload %s: %d entries, %d transactions, log wrapped: %s, %s%n", w.name(), sorted.size(), max,
        run.logWrapped, run.recording);
    return run;
  }

  /** Whether the log was written at its very end and then again near its start. */
  static boolean logWrapped(Recording recording) {
    long lastLogBlock = MAP.deviceBlock(MAP.length() - 1);
    boolean end = false;
    for (RecordingBlockDevice.Event e : recording.events()) {
      if (e instanceof RecordingBlockDevice.Write wr) {
        if (wr.block() >= lastLogBlock - 8 && wr.block() <= lastLogBlock) {
          end = true;
        } else if (end && wr.block() > MAP.deviceBlock(0) && wr.block() < MAP.deviceBlock(0) + 64) {
          return true;
        }
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- checking states

  static void checkAllStates(long seed, Workload w) throws Exception {
    Run run = record(seed, w);
    assertThat(run.logWrapped).as("the log wrapped around during workload %s", w.name()).isTrue();
    CrashStates states = CrashStates.of(run.recording, seed);
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    AtomicInteger checked = new AtomicInteger();
    AtomicInteger viaOpen = new AtomicInteger();
    states.stream().parallel().forEach(cs -> {
      checked.incrementAndGet();
      try {
        boolean open = (cs.id().hashCode() & 63) == 0 || cs.epoch() == states.epochCount() - 1;
        if (open) {
          viaOpen.incrementAndGet();
        }
        String problem = checkState(run, cs, open);
        if (problem != null) {
          failures.add(cs + ": " + problem);
        }
      } catch (Exception | AssertionError e) {
        failures.add(cs + ": recovery threw " + e);
      }
    });
    STATES.addAndGet(checked.get());
    System.out.printf("workload %s (seed %d): %d crash states, %d recovered through Journal.open, %d failures%n",
        w.name(), seed, checked.get(), viaOpen.get(), failures.size());
    assertThat(checked.get()).as("crash states enumerated").isGreaterThan(1000);
    if (!failures.isEmpty()) {
      org.junit.jupiter.api.Assertions.fail(String.format("workload %s, seed %d: %d crash states recovered wrongly; the first 5:%n%s",
          w.name(), seed, failures.size(), String.join("\n", failures.stream().limit(5).toList())));
    }
  }

  /** Recovers one state and checks it against the oracle; returns a description of what is wrong, or null. */
  static String checkState(Run run, CrashState cs, boolean throughOpen) throws Exception {
    MemoryBlockDevice d = cs.materialize();
    if (throughOpen) {
      Journal.open(d, MAP, JournalOptions.builder().maxTransactionBuffers(16).build()).close();
      if (JournalFixtures.superblock(d).start() != 0) {
        return "after Journal.open + close the journal is not empty";
      }
    } else {
      JournalSuperblock sb = JournalFixtures.superblock(d);
      JournalRecovery.recover(d, MAP, sb);
    }
    return compare(run, cs, d);
  }

  static String compare(Run run, CrashState cs, BlockDevice d) {
    byte[][] home = new byte[HOMES][];
    for (int i = 0; i < HOMES; i++) {
      home[i] = JournalFixtures.read(d, HOME0 + i);
    }
    int minOrdinal = 0;
    for (RecordingBlockDevice.Mark m : cs.acknowledgedMarks()) {
      if (m.label().equals("closed")) {
        minOrdinal = run.maxOrdinal;
      } else {
        int tid = Integer.parseUnsignedInt(m.label().substring(4));
        minOrdinal = Math.max(minOrdinal, Math.min(run.ordinal(tid), run.maxOrdinal));
      }
    }
    for (int k = minOrdinal; k <= run.maxOrdinal; k++) {
      if (matches(run.expected[k], home)) {
        return null;
      }
    }
    // Describe the nearest miss for the report.
    StringBuilder sb = new StringBuilder("home blocks match no prefix >= " + minOrdinal + " (of " + run.maxOrdinal + ")");
    int bestK = -1;
    int bestBad = Integer.MAX_VALUE;
    for (int k = 0; k <= run.maxOrdinal; k++) {
      int bad = 0;
      for (int i = 0; i < HOMES; i++) {
        if (run.expected[k][i] != null && !Arrays.equals(run.expected[k][i], home[i])) {
          bad++;
        }
      }
      if (bad < bestBad) {
        bestBad = bad;
        bestK = k;
      }
    }
    sb.append("; nearest prefix ").append(bestK).append(" differs in blocks");
    for (int i = 0; i < HOMES; i++) {
      if (run.expected[bestK][i] != null && !Arrays.equals(run.expected[bestK][i], home[i])) {
        sb.append(' ').append(HOME0 + i).append(" (holds ").append(describe(run, i, home[i])).append("; history ")
            .append(run.history.get(i)).append(')');
      }
    }
    return sb.toString();
  }

  static String describe(Run run, int home, byte[] content) {
    if (Arrays.equals(content, run.baseImages[home])) {
      return "base";
    }
    for (int k = 0; k <= run.maxOrdinal; k++) {
      if (run.expected[k][home] != null && Arrays.equals(run.expected[k][home], content)) {
        return "image of prefix " + k;
      }
    }
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(content);
    return "unknown: writer " + b.getInt(4) + " counter " + b.getInt(8);
  }

  static boolean matches(byte[][] expected, byte[][] home) {
    for (int i = 0; i < HOMES; i++) {
      if (expected[i] != null && !Arrays.equals(expected[i], home[i])) {
        return false;
      }
    }
    return true;
  }

  /**
   * Recovers {@code cs} on a recording device (replay, then mark the journal empty), then recovers
   * every crash state of that recovery again: each must end with the first recovery's image.
   */
  static void checkRecoveryIsIdempotent(long seed, CrashState cs, ConcurrentLinkedQueue<String> failures) throws Exception {
    RecordingBlockDevice rec = new RecordingBlockDevice(cs.materialize());
    JournalSuperblock sb = JournalFixtures.superblock(rec);
    RecoveryResult result = JournalRecovery.recover(rec, MAP, sb);
    JournalRecovery.markEmpty(rec, MAP, sb, result);
    long fsBlocks = MAP.deviceBlock(0);
    byte[][] first = new byte[(int) fsBlocks][];
    for (int b = 0; b < fsBlocks; b++) {
      first[b] = JournalFixtures.read(rec, b);
    }
    Recording again = rec.crash();
    CrashStates states = CrashStates.of(again, Seeds.derive(seed, cs.id()), new CrashStates.Options(8, 16, true));
    for (CrashState c2 : (Iterable<CrashState>) states.stream()::iterator) {
      RECOVERY_STATES.incrementAndGet();
      MemoryBlockDevice d = c2.materialize();
      JournalSuperblock sb2 = JournalFixtures.superblock(d);
      RecoveryResult r2 = JournalRecovery.recover(d, MAP, sb2);
      if (!sb2.needsRecovery()) {
        // the clean superblock landed: only possible after the replay's flush
        if (r2.transactionsReplayed() != 0) {
          failures.add(cs + " then " + c2.id() + ": clean journal replayed something");
        }
      }
      for (int b = 0; b < fsBlocks; b++) {
        if (!Arrays.equals(first[b], JournalFixtures.read(d, b))) {
          failures.add(cs + ", crash during its recovery " + c2.id() + " (" + c2.description() + "): block " + b
              + " differs from the first recovery's");
          break;
        }
      }
    }
  }
}
