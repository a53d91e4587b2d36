package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.format.MappedRange;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Test images made by e2fsprogs, and e2fsprogs as the oracle that reads them back. */
public final class Ext4Images {
  public static final Path DIR = Path.of("target", "test-images");
  private static final Pattern RANGE = Pattern.compile("\\((\\d+)(?:-(\\d+))?\\):(\\d+)(?:-(\\d+))?");

  private Ext4Images() {}

  /** What a command printed (stdout and stderr merged) and its exit status. */
  public record Result(int exit, String output) {}

  /**
   * Skips the calling test when {@code tool} is not installed — except under CI ({@code CI} set),
   * whose {@code .ci/run} installs e2fsprogs: there a missing tool fails the test.
   */
  public static void assumeTool(String tool) {
    boolean found = false;
    for (String dir : List.of("/sbin", "/usr/sbin", "/bin", "/usr/bin")) {
      found |= Files.isExecutable(Path.of(dir, tool));
    }
    if (System.getenv("CI") != null) {
      assertThat(found).as("%s is installed (CI must install it)", tool).isTrue();
    }
    assumeTrue(found, tool + " is not installed");
  }

  /** Runs a command to completion; fails the test if it cannot start or takes over a minute. */
  public static Result run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("%s finished", List.of(command)).isTrue();
    return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
  }

  /** Runs a command that must exit 0 and returns its output. */
  public static String runOk(String... command) throws IOException, InterruptedException {
    Result r = run(command);
    assertThat(r.exit()).as("exit status of %s; output:%n%s", List.of(command), r.output()).isZero();
    return r.output();
  }

  /**
   * A fresh {@code mib} MiB image at {@code target/test-images/<name>.img} made by
   * {@code mkfs.ext4 -q -F -b <blockSize> <options>}.
   */
  public static Path mkfs(String name, int blockSize, int mib, String... options) throws IOException, InterruptedException {
    assumeTool("mkfs.ext4");
    Files.createDirectories(DIR);
    Path img = DIR.resolve(name + ".img");
    Files.deleteIfExists(img);
    try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
      f.setLength((long) mib << 20);
    }
    List<String> cmd = new ArrayList<>(List.of("mkfs.ext4", "-q", "-F", "-b", Integer.toString(blockSize)));
    cmd.addAll(List.of(options));
    cmd.add(img.toString());
    runOk(cmd.toArray(String[]::new));
    return img;
  }

  /** The image as a memory device of {@code deviceBlockSize}-byte blocks, named by its path. */
  public static MemoryBlockDevice load(Path img, int deviceBlockSize) throws IOException {
    return MemoryBlockDevice.of(img.toString(), deviceBlockSize, Files.readAllBytes(img));
  }

  /** {@code dumpe2fs -h} output. */
  public static String dumpe2fsHeader(Path img) throws IOException, InterruptedException {
    assumeTool("dumpe2fs");
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
  public static List<MappedRange> debugfsRanges(Path img, long ino) throws IOException, InterruptedException {
    assumeTool("debugfs");
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
  public static long debugfsBmap(Path img, long ino, long block) throws IOException, InterruptedException {
    String out = runOk("debugfs", "-R", "bmap <" + ino + "> " + block, img.toString());
    return Long.parseLong(out.lines().filter(l -> l.matches("\\d+")).findFirst().orElseThrow());
  }
}
