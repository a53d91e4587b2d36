package io.ext4j.bench.jmh;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.CommittedCheck;
import io.ext4j.jbd2.Handle;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalBuffer;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalOptions;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link Journal#isCommitted(int)} under contention: the benchmark threads ask about the latest tid
 * while a background thread keeps committing synchronous handles (on a memory device, so commits
 * are CPU-bound and the journal state lock is busy). {@link CommittedCheck#LOCK_FREE} reads the
 * commit sequence; {@link CommittedCheck#STATE_LOCK} (jbd2 before 2024) takes the state lock that
 * the commit thread and every handle start/stop also take.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
public class IsCommittedBenchmark {
  @Param({"LOCK_FREE", "STATE_LOCK"})
  public CommittedCheck check;

  private MemoryBlockDevice device;
  private Journal journal;
  private Thread committer;
  private volatile boolean stop;
  private volatile int lastTid; // the committer's latest handle's tid

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    device = new MemoryBlockDevice("jmh-is-committed", 4096, 1024 + 16);
    journal = Journal.create(device, JournalMap.contiguous(0, 1024),
        JournalOptions.builder().committedCheck(check).asyncCommit(true).build());
    JournalBuffer buffer = journal.buffer(1024); // pinned while the committer runs
    Handle first = journal.start(1);
    lastTid = first.tid();
    first.stop();
    committer = Thread.ofPlatform().name("jmh-committer").start(() -> {
      long seq = 0;
      while (!stop) {
        try {
          Handle h = journal.start(1);
          h.getWriteAccess(buffer);
          buffer.data().putLong(0, seq++);
          h.dirtyMetadata(buffer);
          lastTid = h.tid();
          h.setSync(true);
          h.stop();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
      buffer.release();
    });
  }

  @Benchmark
  public boolean isCommitted() {
    return journal.isCommitted(lastTid);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    stop = true;
    committer.join();
    journal.close();
    device.close();
  }
}
