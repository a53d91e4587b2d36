package io.ext4j.bench.jmh;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.Handle;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalBuffer;
import io.ext4j.jbd2.JournalException;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.jbd2.WriteAccessPath;
import java.time.Duration;
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
 * {@link Handle#getWriteAccess} of buffers already in the running transaction, the common case of
 * a busy filesystem (the same bitmap and inode-table blocks touched by every handle): every
 * benchmark thread holds its own open handle on the one running transaction and asks again and
 * again for write access to a few shared buffers. {@link WriteAccessPath#LOCK_FREE_FAST_PATH}
 * answers with two volatile reads; {@link WriteAccessPath#ALWAYS_LOCKED} (jbd2 before 2015) takes
 * each buffer's lock, which the threads then contend for. The commit interval is an hour, so the
 * transaction stays running for the whole trial; a memory device keeps I/O out of the picture.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
@Warmup(iterations = 1, time = 1)
@Measurement(iterations = 3, time = 1)
public class WriteAccessBenchmark {
  @Param({"LOCK_FREE_FAST_PATH", "ALWAYS_LOCKED"})
  public WriteAccessPath path;

  /** Shared buffers, a power of two. */
  @Param({"4"})
  public int sharedBuffers;

  private MemoryBlockDevice device;
  private Journal journal;
  private JournalBuffer[] shared;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    if (Integer.bitCount(sharedBuffers) != 1) {
      throw new IllegalArgumentException("sharedBuffers must be a power of two: " + sharedBuffers);
    }
    device = new MemoryBlockDevice("jmh-write-access", 4096, 1024 + sharedBuffers);
    journal = Journal.create(device, JournalMap.contiguous(0, 1024),
        JournalOptions.builder().writeAccessPath(path).commitInterval(Duration.ofHours(1)).build());
    shared = new JournalBuffer[sharedBuffers]; // pinned until tearDown
    for (int i = 0; i < sharedBuffers; i++) {
      shared[i] = journal.buffer(1024 + i);
    }
  }

  /** One open handle per benchmark thread, started and stopped by that thread. */
  @State(Scope.Thread)
  public static class Worker {
    Handle handle;
    int next;

    @Setup(Level.Trial)
    public void open(WriteAccessBenchmark b) throws JournalException {
      handle = b.journal.start(1);
      for (JournalBuffer buffer : b.shared) {
        handle.getWriteAccess(buffer); // the first access files the buffer in the running transaction
      }
    }

    @TearDown(Level.Trial)
    public void close() throws JournalException {
      handle.stop();
    }
  }

  @Benchmark
  public void getWriteAccess(Worker w) throws JournalException {
    w.handle.getWriteAccess(shared[w.next++ & (sharedBuffers - 1)]);
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    for (JournalBuffer b : shared) {
      b.release(); // pinned for the whole trial
    }
    journal.close();
    device.close();
  }
}
