package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.format.MappedRange;
import io.ext4j.testkit.E2fsprogs;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test images made by e2fsprogs, and e2fsprogs as the oracle that reads them back, through
 * {@link E2fsprogs} (timeouts that start before output is read, stdin closed, a missing tool fails).
 */
public final class Ext4Images {
  public static final Path DIR = Path.of("target", "test-images");
  private static final Pattern RANGE = Pattern.compile("\\((\\d+)(?:-(\\d+))?\\):(\\d+)(?:-(\\d+))?");

  private Ext4Images() {}

  /** Runs an e2fsprogs command (which must be installed) to completion within {@link E2fsprogs#TIMEOUT}. */
  @SuppressWarnings("exports") // test code, patched into io.ext4j.fs: no other module sees it
  public static E2fsprogs.Result run(String... command) {
    E2fsprogs.requireInstalled(command[0]);
    return E2fsprogs.run(E2fsprogs.TIMEOUT, command);
  }

  /** Runs a command that must exit 0 and returns what it printed (stdout, then stderr). */
  public static String runOk(String... command) {
    E2fsprogs.Result r = run(command);
    assertThat(r.exitCode()).as("exit status of %s; output:%n%s", List.of(command), r.output()).isZero();
    return r.output();
  }

  /**
   * A fresh {@code mib} MiB image at {@code target/test-images/<name>.img} made by
   * {@code mkfs.ext4 -q -F -b <blockSize> <options>}.
   */
  public static Path mkfs(String name, int blockSize, int mib, String... options) throws IOException {
    Files.createDirectories(DIR);
    Path img = DIR.resolve(name + ".img");
    Files.deleteIfExists(img);
    try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
      f.setLength((long) mib << 20);
    }
    List<String> args = new ArrayList<>(List.of("-b", Integer.toString(blockSize)));
    args.addAll(List.of(options));
    E2fsprogs.mkfs(img, args.toArray(String[]::new));
    return img;
  }

  /** The image as a memory device of {@code deviceBlockSize}-byte blocks, named by its path. */
  public static MemoryBlockDevice load(Path img, int deviceBlockSize) throws IOException {
    return MemoryBlockDevice.of(img.toString(), deviceBlockSize, Files.readAllBytes(img));
  }

  /** {@code dumpe2fs -h} output. */
  public static String dumpe2fsHeader(Path img) {
    return runOk("dumpe2fs", "-h", img.toString());
  }

  /** The value of a {@code Key: value} line of dumpe2fs or debugfs output. */
  public static String field(String output, String key) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(key) + ":\\s*(.*?)\\s*$").matcher(output);
    assertThat(m.find()).as("'%s' in:%n%s", key, output).isTrue();
    return m.group(1);
  }

  /**
   * The data ranges {@code debugfs -R "stat <ino>"} lists (index/indirect blocks left out), with
   * ranges that continue each other merged, as {@link io.ext4j.fs.format.FileBlockMap} returns them.
   */
  public static List<MappedRange> debugfsRanges(Path img, long ino) {
    String out = runOk("debugfs", "-R", "stat <" + ino + ">", img.toString());
    int at = Math.max(out.indexOf("EXTENTS:"), out.indexOf("BLOCKS:"));
    assertThat(at).as("block list in debugfs stat output:%n%s", out).isPositive();
    List<MappedRange> ranges = new ArrayList<>();
    Matcher m = RANGE.matcher(out.substring(at));
    while (m.find()) {
      long lo = Long.parseLong(m.group(1));
      long hi = m.group(2) == null ? lo : Long.parseLong(m.group(2));
      MappedRange r = new MappedRange(lo, Long.parseLong(m.group(3)), hi - lo + 1, false);
      MappedRange last = ranges.isEmpty() ? null : ranges.getLast();
      if (last != null && last.logical() + last.length() == r.logical() && last.physical() + last.length() == r.physical()) {
        ranges.set(ranges.size() - 1, new MappedRange(last.logical(), last.physical(), last.length() + r.length(), false));
      } else {
        ranges.add(r);
      }
    }
    return ranges;
  }

  /** {@code debugfs -R "bmap <ino> block"}: the filesystem block holding a file block. */
  public static long debugfsBmap(Path img, long ino, long block) {
    String out = runOk("debugfs", "-R", "bmap <" + ino + "> " + block, img.toString());
    return Long.parseLong(out.lines().filter(l -> l.matches("\\d+")).findFirst().orElseThrow());
  }
}
