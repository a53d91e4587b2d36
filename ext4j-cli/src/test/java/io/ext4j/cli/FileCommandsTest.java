package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.tools.populate.HostFs;
import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The file commands on real mkfs.ext4 images: what each prints and changes (checked against
 * dumpe2fs, debugfs and e2fsck), and bad input — one line on stderr naming what and where, the exact
 * exit code, the image untouched by read-only commands.
 */
@Tag("oracle")
class FileCommandsTest {
  static final Instant T1 = Instant.parse("2001-02-03T04:05:06.123456789Z");
  static final Instant T2 = Instant.parse("2010-11-12T13:14:15.000000001Z");
  static final Instant T3 = Instant.parse("2020-01-02T03:04:05.999999999Z");

  @TempDir
  Path tmp;
  Path img;

  @BeforeEach
  void image() throws Exception {
    img = Tools.mkfs(tmp.resolve("disk.img"), 16, "-b", "1024", "-L", "testlabel");
  }

  static String s(Path p) {
    return p.toString();
  }

  /** Sets atime and mtime (java.nio would open a fifo to do it, and block). */
  static void times(Path p, Instant t) throws Exception {
    HostFs.setTimes(p, t, t);
  }

  /**
   * /t: a.txt ("hello\n", 0640, 1000:100, T1) and its hard link "hard", .hidden, fifo (0644, T3),
   * link -> a.txt (T2), sub/ (0750, T2) holding x (empty, 0600, T3); /t itself T3. The chown to
   * 1000:100 needs root: the tests that build it carry the root tag.
   */
  Path hostTree() throws Exception {
    Path t = Files.createDirectories(tmp.resolve("host/t"));
    Path a = Files.writeString(t.resolve("a.txt"), "hello\n");
    Files.setAttribute(a, "unix:mode", 0640);
    Files.setAttribute(a, "unix:uid", 1000);
    Files.setAttribute(a, "unix:gid", 100);
    times(a, T1);
    Files.createLink(t.resolve("hard"), a);
    Files.writeString(t.resolve(".hidden"), "h");
    Path sub = Files.createDirectory(t.resolve("sub"));
    Path x = Files.createFile(sub.resolve("x"));
    Files.setAttribute(x, "unix:mode", 0600);
    times(x, T3);
    Files.setAttribute(sub, "unix:mode", 0750);
    times(sub, T2);
    Tools.runOk("mkfifo", "-m", "0644", t.resolve("fifo").toString());
    times(t.resolve("fifo"), T3);
    Path link = Files.createSymbolicLink(t.resolve("link"), Path.of("a.txt"));
    times(link, T2);
    Files.setAttribute(t, "unix:mode", 0755);
    times(t, T3);
    return t;
  }

  static String lsTime(Instant t) {
    return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT).format(t.atZone(ZoneId.systemDefault()));
  }

  static Cli ok(String... args) {
    Cli c = Cli.run(args);
    assertThat(c.exitCode()).as("exit code of %s; stderr: %s", List.of(args), c.err()).isZero();
    assertThat(c.err()).as("stderr of %s", List.of(args)).isEmpty();
    return c;
  }

  static void assertOneLine(Cli cli, int exit, String... fragments) {
    assertThat(cli.exitCode()).as("exit code; stderr: %s", cli.err()).isEqualTo(exit);
    assertThat(cli.err().lines().toList()).as("stderr: %s", cli.err()).hasSize(1);
    assertThat(cli.err()).startsWith("ext4j: ").contains(fragments).doesNotContain("Exception", "\tat ");
  }

  // ------------------------------------------------------------------ info

  @Test
  void putR_skipsAnEntryTheImageRefuses_copiesTheRest_andExits1() throws Exception {
    Path src = Files.createDirectories(tmp.resolve("refused/sub"));
    Files.writeString(src.resolve("before.txt"), "before\n");
    Files.createSymbolicLink(src.resolve("long-link"), Path.of("t".repeat(2000))); // more than a 1 KiB block holds
    Files.writeString(src.resolve("z-after.txt"), "after\n");
    Cli c = Cli.run("put", "-r", s(img), s(tmp.resolve("refused")), "/r");
    assertThat(c.exitCode()).as(c.err()).isEqualTo(1);
    assertThat(c.err().lines()).as(c.err()).hasSize(1).allSatisfy(l -> assertThat(l).startsWith("ext4j: /r/sub/long-link: "));
    assertThat(ok("cat", s(img), "/r/sub/before.txt").out()).isEqualTo("before\n");
    assertThat(ok("cat", s(img), "/r/sub/z-after.txt").out()).isEqualTo("after\n");
    assertThat(Cli.run("stat", s(img), "/r/sub/long-link").exitCode()).isEqualTo(1);
    Tools.assertE2fsckClean(img);
  }

  @Test
  void putR_again_mergesIntoTheCopy_replacingFiles_andReportsATypeClashAlone() throws Exception {
    Path src = Files.createDirectories(tmp.resolve("m/sub"));
    Files.writeString(src.resolve("kept.txt"), "first\n");
    Files.writeString(src.resolve("changed.txt"), "old\n");
    Files.createDirectories(tmp.resolve("m/clash"));
    ok("put", "-r", s(img), s(tmp.resolve("m")), "/");
    ok("put", s(img), s(src.resolve("kept.txt")), "/m/extra-in-image.txt");
    Files.writeString(src.resolve("changed.txt"), "new, and longer\n");
    Files.writeString(src.resolve("added.txt"), "added\n");
    Files.delete(tmp.resolve("m/clash"));
    Files.writeString(tmp.resolve("m/clash"), "now a file\n"); // the image has a directory there
    Files.setLastModifiedTime(src.resolve("changed.txt"), java.nio.file.attribute.FileTime.fromMillis(1_000_000_000_000L));
    Cli again = Cli.run("put", "-r", s(img), s(tmp.resolve("m")), "/");
    assertThat(again.exitCode()).as(again.err()).isEqualTo(1);
    assertThat(again.err().lines()).as(again.err()).hasSize(1)
        .allSatisfy(l -> assertThat(l).isEqualTo("ext4j: /m/clash: is a directory (" + img + ")"));
    assertThat(ok("cat", s(img), "/m/sub/changed.txt").out()).isEqualTo("new, and longer\n");
    assertThat(ok("cat", s(img), "/m/sub/added.txt").out()).isEqualTo("added\n");
    assertThat(ok("cat", s(img), "/m/sub/kept.txt").out()).isEqualTo("first\n");
    assertThat(ok("ls", s(img), "/m").out()).as("what only the image had stays").isEqualTo("clash\nextra-in-image.txt\nsub\n");
    assertThat(ok("ls", "-l", s(img), "/m/sub/changed.txt").out()).contains("2001-09-09");
    Tools.assertE2fsckClean(img);
  }

  @Test
  void getR_skipsAnEntryTheHostRefuses_copiesTheRest_andExits1() throws Exception {
    ok("mkdir", "-p", s(img), "/g/a-dir");
    Path f = Files.writeString(tmp.resolve("f.txt"), "file\n");
    ok("put", s(img), s(f), "/g/a-dir/inner.txt");
    ok("put", s(img), s(f), "/g/b.txt");
    Path out = Files.createDirectories(tmp.resolve("out/g"));
    Files.writeString(out.resolve("a-dir"), "in the way\n"); // a host file where the image has a directory
    Cli c = Cli.run("get", "-r", s(img), "/g", s(tmp.resolve("out")));
    assertThat(c.exitCode()).as(c.err()).isEqualTo(1);
    assertThat(c.err().lines()).as(c.err()).hasSize(1)
        .allSatisfy(l -> assertThat(l).contains("a-dir: cannot overwrite a non-directory with directory /g/a-dir"));
    assertThat(out.resolve("b.txt")).hasContent("file");
    assertThat(out.resolve("a-dir")).hasContent("in the way");
  }

  @Test
  void info_printsEveryFieldDumpe2fsHPrints_withTheSameValue() throws Exception {
    for (String[] opts : List.of(new String[] {"-b", "4096", "-O", "metadata_csum_seed,orphan_file"},
        new String[] {"-b", "1024", "-O", "^64bit,^metadata_csum,^flex_bg"})) {
      Path i = Tools.mkfs(tmp.resolve("info.img"), 32, opts);
      Map<String, String> ours = fields(ok("info", s(i)).out());
      Map<String, String> theirs = fields(Tools.runOk("dumpe2fs", "-h", s(i)));
      List<String> common = new ArrayList<>(theirs.keySet());
      common.retainAll(ours.keySet());
      assertThat(common).as("fields both print").contains("Filesystem UUID", "Filesystem features", "Block count", "Free blocks",
          "Free inodes", "Inode count", "Filesystem created", "Directory Hash Seed", "Journal inode", "Total journal size",
          "Journal sequence", "Filesystem volume name", "Filesystem state");
      for (String k : common) {
        assertThat(ours.get(k)).as("field %s (mkfs %s)", k, List.of(opts)).isEqualTo(theirs.get(k));
      }
      List<String> missing = new ArrayList<>(theirs.keySet());
      missing.removeAll(ours.keySet());
      assertThat(missing).as("dumpe2fs fields info lacks").isEmpty();
    }
  }

  private static final Pattern FIELD = Pattern.compile("^([A-Za-z][^:]*):\\s*(.*?)\\s*$");

  static Map<String, String> fields(String text) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String line : text.lines().toList()) {
      Matcher x = FIELD.matcher(line);
      if (x.matches()) {
        m.putIfAbsent(x.group(1), x.group(2));
      }
    }
    return m;
  }

  @Test
  void info_ofAnImageNeedingRecovery_saysSo_andWritesNothing() throws Exception {
    Tools.runOk("debugfs", "-w", "-R", "feature needs_recovery", s(img));
    byte[] before = Files.readAllBytes(img);
    Cli c = ok("info", s(img));
    assertThat(fields(c.out()).get("Filesystem features")).contains("needs_recovery");
    assertThat(Files.readAllBytes(img)).isEqualTo(before);
  }

  // ------------------------------------------------------------------ ls

  @Tag("root")
  @Test
  void lsLong_matchesAHandBuiltListing() throws Exception {
    ok("put", "-r", s(img), s(hostTree()), "/");
    Cli c = ok("ls", "-l", s(img), "/t");
    assertThat(c.out()).isEqualTo(String.join("\n",
        "total 3",
        "-rw-r----- 2 1000 100    6 " + lsTime(T1) + " a.txt",
        "prw-r--r-- 1    0   0    0 " + lsTime(T3) + " fifo",
        "-rw-r----- 2 1000 100    6 " + lsTime(T1) + " hard",
        "lrwxrwxrwx 1    0   0    5 " + lsTime(T2) + " link -> a.txt",
        "drwxr-x--- 2    0   0 1024 " + lsTime(T2) + " sub",
        ""));
    assertThat(ok("ls", s(img), "/t").out()).isEqualTo("a.txt\nfifo\nhard\nlink\nsub\n");
    assertThat(ok("ls", "-a", s(img), "/t").out()).isEqualTo(".\n..\n.hidden\na.txt\nfifo\nhard\nlink\nsub\n");
    assertThat(ok("ls", "-R", s(img), "/t").out()).isEqualTo("/t:\na.txt\nfifo\nhard\nlink\nsub\n\n/t/sub:\nx\n");
    assertThat(ok("ls", "-l", s(img), "/t/link").out()).isEqualTo(
        "lrwxrwxrwx 1 0 0 5 " + lsTime(T2) + " /t/link -> a.txt\n");
    assertThat(ok("ls", s(img), "/t/link").out()).as("ls follows a named symlink unless -l").isEqualTo("/t/link\n");
  }

  @Tag("root")
  @Test
  void lsI_printsTheInodeNumbersDebugfsShows() throws Exception {
    ok("put", "-r", s(img), s(hostTree()), "/");
    Map<String, String> ours = new LinkedHashMap<>();
    for (String line : ok("ls", "-i", "-a", s(img), "/t").out().lines().toList()) {
      String[] f = line.split(" ", 2);
      ours.put(f[1], f[0]);
    }
    Map<String, String> theirs = new LinkedHashMap<>();
    Matcher m = Pattern.compile("\\s*(\\d+)\\s+\\((\\d+)\\)\\s+(\\S+)").matcher(Tools.debugfs(img, "ls /t"));
    while (m.find()) {
      theirs.put(m.group(3), m.group(1));
    }
    assertThat(ours).isEqualTo(theirs);
  }

  // ------------------------------------------------------------------ cat and stat

  @Test
  void cat_writesTheFilesBytes_throughSymlinks() throws Exception {
    long seed = Seeds.seed();
    byte[] data = new byte[3 * 1024 * 1024 + 17];
    new Random(seed).nextBytes(data);
    Path f = Files.write(tmp.resolve("data.bin"), data);
    ok("put", s(img), s(f), "/data.bin");
    ok("ln", "-s", s(img), "data.bin", "/via-link");
    assertThat(ok("cat", s(img), "/data.bin").outBytes()).isEqualTo(data);
    assertThat(ok("cat", s(img), "/via-link").outBytes()).isEqualTo(data);
    Tools.assertE2fsckClean(img);
  }

  @Tag("root")
  @Test
  void stat_showsTheInodeAsDebugfsDoes_withNanosecondTimes() throws Exception {
    ok("put", "-r", s(img), s(hostTree()), "/");
    String out = ok("stat", s(img), "/t/a.txt").out();
    String deb = Tools.debugfs(img, "stat /t/a.txt");
    Matcher ino = Pattern.compile("Inode: (\\d+)").matcher(deb);
    assertThat(ino.find()).isTrue();
    DateTimeFormatter nanos = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.nnnnnnnnn xx", Locale.ROOT);
    assertThat(out).contains("  File: /t/a.txt\n", "Inode: " + ino.group(1) + " ", "Links: 2", "regular file",
        "Access: (0640/-rw-r-----)", "Uid: ( 1000/", "Gid: (  100/",
        "Modify: " + nanos.format(T1.atZone(ZoneId.systemDefault())), "Flags: 0x00080000 (extents)",
        "Extents: 1, 1 blocks mapped (0 unwritten)");
    assertThat(deb).contains("Mode:  0640", "Links: 2", "Size: 6").containsPattern("mtime: 0x[0-9a-f]+:([0-9a-f]+)");
    assertThat(ok("stat", s(img), "/t/link").out()).contains("  File: /t/link -> a.txt", "symbolic link");
    assertThat(ok("stat", "-L", s(img), "/t/link").out()).contains("Inode: " + ino.group(1) + " ");
  }

  // ------------------------------------------------------------------ mkdir, rm, mv, ln

  @Test
  void mkdir_makesDirectories_andMkdirP_theParentsToo() throws Exception {
    ok("mkdir", s(img), "/a", "/b");
    ok("mkdir", "-p", s(img), "/a/x/y/z", "/b");
    ok("mkdir", "-m", "0700", s(img), "/a/private");
    assertThat(ok("ls", "-R", s(img), "/a").out()).isEqualTo("/a:\nprivate\nx\n\n/a/private:\n\n/a/x:\ny\n\n/a/x/y:\nz\n\n/a/x/y/z:\n");
    assertThat(Tools.debugfs(img, "stat /a/private")).contains("Mode:  0700", "Type: directory");
    Tools.assertE2fsckClean(img);
  }

  @Tag("root")
  @Test
  void rm_removesFiles_rmR_trees_andRmF_ignoresWhatIsMissing() throws Exception {
    ok("put", "-r", s(img), s(hostTree()), "/");
    assertOneLine(Cli.run("rm", s(img), "/t/sub"), 1, "/t/sub: is a directory", "(" + img + ")");
    ok("rm", s(img), "/t/hard", "/t/link");
    assertThat(ok("stat", s(img), "/t/a.txt").out()).contains("Links: 1");
    assertThat(ok("stat", s(img), "/t/a.txt").out()).as("rm removed the link, not its target").contains("Size: 6");
    ok("rm", "-f", s(img), "/t/nope", "/t/fifo");
    ok("rm", "-r", s(img), "/t");
    assertThat(ok("ls", s(img), "/").out()).isEqualTo("lost+found\n");
    Tools.assertE2fsckClean(img);
  }

  @Test
  void rm_refusesTheRoot_andDotAndDotDot() throws Exception {
    ok("mkdir", s(img), "/d");
    assertOneLine(Cli.run("rm", "-r", s(img), "/"), 1, "/: refusing to remove the root directory");
    assertOneLine(Cli.run("rm", "-r", s(img), "/d/.."), 1, "refusing to remove '.' or '..'");
    assertThat(ok("ls", s(img), "/").out()).isEqualTo("d\nlost+found\n");
  }

  @Test
  void mv_renames_andMovesIntoAnExistingDirectory() throws Exception {
    Path f = Files.writeString(tmp.resolve("f"), "content");
    ok("put", s(img), s(f), "/f");
    ok("mkdir", s(img), "/dir");
    ok("mv", s(img), "/f", "/g");
    ok("mv", s(img), "/g", "/dir");
    assertThat(ok("ls", "-R", s(img), "/").out()).isEqualTo("/:\ndir\nlost+found\n\n/dir:\ng\n\n/lost+found:\n");
    assertThat(ok("cat", s(img), "/dir/g").out()).isEqualTo("content");
    Files.writeString(f, "other");
    ok("put", s(img), s(f), "/h");
    ok("mv", s(img), "/h", "/dir/g");
    assertThat(ok("cat", s(img), "/dir/g").out()).as("replaced").isEqualTo("other");
    assertOneLine(Cli.run("mv", s(img), "/dir", "/dir/g/x"), 1, "/dir/g/x: not a directory", "(" + img + ")");
    ok("mkdir", s(img), "/dir/sub");
    Cli into = Cli.run("mv", s(img), "/dir", "/dir/sub");
    assertOneLine(into, 1, "ext4j: /dir/sub/dir: invalid argument: ", "cannot move a directory into itself", "(" + img + ")");
    assertThat(into.err()).doesNotContain("EINVAL (");
    Tools.assertE2fsckClean(img);
  }

  @Test
  void ln_makesHardAndSymbolicLinks() throws Exception {
    Path f = Files.writeString(tmp.resolve("f"), "content");
    ok("put", s(img), s(f), "/f");
    ok("mkdir", s(img), "/dir");
    ok("ln", s(img), "/f", "/hard");
    ok("ln", s(img), "/f", "/dir");
    ok("ln", "-s", s(img), "../f", "/dir/soft");
    assertThat(ok("stat", s(img), "/f").out()).contains("Links: 3");
    assertThat(ok("cat", s(img), "/dir/soft").out()).isEqualTo("content");
    assertThat(Tools.debugfs(img, "stat /dir/soft")).contains("Fast link dest: \"../f\"");
    assertOneLine(Cli.run("ln", s(img), "/dir", "/dirlink"), 1, "/dir: operation not permitted");
    Tools.assertE2fsckClean(img);
  }

  // ------------------------------------------------------------------ bad input, every command

  /** Each command with its arguments; {@code IMG} is the image, {@code HOST} a host file. */
  static Stream<Arguments> commands() {
    return Stream.of(
        Arguments.of("info", List.of("info", "IMG")),
        Arguments.of("ls", List.of("ls", "IMG", "/")),
        Arguments.of("cat", List.of("cat", "IMG", "/f")),
        Arguments.of("stat", List.of("stat", "IMG", "/f")),
        Arguments.of("mkdir", List.of("mkdir", "IMG", "/x")),
        Arguments.of("rm", List.of("rm", "IMG", "/f")),
        Arguments.of("mv", List.of("mv", "IMG", "/f", "/g")),
        Arguments.of("ln", List.of("ln", "-s", "IMG", "f", "/g")),
        Arguments.of("put", List.of("put", "IMG", "HOST", "/x")),
        Arguments.of("get", List.of("get", "IMG", "/f", "OUT")));
  }

  String[] args(List<String> template, Path image) {
    return template.stream().map(a -> switch (a) {
      case "IMG" -> s(image);
      case "HOST" -> s(tmp.resolve("hostfile"));
      case "OUT" -> s(tmp.resolve("out-" + System.nanoTime()));
      default -> a;
    }).toArray(String[]::new);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void aMissingImage_failsWithOneLineNamingIt(String name, List<String> template) throws Exception {
    Files.writeString(tmp.resolve("hostfile"), "x");
    Path missing = tmp.resolve("missing.img");
    assertOneLine(Cli.run(args(template, missing)), 1, missing + ": no such file or directory");
    assertThat(missing).doesNotExist();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void anImageOfRandomBytes_failsWithOneLine_andIsLeftAlone(String name, List<String> template) throws Exception {
    Files.writeString(tmp.resolve("hostfile"), "x");
    byte[] junk = new byte[256 * 1024];
    new Random(Seeds.seed()).nextBytes(junk);
    Path bad = Files.write(tmp.resolve("junk.img"), junk);
    assertOneLine(Cli.run(args(template, bad)), 1, bad + ": not an ext4 filesystem (bad superblock magic");
    assertThat(Files.readAllBytes(bad)).isEqualTo(junk);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void aTruncatedImage_failsWithOneLineNamingIt_andIsLeftAlone(String name, List<String> template) throws Exception {
    Files.writeString(tmp.resolve("hostfile"), "x");
    Path cut = tmp.resolve("cut.img");
    byte[] whole = Files.readAllBytes(img);
    byte[] half = java.util.Arrays.copyOf(whole, whole.length / 2);
    Files.write(cut, half);
    assertOneLine(Cli.run(args(template, cut)), 1, cut + ": ", "truncated image?");
    assertThat(Files.readAllBytes(cut)).isEqualTo(half);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void aBadOption_isAUsageError(String name, List<String> template) {
    List<String> a = new ArrayList<>(List.of(args(template, img)));
    a.add(1, "--no-such-option");
    Cli c = Cli.run(a.toArray(String[]::new));
    assertThat(c.exitCode()).isEqualTo(Main.EXIT_USAGE);
    assertThat(c.err()).contains("--no-such-option").doesNotContain("\tat ");
  }

  @Test
  void aMissingPath_failsWithOneLineNamingThePathAndTheImage() throws Exception {
    Path host = Files.writeString(tmp.resolve("hostfile"), "x");
    String tail = ": no such file or directory (" + img + ")";
    byte[] before = Files.readAllBytes(img);
    assertOneLine(Cli.run("ls", s(img), "/nope"), 1, "ext4j: /nope" + tail);
    assertOneLine(Cli.run("cat", s(img), "/nope/x"), 1, "ext4j: /nope/x" + tail);
    assertOneLine(Cli.run("stat", s(img), "/nope"), 1, "ext4j: /nope" + tail);
    assertOneLine(Cli.run("get", s(img), "/nope", s(tmp.resolve("o"))), 1, "ext4j: /nope" + tail);
    assertThat(Files.readAllBytes(img)).as("read-only commands write nothing").isEqualTo(before);
    assertOneLine(Cli.run("rm", s(img), "/nope"), 1, "ext4j: /nope" + tail);
    assertOneLine(Cli.run("mv", s(img), "/nope", "/x"), 1, "ext4j: /nope" + tail);
    assertOneLine(Cli.run("ln", s(img), "/nope", "/x"), 1, "ext4j: /nope" + tail);
    assertOneLine(Cli.run("mkdir", s(img), "/nope/x"), 1, "ext4j: /nope/x" + tail);
    assertOneLine(Cli.run("put", s(img), s(host), "/nope/x"), 1, "ext4j: /nope/x" + tail);
    assertOneLine(Cli.run("put", s(img), s(tmp.resolve("nohost")), "/x"), 1, tmp.resolve("nohost") + ": no such file or directory");
    Tools.assertE2fsckClean(img);
  }

  @Test
  void aFileWhereADirectoryIsNeeded_failsWithNotADirectory() throws Exception {
    Path host = Files.writeString(tmp.resolve("hostfile"), "x");
    ok("put", s(img), s(host), "/f");
    String tail = ": not a directory (" + img + ")";
    assertOneLine(Cli.run("ls", s(img), "/f/x"), 1, "ext4j: /f/x" + tail);
    assertOneLine(Cli.run("cat", s(img), "/f/x"), 1, "ext4j: /f/x" + tail);
    assertOneLine(Cli.run("mkdir", s(img), "/f/x"), 1, "ext4j: /f/x" + tail);
    assertOneLine(Cli.run("mkdir", "-p", s(img), "/f/x"), 1, "ext4j: /f" + tail);
    assertOneLine(Cli.run("put", s(img), s(host), "/f/x"), 1, "ext4j: /f/x" + tail);
    assertOneLine(Cli.run("cat", s(img), "/"), 1, "ext4j: /: is a directory (" + img + ")");
    Tools.assertE2fsckClean(img);
  }

  @Test
  void anExistingName_failsWithFileExists() throws Exception {
    ok("mkdir", s(img), "/d");
    String tail = ": file exists (" + img + ")";
    assertOneLine(Cli.run("mkdir", s(img), "/d"), 1, "ext4j: /d" + tail);
    assertOneLine(Cli.run("mkdir", s(img), "/"), 1, "ext4j: /" + tail);
    ok("ln", "-s", s(img), "x", "/s");
    assertOneLine(Cli.run("ln", "-s", s(img), "y", "/s"), 1, "ext4j: /s" + tail);
    ok("mkdir", "-p", s(img), "/d");
    ok("ln", "-s", s(img), "z", "/d/..");
    assertThat(ok("ls", s(img), "/").out()).as("ln into an existing directory, as ln does").isEqualTo("d\nlost+found\ns\nz\n");
    Path host = Files.writeString(tmp.resolve("hostfile"), "x");
    assertOneLine(Cli.run("put", s(img), s(host.getParent()), "/d"), 1, host.getParent() + ": is a directory (use -r");
    Tools.assertE2fsckClean(img);
  }

  @Test
  void severalPaths_eachFailureIsOneLine_andTheOthersStillHappen() throws Exception {
    Cli c = Cli.run("mkdir", s(img), "/a", "/nope/b", "/c", "/a");
    assertThat(c.exitCode()).isEqualTo(1);
    assertThat(c.err().lines().toList()).containsExactly(
        "ext4j: /nope/b: no such file or directory (" + img + ")", "ext4j: /a: file exists (" + img + ")");
    assertThat(ok("ls", s(img), "/").out()).isEqualTo("a\nc\nlost+found\n");
  }

  @Tag("root")
  @Test
  void writingCommands_leaveTheImageClean_forE2fsck() throws Exception {
    ok("put", "-r", s(img), s(hostTree()), "/");
    ok("mkdir", "-p", s(img), "/m/n");
    ok("mv", s(img), "/t/sub", "/m/n");
    ok("ln", s(img), "/t/a.txt", "/m/again");
    ok("rm", "-r", s(img), "/t/hard", "/m/n/sub");
    Tools.assertE2fsckClean(img);
    assertThat(new String(Tools.debugfs(img, "ls -l /m").getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
        .contains("again", "n");
  }

  // ------------------------------------------------------------------ full disk, corruption, features, recovery

  @Test
  void aFullDisk_failsWithOneLine_andLeavesTheImageClean() throws Exception {
    Path small = Tools.mkfs(tmp.resolve("small.img"), 4, "-b", "1024");
    byte[] data = new byte[6 << 20];
    new Random(Seeds.seed()).nextBytes(data);
    Path big = Files.write(tmp.resolve("big.bin"), data);
    assertOneLine(Cli.run("put", s(small), s(big), "/big"), 1, "ext4j: /big: no space left on device (" + small + ")");
    Tools.assertE2fsckClean(small);
    ok("rm", s(small), "/big");
    Tools.assertE2fsckClean(small);
  }

  @Test
  void aCorruptSuperblock_failsWithOneLineNamingTheChecksum() throws Exception {
    try (var f = new java.io.RandomAccessFile(img.toFile(), "rw")) {
      f.seek(1024 + 0x78); // s_volume_name: covered by the metadata_csum superblock checksum
      f.write('X');
    }
    byte[] before = Files.readAllBytes(img);
    for (String cmd : List.of("info", "ls")) {
      Cli c = Cli.run(cmd, s(img));
      assertOneLine(c, 1, img.toString(), "checksum");
    }
    assertThat(Files.readAllBytes(img)).isEqualTo(before);
  }

  @Test
  void anUnknownIncompatFeature_isRefusedByName_butInfoStillPrintsTheSuperblock() throws Exception {
    Path plain = Tools.mkfs(tmp.resolve("plain.img"), 8, "-b", "1024", "-O", "^metadata_csum");
    try (var f = new java.io.RandomAccessFile(plain.toFile(), "rw")) {
      f.seek(1024 + 0x60 + 3); // s_feature_incompat, its top byte
      f.write(0x80);
    }
    assertOneLine(Cli.run("ls", s(plain)), 1, plain.toString(), "incompat_0x80000000");
    assertOneLine(Cli.run("mkdir", s(plain), "/x"), 1, plain.toString(), "incompat_0x80000000");
    Cli info = Cli.run("info", s(plain));
    assertOneLine(info, 1, plain.toString(), "unsupported", "incompat_0x80000000"); // the journal cannot be read
    assertThat(fields(info.out()).get("Filesystem features")).contains("incompat_0x80000000");
  }

  @Test
  void anImageNeedingJournalRecovery_stillReads_andIsNotWritten() throws Exception {
    Path k = io.ext4j.testkit.KernelFixtures.extract("4k-basic", tmp.resolve("kernel"));
    byte[] before = Files.readAllBytes(k);
    assertThat(fields(ok("info", s(k)).out()).get("Filesystem features")).contains("needs_recovery");
    Cli ls = ok("ls", "-l", "-R", s(k), "/");
    assertThat(ls.out()).contains("lost+found");
    assertThat(Files.readAllBytes(k)).as("read-only commands replay in memory only").isEqualTo(before);
  }
}
