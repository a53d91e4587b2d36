package io.ext4j.tools.check;

import io.ext4j.fs.format.Extent;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.block.OverlayBlockDevice;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.JournalLocation;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.testkit.KernelFsFixtures;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The engine and the checker on hostile images: seeded mutations ({@link Mutator}) of real images —
 * made by mkfs.ext4 and populated by debugfs with and without metadata_csum, made by mkfs.ext4 and
 * populated by ext4j, and made by the kernel with a journal still to replay and orphans to process —
 * each put through {@link EngineExercise} (open, list recursively, read everything, write, close,
 * check) on two worker threads under a watchdog; every 40th mutant is also judged by ext4j's
 * checker and by {@code e2fsck -fn}, which must agree on whether it is clean. 12,000 mutants per run, 400,000 with
 * {@code -Psoak} ({@code -Dext4j.fuzz.mutants=N} for any other count); every defect is printed with its mutant's
 * seed and kept as a regression image under {@code target/fuzz-failures/} ({@code -Dext4j.fuzz.replay=BASE:SEED}
 * remakes and runs one of them). The images kept in the
 * test resources ({@code fuzz-regressions/}) are replayed first, every run.
 */
@Tag("oracle")
class ImageFuzzOracleTest {
  private static final Path DIR = Fixture.DIR.resolve("fuzz");
  private static final Path FAILURES = Path.of("target", "fuzz-failures");
  /** Wall-clock time after which a mutant counts as hung (its calls are limited to a second of CPU each). */
  private static final long HANG_NS = 30_000_000_000L;
  private static final int MAX_REPORTED = 12;
  /** Every this many mutants, ext4j's checker and {@code e2fsck -fn} judge the same mutant and must agree. */
  private static final int AGREE_EVERY = 40;
  /**
   * The bases are built from this seed, with a fixed UUID and hash seed, and in the default run the
   * mutants judged by e2fsck come from it too: a fixed corpus, so that a disagreement found once is
   * found every run until fixed. The exploring mutants (and, with -Psoak, the judged ones) come from
   * the run's seed.
   */
  private static final long CORPUS_SEED = 0x45787434L;
  private static final String[] FIXED_IDS = {"-U", "6f1c2d3e-4a5b-4c6d-8e7f-102132435465", "-E", "hash_seed=0a1b2c3d-4e5f-4061-8273-8495a6b7c8d9"};
  private static final java.time.Duration E2FSCK_LIMIT = java.time.Duration.ofSeconds(10);
  private static final String E2FSCK_GAVE_UP = "e2fsck took longer than the limit";

  /** One image to mutate, in memory, with where its structures are. */
  record Base(String name, MemoryBlockDevice image, Ext4Superblock sb, Mutator.Targets targets) {}

  @Test
  void mutantsOfRealImages_neverCrashHangOrExhaustTheEngine() throws Exception {
    long seed = Seeds.seed();
    boolean soak = Boolean.getBoolean("ext4j.soak");
    long judgedSeed = soak ? Seeds.derive(seed, "judged") : CORPUS_SEED;
    List<Base> bases = bases(CORPUS_SEED);
    String replay = System.getProperty("ext4j.fuzz.replay");
    if (replay != null) {
      replayOne(bases, replay);
      return;
    }
    int total = Integer.getInteger("ext4j.fuzz.mutants", Boolean.getBoolean("ext4j.soak") ? 400_000 : 12_000);
    int workers = 2;
    AtomicInteger next = new AtomicInteger();
    AtomicLongArray startedAt = new AtomicLongArray(workers); // 0: idle
    AtomicLongArray current = new AtomicLongArray(workers);
    ConcurrentLinkedQueue<String> defects = new ConcurrentLinkedQueue<>();
    Map<String, Stats> stats = new TreeMap<>();
    for (Base b : bases) {
      stats.put(b.name(), new Stats());
    }
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int me = w;
      threads.add(Thread.ofPlatform().daemon().name("fuzz-" + w).start(() -> {
        for (int i; (i = next.getAndIncrement()) < total && defects.size() < MAX_REPORTED; ) {
          Base b = bases.get(i % bases.size());
          long ms = Seeds.derive(seed, i);
          current.set(me, i);
          startedAt.set(me, System.nanoTime());
          try {
            if ((i / bases.size()) % AGREE_EVERY == 0) {
              long js = Seeds.derive(judgedSeed, i);
              String why = agreement(b, js, DIR.resolve("agree-" + me + ".img"));
              startedAt.set(me, System.nanoTime()); // e2fsck's time is not the engine's
              if (why == null || !why.equals(E2FSCK_GAVE_UP)) {
                stats.get(b.name()).judged(why == null);
              }
              if (why != null && !why.equals(E2FSCK_GAVE_UP)) {
                defects.add(report(b, i, js, new AssertionError("ext4j fsck and e2fsck -fn disagree: " + why)));
              }
            }
            EngineExercise.Result res = exercise(b, ms);
            stats.get(b.name()).add(res);
          } catch (Throwable t) { // a Defect, or a failure of the harness itself: both are reported
            defects.add(report(b, i, ms, t));
          } finally {
            startedAt.set(me, 0);
          }
        }
      }));
    }
    long t0 = System.nanoTime();
    boolean hung = false;
    while (threads.stream().anyMatch(Thread::isAlive) && !hung) {
      for (int w = 0; w < workers; w++) {
        long s = startedAt.get(w);
        if (s != 0 && System.nanoTime() - s > HANG_NS) {
          int i = (int) current.get(w);
          Base b = bases.get(i % bases.size());
          Throwable where = new Throwable("hung for " + HANG_NS / 1_000_000_000 + " s");
          where.setStackTrace(threads.get(w).getStackTrace());
          defects.add(report(b, i, Seeds.derive(seed, i), where));
          hung = true;
        }
      }
      threads.getFirst().join(200);
    }
    long secs = (System.nanoTime() - t0) / 1_000_000_000;
    int done = 0;
    for (var e : stats.entrySet()) {
      Stats s = e.getValue();
      done += s.mutants.get();
      System.out.printf("fuzz %-22s %6d mutants: %5d refused at open, %7d calls (%d refused), check exit 0/4/8 = %d/%d/%d, "
          + "slowest call %d ms CPU; %d judged by e2fsck -fn too, %d agreed%n", e.getKey(), s.mutants.get(), s.notOpened.get(),
          s.calls.get(), s.refused.get(), s.exits.get(0), s.exits.get(4), s.exits.get(8), s.slowest.get() / 1_000_000,
          s.judged.get(), s.agreed.get());
    }
    System.out.printf("fuzz: %d mutants of %d images in %d s, %d defects (seed %d)%n", done, bases.size(), secs,
        defects.size(), seed);
    assertThat(defects).as("defects (images in %s)", FAILURES.toAbsolutePath()).isEmpty();
    assertThat(done).isEqualTo(total);
    for (Stats s : stats.values()) {
      assertThat(s.judged.get()).as("mutants judged by e2fsck too").isPositive();
      assertThat(s.exits.get(4)).as("most mutants are damaged in a way the checker sees").isPositive();
      assertThat(s.mutants.get() - s.notOpened.get()).as("some mutants still open").isPositive();
    }
  }

  /**
   * {@code -Dext4j.fuzz.replay=BASE:SEED}: remakes the one mutant a run reported (its base's name and
   * mutant seed, as printed), keeps it under {@code target/fuzz-failures/} and exercises it.
   */
  private static void replayOne(List<Base> bases, String replay) throws Exception {
    int colon = replay.lastIndexOf(':');
    String name = replay.substring(0, colon);
    long mutantSeed = Long.parseLong(replay.substring(colon + 1));
    Base b = bases.stream().filter(x -> x.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no base image named " + name));
    try {
      exercise(b, mutantSeed);
    } catch (Throwable t) {
      throw new AssertionError(report(b, -1, mutantSeed, t), t);
    }
  }

  /** The mutants that once found a defect, kept as images in the test resources: each must now pass. */
  @Test
  void regressionImages_stayFixed() throws Exception {
    List<Path> images = regressionImages();
    List<String> defects = new ArrayList<>();
    for (Path p : images) {
      byte[] img;
      try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
        img = in.readAllBytes();
      }
      int bs = blockSize(img);
      try {
        new EngineExercise(MemoryBlockDevice.of(p.getFileName().toString(), bs, img)).run();
      } catch (EngineExercise.Defect d) {
        StringWriter w = new StringWriter();
        d.printStackTrace(new PrintWriter(w));
        defects.add(p.getFileName() + ": " + w);
      }
    }
    System.out.printf("fuzz regressions: %d images replayed%n", images.size());
    assertThat(defects).isEmpty();
  }

  private static List<Path> regressionImages() throws Exception {
    var url = ImageFuzzOracleTest.class.getResource("fuzz-regressions");
    if (url == null) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(Path.of(url.toURI()))) {
      return s.filter(p -> p.toString().endsWith(".img.gz")).sorted().toList();
    }
  }

  /**
   * The mutant as a file, judged by ext4j's checker and by {@code e2fsck -fn}: null when they agree
   * on whether it is clean and on whether there is anything to say, else both reports.
   */
  private static String agreement(Base b, long mutantSeed, Path file) throws Exception {
    OverlayBlockDevice dev = new OverlayBlockDevice(b.image());
    String what = Mutator.mutate(dev, b.sb(), b.targets(), mutantSeed);
    try (OutputStream o = Files.newOutputStream(file)) {
      copy(dev, o);
    }
    // as e2fsck -fn: a journal that needs recovery is not replayed (ext4j fsck -n replays it in memory)
    CheckReport rep = CheckImage.check(file, CheckOptions.defaults().withReplayJournal(false));
    io.ext4j.testkit.E2fsprogs.Result r = io.ext4j.testkit.E2fsprogs.runOrKill(E2FSCK_LIMIT, "e2fsck", "-fn", file.toString());
    if (r.exitCode() == io.ext4j.testkit.E2fsprogs.KILLED) {
      return E2FSCK_GAVE_UP; // e2fsck itself is no oracle for this one (a geometry it tries to allocate for)
    }
    E2fsprogs.Result e = new E2fsprogs.Result(List.of("e2fsck", "-fn"), r.exitCode(), r.stdout(), r.stderr());
    if (rep.clean() == (e.exit() == 0) && rep.silent() == e.silent()) {
      return null;
    }
    return what + "\next4j:\n" + rep.toText() + "e2fsck -fn exit " + e.exit() + ":\n" + String.join("\n", e.messages());
  }

  private static EngineExercise.Result exercise(Base b, long mutantSeed) throws Exception {
    OverlayBlockDevice dev = new OverlayBlockDevice(b.image());
    Mutator.mutate(dev, b.sb(), b.targets(), mutantSeed);
    return new EngineExercise(dev).run();
  }

  /** Prints the defect with its seed and keeps the mutant (before the engine touched it) as an image. */
  private static String report(Base b, int i, long mutantSeed, Throwable t) {
    StringWriter w = new StringWriter();
    String what;
    try {
      OverlayBlockDevice dev = new OverlayBlockDevice(b.image());
      what = Mutator.mutate(dev, b.sb(), b.targets(), mutantSeed);
      Files.createDirectories(FAILURES);
      Path out = FAILURES.resolve(b.name() + "-" + Long.toUnsignedString(mutantSeed, 16) + ".img.gz");
      save(dev, out);
      what += " -> " + out;
    } catch (Exception e) {
      what = "(could not remake the mutant: " + e + ")";
    }
    w.append(String.format("mutant %d of %s (mutant seed %d): %s%n", i, b.name(), mutantSeed, what));
    t.printStackTrace(new PrintWriter(w));
    String s = w.toString();
    System.out.println(s);
    return s;
  }

  private static void save(BlockDevice dev, Path out) throws IOException {
    try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(out))) {
      copy(dev, o);
    }
  }

  /** Every block of {@code dev}, in order, to {@code o}. */
  private static void copy(BlockDevice dev, OutputStream o) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(dev.blockSize());
    for (long k = 0; k < dev.blockCount(); k++) {
      b.clear();
      dev.read(k, b);
      o.write(b.array());
    }
  }

  private static final class Stats {
    final AtomicInteger mutants = new AtomicInteger();
    final AtomicInteger notOpened = new AtomicInteger();
    final AtomicLong calls = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong slowest = new AtomicLong();
    final AtomicLongArray exits = new AtomicLongArray(9);
    final AtomicInteger judged = new AtomicInteger();
    final AtomicInteger agreed = new AtomicInteger();

    void judged(boolean agree) {
      judged.incrementAndGet();
      if (agree) {
        agreed.incrementAndGet();
      }
    }

    void add(EngineExercise.Result r) {
      mutants.incrementAndGet();
      if (!r.opened()) {
        notOpened.incrementAndGet();
      }
      calls.addAndGet(r.calls());
      refused.addAndGet(r.refused());
      slowest.accumulateAndGet(r.slowestCpuNs(), Math::max);
      if (r.checkExit() >= 0 && r.checkExit() < 9) {
        exits.incrementAndGet(r.checkExit());
      }
    }
  }

  // ------------------------------------------------------------------ base images

  static List<Base> bases(long seed) throws Exception {
    Files.createDirectories(DIR);
    List<Base> out = new ArrayList<>();
    Path nocsum = Fixture.mkfs("fuzz/debugfs-1k-nocsum", 8, with("-b", "1024", "-O", "^metadata_csum,^uninit_bg"));
    Fixture.populate(nocsum, seed, true, true);
    out.add(base("debugfs-1k-nocsum", nocsum));
    Path csum = Fixture.mkfs("fuzz/debugfs-4k-csum", 8, with("-b", "4096", "-O", "metadata_csum_seed,orphan_file"));
    Fixture.populate(csum, seed, true, true);
    out.add(base("debugfs-4k-csum", csum));
    Path ext4j = Fixture.mkfs("fuzz/ext4j-4k-nocsum", 8, with("-b", "4096", "-O", "^metadata_csum,^uninit_bg"));
    populateWithExt4j(ext4j, seed);
    out.add(base("ext4j-4k-nocsum", ext4j));
    Path kernel = KernelFsFixtures.extract("1k-orphans", DIR);
    out.add(base("kernel-1k-orphans", kernel));
    return out;
  }

  private static String[] with(String... options) {
    String[] all = java.util.Arrays.copyOf(options, options.length + FIXED_IDS.length);
    System.arraycopy(FIXED_IDS, 0, all, options.length, FIXED_IDS.length);
    return all;
  }

  private static Base base(String name, Path img) throws Exception {
    byte[] bytes = Files.readAllBytes(img);
    int bs = blockSize(bytes);
    MemoryBlockDevice dev = MemoryBlockDevice.of(name, bs, bytes);
    Ext4Superblock sb;
    try (ImageEditor ed = ImageEditor.open(img)) {
      sb = ed.sb;
    }
    Set<Long> inodes = new LinkedHashSet<>(List.of(2L, 7L, 8L, 11L, 12L));
    List<Long> dirBlocks = new ArrayList<>();
    List<Long> htree = new ArrayList<>();
    List<Long> xattr = new ArrayList<>();
    try (Ext4FileSystem fs = Ext4FileSystem.open(new OverlayBlockDevice(dev), Ext4Options.defaults(), false);
        ImageEditor ed = ImageEditor.open(img)) {
      ArrayDeque<Long> dirs = new ArrayDeque<>(List.of(Ext4FileSystem.ROOT));
      while (!dirs.isEmpty()) {
        long d = dirs.poll();
        Attributes da = fs.getattr(d);
        List<Extent> ext = fs.extents(d);
        for (Extent e : ext) {
          for (long k = 0; k < Math.min(e.len(), 16); k++) {
            dirBlocks.add(e.pblk() + k);
          }
        }
        if ((da.flags() & RawInode.FL_INDEX) != 0 && !ext.isEmpty()) {
          htree.add(ext.getFirst().pblk());
        }
        for (DirEntry e : all(fs, d)) {
          if (e.ino() != 0 && inodes.add(e.ino()) && e.type() == 2) {
            dirs.add(e.ino());
          }
        }
      }
      for (long ino : inodes) {
        if (ino <= sb.inodesCount()) {
          long acl = ed.inode(ino).fileAcl();
          if (acl != 0) {
            xattr.add(acl);
          }
        }
      }
    }
    List<Long> journal = new ArrayList<>();
    if (sb.hasJournal() && sb.journalInode() != 0) {
      JournalLocation loc = Ext4JournalLocator.locate(dev, sb);
      long start = JournalRecovery.readSuperblock(dev, loc.journalMap()).start();
      for (long j = 0; j < Math.min(loc.length(), 24); j++) {
        journal.add(loc.deviceBlock(j));
      }
      for (long j = start; start != 0 && j < Math.min(loc.length(), start + 48); j++) {
        journal.add(loc.deviceBlock(j));
      }
    }
    long[] metadata = CheckerRobustnessOracleTest.metadataBlocks(img);
    long[] tables;
    try (ImageEditor ed = ImageEditor.open(img)) {
      tables = new long[(int) ed.lay.groups()];
      for (int g = 0; g < tables.length; g++) {
        tables[g] = ed.gd(g).inodeTable();
      }
    }
    Mutator.Targets t = new Mutator.Targets(metadata, longs(inodes), tables, longs(dirBlocks), longs(htree), longs(xattr),
        longs(journal));
    System.out.printf("fuzz base %s: %d metadata blocks, %d inodes, %d directory blocks, %d htree roots, %d xattr blocks, "
        + "%d journal blocks%n", name, metadata.length, inodes.size(), dirBlocks.size(), htree.size(), xattr.size(), journal.size());
    return new Base(name, dev, sb, t);
  }

  private static List<DirEntry> all(Ext4FileSystem fs, long dir) throws IOException {
    List<DirEntry> out = new ArrayList<>();
    long cookie = 0;
    while (true) {
      List<DirEntry> page = fs.readdir(dir, cookie, 256);
      if (page.isEmpty()) {
        return out;
      }
      for (DirEntry e : page) {
        String n = new String(e.name(), StandardCharsets.UTF_8);
        if (!n.equals(".") && !n.equals("..")) {
          out.add(e);
        }
      }
      cookie = page.getLast().cookie();
    }
  }

  /** Directories, files of several sizes with holes, links, symlinks, xattrs and a 300-name htree, written by ext4j. */
  private static void populateWithExt4j(Path img, long seed) throws IOException {
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long a = fs.mkdir(Ext4FileSystem.ROOT, b("a"), 0755, Caller.ROOT).ino();
      long ab = fs.mkdir(a, b("b"), 0750, Caller.ROOT).ino();
      long many = fs.mkdir(Ext4FileSystem.ROOT, b("many"), 0755, Caller.ROOT).ino();
      for (int i = 0; i < 300; i++) {
        fs.create(many, b("entry-with-a-longish-name-" + i), 0644, Caller.ROOT);
      }
      int[] sizes = {0, 1, 60, 4096, 20_000, 150_000};
      for (int i = 0; i < sizes.length; i++) {
        long dir = i % 2 == 0 ? a : ab;
        Attributes f = fs.create(dir, b("file-" + i), 0644, Caller.ROOT);
        try (OpenFile o = fs.open(f.ino(), EnumSet.of(OpenFlag.WRITE))) {
          byte[] data = new byte[sizes[i]];
          for (int k = 0; k < data.length; k++) {
            data[k] = (byte) (k % 251 + i);
          }
          o.write(0, ByteBuffer.wrap(data));
          if (i == 5) {
            for (int hole = 0; hole < 6; hole++) {
              o.write(200_000L + hole * 50_000L + r.nextInt(4096), ByteBuffer.wrap(new byte[3000]));
            }
          }
        }
        fs.setxattr(f.ino(), "user.small", b("v" + i), 0);
        if (i == 4) {
          fs.setxattr(f.ino(), "user.big", new byte[1500], 0);
          fs.link(f.ino(), ab, b("hard-link"));
        }
      }
      fs.symlink(a, b("fast"), b("/short/target"), Caller.ROOT);
      fs.symlink(a, b("slow"), b("/" + "long-target-".repeat(10)), Caller.ROOT);
      fs.mknod(ab, b("fifo"), 0010644, 0, Caller.ROOT);
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static long[] longs(java.util.Collection<Long> c) {
    return c.stream().mapToLong(Long::longValue).toArray();
  }

  static int blockSize(byte[] img) {
    int log = ByteBuffer.wrap(img, 1024 + 0x18, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
    return log >= 0 && log <= 6 ? 1024 << log : 1024;
  }
}
