package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.tools.check.CheckOptions;
import io.ext4j.tools.check.CheckReport;
import io.ext4j.tools.check.Checker;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.FaultyBlockDevice;
import io.ext4j.testkit.FaultyBlockDevice.Fault;
import io.ext4j.testkit.InjectedFaultException;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The engine over a device that fails: at a random point of a randomized workload one write, flush
 * or read fails with EIO ({@link FaultyBlockDevice}); half the failed writes are torn, landing the
 * first half of their blocks (or a one-block write's first sector) before failing. Every call then either succeeds or fails with
 * an IOException; once the filesystem has turned read-only every later write fails with EROFS
 * naming the cause; a failed read of a data block fails only that read. Afterwards what reached the
 * device recovers — with ext4j, checked by ext4j's checker every round and by {@code e2fsck -fn}
 * on a sample — to a clean filesystem holding every file whose fsync returned.
 */
@Tag("crash")
class FaultInjectionTest {
  /** Rounds of one fault each: 1,000 (about 10 s), 20,000 with -Psoak, or -Dext4j.faults.rounds=N. */
  private static final int ROUNDS = Integer.getInteger("ext4j.faults.rounds", Boolean.getBoolean("ext4j.soak") ? 20_000 : 1_000);

  @Test
  void aFailedWriteOrFlush_turnsReadOnly_andLosesNothingAnFsyncAcknowledged() throws Exception {
    long seed = Seeds.seed();
    Path dir = Files.createDirectories(Path.of("target", "test-images", "faults"));
    Path base = dir.resolve("base.img");
    Oracle.mkfs(base, 8L << 20, 1024);
    byte[] clean = Files.readAllBytes(base);
    int faults = 0;
    int turnedReadOnly = 0;
    int tornRounds = 0;
    int acknowledged = 0;
    int fsckRuns = 0;
    for (int round = 0; round < ROUNDS; round++) {
      SplittableRandom r = new SplittableRandom(Seeds.derive(seed, round));
      MemoryBlockDevice disk = MemoryBlockDevice.of("faults-" + round, 1024, clean.clone());
      FaultyBlockDevice dev = new FaultyBlockDevice(disk);
      boolean flush = r.nextInt(3) == 0;
      Fault fault = flush ? Fault.onNthFlush(1 + r.nextInt(4)) : Fault.onNthWrite(1 + r.nextInt(60));
      boolean torn = !flush && r.nextBoolean();
      dev.tearWrites(torn);
      String what = (flush ? "flush" : torn ? "torn write" : "write") + " fault, round " + round + " (seed " + seed + ")";
      int injectAt = 2 + r.nextInt(25);
      Map<String, byte[]> synced = new LinkedHashMap<>();
      Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false);
      Ext4Exception readOnlyError = null;
      try {
        for (int op = 0; op < 45; op++) {
          if (op == injectAt) {
            dev.inject(fault);
          }
          String name = "f" + op;
          byte[] data = new byte[r.nextInt(30_000)];
          r.nextBytes(data);
          try {
            sealedFile(fs, name, data, r.nextBoolean());
            synced.put(name, data); // its fsync returned: it must survive
          } catch (IOException e) {
            assertThat(e).as(what).isNotNull(); // an IOException is the only acceptable failure
          }
          if (fs.isReadOnly() && readOnlyError == null) {
            turnedReadOnly++;
            Ext4Exception refused = null;
            try {
              fs.mkdir(Ext4FileSystem.ROOT, bytes("after-" + op), 0755, Caller.ROOT);
            } catch (Ext4Exception e) {
              refused = e;
            }
            assertThat(refused).as("a write after the filesystem turned read-only (%s)", what).isNotNull();
            assertThat(refused.errno()).isEqualTo(Errno.EROFS);
            assertThat(causes(refused)).as(what).anyMatch(t -> t instanceof InjectedFaultException);
            readOnlyError = refused;
          }
        }
      } finally {
        try {
          fs.close();
        } catch (IOException e) {
          assertThat(dev.injectedCount()).as("close failed without a fault (%s): %s", what, e).isPositive();
        }
      }
      faults += (int) dev.injectedCount();
      tornRounds += torn && dev.injectedCount() > 0 ? 1 : 0;
      acknowledged += synced.size();

      // What reached the device: recovered by ext4j, every fsynced file is there, and it is clean.
      try (Ext4FileSystem again = Ext4FileSystem.open(disk, Ext4Options.defaults(), false)) {
        for (var e : synced.entrySet()) {
          assertThat(read(again, e.getKey())).as("%s: %s after recovery", what, e.getKey()).isEqualTo(e.getValue());
        }
      }
      CheckReport rep = Checker.check(disk, CheckOptions.defaults());
      assertThat(rep.exitCode()).as("ext4j fsck after recovery, %s:%n%s", what, rep.toText()).isZero();
      if (round % 50 == 0) {
        Path img = dir.resolve("round.img");
        Files.write(img, disk.toByteArray());
        Oracle.assertClean(img);
        fsckRuns++;
      }
    }
    System.out.printf("faults: %d rounds, %d faults injected (%d of them torn writes), %d turned read-only, %d fsynced files "
        + "verified after recovery, e2fsck -fn on %d%n", ROUNDS, faults, tornRounds, turnedReadOnly, acknowledged, fsckRuns);
    assertThat(faults).isPositive();
    assertThat(turnedReadOnly).isPositive();
    assertThat(tornRounds).as("rounds whose failed write was torn").isPositive();
    assertThat(acknowledged).isPositive();
  }

  @Test
  void aFailedDataRead_failsOnlyThatRead() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "faults"));
    Path base = dir.resolve("read.img");
    Oracle.mkfs(base, 8L << 20, 4096);
    MemoryBlockDevice disk = MemoryBlockDevice.of("read-fault", 4096, Files.readAllBytes(base));
    FaultyBlockDevice dev = new FaultyBlockDevice(disk);
    byte[] data = new byte[50_000];
    new SplittableRandom(5).nextBytes(data);
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      sealedFile(fs, "data", data, false);
      long ino = fs.lookup(Ext4FileSystem.ROOT, bytes("data")).ino();
      long block = fs.extents(ino).getFirst().pblk();
      dev.inject(op -> op.kind() == FaultyBlockDevice.Kind.READ && op.covers(block));
      Ext4Exception e = null;
      try {
        read(fs, "data");
      } catch (Ext4Exception x) {
        e = x;
      }
      assertThat(e).as("reading a file whose first block fails").isNotNull();
      assertThat(e.errno()).isEqualTo(Errno.EIO);
      assertThat(fs.isReadOnly()).as("a data read error is not an error of the filesystem").isFalse();
      sealedFile(fs, "still-writable", data, true);
      dev.heal();
      assertThat(read(fs, "data")).isEqualTo(data);
    }
  }

  /** Creates {@code name}, writes {@code data} (direct or buffered), fsyncs and closes it. */
  private static void sealedFile(Ext4FileSystem fs, String name, byte[] data, boolean datasync) throws IOException {
    Attributes a = fs.create(Ext4FileSystem.ROOT, bytes(name), 0644, Caller.ROOT);
    try (OpenFile f = fs.open(a.ino(), EnumSet.of(OpenFlag.WRITE))) {
      f.write(0, ByteBuffer.wrap(data));
      f.fsync(datasync);
    }
  }

  private static byte[] read(Ext4FileSystem fs, String name) throws IOException {
    Attributes a = fs.lookup(Ext4FileSystem.ROOT, bytes(name));
    try (OpenFile f = fs.open(a.ino(), Set.of(OpenFlag.READ))) {
      ByteBuffer b = ByteBuffer.allocate((int) a.size());
      while (b.hasRemaining() && f.read(b.position(), b) > 0) {
        // until full or end of file
      }
      return Arrays.copyOf(b.array(), b.position());
    }
  }

  private static List<Throwable> causes(Throwable t) {
    java.util.ArrayList<Throwable> out = new java.util.ArrayList<>();
    for (Throwable c = t; c != null && out.size() < 20; c = c.getCause()) {
      out.add(c);
      out.addAll(Arrays.asList(c.getSuppressed()));
    }
    return out;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
