package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * pjdfstest (the POSIX conformance suite; its source is found as {@link #source} says, built into a
 * scratch directory as its BUILD.md says) run by {@code prove -j4 -r} as root inside a fresh mount, with
 * the kernel checking permissions ({@code default_permissions}) and with the engine checking them:
 * no more failed checks than the kernel's own ext4 on a loop mount (0 to 2 of 8,827). The counts are
 * printed either way. Without default_permissions the FIFO opens of {@code open/06.t} are not
 * counted: no FUSE filesystem is asked about them ({@link #fifoOpens}).
 */
@Tag("oracle")
class PjdfstestOracleTest {
  static final int KERNEL_WORST = 2;
  static final Duration RUN = Duration.ofMinutes(15);

  /** The pjdfstest source ({@link io.ext4j.testkit.ThirdParty#source}: {@code -Dext4j.pjdfstest=DIR} or shared/third_party). */
  static Path source() {
    return io.ext4j.testkit.ThirdParty.source("pjdfstest", "pjdfstest.c");
  }

  /** A copy of the source built with gcc, as BUILD.md says; returns the copy. */
  static synchronized Path build(Path scratch) throws IOException {
    Path copy = scratch.resolve("pjdfstest");
    if (Files.isExecutable(copy.resolve("pjdfstest"))) {
      return copy;
    }
    Path src = source();
    try (Stream<Path> all = Files.walk(src)) {
      for (Path p : all.toList()) {
        Path to = copy.resolve(src.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    Files.writeString(copy.resolve("config.h"), "#define HAVE_FCHMODAT 1\n");
    List<String> cc = new ArrayList<>(List.of("gcc", "-O2", "-D_GNU_SOURCE", "-include", "sys/sysmacros.h"));
    for (String d : List.of("FCHMODAT", "FCHOWNAT", "FSTATAT", "LINKAT", "MKDIRAT", "MKFIFOAT", "MKNODAT", "OPENAT",
        "POSIX_FALLOCATE", "RENAMEAT", "SYMLINKAT", "UNLINKAT", "UTIMENSAT", "STRUCT_STAT_ST_ATIM", "STRUCT_STAT_ST_CTIM",
        "STRUCT_STAT_ST_MTIM", "SYS_SYSMACROS_H")) {
      cc.add("-DHAVE_" + d);
    }
    cc.addAll(List.of("-I" + copy, "-o", copy.resolve("pjdfstest").toString(), copy.resolve("pjdfstest.c").toString()));
    E2fsprogs.Result r = E2fsprogs.run(Duration.ofMinutes(2), cc.toArray(String[]::new));
    assertThat(r.exitCode()).as("building pjdfstest: %s\n%s", cc, r.output()).isZero();
    return copy;
  }

  /** One script of prove's "Test Summary Report": its failed checks by number, and what prove said. */
  record Script(String file, int wstat, int failed, java.util.SortedSet<Integer> numbers, List<String> lines) {
    /** Whether every failure of this script is one of {@code excused} (then it died or broke no plan). */
    boolean onlyAmong(java.util.Set<Integer> excused) {
      return wstat == 0 && failed == numbers.size() && excused.containsAll(numbers);
    }
  }

  /** What prove reported: the number of checks run and the scripts that failed some. */
  record Counts(int tests, List<Script> scripts) {
    /** Failed checks; a script that died or broke its plan counts once even with no "not ok". */
    int failed() {
      return scripts.stream().mapToInt(s -> s.failed() == 0 && s.wstat() != 0 ? 1 : s.failed()).sum();
    }

    List<String> failures() {
      return scripts.stream().flatMap(s -> s.lines().stream()).toList();
    }
  }

  private static final Pattern SCRIPT = Pattern.compile("^(\\S+)\\s+\\(Wstat: (\\d+)[^)]*?Failed: (\\d+)\\)\\s*$");
  private static final Pattern DETAIL = Pattern.compile("^\\s+(Failed tests?|Parse errors?|TODO passed|Non-zero \\w+ status):\\s*(.*)$");

  static Counts parse(String out) {
    Matcher t = Pattern.compile("Tests=(\\d+)").matcher(out);
    int tests = t.find() ? Integer.parseInt(t.group(1)) : -1;
    List<Script> scripts = new ArrayList<>();
    int report = out.indexOf("Test Summary Report");
    if (report < 0) {
      return new Counts(tests, scripts);
    }
    String file = null;
    int wstat = 0;
    int failed = 0;
    java.util.SortedSet<Integer> numbers = new java.util.TreeSet<>();
    List<String> lines = new ArrayList<>();
    for (String line : (out.substring(report) + "\nFiles=").lines().toList()) {
      Matcher m = SCRIPT.matcher(line);
      Matcher d = DETAIL.matcher(line);
      if (file != null && !d.matches() && !(line.startsWith(" ") && !line.isBlank())) {
        scripts.add(new Script(file, wstat, failed, numbers, lines));
        file = null;
      }
      if (m.matches()) {
        file = m.group(1);
        wstat = Integer.parseInt(m.group(2));
        failed = Integer.parseInt(m.group(3));
        numbers = new java.util.TreeSet<>();
        lines = new ArrayList<>();
        lines.add(line.strip());
      } else if (file != null && d.matches()) {
        lines.add("  " + d.group(1) + ": " + d.group(2).strip());
        if (d.group(1).startsWith("Failed test")) {
          numbers.addAll(ranges(d.group(2)));
        }
      } else if (file != null) {
        lines.add("  " + line.strip()); // a detail continued on the next line
        if (lines.size() > 1 && lines.get(lines.size() - 2).contains("Failed test")) {
          numbers.addAll(ranges(line));
        }
      }
    }
    // a script whose only entry is "TODO passed" failed nothing
    scripts.removeIf(s -> s.failed() == 0 && s.wstat() == 0 && s.lines().stream().noneMatch(l -> l.contains("Parse error")));
    return new Counts(tests, scripts);
  }

  /** "8, 10-12" as {8, 10, 11, 12}. */
  static List<Integer> ranges(String list) {
    List<Integer> out = new ArrayList<>();
    for (String part : list.split(",", 0)) {
      String p = part.strip();
      if (p.isEmpty()) {
        continue;
      }
      int dash = p.indexOf('-');
      int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
      int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1));
      for (int n = from; n <= to; n++) {
        out.add(n);
      }
    }
    return out;
  }

  /**
   * The checks of {@code open/06.t} that open a FIFO. Without default_permissions no FUSE filesystem
   * can refuse them: the kernel opens a FIFO itself, and its FUSE permission hook asks the
   * filesystem only about access(2) and chdir (fs/fuse/dir.c, fuse_permission), so these opens
   * succeed whatever the mode.
   */
  static java.util.Set<Integer> fifoOpens(Path script) throws IOException {
    java.util.Set<Integer> out = new java.util.HashSet<>();
    int n = 0;
    boolean fifo = false;
    for (String line : Files.readAllLines(script)) {
      if (line.startsWith("#")) {
        fifo = line.startsWith("# FIFO");
      }
      if (line.strip().startsWith("expect ")) {
        n++;
        if (fifo && line.contains(" open ")) {
          out.add(n);
        }
      }
    }
    return out;
  }

  @Test
  void parse_readsTheSummaryReport() {
    String out = """
        /s/tests/chmod/00.t ....... ok
        /s/tests/chown/00.t .......\s
        Failed 3/1323 subtests
        Test Summary Report
        -------------------
        /s/tests/chown/00.t (Wstat: 0 Tests: 1323 Failed: 3)
          Failed tests:  8, 10-11
        /s/tests/link/00.t (Wstat: 256 Tests: 82 Failed: 0)
          Non-zero exit status: 1
          Parse errors: Bad plan.  You planned 83 tests but ran 82.
        /s/tests/open/00.t (Wstat: 0 Tests: 47 Failed: 0)
          TODO passed:   4
        Files=237, Tests=8798, 700 wallclock secs
        Result: FAIL
        """;
    Counts c = parse(out);
    assertThat(c.tests()).isEqualTo(8798);
    assertThat(c.failed()).isEqualTo(4);
    assertThat(c.scripts()).extracting(Script::file).containsExactly("/s/tests/chown/00.t", "/s/tests/link/00.t");
    assertThat(c.scripts().get(0).numbers()).containsExactly(8, 10, 11);
    assertThat(c.scripts().get(0).onlyAmong(java.util.Set.of(8, 10, 11, 12))).isTrue();
    assertThat(c.scripts().get(0).onlyAmong(java.util.Set.of(8, 10))).isFalse();
    assertThat(c.scripts().get(1).onlyAmong(java.util.Set.of())).isFalse();
    assertThat(c.failures()).contains("  Parse errors: Bad plan.  You planned 83 tests but ran 82.");
  }

  @Tag("root")
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"allow_other,default_permissions", "allow_other,no_default_permissions"})
  void pjdfstest_failsNoMoreThanTheKernelsExt4(String options, @org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
    Path suite = build(Path.of("target").toAbsolutePath());
    Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    String out;
    try (MountedImage m = MountedImage.create(tmp, 1L << 30, FuseOptions.parse(options, FuseOptions.defaults()))) {
      Files.setPosixFilePermissions(m.dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
      E2fsprogs.Result r = E2fsprogs.runOrKill(RUN, "bash", "-c", "cd '" + m.dir + "' && prove -j4 -r '" + suite.resolve("tests") + "' 2>&1");
      out = r.output();
    }
    Counts c = parse(out);
    System.out.printf("pjdfstest through ext4j (-o %s): %d of %d checks failed%n%s%n", options, c.failed(), c.tests(),
        String.join("\n", c.failures()));
    assertThat(c.tests()).as("prove's summary line in:\n%s", tail(out)).isGreaterThan(8000);
    List<Script> counted = c.scripts();
    if (options.contains("no_default_permissions")) {
      java.util.Set<Integer> fifo = fifoOpens(suite.resolve("tests/open/06.t"));
      assertThat(fifo).as("FIFO opens found in open/06.t").hasSizeGreaterThan(10);
      counted = counted.stream().filter(s -> !(s.file().endsWith("/open/06.t") && s.onlyAmong(fifo))).toList();
    }
    Counts rest = new Counts(c.tests(), counted);
    assertThat(rest.failed()).as("failed checks (the kernel's ext4 fails 0 to %d):\n%s", KERNEL_WORST, String.join("\n", rest.failures()))
        .isLessThanOrEqualTo(KERNEL_WORST);
  }

  private static String tail(String s) {
    return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
  }
}
