package io.ext4j.fs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import java.util.EnumSet;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Path resolution ({@link Walk}, through {@link Vfs#statat} and the creating calls) on a real image
 * (mkfs.ext4, then a tree made through the engine):
 * <pre>
 * /a/b/c            file
 * /a/b/d/           dir
 * /f                file
 * /abs -> /a/b      /rel -> a/b      /up -> a/b/..    /dang -> nowhere   /empty-target? (none: ext4 refuses)
 * /a/b/back -> ../../f               /loop1 -> loop2  /loop2 -> loop1    /tofile -> f
 * /chain0 -> chain1 -> … -> chain40 -> f   (41 links)
 * /ünï/ç            file (UTF-8 names)
 * </pre>
 */
@Tag("oracle")
class WalkTest {
  static final Path DIR = Path.of("target", "test-images", "walk");
  static Ext4FileSystem fs;
  static Vfs vfs;
  static long a, b, c, d, f, uni, cedil;

  @BeforeAll
  static void makeTree() throws Exception {
    Files.createDirectories(DIR);
    Path img = DIR.resolve("walk.img");
    Files.deleteIfExists(img);
    mkfs(img);
    fs = Ext4FileSystem.open(img, Ext4Options.defaults());
    Caller who = Caller.ROOT;
    long root = Ext4FileSystem.ROOT;
    a = fs.mkdir(root, b("a"), 0755, who).ino();
    b = fs.mkdir(a, b("b"), 0755, who).ino();
    c = fs.create(b, b("c"), 0644, who).ino();
    d = fs.mkdir(b, b("d"), 0755, who).ino();
    f = fs.create(root, b("f"), 0644, who).ino();
    fs.symlink(root, b("abs"), b("/a/b"), who);
    fs.symlink(root, b("rel"), b("a/b"), who);
    fs.symlink(root, b("up"), b("a/b/.."), who);
    fs.symlink(root, b("dang"), b("nowhere"), who);
    fs.symlink(b, b("back"), b("../../f"), who);
    fs.symlink(root, b("loop1"), b("loop2"), who);
    fs.symlink(root, b("loop2"), b("loop1"), who);
    fs.symlink(root, b("tofile"), b("f"), who);
    for (int i = 0; i < 41; i++) {
      fs.symlink(root, b("chain" + i), b(i == 40 ? "f" : "chain" + (i + 1)), who);
    }
    uni = fs.mkdir(root, b("ünï"), 0755, who).ino();
    cedil = fs.create(uni, b("ç"), 0644, who).ino();
    vfs = fs.vfs();
  }

  @AfterAll
  static void close() throws IOException {
    if (fs != null) {
      fs.close();
    }
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static void mkfs(Path img) throws IOException, InterruptedException {
    String tool = null;
    for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      if (Files.isExecutable(Path.of(dir, "mkfs.ext4"))) {
        tool = dir + "/mkfs.ext4";
      }
    }
    assertThat(tool).as("mkfs.ext4 is installed (e2fsprogs); this test needs it").isNotNull();
    Process p = new ProcessBuilder(tool, "-q", "-F", "-b", "1024", img.toString(), "8M")
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("mkfs.ext4 finished").isTrue();
    assertThat(p.exitValue()).as("mkfs.ext4 exit status").isZero();
  }

  static Attributes stat(String path, boolean follow) throws IOException {
    return vfs.statat(null, b(path), follow, Credentials.root());
  }

  static long ino(String path) throws IOException {
    return stat(path, true).ino();
  }

  static long lino(String path) throws IOException {
    return stat(path, false).ino();
  }

  /** The directory a file created at {@code path} lands in (the file is removed again). */
  static long createdIn(String path) throws IOException {
    try (OpenFile f = vfs.openat(null, b(path), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE, OpenFlag.EXCLUSIVE), 0644,
        Credentials.root())) {
      vfs.unlinkat(null, b(path), false, Credentials.root());
      String dir = path.substring(0, path.lastIndexOf('/') + 1);
      assertThat(vfs.fstat(f).nlink()).isZero();
      return dir.isEmpty() ? Ext4FileSystem.ROOT : ino("/" + dir);
    }
  }

  @Test
  void resolve_walksComponents_fromTheRoot_withOrWithoutLeadingSlash() throws IOException {
    assertThat(ino("/")).isEqualTo(Ext4FileSystem.ROOT);
    assertThat(ino("/a")).isEqualTo(a);
    assertThat(ino("/a/b/c")).isEqualTo(c);
    assertThat(ino("a/b/c")).isEqualTo(c);
    assertThat(ino("//a///b//d/")).isEqualTo(d);
    assertThat(lino("f")).isEqualTo(f);
  }

  @Test
  void dotAndDotDot_areHonoured_andTheRootIsItsOwnParent() throws IOException {
    assertThat(ino("/a/./b/./c")).isEqualTo(c);
    assertThat(ino("/a/b/../b/d/..")).isEqualTo(b);
    assertThat(ino("/..")).isEqualTo(Ext4FileSystem.ROOT);
    assertThat(ino("/../../a/..")).isEqualTo(Ext4FileSystem.ROOT);
    assertThat(ino("/.")).isEqualTo(Ext4FileSystem.ROOT);
  }

  @Test
  void intermediateSymlinks_areFollowed_relativeFromTheirDirectory_absoluteFromTheRoot() throws IOException {
    assertThat(ino("/abs/c")).isEqualTo(c);
    assertThat(ino("/rel/d")).isEqualTo(d);
    assertThat(ino("/up/b")).isEqualTo(b);
    assertThat(ino("/a/b/back")).isEqualTo(f);
  }

  @Test
  void dotDot_afterASymlink_isThePhysicalParent() throws IOException {
    assertThat(ino("/abs/..")).as("/abs -> /a/b, so /abs/.. is /a").isEqualTo(a);
    assertThat(ino("/rel/d/../..")).isEqualTo(a);
  }

  @Test
  void finalSymlink_isFollowedOnlyWhenAsked_orWithATrailingSlash() throws IOException {
    Attributes link = stat("/abs", false);
    assertThat(link.isSymlink()).isTrue();
    assertThat(link.ino()).isNotEqualTo(b);
    assertThat(ino("/abs")).isEqualTo(b);
    assertThat(lino("/abs/")).as("a trailing slash follows").isEqualTo(b);
    assertThat(lino("/tofile")).isNotEqualTo(f);
    assertThat(ino("/tofile")).isEqualTo(f);
  }

  @Test
  void aDanglingSymlink_isENOENT_whenFollowed_butResolvesItselfWithNoFollow() throws IOException {
    assertThat(stat("/dang", false).isSymlink()).isTrue();
    assertThatThrownBy(() -> ino("/dang")).isInstanceOfSatisfying(Ext4Exception.class, e -> {
      assertThat(e.errno()).isEqualTo(Errno.ENOENT);
      assertThat(e.getMessage()).contains("/dang");
    });
  }

  @Test
  void aMissingComponent_isENOENT_namingThePathAndWhereItStopped() {
    assertThatThrownBy(() -> ino("/a/x/c")).isInstanceOfSatisfying(Ext4Exception.class, e -> {
      assertThat(e.errno()).isEqualTo(Errno.ENOENT);
      assertThat(e.getMessage()).contains("/a/x/c");
    });
    assertThatThrownBy(() -> ino("")).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENOENT));
  }

  @Test
  void aFileInTheMiddle_orBeforeATrailingSlash_isENOTDIR() {
    for (String p : List.of("/f/x", "/f/", "/f/.", "/f/..", "/tofile/", "/a/b/c/d")) {
      assertThatThrownBy(() -> lino(p)).as(p).isInstanceOfSatisfying(Ext4Exception.class, e -> {
        assertThat(e.errno()).isEqualTo(Errno.ENOTDIR);
        assertThat(e.getMessage()).contains(p);
      });
    }
  }

  @Test
  void symlinkLoops_andChainsOfMoreThan40_areELOOP_but40AreFine() throws IOException {
    assertThatThrownBy(() -> ino("/loop1")).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ELOOP));
    assertThatThrownBy(() -> ino("/loop1/x")).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ELOOP));
    assertThat(lino("/loop1")).as("no-follow does not loop").isNotZero();
    assertThat(ino("/chain1")).as("chain1 .. chain40 -> f: 40 links").isEqualTo(f);
    assertThatThrownBy(() -> ino("/chain0")).as("41 links").isInstanceOfSatisfying(Ext4Exception.class, e -> {
      assertThat(e.errno()).isEqualTo(Errno.ELOOP);
      assertThat(e.getMessage()).contains("/chain0");
    });
  }

  @Test
  void tooLongNamesAndPaths_areENAMETOOLONG() {
    String name256 = "/" + "n".repeat(256);
    assertThatThrownBy(() -> ino(name256)).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENAMETOOLONG));
    String longPath = "/a".repeat(2048);
    assertThatThrownBy(() -> ino(longPath)).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENAMETOOLONG));
    assertThatThrownBy(() -> createdIn("/a/" + "x".repeat(256))).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENAMETOOLONG));
  }

  @Test
  void namesAreUtf8Bytes() throws IOException {
    assertThat(ino("/ünï/ç")).isEqualTo(cedil);
    assertThat(createdIn("/ünï/new")).isEqualTo(uni);
  }

  @Test
  void creating_resolvesTheDirectoryThroughSymlinks_butNotTheLastName() throws IOException {
    assertThat(createdIn("/abs/new-file")).isEqualTo(b);
    assertThat(createdIn("top")).isEqualTo(Ext4FileSystem.ROOT);
    assertThatThrownBy(() -> vfs.mkdirat(null, b("/a/b/d/"), 0755, Credentials.root())).isInstanceOfSatisfying(
        Ext4Exception.class, e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST));
    assertThat(vfs.mkdirat(null, b("/a/b/made/"), 0755, Credentials.root()).isDirectory()).as("a trailing slash on mkdir").isTrue();
    vfs.unlinkat(null, b("/a/b/made"), true, Credentials.root());
  }

  @Test
  void creatingTheRootOrDotOrDotDot_isEEXIST_andInAMissingDirectory_ENOENT() {
    for (String p : List.of("/", "//", "/a/.", "/a/b/..")) {
      assertThatThrownBy(() -> vfs.mkdirat(null, b(p), 0755, Credentials.root())).as(p).isInstanceOfSatisfying(
          Ext4Exception.class, e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST));
    }
    assertThatThrownBy(() -> createdIn("/nope/x")).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENOENT));
    assertThatThrownBy(() -> createdIn("/f/x")).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENOTDIR));
  }
}
