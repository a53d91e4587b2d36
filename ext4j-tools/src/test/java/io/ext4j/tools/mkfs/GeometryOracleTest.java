package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Geometry} against mkfs.ext4 1.47.0 itself: for each configuration, a sparse image is made by
 * {@code mkfs.ext4 -q -F -b BS [-O ...] [-i R] [-N N] [-J size=M]} (upstream mke2fs.conf), read back
 * with dumpe2fs and {@code debugfs stat}, and compared field by field with what ext4j computes for the
 * same inputs: superblock counts, every group's positions, flags and counts, and the blocks of the
 * root directory, lost+found, resize inode, journal and orphan file; and the stored bg_flags and
 * bg_itable_unused of every descriptor (without meta_bg). Every mismatch of every
 * configuration is reported, with the configuration and the seed. Ten fixed edge cases run every
 * time, plus 40 sampled ones ({@code -Dext4j.geometry.samples=N} for more).
 */
@Tag("oracle")
class GeometryOracleTest {
  private static final long MIB = 1L << 20;
  private static final List<String> FEATURES = List.of(
      "", "^64bit", "^flex_bg", "^metadata_csum,uninit_bg", "^has_journal", "^resize_inode",
      "^sparse_super,^resize_inode", "^metadata_csum", "^64bit,^flex_bg", "meta_bg,^resize_inode");
  private static final int[] RATIOS = {1024, 2048, 4096, 8192, 16384, 32768, 65536, 262144, 4194304};

  @TempDir
  static Path dir;
  private static E2fsTools tools;

  /**
   * One mkfs.ext4 invocation; 0 (−1 for {@code reservedPercent} and {@code flexLog}) leaves an option
   * out.
   */
  record Config(long sizeBytes, int blockSize, String features, int inodeRatio, long inodes, long journalMib,
      int inodeSize, double reservedPercent, int flexLog, String extended) {
    Config(long sizeBytes, int blockSize, String features, int inodeRatio, long inodes, long journalMib) {
      this(sizeBytes, blockSize, features, inodeRatio, inodes, journalMib, 0, -1, -1, "");
    }

    Config withExtended(String options) {
      return new Config(sizeBytes, blockSize, features, inodeRatio, inodes, journalMib, inodeSize, reservedPercent,
          flexLog, options);
    }

    List<String> options() {
      List<String> o = new ArrayList<>(List.of("-b", Integer.toString(blockSize)));
      if (!features.isEmpty()) {
        o.addAll(List.of("-O", features));
      }
      if (inodeRatio != 0) {
        o.addAll(List.of("-i", Integer.toString(inodeRatio)));
      }
      if (inodes != 0) {
        o.addAll(List.of("-N", Long.toString(inodes)));
      }
      if (journalMib != 0) {
        o.addAll(List.of("-J", "size=" + journalMib));
      }
      if (inodeSize != 0) {
        o.addAll(List.of("-I", Integer.toString(inodeSize)));
      }
      if (reservedPercent >= 0) {
        o.addAll(List.of("-m", Double.toString(reservedPercent)));
      }
      if (flexLog >= 0) {
        o.addAll(List.of("-G", Integer.toString(1 << flexLog)));
      }
      if (!extended.isEmpty()) {
        o.addAll(List.of("-E", extended));
      }
      return o;
    }

    MkfsParameters parameters() {
      MkfsParameters.Builder b = MkfsParameters.builder().sizeBytes(sizeBytes).blockSize(blockSize)
          .inodeRatio(inodeRatio).inodesCount(inodes);
      if (!features.isEmpty()) {
        b.withFeatureString(features);
      }
      if (journalMib != 0) {
        b.journalBlocks(journalMib * MIB / blockSize);
      }
      if (inodeSize != 0) {
        b.inodeSize(inodeSize);
      }
      if (reservedPercent >= 0) {
        b.reservedPercent(reservedPercent);
      }
      if (flexLog >= 0) {
        b.logGroupsPerFlex(flexLog);
      }
      for (String e : extended.isEmpty() ? new String[0] : extended.split(",")) {
        switch (e) {
          case "nodiscard" -> b.targetReadsZeros(false); // no discard: mke2fs cannot know the tables read as zeros
          case "lazy_itable_init=0" -> b.lazyItableInit(false);
          default -> throw new IllegalArgumentException("extended option " + e + " has no parameter");
        }
      }
      return b.build();
    }

    @Override
    public String toString() {
      return "truncate -s " + sizeBytes + " IMG; mkfs.ext4 -q -F " + String.join(" ", options()) + " IMG";
    }
  }

  @BeforeAll
  static void tools() throws Exception {
    E2fsTools.require("mkfs.ext4");
    E2fsTools.require("dumpe2fs");
    E2fsTools.require("debugfs");
    tools = new E2fsTools(dir);
  }

  @Test
  void geometry_ofSampledConfigurations_matchesMkfsExt4FieldByField() throws Exception {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    List<Config> configs = new ArrayList<>(edgeCases());
    for (int i = 0; i < Integer.getInteger("ext4j.geometry.samples", 40); i++) {
      configs.add(sample(random));
    }
    List<String> report = new ArrayList<>();
    int compared = 0;
    int refusedByBoth = 0;
    for (Config c : configs) {
      Outcome o = check(c);
      compared++;
      if (o.refusedByBoth()) {
        refusedByBoth++;
      }
      if (!o.mismatches().isEmpty()) {
        report.add(c + "\n    " + String.join("\n    ", o.mismatches().subList(0, Math.min(25, o.mismatches().size())))
            + (o.mismatches().size() > 25 ? "\n    … " + (o.mismatches().size() - 25) + " more" : ""));
      }
    }
    System.out.printf("geometry oracle: %d configurations, %d refused by both, %d with mismatches%n",
        compared, refusedByBoth, report.size());
    assertThat(report).as("configurations where ext4j's layout differs from mkfs.ext4's (%s):%n%s",
        Seeds.replayLine(seed), String.join("\n", report)).isEmpty();
  }

  /** Cases each rule is known to need, made every run. */
  static List<Config> edgeCases() {
    return List.of(
        new Config(32 * MIB, 1024, "", 0, 0, 0),
        new Config(64 * MIB, 4096, "", 1024, 0, 0),         // bpg shrinks; r_blocks from an abandoned pass
        new Config(32 * MIB, 1024, "", 0, 16, 0),           // 8 inodes per group: inodes 9–12 in group 1
        new Config(32868 * 1024, 1024, "", 0, 0, 0),        // last group dropped, ipg recomputed
        new Config(2100224, 1024, "", 0, 0, 0),             // size rounded down to the page
        new Config(2 * MIB, 4096, "", 0, 0, 0),             // too small for a journal: no orphan file
        new Config(16L << 30, 1024, "", 0, 0, 0),           // journal of 5 pieces: extent block
        new Config(14L << 30, 4096, "", 0, 0, 1024),        // extent block after the 5th piece
        new Config(8L << 30, 1024, "^flex_bg", 0, 0, 1024), // 131 extents: a full leaf splits
        new Config(300 * MIB, 1024, "meta_bg,^resize_inode", 0, 0, 0),
        new Config(1L << 30, 2048, "^flex_bg", 0, 0, 0),
        new Config(32 * MIB, 1024, "", 0, 0, 0).withExtended("nodiscard"),     // no ITABLE_ZEROED
        new Config(32 * MIB, 1024, "", 0, 0, 0).withExtended("nodiscard,lazy_itable_init=0"));
  }

  /**
   * A random configuration: size log-uniform in [2 MiB, 64 GiB] (a whole MiB, a whole 4 KiB, any byte
   * count, or a few blocks past a group boundary, where the last group may be dropped), any block
   * size and feature set; sometimes an inode ratio or count, inode size, reserved percentage, flex
   * group size, journal size, or no discard.
   */
  static Config sample(Random r) {
    double lo = Math.log(2 * MIB);
    double hi = Math.log(64.0 * (1L << 30));
    long size = (long) Math.exp(lo + r.nextDouble() * (hi - lo));
    int bs = new int[] {1024, 2048, 4096}[r.nextInt(3)];
    long groupBytes = 8L * bs * bs;
    size = switch (r.nextInt(5)) {
      case 0, 1 -> Math.max(2 * MIB, size / MIB * MIB);
      case 2 -> size / 4096 * 4096;
      case 3 -> Math.max(1, size / groupBytes) * groupBytes + (bs == 1024 ? 1024 : 0) + 4096L * (1 + r.nextInt(300));
      default -> size;
    };
    String features = FEATURES.get(r.nextInt(FEATURES.size()));
    int ratio = r.nextInt(10) < 6 ? 0 : RATIOS[r.nextInt(RATIOS.length)];
    int inodeSize = r.nextInt(8) == 0 ? new int[] {128, 512, 1024}[r.nextInt(3)] : 0;
    double reserved = r.nextInt(8) == 0 ? r.nextInt(51) / (r.nextBoolean() ? 1.0 : 10.0) : -1;
    int flexLog = r.nextInt(8) == 0 ? r.nextInt(8) : -1;
    long journalMib = r.nextInt(8) == 0 ? 1L << r.nextInt(11) : 0;
    long inodes = r.nextInt(16) == 0 ? 1L << r.nextInt(20) : 0;
    String extended = r.nextInt(8) == 0 ? "nodiscard" : "";
    return new Config(size, bs, features, inodes == 0 ? ratio : 0, inodes, journalMib, inodeSize, reserved, flexLog,
        extended);
  }

  record Outcome(List<String> mismatches, boolean refusedByBoth) {}

  private static Outcome check(Config c) throws Exception {
    Geometry ours;
    String ourRefusal = null;
    try {
      ours = Geometry.of(c.parameters());
    } catch (IllegalArgumentException e) {
      ours = null;
      ourRefusal = e.getMessage();
    }
    Path img = tools.sparseImage("oracle.img", c.sizeBytes());
    try {
      E2fsTools.Result made = tools.mkfs(img, c.options());
      if (made.exit() != 0 || ours == null) {
        boolean both = made.exit() != 0 && ours == null;
        return new Outcome(both ? List.of() : List.of("refusal: ext4j " + (ourRefusal == null ? "accepts" : ourRefusal)
            + ", mke2fs " + (made.exit() == 0 ? "accepts" : "exit " + made.exit() + ": " + made.stderr().strip())), both);
      }
      String dump = tools.dumpe2fs(img);
      String stat = tools.debugfsStat(img, 2, 7, 8, 11, 12);
      List<String> mismatches = new ArrayList<>(LayoutDiff.compare(ours, Mke2fsReport.parse(dump, stat)));
      mismatches.addAll(LayoutDiff.compareStoredDescriptors(ours, img));
      return new Outcome(mismatches, false);
    } finally {
      Files.deleteIfExists(img);
    }
  }
}
