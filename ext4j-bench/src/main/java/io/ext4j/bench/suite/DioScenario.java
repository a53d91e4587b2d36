package io.ext4j.bench.suite;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.bench.TimedRun;
import io.ext4j.fs.DioLocking;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The {@code dio} scenario (the 2019 ext4 DIO locking RFC): {@value #THREADS} threads of direct I/O
 * ({@code ExtendedOpenOption.DIRECT}: O_DIRECT on the host, the engine's direct I/O in-process) on
 * one shared {@value #FILE_MIB} MiB file, at each block size. Operations, each thread in a closed
 * loop as one of fio's jobs on one file: {@code randwrite} and {@code randread} (uniform aligned
 * offsets), {@code write} and {@code read} (sequential from the start, wrapping), all on a file
 * written through once (overwrites), and {@code randwrite-holes}: random writes into a file half that
 * size that is all holes again at each slice (each first write to a block allocates it). The engine runs with each inode-lock
 * strategy ({@link DioLocking}): always exclusive, shared for aligned overwrites, and the default,
 * shared with unwritten-extent allocation. Beside them fio's {@value #THREADS}-job O_DIRECT rate on a
 * host file of the same size. Random offsets come from fixed seeds (thread i: seed i), so every
 * target sees the same sequence.
 */
final class DioScenario implements Scenario {
  static final String NAME = "dio";
  static final String KNOB = "dioLocking";
  static final List<String> OPS = List.of("randwrite", "randread", "write", "read", "randwrite-holes");
  static final int THREADS = 10;
  static final int FILE_MIB = 64;
  private static final long FILE = (long) FILE_MIB << 20;
  private static final long HOLES = FILE / 2;
  private static final int ALIGN = 4096;

  /**
   * Each workload thread's aligned direct buffer per block size, made once and reused by every
   * slice: slices run one at a time on the suite's coordinating thread, which alone touches the map
   * (a thread uses only its own buffer while its slice runs). A buffer per slice instead left
   * hundreds of MiB of 1 MiB direct buffers for the collector to find.
   */
  static final class Buffers {
    private final java.util.Map<Integer, ByteBuffer[]> bySize = new java.util.HashMap<>(); // the coordinating thread's

    ByteBuffer[] of(int bs) {
      return bySize.computeIfAbsent(bs, b -> {
        ByteBuffer[] a = new ByteBuffer[THREADS];
        for (int i = 0; i < THREADS; i++) {
          a[i] = ByteBuffer.allocateDirect(b + ALIGN).alignedSlice(ALIGN);
        }
        return a;
      });
    }
  }

  private final Buffers buffers = new Buffers();

  @Override
  public String name() {
    return NAME;
  }

  /** Direct I/O down to the disk on every target that can, as fio's bound is. */
  @Override
  public boolean direct() {
    return true;
  }

  @Override
  public Map<String, List<String>> knobs() {
    return Scenario.othersThan(KNOB, io.ext4j.fs.Ext4Options.defaults().dioLocking());
  }

  /** Writes the file on every target (and fio's on the host), then every operation × block size × target. */
  @Override
  public List<Cell> plan(Targets targets, SuiteOptions o, Path scratch) throws IOException {
    String dflt = Scenario.optionName(io.ext4j.fs.Ext4Options.defaults().dioLocking());
    Path fioFile = null;
    if (scratch != null) {
      fioFile = Files.createDirectories(scratch.resolve("dio")).resolve("dio.dat");
      fill(fioFile);
    }
    List<Target> serving = targets.list().stream().filter(t -> t.servesKnob(KNOB)).toList();
    for (Target t : serving) {
      fill(Files.createDirectories(t.dir().resolve(NAME)).resolve("dio.dat"));
    }
    List<Cell> cells = new ArrayList<>();
    for (String op : OPS) {
      for (int bs : o.blockSizes()) {
        for (Target t : serving) {
          Path dir = t.dir().resolve(NAME);
          String setting = Scenario.setting(t, KNOB, dflt);
          cells.add(new Cell(NAME, op, t.name(), setting, dflt.equals(setting), THREADS, bs,
              (warmup, window) -> Cell.Slice.of(slice(dir, op, bs, false, buffers, warmup, window))));
        }
        if (fioFile != null && !op.equals("randwrite-holes")) {
          Path f = fioFile;
          cells.add(new Cell(NAME, op, FioBound.TARGET, null, false, THREADS, bs, (warmup, window) -> FioBound.run(
              List.of("--filename=" + f, "--direct=1", "--rw=" + op, "--bs=" + bs, "--size=" + FILE, "--numjobs=" + THREADS),
              op.endsWith("read"), warmup, window)));
        }
      }
    }
    return cells;
  }

  /** {@code FILE} bytes written and made durable (a pattern, not zeros, so nothing is elided). */
  static void fill(Path f) throws IOException {
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
      for (long at = 0; at < FILE; at += b.capacity()) {
        b.clear();
        b.putLong(0, at);
        Channels.writeFully(c, b, at);
      }
      c.force(true);
    }
  }

  /** One slice of {@code op}; with {@code dsync} the file is opened O_DSYNC too (each write durable on return). */
  static TimedRun.Result slice(Path dir, String op, int bs, boolean dsync, Buffers buffers, Duration warmup, Duration window)
      throws Exception {
    boolean holes = op.equals("randwrite-holes");
    Path f = dir.resolve(holes ? "holes.dat" : "dio.dat");
    if (holes) {
      Files.deleteIfExists(f);
      try (FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        c.write(ByteBuffer.wrap(new byte[1]), HOLES - 1); // all holes but the last block
        c.force(true);
      }
    }
    boolean write = op.contains("write");
    boolean random = op.startsWith("rand");
    long blocks = (holes ? HOLES : FILE) / bs;
    java.util.Set<java.nio.file.OpenOption> open = new java.util.HashSet<>(
        List.of(StandardOpenOption.READ, StandardOpenOption.WRITE, FileBlockDevice.O_DIRECT));
    if (dsync) {
      open.add(StandardOpenOption.DSYNC);
    }
    FileChannel ch = FileChannel.open(f, open);
    Throwable failure = null;
    try {
      List<TimedRun.Op> ops = new ArrayList<>();
      ByteBuffer[] mine = buffers.of(bs);
      for (int i = 0; i < THREADS; i++) {
        SplittableRandom rnd = new SplittableRandom(i);
        ByteBuffer buf = mine[i];
        ops.add(seq -> {
          long pos = (random ? rnd.nextLong(blocks) : seq % blocks) * bs;
          buf.clear().limit(bs);
          if (write) {
            buf.putLong(0, seq);
            Channels.writeFully(ch, buf, pos);
          } else {
            while (buf.hasRemaining()) {
              if (ch.read(buf, pos + buf.position()) < 0) {
                throw new IOException(f + ": end of file at " + (pos + buf.position()));
              }
            }
          }
        });
      }
      return TimedRun.run(ops, warmup, window, () -> { }, () -> { });
    } catch (Throwable t) {
      failure = t;
      throw t;
    } finally {
      Channels.closeAll(List.of(ch), failure);
    }
  }
}
