package io.ext4j.tools.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Images made by mkfs.ext4 in many configurations, fresh and populated by debugfs: the checker is
 * silent exactly as e2fsck -fn is, and its counts are e2fsck's summary line to the digit.
 */
@Tag("oracle")
class CheckerFreshImageOracleTest {
  private static final Pattern SUMMARY =
      Pattern.compile(": (\\d+)/(\\d+) files \\(([0-9.]+)% non-contiguous\\), (\\d+)/(\\d+) blocks");

  @ParameterizedTest(name = "{0} MiB, -b {1} {2}")
  @CsvSource(delimiter = '|', value = {
    "16  | 1024 | -O metadata_csum_seed,orphan_file",
    "64  | 4096 | -O metadata_csum_seed,orphan_file",
    "16  | 1024 | -O ^metadata_csum,uninit_bg",
    "64  | 4096 | -O ^metadata_csum,uninit_bg",
    "16  | 1024 | -O ^64bit,^flex_bg",
    "64  | 4096 | -O ^64bit,^flex_bg",
    "16  | 1024 | -O ^has_journal",
    "64  | 4096 | -O ^has_journal",
    "16  | 1024 | -I 128",
    "64  | 4096 | -I 128",
    "64  | 4096 | -I 256 -O metadata_csum_seed",
    "16  | 1024 | -O meta_bg,^resize_inode",
    "16  | 1024 | -O ^extent,^64bit,^flex_bg,^huge_file,^metadata_csum",
    "1024 | 4096 | -O metadata_csum_seed,orphan_file",
    "512 | 1024 | -O ^metadata_csum,uninit_bg,^flex_bg",
  })
  void mkfsImages_freshAndPopulated_checkSilent_withE2fscksCounts(int mib, int bs, String options) throws Exception {
    long seed = Seeds.seed();
    String name = "fresh-" + mib + "-" + bs + "-" + Integer.toHexString(options.hashCode());
    String[] args = ("-b " + bs + " " + options).trim().split("\\s+", -1);
    Path img = Fixture.mkfs(name, mib, args);
    agree(img, "fresh " + options);
    Fixture.populate(img, seed, !options.contains("^extent"));
    agree(img, "populated " + options);
  }

  static void agree(Path img, String what) throws Exception {
    CheckImage.check(img); // warm-up, so that the time printed is a warm check
    long t0 = System.nanoTime();
    CheckReport r = CheckImage.check(img);
    long micros = (System.nanoTime() - t0) / 1000;
    E2fsprogs.Result e = E2fsprogs.e2fsck(img);
    System.out.printf(Locale.ROOT, "%-60s checked in %6d µs: %d/%d files, %d/%d blocks%n", what, micros,
        r.counts().inodesUsed(), r.counts().inodesCount(), r.counts().blocksUsed(), r.counts().blocksCount());
    assertThat(e.silent()).as("e2fsck on %s: %s", what, e.describe()).isTrue();
    assertThat(r.silent()).as("checker on %s:%n%s", what, r.toText()).isTrue();
    Matcher m = SUMMARY.matcher(e.out());
    assertThat(m.find()).as("e2fsck summary in %s", e.out()).isTrue();
    CheckReport.Counts c = r.counts();
    assertThat(new long[] {c.inodesUsed(), c.inodesCount(), c.blocksUsed(), c.blocksCount()}).as("counts on %s", what)
        .containsExactly(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(4)),
            Long.parseLong(m.group(5)));
    assertThat(r.toText()).as("summary line on %s", what).contains(m.group().substring(2));
  }
}
