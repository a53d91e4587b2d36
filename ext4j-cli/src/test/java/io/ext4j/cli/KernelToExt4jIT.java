package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.KernelFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kernel → ext4j: on every kernel power-cut fixture, {@code journal dump
 * --json} lists exactly what {@code debugfs -R "logdump -a"} lists, and {@code journal recover}
 * yields the image {@code e2fsck -E journal_only -y} yields.
 *
 * <p>The only block that differs after recovery is the one holding the primary ext4 superblock (byte
 * 1024), and in it only three fields e2fsck sets from its own run: {@code s_wtime} (0x30, the time
 * of its write), {@code s_kbytes_written} (0x178, it adds what it wrote) and the superblock checksum
 * (0x3FC) that covers them. The journal superblock, backup superblocks and group descriptors are
 * identical: both mark the journal empty with {@code s_sequence = end + 1}, {@code s_start = 0} and
 * the rest of the journal superblock untouched; e2fsck writes only the master superblock.
 */
@Tag("oracle")
class KernelToExt4jIT {
  @TempDir
  static Path dir;

  @BeforeAll
  static void needsE2fsprogs() {
    E2fsprogs.requireInstalled("debugfs"); // the oracles: a missing tool fails, never skips
    E2fsprogs.requireInstalled("e2fsck");
  }

  static Stream<String> fixtures() {
    return KernelFixtures.names().stream();
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void dumpJson_listsExactlyWhatDebugfsLogdumpLists(String name) throws Exception {
    Path img = KernelFixtures.extract(name, dir.resolve("dump-" + name));
    byte[] before = Files.readAllBytes(img);

    Cli cli = Cli.run("journal", "dump", "--json", img.toString());

    assertThat(cli.exitCode()).as(cli.err()).isZero();
    Map<Long, Tx> ours = fromJson(cli.out());
    Map<Long, Tx> theirs = fromLogdump(run("debugfs", "-R", "logdump -a", img.toString()));
    assertThat(theirs).as("debugfs lists transactions").isNotEmpty();
    assertThat(ours).isEqualTo(theirs);
    assertThat(Files.readAllBytes(img)).as("dump leaves the image untouched").isEqualTo(before);
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void recover_yieldsTheImageE2fsckJournalOnlyYields_exceptSuperblockTimeAndCounters(String name) throws Exception {
    Both both = recoverBoth(name, "plain", image -> {});

    assertThat(both.cli().exitCode()).as(both.cli().err()).isZero();
    assertThat(both.cli().out()).contains("Replayed ").contains("Cleared the ext4 needs_recovery flag");
    byte[] a = both.assertSameImage();

    Cli again = Cli.run("journal", "recover", both.ours().toString());
    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).contains("nothing to replay");
    assertThat(Files.readAllBytes(both.ours())).as("a second recover changes nothing").isEqualTo(a);
  }

  @ParameterizedTest
  @MethodSource("fixtures")
  void recover_ofAnAbortedJournal_marksTheFileSystemErroredAndClearsTheErrno_likeE2fsck(String name) throws Exception {
    Both both = recoverBoth(name, "errno", image -> setJournalErrno(image, KernelFixtures.blockSize(name), -5));

    assertThat(both.cli().exitCode()).as(both.cli().err()).isZero();
    assertThat(both.cli().out()).contains("recorded errno -5");
    assertThat(errorsDetected(both.assertSameImage())).as("s_state has 'errors detected'").isTrue();
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"1k-v1csum", "4k-v1csum"})
  void recover_ofAV1LogWithACorruptTransaction_stopsBeforeIt_andFlagsTheFs_likeE2fsck(String name) throws Exception {
    int[] victim = new int[1];
    Both both = recoverBoth(name, "v1bad", image -> victim[0] = flipAByteInTheLastTransaction(image,
        KernelFixtures.blockSize(name)));

    assertThat(both.cli().exitCode()).as("a failed commit exits 1; %s", both.cli().out()).isEqualTo(1);
    assertThat(both.cli().out()).contains("Journal transaction " + victim[0] + " is corrupt")
        .contains("Marked the file system as having errors");
    assertThat(both.e2fsckOutput()).anySatisfy(l -> assertThat(l).contains("transaction " + victim[0] + " was corrupt"));
    assertThat(errorsDetected(both.assertSameImage())).as("s_state has 'errors detected'").isTrue();
  }

  /** Prepares a fixture copy before recovery. */
  @FunctionalInterface
  interface Prepare {
    void on(Path image) throws IOException;
  }

  /** Two copies of a fixture, ours recovered by {@code journal recover} and theirs by e2fsck. */
  record Both(Path ours, Path theirs, int blockSize, Cli cli, List<String> e2fsckOutput) {
    byte[] assertSameImage() throws IOException {
      return assertSameImageAsE2fsck(ours, theirs, blockSize);
    }
  }

  /**
   * Extracts two copies of fixture {@code name}, prepares both the same way, then recovers ours with
   * {@code journal recover} and theirs with {@code e2fsck -E journal_only -y}, which must exit 0 or 1.
   */
  static Both recoverBoth(String name, String tag, Prepare prepare) throws Exception {
    Path ours = KernelFixtures.extract(name, dir.resolve(tag + "-ours-" + name));
    Path theirs = KernelFixtures.extract(name, dir.resolve(tag + "-theirs-" + name));
    prepare.on(ours);
    prepare.on(theirs);
    Cli cli = Cli.run("journal", "recover", ours.toString());
    Ran e2fsck = exec("e2fsck", "-E", "journal_only", "-y", theirs.toString());
    assertThat(e2fsck.exit()).as("e2fsck exit code; output:%n%s", e2fsck.out()).isLessThanOrEqualTo(1);
    return new Both(ours, theirs, KernelFixtures.blockSize(name), cli, e2fsck.out());
  }

  /** Whether the primary ext4 superblock of an image has s_state's "errors detected" bit. */
  static boolean errorsDetected(byte[] image) {
    int state = ((image[1024 + 0x3B] & 0xFF) << 8) | (image[1024 + 0x3A] & 0xFF);
    return (state & 0x2) != 0;
  }

  /** Flips one byte of the first data block of the last transaction in an image's log; returns that tid. */
  static int flipAByteInTheLastTransaction(Path image, int blockSize) throws IOException {
    try (io.ext4j.block.FileBlockDevice dev = io.ext4j.block.FileBlockDevice.open(image, blockSize,
        io.ext4j.block.FileBlockDevice.Options.defaults())) {
      io.ext4j.jbd2.JournalMap map = io.ext4j.fs.Ext4JournalLocator.locate(dev).journalMap();
      io.ext4j.jbd2.RecoveryResult scan = io.ext4j.jbd2.JournalRecovery.scan(dev, map,
          io.ext4j.jbd2.JournalRecovery.readSuperblock(dev, map));
      io.ext4j.jbd2.RecoveryResult.Transaction last = scan.transactions().getLast();
      long block = map.deviceBlock(last.firstBlock() + 1);
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(blockSize);
      dev.read(block, b);
      b.put(100, (byte) ~b.get(100));
      dev.write(block, b.clear());
      dev.flush();
      return last.tid();
    }
  }

  /** Writes s_errno into the journal superblock of an ext4 image (as an aborted jbd2 leaves it). */
  static void setJournalErrno(Path image, int blockSize, int errno) throws IOException {
    try (io.ext4j.block.FileBlockDevice dev = io.ext4j.block.FileBlockDevice.open(image, blockSize,
        io.ext4j.block.FileBlockDevice.Options.defaults())) {
      io.ext4j.jbd2.JournalMap map = io.ext4j.fs.Ext4JournalLocator.locate(dev).journalMap();
      io.ext4j.jbd2.format.JournalSuperblock sb = io.ext4j.jbd2.JournalRecovery.readSuperblock(dev, map);
      long home = map.deviceBlock(0); // the journal superblock's block, rewritten around its encoded bytes
      java.nio.ByteBuffer block = java.nio.ByteBuffer.allocate(dev.blockSize());
      dev.read(home, block);
      block.clear().put(0, sb.withErrno(errno).encode());
      dev.write(home, block);
      dev.flush();
    }
  }

  /**
   * Asserts that our recovered image equals e2fsck's except, in the primary superblock, the fields
   * e2fsck sets from its own run; returns ours.
   */
  static byte[] assertSameImageAsE2fsck(Path ours, Path theirs, int bs) throws IOException {
    byte[] a = Files.readAllBytes(ours);
    byte[] b = Files.readAllBytes(theirs);
    assertThat(a.length).isEqualTo(b.length);
    long sbBlock = 1024 / bs;
    List<Long> differing = new ArrayList<>();
    for (long blk = 0; blk < a.length / bs; blk++) {
      if (!java.util.Arrays.equals(a, (int) (blk * bs), (int) ((blk + 1) * bs), b, (int) (blk * bs), (int) ((blk + 1) * bs))) {
        differing.add(blk);
      }
    }
    assertThat(differing).as("blocks that differ from e2fsck's result").isSubsetOf(List.of(sbBlock));
    List<Integer> fields = new ArrayList<>();
    for (int off = 0; off < 1024; off++) {
      if (a[1024 + off] != b[1024 + off]) {
        fields.add(off);
      }
    }
    assertThat(fields).as("superblock byte offsets that differ")
        .allSatisfy(off -> assertThat(off).satisfiesAnyOf(
            o -> assertThat(o).isBetween(0x30, 0x33), // s_wtime
            o -> assertThat(o).isBetween(0x178, 0x17F), // s_kbytes_written
            o -> assertThat(o).isBetween(0x3FC, 0x3FF))); // s_checksum
    return a;
  }

  /** A transaction as both listings show it. */
  record Tx(long tid, List<List<Long>> blocks, List<Long> revoked, boolean committed) {}

  @SuppressWarnings("unchecked")
  static Map<Long, Tx> fromJson(String json) {
    Map<String, Object> root = (Map<String, Object>) io.ext4j.bench.Json.read(json);
    Map<Long, Tx> out = new LinkedHashMap<>();
    for (Object o : (List<Object>) root.get("transactions")) {
      Map<String, Object> t = (Map<String, Object>) o;
      List<List<Long>> blocks = new ArrayList<>();
      for (Object bo : (List<Object>) t.get("blocks")) {
        Map<String, Object> b = (Map<String, Object>) bo;
        blocks.add(List.of((Long) b.get("fsBlock"), (Long) b.get("journalBlock"), (Long) b.get("flags")));
      }
      List<Long> revoked = new ArrayList<>();
      for (Object r : (List<Object>) t.get("revoked")) {
        revoked.add((Long) r);
      }
      long tid = (Long) t.get("tid");
      out.put(tid, new Tx(tid, blocks, revoked, (Boolean) t.get("committed")));
    }
    return out;
  }

  private static final Pattern FOUND = Pattern.compile("^Found expected sequence (\\d+), type (\\d+) .* at block (\\d+)$");
  private static final Pattern TAG = Pattern.compile("^  FS block (\\d+) logged at journal block (\\d+) \\(flags 0x([0-9a-f]+)\\)$");
  private static final Pattern REVOKE = Pattern.compile("^  Revoke FS block (\\d+)$");

  static Map<Long, Tx> fromLogdump(List<String> lines) {
    Map<Long, Tx> out = new LinkedHashMap<>();
    long tid = -1;
    for (String line : lines) {
      Matcher found = FOUND.matcher(line);
      Matcher tag = TAG.matcher(line);
      Matcher revoke = REVOKE.matcher(line);
      if (found.matches()) {
        tid = Long.parseLong(found.group(1));
        Tx t = out.computeIfAbsent(tid, k -> new Tx(k, new ArrayList<>(), new ArrayList<>(), false));
        if (found.group(2).equals("2")) {
          out.put(tid, new Tx(tid, t.blocks(), t.revoked(), true));
        }
      } else if (tag.matches()) {
        out.get(tid).blocks().add(List.of(Long.parseLong(tag.group(1)), Long.parseLong(tag.group(2)), Long.parseLong(tag.group(3), 16)));
      } else if (revoke.matches()) {
        out.get(tid).revoked().add(Long.parseLong(revoke.group(1)));
      }
    }
    return out;
  }

  /** A finished command: its exit status and standard output (standard error is left out). */
  record Ran(int exit, List<String> out) {}

  /** Runs a command to completion (at most two minutes; see {@link E2fsprogs#run}). */
  static Ran exec(String... cmd) {
    E2fsprogs.Result r = E2fsprogs.run(Duration.ofMinutes(2), cmd);
    return new Ran(r.exitCode(), r.stdout().lines().toList());
  }

  static List<String> run(String... cmd) {
    return exec(cmd).out();
  }
}
