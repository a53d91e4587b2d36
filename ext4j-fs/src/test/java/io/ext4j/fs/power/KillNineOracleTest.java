package io.ext4j.fs.power;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SequencedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The whole writer dies at a random instant: a child JVM runs {@link PowerCutWriter}'s workload on a
 * real image file and is killed with SIGKILL — mid-operation, mid-commit, mid-checkpoint — and every
 * fact it acknowledged before it died (a line it printed after the fsync, fdatasync, directory fsync
 * or syncfs backing it returned) must hold after recovery. The crash image is recovered three ways:
 * by ext4j (a read-write open: journal replay and orphans, then a clean close), by
 * {@code e2fsck -fy} (which may repair only what a crash leaves: see {@link #CRASH_REPAIRS}), and by
 * ext4j's read-only open (journal replayed in memory, on the untouched crash image). The first two
 * must then pass {@code e2fsck -fn}; the facts are checked on all three.
 *
 * <p>Each run picks one of two caches, which decide what the kill destroys:
 * <ul>
 *   <li>{@code page-cache}: the child opens the image as any user does. A SIGKILL destroys the
 *       process, not the OS page cache, so every write the engine issued survives, whole and in order:
 *       the crash of the process at an arbitrary instant of a real multi-threaded run.
 *   <li>{@code volatile-cache}: a {@link VolatileCacheDevice} holds every write in the child's memory
 *       until a flush writes it out, so the kill is a power cut: every unflushed write is lost and a
 *       flush cut short keeps a random subset. An acknowledgement the engine gave before its flush
 *       finished fails here (a writer that claims a file before syncing it is caught within a few runs).
 * </ul>
 * Torn sectors and reordered unflushed writes that partly survive are FsCrashStateTest's: it enumerates
 * a device's crash states; this test needs no model of the device, and no operation is simulated.
 *
 * <p>Runs: {@code -Dext4j.kill9.runs} (default 10), each with a seed derived from {@link Seeds#seed()},
 * which sets the workload, the cache, the kill delay after READY (50–1500 ms) and the image's features
 * (with or without orphan_file). The workload replays exactly with {@code -Dext4j.seed}; the kill
 * instant is real time, so a failing run keeps its images under {@code target/test-images/kill9}
 * ({@code runN.img} is the crash image as the kill left it), which reproduce the recovery exactly.
 */
@Tag("crash")
@Tag("oracle")
class KillNineOracleTest {
  static final Path DIR = Path.of("target", "test-images", "kill9");
  static final int RUNS = Integer.getInteger("ext4j.kill9.runs", 10);
  static final long IMAGE_BYTES = 32L << 20;
  static final long READY_SECONDS = 30;
  /** The exit status the JDK reports for a process killed by SIGKILL (128 + 9). */
  static final int KILLED_BY_SIGKILL = 137;

  /**
   * What e2fsck -fy may print on an image whose writer died: the journal replayed, orphaned inodes
   * (unlinked while open, or mid-truncate) finished, and the superblock's free counts, which neither
   * ext4j nor the kernel keeps exact while mounted, recomputed. With orphan_file: orphan_present,
   * which a read-write mount sets (the kernel's too, per its orphan file documentation), is cleared
   * when no orphan was left; and e2fsck 1.47.0 clears, in pass 5, the orphan file block whose entries
   * it has just released — as it does on an image the kernel left with an open-unlinked file (checked
   * by hand: loop mount, unlink a held file, copy the image). Anything else is an inconsistency the
   * crash exposed.
   */
  static final Pattern CRASH_REPAIRS = Pattern.compile(String.join("|",
      "", "Pass \\d[A-Z]?: .*", ".*: recovering journal", "Clearing orphaned inode \\d+ .*", "Truncating orphaned inode \\d+ .*",
      "Free (blocks|inodes) count wrong \\(\\d+, counted=\\d+\\)\\.", "Fix\\? yes",
      "Orphan file \\(inode \\d+\\) block \\d+ is not clean\\.", "Clear\\? yes",
      "Feature orphan_present is set but orphan file is clean\\.", ".*\\*\\*\\*\\*\\* FILE SYSTEM WAS MODIFIED \\*\\*\\*\\*\\*",
      ".*: \\d+/\\d+ files \\(.*\\), \\d+/\\d+ blocks"));

  /** One run: how many facts it verified, and whether the kill found the child still running. */
  record Outcome(int facts, boolean killedRunning) {}

  @Test
  void killNine_atRandomInstants_keepsEveryAcknowledgedFact_afterExt4jAndE2fsckRecovery() throws Exception {
    E2fsprogs.requireInstalled("e2fsck");
    long base = Seeds.seed();
    Files.createDirectories(DIR);
    System.out.printf("kill -9: base seed %d, %d runs%n", base, RUNS);
    long start = System.nanoTime();
    long facts = 0;
    int killedRunning = 0;
    for (int run = 0; run < RUNS; run++) {
      Outcome o = runOnce(run, base, Seeds.derive(base, run));
      facts += o.facts();
      killedRunning += o.killedRunning() ? 1 : 0;
    }
    System.out.printf("kill -9: %d runs, %d acknowledged fsync facts verified, ext4j and e2fsck -fy recoveries both e2fsck -fn clean"
        + " (%.1f s)%n", RUNS, facts, (System.nanoTime() - start) / 1e9);
    assertThat(facts).as("acknowledged facts verified over %d runs (base seed %d): the child must get some fsyncs done", RUNS, base)
        .isPositive();
    assertThat(killedRunning).as("runs whose child was still running when killed").isPositive();
  }

  private Outcome runOnce(int run, long base, long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    int delayMs = r.nextInt(50, 1501);
    List<String> features = r.nextBoolean() ? List.of("-O", "orphan_file,metadata_csum_seed") : List.of();
    String cache = r.nextBoolean() ? "volatile-cache" : "page-cache";
    String what = String.format("run %d (seed %d, base seed %d, %s, killed %d ms after READY, mkfs %s; images kept as %s*)", run,
        seed, base, cache, delayMs, features, DIR.toAbsolutePath().resolve("run" + run));
    System.out.printf("kill -9 run %d: seed %d, %s, kill %d ms after READY, mkfs.ext4 -b 4096 %s%n", run, seed, cache, delayMs,
        String.join(" ", features));
    Path img = DIR.resolve("run" + run + ".img");
    Path stderr = DIR.resolve("run" + run + ".stderr");
    mkfs(img, features);

    Process child = new ProcessBuilder(javaCommand(), "-XX:+UseSerialGC", "-Xmx128m", "-ea", "--enable-native-access=ALL-UNNAMED",
        "-cp", System.getProperty("java.class.path"), PowerCutWriter.class.getName(), img.toString(), Long.toString(seed),
        cache)
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
        .redirectError(stderr.toFile())
        .start();
    List<String> lines;
    int exit;
    try {
      ChildOutput out = ChildOutput.start(child.getInputStream());
      if (!out.awaitReady(READY_SECONDS, TimeUnit.SECONDS)) {
        child.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        throw new AssertionError(what + ": the child never printed READY within " + READY_SECONDS + " s; its stderr:\n"
            + Files.readString(stderr));
      }
      child.waitFor(delayMs, TimeUnit.MILLISECONDS); // the kill instant; returns early only if the child died by itself
      // SIGKILL through the handle: Process.destroyForcibly would also close our end of the pipe,
      // racing the reader and dropping lines still in it
      child.toHandle().destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("%s: the child died within 30 s of SIGKILL", what).isTrue();
      exit = child.exitValue();
      lines = out.finish(30, TimeUnit.SECONDS);
    } finally {
      if (child.isAlive()) {
        child.destroyForcibly();
      }
    }
    String err = Files.readString(stderr);
    assertThat(exit).as("%s: the child's exit status (%d is SIGKILL's; anything else means it ended by itself); its stderr:%n%s", what,
        KILLED_BY_SIGKILL, err).isEqualTo(KILLED_BY_SIGKILL);
    assertThat(err).as("%s: the child's stderr", what).isBlank();
    assertThat(lines).as("%s: the child's stdout", what).containsOnlyOnce("READY");
    SequencedSet<Fact> facts = new LinkedHashSet<>();
    for (String line : lines) {
      if (!line.equals("READY")) { // the top directories' DIR facts come before it
        facts.add(Fact.parse(line));
      }
    }

    Path byExt4j = DIR.resolve("run" + run + "-ext4j.img");
    Path byE2fsck = DIR.resolve("run" + run + "-e2fsck.img");
    Files.copy(img, byExt4j, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(img, byE2fsck, StandardCopyOption.REPLACE_EXISTING);
    try (Ext4FileSystem fs = Ext4FileSystem.open(byExt4j, Ext4Options.defaults())) {
      assertThat(fs.isReadOnly()).as("%s: ext4j's recovery left the filesystem read-only: %s", what, fs.readOnlyReason()).isFalse();
    }
    E2fsprogs.Result fix = E2fsprogs.run(E2fsprogs.TIMEOUT, "e2fsck", "-fy", byE2fsck.toString());
    assertThat(fix.exitCode()).as("%s: e2fsck -fy on the crash image exits 0, 1 or 2; it printed:%n%s", what, fix.output())
        .isBetween(0, 2);
    assertThat(fix.stdout().lines().filter(l -> !CRASH_REPAIRS.matcher(l).matches()))
        .as("%s: e2fsck -fy repaired more than a crash leaves (journal replay, orphans, free counts); it printed:%n%s", what,
            fix.output())
        .isEmpty();
    for (Path p : List.of(byExt4j, byE2fsck)) {
      E2fsprogs.Result check = E2fsprogs.e2fsckForceNoChange(p);
      assertThat(check.exitCode()).as("%s: e2fsck -fn on %s exits 0; it printed:%n%s", what, p.getFileName(), check.output()).isZero();
    }
    verify(byExt4j, facts, what + ", after ext4j's recovery");
    verify(byE2fsck, facts, what + ", after e2fsck -fy's recovery");
    verify(img, facts, what + ", on the crash image opened read-only (journal replayed in memory)");
    System.out.printf("kill -9 run %d: %d lines before the kill, %d acknowledged facts %s hold after each recovery;"
        + " e2fsck -fy exit %d%n", run, lines.size(), facts.size(),
        new TreeMap<>(facts.stream().collect(Collectors.groupingBy(f -> f.getClass().getSimpleName(), Collectors.counting()))),
        fix.exitCode());
    for (Path p : List.of(img, stderr, byExt4j, byE2fsck)) {
      Files.delete(p); // a failed run keeps them for a post-mortem
    }
    return new Outcome(facts.size(), exit == KILLED_BY_SIGKILL);
  }

  /** Every fact holds on the image, opened read-only; else fails listing the first that do not. */
  private static void verify(Path image, SequencedSet<Fact> facts, String what) throws IOException {
    List<String> wrong = new ArrayList<>();
    try (Ext4FileSystem fs = Ext4FileSystem.open(image, Ext4Options.builder().readOnly(true).build())) {
      for (Fact f : facts) {
        try {
          f.check(fs);
        } catch (AssertionError | IOException e) {
          wrong.add(e.toString());
        }
      }
    }
    if (!wrong.isEmpty()) {
      throw new AssertionError(what + ": " + wrong.size() + " of " + facts.size() + " acknowledged facts do not hold:\n  "
          + String.join("\n  ", wrong.subList(0, Math.min(20, wrong.size()))));
    }
  }

  /** mkfs.ext4 with 4096-byte blocks on a fresh sparse file of {@link #IMAGE_BYTES}. */
  private static void mkfs(Path img, List<String> extra) throws IOException {
    Files.deleteIfExists(img);
    try (FileChannel ch = FileChannel.open(img, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(1), IMAGE_BYTES - 1);
    }
    List<String> args = new ArrayList<>(List.of("-b", "4096"));
    args.addAll(extra);
    E2fsprogs.mkfs(img, args.toArray(String[]::new));
  }

  /** The java launcher of this JVM. */
  private static String javaCommand() {
    return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }
}
