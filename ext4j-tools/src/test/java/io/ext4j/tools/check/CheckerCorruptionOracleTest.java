package io.ext4j.tools.check;

import io.ext4j.fs.format.Extent;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.block.OverlayBlockDevice;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.tools.check.Corruptions.Corruption;
import io.ext4j.tools.check.Corruptions.Expect;
import io.ext4j.tools.check.Corruptions.Needs;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * The corruption suite: one targeted corruption at a time ({@link Corruptions}) on a copy of a
 * populated image, in three configurations, each judged by the checker and by {@code e2fsck -fn}.
 * Agreement in both directions: the checker is clean exactly when e2fsck exits 0, silent exactly
 * when e2fsck prints nothing, with e2fsck's exit code (its 12, "gave up", is the checker's 4 or 8);
 * and every error names the inode or block the corruption touched. Targets come from the seed.
 */
@Tag("oracle")
class CheckerCorruptionOracleTest {
  private static final String[][] CONFIGS = {
    {"4k-csum", "-b", "4096", "-O", "metadata_csum_seed,orphan_file"},
    {"1k-csum", "-b", "1024", "-O", "metadata_csum_seed,orphan_file"},
    {"1k-gdtcsum", "-b", "1024", "-O", "^metadata_csum,uninit_bg"},
  };

  @TestFactory
  Stream<DynamicContainer> eachCorruption_isJudgedAsE2fsckJudgesIt() throws Exception {
    long seed = Seeds.seed();
    List<DynamicContainer> out = new ArrayList<>();
    for (String[] cfg : CONFIGS) {
      String name = cfg[0];
      String[] mkfs = java.util.Arrays.copyOfRange(cfg, 1, cfg.length);
      Base base = new Base(name, mkfs, seed);
      List<DynamicTest> tests = new ArrayList<>();
      for (Corruption k : Corruptions.all()) {
        tests.add(DynamicTest.dynamicTest(k.name(), () -> base.run(k)));
      }
      out.add(DynamicContainer.dynamicContainer(name, tests));
    }
    return out.stream();
  }

  /** A populated base image, made on first use, and the targets in it. */
  private static final class Base {
    private final String name;
    private final String[] mkfs;
    private final long seed;
    private Path image; // made by the first test of the configuration (tests of a container run in order)
    private Corruptions.Targets targets;
    private Ext4Superblock sb;

    Base(String name, String[] mkfs, long seed) {
      this.name = name;
      this.mkfs = mkfs;
      this.seed = seed;
    }

    private void make() throws Exception {
      if (image != null) {
        return;
      }
      image = Fixture.mkfs("corrupt-base-" + name, 16, mkfs);
      Fixture.populate(image, seed, true);
      E2fsprogs.Result e = E2fsprogs.e2fsck(image);
      assertThat(e.silent()).as("the base image is clean: %s", e.describe()).isTrue();
      assertThat(CheckImage.check(image).silent()).as("the checker finds the base image clean").isTrue();
      // Read-only through an overlay: closing a read-only Ext4FileSystem flushes its device, which a
      // read-only FileBlockDevice refuses (an engine issue); the overlay takes the flush and keeps
      // the image untouched.
      try (FileBlockDevice ro = FileBlockDevice.open(image, CheckImage.blockSize(image),
              FileBlockDevice.Options.defaults().withReadOnly(true));
          Ext4FileSystem fs = Ext4FileSystem.open(new OverlayBlockDevice(ro), Ext4Options.builder().readOnly(true).build(),
              true)) {
        sb = fs.superblock();
        long dir = ino(fs, "/dir");
        long sub = ino(fs, "/dir/sub");
        long hdir = ino(fs, Fixture.HTREE_DIR);
        List<long[]> hdirBlocks = new ArrayList<>();
        for (Extent e2 : fs.extents(hdir)) {
          for (long i = 0; i < e2.len(); i++) {
            hdirBlocks.add(new long[] {e2.lblk() + i, e2.pblk() + i});
          }
        }
        targets = new Corruptions.Targets(dir, sub, ino(fs, "/dir/sub/deeper"), ino(fs, "/dir/a"), ino(fs, "/big"),
            ino(fs, "/sparse"), ino(fs, "/fast"), ino(fs, "/slow"), ino(fs, "/dir/fifo"), ino(fs, "/dir/chr"), hdir,
            fs.extents(ino(fs, "/big")), hdirBlocks, fs.extents(dir).get(0).pblk(), fs.extents(sub).get(0).pblk());
      }
    }

    private static long ino(Ext4FileSystem fs, String path) throws Exception {
      long at = Ext4FileSystem.ROOT;
      for (String part : path.substring(1).split("/", -1)) {
        at = fs.lookup(at, part.getBytes(StandardCharsets.UTF_8)).ino();
      }
      return at;
    }

    private boolean applies(Needs n) {
      return switch (n) {
        case ANY -> true;
        case METADATA_CSUM -> sb.hasMetadataCsum();
        case ORPHAN_FILE -> sb.hasCompat(Ext4Superblock.COMPAT_ORPHAN_FILE);
        case MULTI_GROUP -> sb.groupCount() > 1;
      };
    }

    void run(Corruption k) throws Exception {
      make();
      if (!applies(k.needs())) {
        System.out.println(name + " / " + k.name() + ": does not apply");
        return;
      }
      Path copy = Fixture.DIR.resolve("corrupt-" + name + ".img");
      Files.copy(image, copy, StandardCopyOption.REPLACE_EXISTING);
      long sub = Seeds.derive(seed, name + "/" + k.name());
      Expect expect;
      try (ImageEditor ed = ImageEditor.open(copy)) {
        expect = k.action().apply(new Corruptions.Ctx(ed, copy, targets, new SplittableRandom(sub)));
      }
      long t0 = System.nanoTime();
      CheckReport r = CheckImage.check(copy);
      long micros = (System.nanoTime() - t0) / 1000;
      E2fsprogs.Result e = E2fsprogs.e2fsck(copy);
      String both = String.format("%s / %s (seed %d): expected %s%nchecker:%n%se2fsck:%n%s", name, k.name(), seed, expect,
          r.toText(), e.describe());
      System.out.printf(Locale.ROOT, "%-11s %-68s checker exit %d (%d problems, %d notes) in %5d µs, e2fsck exit %d%n",
          name, k.name(), r.exitCode(), r.problems().size(), r.notes().size(), micros, e.exit());
      assertThat(r.clean()).as("clean agrees with e2fsck; %s", both).isEqualTo(e.exit() == 0);
      assertThat(r.silent()).as("silent agrees with e2fsck; %s", both).isEqualTo(e.silent());
      if (e.exit() == 12) {
        assertThat(r.exitCode()).as("exit code; %s", both).isIn(4, 8);
      } else {
        assertThat(r.exitCode()).as("exit code; %s", both).isEqualTo(e.exit());
      }
      switch (expect.kind()) {
        case ERROR -> {
          assertThat(e.exit()).as("e2fsck finds the corruption; %s", both).isNotZero();
          for (Expect x : concat(expect)) {
            assertThat(r.problems()).as("a problem naming %s; %s", x, both).anyMatch(x::names);
          }
        }
        case NOTE -> {
          assertThat(e.exit()).as("e2fsck exits 0 but says something; %s", both).isZero();
          assertThat(r.notes()).as("a note naming %s; %s", expect, both).anyMatch(expect::names);
          boolean strictMatters = Problem.FREE_TOTALS.equals(expect.structure())
              || Problem.GROUP_DESCRIPTOR.equals(expect.structure());
          if (strictMatters) {
            assertThat(CheckImage.check(copy, CheckOptions.defaults().withStrict(true)).exitCode())
                .as("strict makes it an error; %s", both).isEqualTo(4);
          }
        }
        case SILENT -> assertThat(e.silent()).as("e2fsck accepts it silently; %s", both).isTrue();
      }
    }

    private static List<Expect> concat(Expect e) {
      List<Expect> l = new ArrayList<>();
      l.add(e);
      l.addAll(e.also());
      return l;
    }
  }
}
