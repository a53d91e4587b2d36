package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.Ext4Recovery;
import io.ext4j.fs.JournalLocation;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.testkit.FaultyBlockDevice;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fast commits the kernel wrote ({@code mkfs.ext4 -O fast_commit}, fsyncs through a loop mount
 * with {@code commit=600} so no periodic full commit overtakes them, the image copied while still
 * mounted), recovered by ext4j: every fsynced name and byte is there (a model of the workload), the
 * result is what the kernel's own recovery shows, {@code e2fsck -fn} finds it clean, and on 1 KiB
 * blocks it is block for block what {@code e2fsck -E journal_only} makes of the same image where
 * that is sound. Also: an area left over from before the last full commit, and a crash in the
 * middle of the replay.
 */
@Tag("oracle")
@Tag("root")
class KernelFastCommitOracleTest {
  private record Fixture(Path crash, FastCommitWorkload model, Path dir) {}

  private static Fixture fixture(String name, int blockSize, long seed, int ops) throws Exception {
    return fixture(name, blockSize, seed, ops, 0);
  }

  /** With {@code longNames > 0}: that many files first (an htree directory), and as many again after the workload. */
  private static Fixture fixture(String name, int blockSize, long seed, int ops, int longNames) throws Exception {
    Path dir = KernelImages.dir("fast-commit-" + name);
    Path img = KernelImages.mkfs(dir.resolve("fc.img"), 32, blockSize, "-O", "fast_commit");
    Path crash = dir.resolve("crash.img");
    FastCommitWorkload w;
    try (LoopMount m = LoopMount.readWrite(img, "commit=600")) {
      Path d = Files.createDirectories(m.dir.resolve("d"));
      w = new FastCommitWorkload(d, new SplittableRandom(seed));
      w.seed(3);
      w.createLongNames(longNames);
      KernelImages.runOk("sync", "-f", d.toString()); // one full commit: fast commits need one before them
      w.run(ops);
      if (longNames > 0) {
        io.ext4j.fs.format.FsLayout lay;
        try (FileBlockDevice dev = FileBlockDevice.open(img, blockSize, FileBlockDevice.Options.defaults().withReadOnly(true))) {
          lay = io.ext4j.fs.format.FsLayout.of(img.toString(), Ext4JournalLocator.readSuperblock(dev));
        }
        w.createClustered(24, lay.hashVersion(), lay.hashSeed());
      }
      w.endWithAppends(3);
      copyWhileMounted(img, crash); // the journal holds what is not yet home
      if (!leavesFastCommits(crash, blockSize)) {
        // An operation the kernel cannot fast-commit made the rest of its transaction ineligible, so
        // the closing appends' fsync committed in full and nothing was left to replay (seed
        // -4030848767319971660). After a full commit the same appends go to the fast-commit area.
        KernelImages.runOk("sync", "-f", d.toString());
        w.endWithAppends(3);
        copyWhileMounted(img, crash);
      }
    }
    return new Fixture(crash, w, dir);
  }

  /** Whether a copy of {@code crash} has fast commits for ext4j's recovery to replay. */
  private static boolean leavesFastCommits(Path crash, int blockSize) throws IOException {
    Path probe = copy(crash, "fast-commit-probe.img");
    try {
      return recoverWithExt4j(probe, blockSize).fastCommits().commits() > 0;
    } finally {
      Files.deleteIfExists(probe);
    }
  }

  /**
   * Copies a mounted image until two copies in a row are the same and the journal superblock passes
   * its checks: the kernel may write while the copy reads (a log tail update, the lazy inode-table
   * initializer's transactions), and a copy torn by such a write is not a state a power cut leaves
   * (a CI run's kernel refused to recover one: "JBD2: corrupted journal superblock"). Two equal copies
   * mean no write landed during either, so the copy holds exactly the writes completed before it.
   */
  private static void copyWhileMounted(Path img, Path to) throws IOException {
    Path again = to.resolveSibling(to.getFileName() + ".again");
    IOException last = null;
    try {
      for (int attempt = 0; attempt < 100; attempt++) {
        KernelImages.copySparse(img, to);
        KernelImages.copySparse(img, again);
        long differs = Files.mismatch(to, again);
        if (differs != -1) {
          last = new IOException("the image changed while it was copied (first difference at byte " + differs + ")");
          continue;
        }
        try (FileBlockDevice dev = FileBlockDevice.open(to, blockSizeOf(to), FileBlockDevice.Options.defaults().withReadOnly(true))) {
          JournalRecovery.readSuperblock(dev, Ext4JournalLocator.locate(dev).journalMap());
          if (attempt > 0) {
            System.out.println("copy of the mounted " + img.getFileName() + ": sound on attempt " + (attempt + 1) + " (" + last.getMessage() + ")");
          }
          return;
        } catch (IOException e) {
          last = e;
        }
      }
    } finally {
      Files.deleteIfExists(again);
    }
    throw new IOException("no two copies of the mounted " + img + " in a row were the same with a sound journal superblock", last);
  }

  private static int blockSizeOf(Path img) throws IOException {
    byte[] sb = new byte[1024];
    try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(img)) {
      c.read(java.nio.ByteBuffer.wrap(sb), 1024);
    }
    return 1024 << java.nio.ByteBuffer.wrap(sb).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0x18);
  }

  private static Ext4Recovery.Result recoverWithExt4j(Path img, int blockSize) throws IOException {
    try (FileBlockDevice dev = FileBlockDevice.open(img, blockSize, FileBlockDevice.Options.defaults())) {
      return recover(dev);
    }
  }

  private static Ext4Recovery.Result recover(io.ext4j.block.BlockDevice dev) throws IOException {
    JournalLocation loc = Ext4JournalLocator.locate(dev);
    JournalSuperblock jsb = JournalRecovery.readSuperblock(dev, loc.journalMap());
    Ext4Recovery.Result r = Ext4Recovery.recover(dev, loc.journalMap(), jsb);
    if (!r.journal().clean()) {
      JournalRecovery.markEmpty(dev, loc.journalMap(), jsb, r.journal());
    }
    Ext4JournalLocator.setNeedsRecovery(dev, false);
    dev.flush();
    return r;
  }

  private static Path copy(Path from, String name) throws IOException {
    Path to = from.resolveSibling(name);
    Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
    return to;
  }

  /** What the kernel's own recovery shows: a copy mounted (and so recovered) by the kernel. */
  private static io.ext4j.testkit.FsManifest kernelRecovered(Path crash) throws Exception {
    Path byKernel = copy(crash, "kernel.img");
    try (LoopMount m = LoopMount.readWrite(byKernel)) {
      m.remountReadOnly();
      return MountManifest.of(m.dir);
    }
  }

  private static void assertAsTheKernelRecovers(io.ext4j.testkit.FsManifest kernel, Path img, int blockSize, long seed,
      String... alsoWithout) throws IOException {
    // The kernel's replay of an entry is a link or unlink of its own, which stamps the directory
    // with the time of the recovery; e2fsck and ext4j keep the time the directory had.
    String[] drop = java.util.stream.Stream.concat(java.util.stream.Stream.of("statfs"), java.util.Arrays.stream(alsoWithout))
        .toArray(String[]::new);
    try (Ext4FileSystem fs = KernelImages.openReadOnly(img, blockSize)) {
      KernelImages.assertSame(kernel.without(drop).withoutAt("/d", "mtime", "ctime"),
          EngineManifest.of(fs, 64, false, seed).without(drop).withoutAt("/d", "mtime", "ctime"), img,
          "the image ext4j recovered, against the kernel's recovery (seed " + seed + ")");
    }
  }

  @Test
  void kernelFastCommits_onOneKibBlocks_recoverAsE2fsckRecoversThem() throws Exception {
    long seed = Seeds.seed();
    Fixture f = fixture("1k", 1024, seed, 40);
    System.out.println("fast-commit workload (seed " + seed + "): " + f.model().counts());
    Path byExt4j = copy(f.crash(), "ext4j.img");
    Path byE2fsck = copy(f.crash(), "e2fsck.img");
    Ext4Recovery.Result r = recoverWithExt4j(byExt4j, 1024);
    System.out.println("ext4j replayed " + r.journal().transactionsReplayed() + " full commits and " + r.fastCommits().commits()
        + " fast commits (" + r.replayed() + ")");
    assertThat(r.fastCommits().commits()).as("the kernel left fast commits to replay (seed %d): %s", seed, r.fastCommits().why())
        .isPositive();
    KernelImages.Result e2 = KernelImages.run("e2fsck", "-y", "-E", "journal_only", byE2fsck.toString());
    assertThat(e2.exit()).as(e2.describe()).isZero();

    assertBlockForBlockAsE2fsck(f.crash(), byExt4j, byE2fsck, seed);
    KernelImages.assertE2fsckCleanBut(byExt4j, KernelImages.kernelsExtentTreeOptimizations(byExt4j), "after ext4j's fast-commit replay (seed " + seed + ")");
    try (Ext4FileSystem fs = KernelImages.openReadOnly(byExt4j, 1024)) {
      f.model().assertRecovered(fs, "d", "ext4j's recovery (seed " + seed + ")");
    }
    assertAsTheKernelRecovers(kernelRecovered(f.crash()), byExt4j, 1024, seed);
    // ext4j fsck -n of the crash image: replays full and fast commits in memory, as e2fsck -fn judges the replayed image
    byte[] crashBytes = Files.readAllBytes(f.crash());
    io.ext4j.tools.check.CheckReport report = io.ext4j.tools.check.Checker.check(
        io.ext4j.block.MemoryBlockDevice.of("crash", 1024, crashBytes), io.ext4j.tools.check.CheckOptions.defaults());
    assertThat(report.journalReplayed()).as(report.toText()).isTrue();
    KernelImages.Result judged = KernelImages.run("e2fsck", "-fn", byExt4j.toString());
    assertThat(report.clean()).as("ext4j fsck -n of the crash image agrees with e2fsck -fn of ext4j's recovery:%n%s%n%s",
        report.toText(), judged.describe()).isEqualTo(judged.exit() == 0);
  }

  @Test
  void kernelFastCommits_inAnIndexedDirectory_splitTheLeavesAsE2fsckSplitsThem() throws Exception {
    long seed = Seeds.seed();
    Fixture f = fixture("htree", 1024, seed, 6, 300);
    System.out.println("fast-commit workload in an htree directory (seed " + seed + "): " + f.model().counts());
    Path byExt4j = copy(f.crash(), "ext4j.img");
    Path byE2fsck = copy(f.crash(), "e2fsck.img");
    Ext4Recovery.Result r = recoverWithExt4j(byExt4j, 1024);
    System.out.println("ext4j replayed " + r.fastCommits().commits() + " fast commits (" + r.replayed() + ")");
    assertThat(r.replayed().leavesSplit()).as("htree leaves the replay split (seed %d): %s", seed, r.replayed()).isPositive();
    KernelImages.Result e2 = KernelImages.run("e2fsck", "-y", "-E", "journal_only", byE2fsck.toString());
    assertThat(e2.exit()).as(e2.describe()).isZero();
    assertBlockForBlockAsE2fsck(f.crash(), byExt4j, byE2fsck, seed);
    KernelImages.assertE2fsckCleanBut(byExt4j, KernelImages.kernelsExtentTreeOptimizations(byExt4j),
        "after ext4j's fast-commit replay (seed " + seed + ")");
    try (Ext4FileSystem fs = KernelImages.openReadOnly(byExt4j, 1024)) {
      f.model().assertRecovered(fs, "d", "ext4j's recovery (seed " + seed + ")");
    }
    // the kernel splits leaves its own way (a directory of other blocks): the same names, other sizes
    assertAsTheKernelRecovers(kernelRecovered(f.crash()), byExt4j, 1024, seed, "size", "blocks");
  }

  @Test
  void aFastCommitIntoAFullIndex_growsTheIndexALevel_asE2fsckGrowsIt_blockForBlock() throws Exception {
    long seed = Seeds.seed();
    Path dir = KernelImages.dir("fast-commit-full-index");
    Path img = KernelImages.mkfs(dir.resolve("fc.img"), 32, 1024, "-O", "fast_commit");
    io.ext4j.fs.format.FsLayout lay;
    try (FileBlockDevice dev = FileBlockDevice.open(img, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      lay = io.ext4j.fs.format.FsLayout.of(img.toString(), Ext4JournalLocator.readSuperblock(dev));
    }
    // names in ascending hash order: each goes into the last leaf, each leaf split adds one block
    List<byte[]> names = new ArrayList<>();
    for (int i = 0; i < 6000; i++) {
      names.add(String.format("filler-name-for-an-htree-root-that-is-full-%06d", i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    java.util.function.ToIntFunction<byte[]> major = n -> io.ext4j.fs.format.DirHash.major(
        io.ext4j.fs.format.DirHash.hash(lay.hashVersion(), n, 0, n.length, lay.hashSeed()));
    names.sort((a, b) -> Integer.compareUnsigned(major.applyAsInt(a), major.applyAsInt(b)));
    int rootLimit = io.ext4j.fs.format.DxBlock.limitFor(1024, io.ext4j.fs.format.DxBlock.ROOT_COUNT_OFFSET, lay.metadataCsum());
    int used = 0;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().build())) {
      long d = fs.mkdir(2, "d".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0755, io.ext4j.fs.Caller.ROOT).ino();
      while (fs.getattr(d).size() < (rootLimit + 1L) * 1024) {
        fs.create(d, names.get(used++), 0644, io.ext4j.fs.Caller.ROOT);
      }
      assertThat(fs.getattr(d).size()).as("the root and as many leaves as it holds entries").isEqualTo((rootLimit + 1L) * 1024);
    }
    Path crash = dir.resolve("crash.img");
    int kernels = 24;
    try (LoopMount m = LoopMount.readWrite(img, "commit=600")) {
      Path d = m.dir.resolve("d");
      KernelImages.runOk("sync", "-f", d.toString());
      for (int i = 0; i < kernels; i++) {
        Path f = d.resolve(new String(names.get(used + i), java.nio.charset.StandardCharsets.UTF_8));
        try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE)) {
          c.force(true);
        }
      }
      copyWhileMounted(img, crash);
    }
    Path byExt4j = copy(crash, "ext4j.img");
    Path byE2fsck = copy(crash, "e2fsck.img");
    Ext4Recovery.Result r = recoverWithExt4j(byExt4j, 1024);
    System.out.println("fast commits into a full htree root (seed " + seed + "): " + used + " names from ext4j, then " + kernels
        + " from the kernel; replayed " + r.replayed());
    assertThat(r.replayed().leavesSplit()).as("leaves split by the replay: %s", r.replayed()).isPositive();
    KernelImages.Result e2 = KernelImages.run("e2fsck", "-y", "-E", "journal_only", byE2fsck.toString());
    assertThat(e2.exit()).as(e2.describe()).isZero();
    KernelImages.assertE2fsckClean(byExt4j, "after ext4j's replay into a full index");
    assertBlockForBlockAsE2fsck(crash, byExt4j, byE2fsck, seed);
    for (Path p : List.of(byExt4j, byE2fsck)) {
      String htree = KernelImages.runOk("debugfs", "-R", "htree /d", p.toString());
      assertThat(htree).as("%s: the index grew a level", p.getFileName()).contains("Indirect levels: 1");
    }
    try (Ext4FileSystem fs = KernelImages.openReadOnly(byExt4j, 1024)) {
      long d = fs.lookup(2, "d".getBytes(java.nio.charset.StandardCharsets.UTF_8)).ino();
      for (int i = 0; i < used + kernels; i++) {
        fs.lookup(d, names.get(i)); // throws ENOENT for a lost name
      }
    }
    assertAsTheKernelRecovers(kernelRecovered(crash), byExt4j, 1024, seed, "size", "blocks");
  }

  @Test
  void kernelFastCommits_onFourKibBlocks_recoverAsTheKernelRecoversThem_alsoWhenTheEngineOpensTheImage() throws Exception {
    // e2fsck 1.47 is no oracle here: its replay writes a fast-committed inode into a stale copy of
    // the inode-table block it read while loading the journal inode (inodes 1-16 share a 4 KiB
    // block), undoing what the full commits replayed there.
    long seed = Seeds.seed();
    Fixture f = fixture("4k", 4096, seed, 40);
    System.out.println("fast-commit workload (seed " + seed + "): " + f.model().counts());
    io.ext4j.testkit.FsManifest kernel = kernelRecovered(f.crash());

    // the engine, read-only: replays into memory and leaves the image as it was
    byte[] before = Files.readAllBytes(f.crash());
    try (Ext4FileSystem fs = KernelImages.openReadOnly(f.crash(), 4096)) {
      f.model().assertRecovered(fs, "d", "the engine's read-only open (seed " + seed + ")");
    }
    assertThat(java.util.Arrays.equals(before, Files.readAllBytes(f.crash()))).as("a read-only open wrote nothing").isTrue();

    // the engine, read-write: recovers, then writes full commits only; a crash copy taken after an
    // fsync of its own recovers as the kernel and e2fsck recover it
    Path opened = copy(f.crash(), "engine.img");
    Path engineCrash = opened.resolveSibling("engine-crash.img");
    byte[] mine = "written by ext4j after the kernel's fast commits\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (Ext4FileSystem fs = Ext4FileSystem.open(opened, Ext4Options.builder().build())) {
      assertThat(fs.isReadOnly()).as("read-only because: %s", fs.readOnlyReason()).isFalse();
      f.model().assertRecovered(fs, "d", "the engine (seed " + seed + ")");
      var a = fs.create(2, "mine".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0644, io.ext4j.fs.Caller.ROOT);
      try (io.ext4j.fs.OpenFile o = fs.open(a.ino(), java.util.EnumSet.of(io.ext4j.fs.OpenFlag.WRITE))) {
        o.write(0, java.nio.ByteBuffer.wrap(mine));
        o.fsync(false);
      }
      copyWhileMounted(opened, engineCrash); // ext4j has it open, as the kernel would
    }
    KernelImages.assertE2fsckCleanBut(opened, KernelImages.kernelsExtentTreeOptimizations(opened), "after the engine closed it");
    Path e2 = copy(engineCrash, "engine-crash-e2fsck.img");
    KernelImages.Result rec = KernelImages.run("e2fsck", "-y", "-E", "journal_only", e2.toString());
    assertThat(rec.exit()).as(rec.describe()).isZero();
    assertThat(rec.out() + rec.err()).as("e2fsck's recovery of ext4j's journal").doesNotContain("while recovering");
    for (Path p : List.of(opened, e2)) {
      try (Ext4FileSystem fs = KernelImages.openReadOnly(p, 4096)) {
        f.model().assertRecovered(fs, "d", p.getFileName() + " (seed " + seed + ")");
        var a = fs.lookup(2, "mine".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(a.size()).as("%s: ext4j's fsynced file", p.getFileName()).isEqualTo(mine.length);
      }
    }
    try (LoopMount m = LoopMount.readWrite(copy(engineCrash, "engine-crash-kernel.img"))) {
      assertThat(Files.readAllBytes(m.dir.resolve("mine"))).as("the kernel's recovery of ext4j's journal").isEqualTo(mine);
    }
    Path byExt4j = copy(f.crash(), "ext4j.img");
    Ext4Recovery.Result r = recoverWithExt4j(byExt4j, 4096);
    assertThat(r.fastCommits().commits()).as("the kernel left fast commits to replay (seed %d): %s", seed, r.fastCommits().why())
        .isPositive();
    KernelImages.assertE2fsckCleanBut(byExt4j, KernelImages.kernelsExtentTreeOptimizations(byExt4j),
        "after ext4j's fast-commit replay (seed " + seed + ")");
    try (Ext4FileSystem fs = KernelImages.openReadOnly(byExt4j, 4096)) {
      f.model().assertRecovered(fs, "d", "ext4j's recovery (seed " + seed + ")");
    }
    assertAsTheKernelRecovers(kernel, byExt4j, 4096, seed);
  }

  @Test
  void anAreaLeftFromBeforeTheLastFullCommit_isNotReplayed_andTheFullCommitsAre() throws Exception {
    // e2fsck 1.47 fails such a recovery with EINVAL (a HEAD of another tid) and drops the log; the
    // kernel, and ext4j, replay the full commits and ignore the stale area.
    long seed = Seeds.seed();
    Path dir = KernelImages.dir("fast-commit-stale");
    Path img = KernelImages.mkfs(dir.resolve("fc.img"), 32, 1024, "-O", "fast_commit");
    Path crash = dir.resolve("crash.img");
    FastCommitWorkload w;
    try (LoopMount m = LoopMount.readWrite(img, "commit=600")) {
      Path d = Files.createDirectories(m.dir.resolve("d"));
      w = new FastCommitWorkload(d, new SplittableRandom(seed));
      w.seed(2);
      KernelImages.runOk("sync", "-f", d.toString());
      w.run(6); // fast commits
      w.seed(2);
      KernelImages.runOk("sync", "-f", d.toString()); // a full commit after them: the area is stale
      copyWhileMounted(img, crash);
    }
    try (FileBlockDevice dev = FileBlockDevice.open(crash, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      JournalSuperblock jsb = JournalRecovery.readSuperblock(dev, Ext4JournalLocator.locate(dev).journalMap());
      assertThat(jsb.has(JournalFeature.FAST_COMMIT) && jsb.needsRecovery()).as("a dirty fast-commit journal").isTrue();
    }
    io.ext4j.testkit.FsManifest kernel = kernelRecovered(crash);
    Path byExt4j = copy(crash, "ext4j.img");
    Ext4Recovery.Result r = recoverWithExt4j(byExt4j, 1024);
    assertThat(r.journal().transactionsReplayed()).as("full commits replayed").isPositive();
    assertThat(r.fastCommits().commits()).as("fast commits replayed from the stale area").isZero();
    assertThat(r.fastCommits().why()).contains("left over");
    KernelImages.assertE2fsckCleanBut(byExt4j, superblockTotals(byExt4j), "after ext4j's recovery (seed " + seed + ")");
    try (Ext4FileSystem fs = KernelImages.openReadOnly(byExt4j, 1024)) {
      w.assertRecovered(fs, "d", "ext4j's recovery (seed " + seed + ")");
    }
    assertAsTheKernelRecovers(kernel, byExt4j, 1024, seed);
  }

  @Test
  void aCrashDuringTheReplay_thenRecoveryAgain_endsAsAnUninterruptedRecovery() throws Exception {
    long seed = Seeds.seed();
    Fixture f = fixture("crash", 1024, seed, 30);
    Path whole = copy(f.crash(), "whole.img");
    Ext4Recovery.Result full = recoverWithExt4j(whole, 1024);
    assertThat(full.fastCommits().commits()).as("fast commits to replay (seed %d)", seed).isPositive();
    long writes = countWrites(f.crash());
    SplittableRandom r = new SplittableRandom(Seeds.derive(seed, "crash points"));
    int crashes = 0;
    for (long n = 1; n <= writes; n += 1 + r.nextLong(Math.max(1, writes / 12))) {
      Path img = copy(f.crash(), "interrupted.img");
      try (FileBlockDevice file = FileBlockDevice.open(img, 1024, FileBlockDevice.Options.defaults())) {
        FaultyBlockDevice dying = new FaultyBlockDevice(file, FaultyBlockDevice.Fault.onNthWrite(n).sticky());
        try {
          recover(dying);
          throw new AssertionError("recovery survived a device that died at write " + n + " of " + writes);
        } catch (IOException expected) {
          // the machine went down here
        }
      }
      recoverWithExt4j(img, 1024);
      assertThat(differingBlocks(img, whole, 1024)).as("blocks in use after a crash at write %d of %d, then recovery (seed %d)",
          n, writes, seed).isEmpty();
      crashes++;
    }
    System.out.println("fast-commit replay: " + crashes + " crashes among its " + writes + " writes (seed " + seed + "), each recovered");
    assertThat(crashes).isPositive();
  }

  /**
   * Asserts that ext4j's recovery is block for block what {@code e2fsck -E journal_only} made of the
   * same crash image, unless e2fsck's own result is unsound in the one way e2fsck 1.47.0's
   * fast-commit replay is known here to be: it gave one inode's new extent-tree block a block that
   * another replayed inode's data holds, so {@code e2fsck -fn} of its result finds the block
   * multiply-claimed (seed 2481438196068492464: inode 16's index block on inode 18's data). Then
   * ext4j's recovery must be free of that fault, and the kernel's recovery, which every test here
   * also compares with, is the oracle. The same fault also shows without a second claim: when the
   * inode's tree later fits in the inode again, the block e2fsck wrote its tree node into stays the
   * file's data block, with an extent header over the data the kernel wrote (seed
   * 6419765685013490775: inode 14's block 1, where the kernel's own recovery of the crash image reads
   * the crash image's data, as ext4j's does). So a differing block is also e2fsck's fault where
   * e2fsck's image holds an extent header and ext4j's holds the crash image's block untouched.
   */
  private static void assertBlockForBlockAsE2fsck(Path crash, Path byExt4j, Path byE2fsck, long seed) throws Exception {
    List<Long> differing = differingBlocks(byExt4j, byE2fsck, 1024);
    if (!differing.isEmpty() && KernelImages.run("e2fsck", "-fn", byE2fsck.toString()).out().contains("multiply-claimed")) {
      assertThat(KernelImages.run("e2fsck", "-fn", byExt4j.toString()).out())
          .as("e2fsck -fn of ext4j's recovery, where e2fsck's own recovery left a block multiply-claimed (seed %d)", seed)
          .doesNotContain("multiply-claimed");
      System.out.println("e2fsck's own recovery claims a block twice (seed " + seed + "), so it is no block-for-block oracle;"
          + " ext4j's differs from it at blocks " + differing);
      return;
    }
    if (!differing.isEmpty() && treeNodesOverKeptData(crash, byExt4j, byE2fsck, differing)) {
      System.out.println("e2fsck's own recovery wrote extent-tree nodes over data blocks the crash image holds (seed " + seed
          + "), so it is no block-for-block oracle; ext4j kept the data at blocks " + differing);
      return;
    }
    assertThat(differing).as("blocks in use where ext4j's recovery differs from e2fsck -E journal_only (seed %d)", seed).isEmpty();
  }

  /**
   * Whether, at every one of {@code blocks} (1 KiB), e2fsck's image starts with an extent header
   * (magic 0xF30A, little-endian) and ext4j's image holds exactly the crash image's block.
   */
  private static boolean treeNodesOverKeptData(Path crash, Path byExt4j, Path byE2fsck, List<Long> blocks) throws IOException {
    byte[] c = Files.readAllBytes(crash);
    byte[] x = Files.readAllBytes(byExt4j);
    byte[] e = Files.readAllBytes(byE2fsck);
    for (long blk : blocks) {
      int at = (int) blk * 1024;
      if ((e[at] & 0xFF) != 0x0A || (e[at + 1] & 0xFF) != 0xF3 || !java.util.Arrays.equals(x, at, at + 1024, c, at, at + 1024)) {
        return false;
      }
    }
    return true;
  }

  /**
   * What e2fsck -fn says (exit status 0) of the superblock's free block and inode totals that the
   * kernel does not keep current in the journal — it counts them from the group descriptors at
   * mount, as ext4j does. Only a fast-commit replay recounts them, as e2fsck's does.
   */
  private static List<String> superblockTotals(Path img) throws Exception {
    return KernelImages.run("e2fsck", "-fn", img.toString()).out().lines()
        .filter(l -> l.matches("Free (blocks|inodes) count wrong \\(\\d+, counted=\\d+\\)\\.") || l.equals("Fix? no")).toList();
  }

  /** Device writes a whole ext4j recovery of a copy of {@code crash} makes. */
  private static long countWrites(Path crash) throws IOException {
    Path img = copy(crash, "counted.img");
    long[] n = {0};
    try (FileBlockDevice file = FileBlockDevice.open(img, 1024, FileBlockDevice.Options.defaults())) {
      recover(new FaultyBlockDevice(file, op -> {
        if (op.kind() == FaultyBlockDevice.Kind.WRITE) {
          n[0]++;
        }
        return false;
      }));
    }
    return n[0];
  }

  /**
   * Blocks that differ between two images and are in use in either (by e2fsprogs' reading of their
   * bitmaps; free blocks may keep different leftovers), reading the primary superblock without its
   * write time, its kbytes-written count (e2fsck counts its own writes) and its checksum.
   */
  static List<Long> differingBlocks(Path a, Path b, int blockSize) throws Exception {
    byte[] x = Files.readAllBytes(a);
    byte[] y = Files.readAllBytes(b);
    assertThat(x.length).isEqualTo(y.length);
    for (byte[] img : List.of(x, y)) {
      for (int[] range : new int[][] {{0x30, 0x34}, {0x274, 0x275}, {0x178, 0x180}, {0x3FC, 0x400}}) {
        java.util.Arrays.fill(img, 1024 + range[0], 1024 + range[1], (byte) 0);
      }
    }
    BitSet free = freeBlocks(a);
    free.and(freeBlocks(b));
    List<Long> out = new ArrayList<>();
    for (int blk = 0; (long) blk * blockSize < x.length; blk++) {
      if (free.get(blk)) {
        continue;
      }
      if (!java.util.Arrays.equals(x, blk * blockSize, (blk + 1) * blockSize, y, blk * blockSize, (blk + 1) * blockSize)
          && !sameEntries(x, y, blk, blockSize) && !sameIndexNode(x, y, blk, blockSize)) {
        out.add((long) blk);
      }
    }
    return out;
  }

  /**
   * Whether both images hold, at {@code blk}, directory blocks with the same entries at the same
   * offsets (names, inodes, record lengths, types) and a checksum tail each: then only the bytes
   * past names differ, and the tail checksums over them — where e2fsck's htree leaf split leaves
   * whatever its buffer held before.
   */
  private static boolean sameEntries(byte[] x, byte[] y, int blk, int bs) {
    byte[] a = java.util.Arrays.copyOfRange(x, blk * bs, (blk + 1) * bs);
    byte[] b = java.util.Arrays.copyOfRange(y, blk * bs, (blk + 1) * bs);
    if (!io.ext4j.fs.format.DirBlock.hasTail(a, bs) || !io.ext4j.fs.format.DirBlock.hasTail(b, bs)) {
      return false;
    }
    try {
      var ea = io.ext4j.fs.format.DirBlock.parse(a, bs, bs - io.ext4j.fs.format.DirBlock.TAIL_SIZE);
      var eb = io.ext4j.fs.format.DirBlock.parse(b, bs, bs - io.ext4j.fs.format.DirBlock.TAIL_SIZE);
      if (ea.size() != eb.size() || ea.isEmpty()) {
        return false;
      }
      for (int i = 0; i < ea.size(); i++) {
        var p = ea.get(i);
        var q = eb.get(i);
        if (p.offset() != q.offset() || p.inode() != q.inode() || p.recLen() != q.recLen() || p.type() != q.type()
            || !java.util.Arrays.equals(p.name(), q.name())) {
          return false;
        }
      }
      return true;
    } catch (io.ext4j.fs.format.DirBlock.Malformed e) {
      return false;
    }
  }

  /**
   * Whether both images hold, at {@code blk}, htree index nodes (an empty entry over the block,
   * then count/limit and entries) with the same count, limit and entries: then only dt_reserved
   * and the slack past the entries differ (and the checksum over them) — what e2fsck's new index
   * node keeps of the leaf buffer it was built in.
   */
  private static boolean sameIndexNode(byte[] x, byte[] y, int blk, int bs) {
    byte[] a = java.util.Arrays.copyOfRange(x, blk * bs, (blk + 1) * bs);
    byte[] b = java.util.Arrays.copyOfRange(y, blk * bs, (blk + 1) * bs);
    int c = io.ext4j.fs.format.DxBlock.NODE_COUNT_OFFSET;
    if (!io.ext4j.fs.format.DxBlock.looksLikeNode(a, bs) || !io.ext4j.fs.format.DxBlock.looksLikeNode(b, bs)) {
      return false;
    }
    int count = io.ext4j.fs.format.DxBlock.count(a, c);
    return count == io.ext4j.fs.format.DxBlock.count(b, c) && io.ext4j.fs.format.DxBlock.limit(a, c) == io.ext4j.fs.format.DxBlock.limit(b, c)
        && java.util.Arrays.equals(a, 0, c + 8 * count, b, 0, c + 8 * count);
  }

  private static BitSet freeBlocks(Path img) throws Exception {
    KernelImages.Result r = KernelImages.run("dumpe2fs", img.toString());
    assertThat(r.exit()).as(r.describe()).isZero();
    BitSet free = new BitSet();
    for (String line : r.out().lines().toList()) {
      String t = line.strip();
      if (!t.startsWith("Free blocks: ")) {
        continue;
      }
      for (String part : t.substring("Free blocks: ".length()).split(",", 0)) {
        String p = part.strip();
        if (p.isEmpty()) {
          continue;
        }
        String[] ends = p.split("-", 0);
        int from = Integer.parseInt(ends[0]);
        int to = ends.length > 1 ? Integer.parseInt(ends[1]) : from;
        free.set(from, to + 1);
      }
    }
    return free;
  }
}
