package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.SetAttributes;
import io.ext4j.tools.check.CheckOptions;
import io.ext4j.tools.check.CheckReport;
import io.ext4j.tools.check.Checker;
import io.ext4j.testkit.CrashState;
import io.ext4j.testkit.CrashStates;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.Recording;
import io.ext4j.testkit.RecordingBlockDevice;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Crash states of filesystem workloads (the CrashMonkey method, testing.md): every device state a
 * power cut could leave is recovered by ext4j (journal replay, orphan processing) and must then be
 * (a) consistent — ext4j's checker (strict) finds nothing on every state after the recovery and a
 * clean close, and e2fsck -fn prints nothing on a sample — and (b) the state after some
 * prefix of the workload's operations that includes every operation acknowledged durable before
 * the crash. Each operation is one transaction (or finishes through the orphan list), so the
 * recovered tree — names, inodes, link counts, sizes and contents; not timestamps — must equal the
 * tree after operation j for some j at or after the last acknowledged one. Writes are appends, so
 * every file version is exact (overwrites are not atomic in ext4). The image must be usable
 * afterwards. A sample of the raw crash images is also handed to e2fsck -fy instead of ext4j and
 * must end clean.
 */
@Tag("crash")
@Tag("oracle")
@Timeout(value = 900, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class FsCrashStateTest {
  static final Path DIR = Path.of("target", "test-images", "crash");
  static final AtomicLong STATES = new AtomicLong();
  static final AtomicLong E2FSCK_RUNS = new AtomicLong();
  static final AtomicLong CHECKER_RUNS = new AtomicLong();
  static final AtomicLong E2FSCK_RECOVERIES = new AtomicLong();
  static final int E2FSCK_EVERY = Integer.getInteger("ext4j.crash.e2fsckEvery", 6);
  static MemoryBlockDevice base;

  @BeforeAll
  static void makeBase() throws Exception {
    Files.createDirectories(DIR);
    Path img = DIR.resolve("base.img");
    Oracle.mkfs(img, 16 << 20, 1024, "-O", "metadata_csum_seed,orphan_file");
    MemoryBlockDevice dev = MemoryBlockDevice.of("base", 1024, Files.readAllBytes(img));
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      long a = fs.mkdir(Ext4FileSystem.ROOT, b("A"), 0755, Caller.ROOT).ino();
      fs.mkdir(Ext4FileSystem.ROOT, b("B"), 0755, Caller.ROOT);
      write(fs, fs.create(Ext4FileSystem.ROOT, b("foo"), 0644, Caller.ROOT).ino(), 0, 5000, 1);
      write(fs, fs.create(a, b("bar"), 0644, Caller.ROOT).ino(), 0, 300, 2);
      long big = fs.create(a, b("big"), 0644, Caller.ROOT).ino();
      for (int i = 0; i < 40; i++) {
        write(fs, big, i * 8192L, 1024, 3); // an extent tree with a leaf block: unlink/truncate free it
      }
    }
    base = dev;
  }

  @AfterAll
  static void report() {
    System.out.printf("FsCrashStateTest: %d crash states, ext4j's checker on %d, e2fsck -fn on %d, e2fsck -fy recoveries %d%n",
        STATES.get(), CHECKER_RUNS.get(), E2FSCK_RUNS.get(), E2FSCK_RECOVERIES.get());
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static void write(Ext4FileSystem fs, long ino, long pos, int len, int fill) throws IOException {
    byte[] data = new byte[len];
    for (int i = 0; i < len; i++) {
      data[i] = (byte) (fill * 31 + i * 7 + (pos + i) / 1024);
    }
    try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
      f.write(pos, ByteBuffer.wrap(data));
    }
  }

  static long ino(Ext4FileSystem fs, String path) throws IOException {
    long at = Ext4FileSystem.ROOT;
    for (String part : path.substring(1).split("/", 0)) {
      at = fs.lookup(at, b(part)).ino();
    }
    return at;
  }

  /** One step: a change and the call that makes it durable (after which the harness marks). */
  interface Step {
    void run(Ext4FileSystem fs, Snap snap) throws IOException;
  }

  /** Records the tree between two transactions of a step (a state a crash may recover to). */
  interface Snap {
    void now() throws IOException;
  }

  record Op(String name, Step step) {}

  static long size(Ext4FileSystem fs, String p) throws IOException {
    return fs.getattr(ino(fs, p)).size();
  }

  static final List<Op> OPS = List.of(
      new Op("append foo, fsync", (fs, snap) -> {
        long i = ino(fs, "/foo");
        write(fs, i, size(fs, "/foo"), 3000, 4);
        fs.fsync(i, false);
      }),
      new Op("create A/new + write, fsync", (fs, snap) -> {
        long i = fs.create(ino(fs, "/A"), b("new"), 0644, Caller.ROOT).ino();
        snap.now(); // created, not yet written: a transaction of its own
        write(fs, i, 0, 2000, 5);
        fs.fsync(i, false);
      }),
      new Op("create A/new2, fdatasync", (fs, snap) -> {
        long i = fs.create(ino(fs, "/A"), b("new2"), 0644, Caller.ROOT).ino();
        snap.now();
        write(fs, i, 0, 100, 6);
        fs.fsync(i, true);
      }),
      new Op("rename foo B/foo2, fsync B", (fs, snap) -> {
        fs.rename(Ext4FileSystem.ROOT, b("foo"), ino(fs, "/B"), b("foo2"), RenameMode.REPLACE);
        fs.fsync(ino(fs, "/B"), false);
      }),
      new Op("rename A/bar A/baz, fsync baz", (fs, snap) -> {
        fs.rename(ino(fs, "/A"), b("bar"), ino(fs, "/A"), b("baz"), RenameMode.REPLACE);
        fs.fsync(ino(fs, "/A/baz"), false);
      }),
      new Op("unlink A/bar, fsync A", (fs, snap) -> {
        fs.unlink(ino(fs, "/A"), b("bar"));
        fs.fsync(ino(fs, "/A"), false);
      }),
      new Op("mkdir B/sub, fsync B", (fs, snap) -> {
        fs.mkdir(ino(fs, "/B"), b("sub"), 0755, Caller.ROOT);
        fs.fsync(ino(fs, "/B"), false);
      }),
      new Op("link foo B/l, fsync foo", (fs, snap) -> {
        fs.link(ino(fs, "/foo"), ino(fs, "/B"), b("l"));
        fs.fsync(ino(fs, "/foo"), false);
      }),
      new Op("truncate foo 100, fsync", (fs, snap) -> {
        fs.setattr(ino(fs, "/foo"), SetAttributes.none().withSize(100));
        fs.fsync(ino(fs, "/foo"), false);
      }),
      new Op("O_SYNC append foo", (fs, snap) -> {
        try (OpenFile f = fs.open(ino(fs, "/foo"), EnumSet.of(OpenFlag.WRITE, OpenFlag.APPEND, OpenFlag.SYNC))) {
          f.write(0, ByteBuffer.wrap(new byte[777]));
        }
      }),
      new Op("symlink B/s, fsync B", (fs, snap) -> {
        fs.symlink(ino(fs, "/B"), b("s"), b("../foo"), Caller.ROOT);
        fs.fsync(ino(fs, "/B"), false);
      }),
      new Op("rename A/bar over foo, syncfs", (fs, snap) -> {
        fs.rename(ino(fs, "/A"), b("bar"), Ext4FileSystem.ROOT, b("foo"), RenameMode.REPLACE);
        fs.syncfs();
      }),
      new Op("unlink A/big (tree), fsync A", (fs, snap) -> {
        fs.unlink(ino(fs, "/A"), b("big"));
        fs.fsync(ino(fs, "/A"), false);
      }),
      new Op("truncate A/big 5000, fsync", (fs, snap) -> {
        fs.setattr(ino(fs, "/A/big"), SetAttributes.none().withSize(5000));
        fs.fsync(ino(fs, "/A/big"), false);
      }),
      new Op("setxattr foo, fsync", (fs, snap) -> {
        fs.setxattr(ino(fs, "/foo"), "user.k", new byte[300], 0);
        fs.fsync(ino(fs, "/foo"), false);
      }),
      new Op("rmdir B after emptying, syncfs", (fs, snap) -> {
        fs.rmdir(Ext4FileSystem.ROOT, b("B"));
        fs.syncfs();
      }));

  /** The ops of a sequence that may apply after {@code done} (names they need must still exist). */
  static boolean applicable(Op op, List<Op> done) {
    boolean fooGone = done.stream().anyMatch(o -> o.name().startsWith("rename foo"));
    boolean barGone = done.stream().anyMatch(o -> o.name().contains("A/bar"));
    boolean bigGone = done.stream().anyMatch(o -> o.name().startsWith("unlink A/big"));
    boolean bHasStuff = done.stream().anyMatch(o -> o.name().contains(" B/") || o.name().startsWith("rename foo"));
    String n = op.name();
    if (done.contains(op)) {
      return false;
    }
    if (n.contains("foo") && !n.startsWith("rename A/bar over foo") && fooGone) {
      return false;
    }
    if (n.contains("A/bar") && barGone) {
      return false;
    }
    if (n.contains("A/big") && bigGone) {
      return false;
    }
    if (n.startsWith("rmdir B") && bHasStuff) {
      return false;
    }
    if (n.contains(" B/") && done.stream().anyMatch(o -> o.name().startsWith("rmdir B"))) {
      return false;
    }
    return !(n.startsWith("rename foo") && done.stream().anyMatch(o -> o.name().startsWith("rmdir B")));
  }

  @Test
  void shortSequences_everyCrashState_recoversToAnAcknowledgedPrefix() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    List<List<Op>> sequences = new ArrayList<>();
    for (Op a : OPS) {
      sequences.add(List.of(a));
      for (Op b2 : OPS) {
        if (applicable(b2, List.of(a)) && r.nextInt(3) == 0) {
          sequences.add(List.of(a, b2));
        }
      }
    }
    for (int i = 0; i < 12; i++) {
      List<Op> s = new ArrayList<>();
      while (s.size() < 3) {
        Op o = OPS.get(r.nextInt(OPS.size()));
        if (applicable(o, s)) {
          s.add(o);
        }
      }
      sequences.add(s);
    }
    for (List<Op> seq : sequences) {
      runSequence(seed, seq);
    }
  }

  private void runSequence(long seed, List<Op> seq) throws Exception {
    RecordingBlockDevice dev = new RecordingBlockDevice(base.snapshot("crash"));
    List<FsSnapshot> states = new ArrayList<>();
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      states.add(FsSnapshot.of(fs));
      for (int k = 0; k < seq.size(); k++) {
        seq.get(k).step().run(fs, () -> states.add(FsSnapshot.of(fs)));
        states.add(FsSnapshot.of(fs));
        dev.mark(String.valueOf(states.size() - 1)); // the state after this operation is acknowledged durable
      }
    }
    Recording rec = dev.crash();
    String what = seq.stream().map(Op::name).toList().toString();
    CrashStates.Options opts = CrashStates.Options.defaults().withExhaustiveLimit(6).withRandomSubsets(8);
    check(CrashStates.of(rec, Seeds.derive(seed, what), opts), what, (state, fs) -> {
      int lb = state.lastAcknowledgedMark().map(m -> Integer.parseInt(m.label())).orElse(0);
      FsSnapshot got = FsSnapshot.of(fs);
      for (int j = lb; j < states.size(); j++) {
        if (states.get(j).equals(got)) {
          return;
        }
      }
      throw new AssertionError("sequence " + what + ", " + state + ": the recovered tree is not the tree after any"
          + " operation from " + lb + " on; against the last: " + states.getLast().diff(got)
          + "\nagainst operation " + lb + ":" + states.get(lb).diff(got));
    });
  }

  interface StateCheck {
    void check(CrashState state, Ext4FileSystem fs) throws Exception;
  }

  private void check(CrashStates all, String what, StateCheck check) throws Exception {
    for (CrashState state : all) {
      MemoryBlockDevice d = state.materialize();
      long n = STATES.incrementAndGet();
      if (n % (E2FSCK_EVERY * 4L) == 1) {
        e2fsckRecovers(state, d.snapshot("raw"), what);
      }
      try (Ext4FileSystem fs = Ext4FileSystem.open(d, Ext4Options.defaults(), false)) {
        check.check(state, fs);
        usable(fs);
      } catch (Exception | AssertionError e) {
        throw new AssertionError("seed " + all.seed() + ", " + what + ", " + state + ": " + e, e);
      }
      CheckReport report = Checker.check(d, CheckOptions.defaults().withStrict(true));
      assertThat(report.exitCode()).as("seed %d, %s, %s: ext4j's checker after ext4j's recovery and a clean close:%n%s",
          all.seed(), what, state, report.toText()).isZero();
      assertThat(report.notes()).as("seed %d, %s, %s: checker notes:%n%s", all.seed(), what, state, report.toText()).isEmpty();
      CHECKER_RUNS.incrementAndGet();
      if (n % E2FSCK_EVERY == 0) {
        e2fsckClean(d, state, what);
      }
    }
  }

  /** The image accepts new work after recovery: create, write, fsync, remove. */
  static void usable(Ext4FileSystem fs) throws IOException {
    long i = fs.create(Ext4FileSystem.ROOT, b("after-crash"), 0644, Caller.ROOT).ino();
    write(fs, i, 0, 4096, 9);
    fs.fsync(i, false);
    fs.unlink(Ext4FileSystem.ROOT, b("after-crash"));
  }

  private static void e2fsckClean(MemoryBlockDevice d, CrashState state, String what) throws Exception {
    Path img = Files.createTempFile(DIR, "state", ".img");
    try {
      Files.write(img, d.toByteArray());
      try {
        Oracle.assertClean(img);
      } catch (AssertionError e) {
        throw new AssertionError(what + ", " + state + ": after ext4j's recovery: " + e.getMessage(), e);
      }
      E2FSCK_RUNS.incrementAndGet();
    } finally {
      Files.deleteIfExists(img);
    }
  }

  /** The raw crash image recovered by e2fsck -fy instead of ext4j ends clean. */
  private static void e2fsckRecovers(CrashState state, MemoryBlockDevice raw, String what) throws Exception {
    Path img = Files.createTempFile(DIR, "raw", ".img");
    try {
      Files.write(img, raw.toByteArray());
      E2fsprogs.Result fix = E2fsprogs.run(E2fsprogs.TIMEOUT, "e2fsck", "-fy", img.toString());
      assertThat(fix.exitCode()).as("%s, %s: e2fsck -fy exit (%s)", what, state, fix.output()).isLessThanOrEqualTo(1);
      // From a backup superblock e2fsck reads the backup descriptors, which nobody updates after
      // mkfs (the kernel neither): their counts are stale, and e2fsck corrects them.
      boolean fromBackup = fix.output().contains("trying backup blocks");
      for (String line : fix.stdout().lines().toList()) {
        boolean benign = (fromBackup && (line.contains("count wrong for group") || line.startsWith("Block bitmap differences")
            || line.startsWith("Inode bitmap differences") || line.startsWith(" ") || line.contains("Directories count wrong")
            || line.equals("FIXED.")))
            || line.startsWith("Pass ") || io.ext4j.testkit.E2fsprogs.clockNote(line) || line.isBlank() || line.contains("recovering journal")
            || line.contains("Free blocks count wrong") || line.contains("Free inodes count wrong")
            || line.contains("FILE SYSTEM WAS MODIFIED") || line.matches(".*: \\d+/\\d+ files \\(.*")
            || line.startsWith("Clearing orphaned inode") || line.contains("orphan file") || line.contains("Orphan file")
            || line.startsWith("Truncating orphaned inode") || line.contains("Padding at end of inode bitmap")
            || line.startsWith("Setting free") || line.contains("Fix? yes") || line.startsWith("Clear? yes")
            // a superblock write torn by the crash (ext4j writes it directly at mount and unmount, as
            // the kernel does): e2fsck falls back to the backup superblock
            || line.contains("Superblock checksum does not match superblock") || line.contains("trying backup blocks")
            // e2fsck 1.47.0 rejects a commit block torn after its header sector, which the kernel and
            // ext4j accept; such a transaction was never acknowledged, so either outcome is right
            || line.matches("Journal transaction \\d+ was corrupt, replay was aborted\\.");
        assertThat(benign).as("%s, %s: e2fsck -fy fixed something real: %s%nfull output:%n%s", what, state, line, fix.output())
            .isTrue();
      }
      Oracle.assertClean(img);
      E2FSCK_RECOVERIES.incrementAndGet();
    } finally {
      Files.deleteIfExists(img);
    }
  }

  // ============================================================ multi-threaded

  @Test
  void threadsWithFsyncFdatasyncOsyncAndRename_everyCrashState_keepsWhatEachThreadAcknowledged() throws Exception {
    long seed = Seeds.seed();
    int threads = 3;
    int opsPerThread = Integer.getInteger("ext4j.crash.ops", 25);
    RecordingBlockDevice dev = new RecordingBlockDevice(base.snapshot("mt"));
    List<List<FsSnapshot>> history = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      history.add(new CopyOnWriteArrayList<>());
    }
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      long[] dirs = new long[threads];
      for (int t = 0; t < threads; t++) {
        dirs[t] = fs.mkdir(Ext4FileSystem.ROOT, b("t" + t), 0755, Caller.ROOT).ino();
      }
      fs.syncfs();
      for (int t = 0; t < threads; t++) {
        history.get(t).add(FsSnapshot.of(fs).under("/t" + t));
      }
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int me = t;
        SplittableRandom r = new SplittableRandom(Seeds.derive(seed, me));
        futures.add(pool.submit(() -> {
          threadOps(fs, dev, me, dirs[me], r, opsPerThread, history.get(me));
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      pool.shutdown();
    }
    Recording rec = dev.crash();
    CrashStates.Options opts = CrashStates.Options.defaults().withExhaustiveLimit(5).withRandomSubsets(6);
    check(CrashStates.of(rec, seed, opts), "threads", (state, fs) -> {
      FsSnapshot got = FsSnapshot.of(fs);
      for (int t = 0; t < threads; t++) {
        int lb = 0;
        for (var m : state.acknowledgedMarks()) {
          String[] p = m.label().split(":", 0);
          if (Integer.parseInt(p[0]) == t) {
            lb = Math.max(lb, Integer.parseInt(p[1]));
          }
        }
        FsSnapshot mine = got.under("/t" + t);
        List<FsSnapshot> h = history.get(t);
        boolean ok = false;
        for (int j = lb; j < h.size() && !ok; j++) {
          ok = h.get(j).equals(mine);
        }
        if (!ok) {
          throw new AssertionError("thread " + t + ": recovered tree is not its tree after any op from " + lb
              + " on; against op " + lb + ":" + h.get(lb).diff(mine) + "\nagainst the last:" + h.getLast().diff(mine));
        }
      }
    });
  }

  /** One thread's ops in its own directory: appends with fsync/fdatasync/O_SYNC, creates, renames, unlinks. */
  private static void threadOps(Ext4FileSystem fs, RecordingBlockDevice dev, int me, long dir, SplittableRandom r, int n,
      List<FsSnapshot> history) throws IOException {
    List<String> names = new ArrayList<>();
    int made = 0;
    for (int k = 1; k <= n; k++) {
      int x = r.nextInt(10);
      if (names.isEmpty() || x < 2) {
        String name = "f" + made++;
        long i = fs.create(dir, b(name), 0644, Caller.ROOT).ino();
        history.add(FsSnapshot.ofDir(fs, dir, "/t" + me)); // created, not yet written
        write(fs, i, 0, 1 + r.nextInt(3000), me);
        fs.fsync(i, r.nextBoolean());
        names.add(name);
      } else if (x < 6) {
        long i = fs.lookup(dir, b(names.get(r.nextInt(names.size())))).ino();
        int len = 1 + r.nextInt(5000);
        if (r.nextBoolean()) {
          try (OpenFile f = fs.open(i, Set.of(OpenFlag.WRITE, OpenFlag.APPEND, r.nextBoolean() ? OpenFlag.SYNC : OpenFlag.DSYNC))) {
            f.write(0, ByteBuffer.wrap(new byte[len]));
          }
        } else {
          write(fs, i, fs.getattr(i).size(), len, me + k);
          fs.fsync(i, r.nextBoolean());
        }
      } else if (x < 8) {
        String from = names.get(r.nextInt(names.size()));
        String to = r.nextBoolean() && names.size() > 1 ? names.get(r.nextInt(names.size())) : "r" + made++;
        if (from.equals(to)) {
          continue;
        }
        fs.rename(dir, b(from), dir, b(to), RenameMode.REPLACE);
        names.remove(from);
        if (!names.contains(to)) {
          names.add(to);
        }
        fs.fsync(fs.lookup(dir, b(to)).ino(), false); // the renamed inode's fsync commits the rename
      } else {
        String gone = names.remove(r.nextInt(names.size()));
        fs.unlink(dir, b(gone));
        fs.fsync(dir, false);
      }
      history.add(FsSnapshot.ofDir(fs, dir, "/t" + me));
      dev.mark(me + ":" + (history.size() - 1));
    }
  }
}
