package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.PathWalker.Follow;
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
 * PathWalker on a real image (mkfs.ext4, then a tree made through the engine):
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
class PathWalkerTest {
  static final Path DIR = Path.of("target", "test-images", "pathwalker");
  static Ext4FileSystem fs;
  static PathWalker walker;
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
    walker = new PathWalker(fs);
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

  static long ino(String path) throws IOException {
    return walker.resolve(path, Follow.FOLLOW).ino();
  }

  static long lino(String path) throws IOException {
    return walker.resolve(path, Follow.NO_FOLLOW).ino();
  }

  @Test
  void resolve_walksComponents_fromTheRoot_withOrWithoutLeadingSlash() throws IOException {
    assertThat(ino("/")).isEqualTo(Ext4FileSystem.ROOT);
    assertThat(ino("/a")).isEqualTo(a);
    assertThat(ino("/a/b/c")).isEqualTo(c);
    assertThat(ino("a/b/c")).isEqualTo(c);
    assertThat(ino("//a///b//d/")).isEqualTo(d);
    assertThat(walker.inode("/f")).isEqualTo(f);
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
    Attributes link = walker.resolve("/abs", Follow.NO_FOLLOW);
    assertThat(link.isSymlink()).isTrue();
    assertThat(link.ino()).isNotEqualTo(b);
    assertThat(ino("/abs")).isEqualTo(b);
    assertThat(lino("/abs/")).as("a trailing slash follows").isEqualTo(b);
    assertThat(lino("/tofile")).isNotEqualTo(f);
    assertThat(ino("/tofile")).isEqualTo(f);
  }

  @Test
  void aDanglingSymlink_isENOENT_whenFollowed_butResolvesItselfWithNoFollow() throws IOException {
    assertThat(walker.resolve("/dang", Follow.NO_FOLLOW).isSymlink()).isTrue();
    assertThatThrownBy(() -> ino("/dang")).isInstanceOfSatisfying(Ext4Exception.class, e -> {
      assertThat(e.errno()).isEqualTo(Errno.ENOENT);
      assertThat(e.path()).isEqualTo("/dang");
      assertThat(e.getMessage()).contains("no entry \"nowhere\" in /");
    });
  }

  @Test
  void aMissingComponent_isENOENT_namingThePathAndWhereItStopped() {
    assertThatThrownBy(() -> ino("/a/x/c")).isInstanceOfSatisfying(Ext4Exception.class, e -> {
      assertThat(e.errno()).isEqualTo(Errno.ENOENT);
      assertThat(e.path()).isEqualTo("/a/x/c");
      assertThat(e.getMessage()).contains("no entry \"x\" in /a");
    });
    assertThatThrownBy(() -> ino("")).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENOENT));
  }

  @Test
  void aFileInTheMiddle_orBeforeATrailingSlash_isENOTDIR() {
    for (String p : List.of("/f/x", "/f/", "/f/.", "/f/..", "/tofile/", "/a/b/c/d")) {
      assertThatThrownBy(() -> lino(p)).as(p).isInstanceOfSatisfying(Ext4Exception.class, e -> {
        assertThat(e.errno()).isEqualTo(Errno.ENOTDIR);
        assertThat(e.path()).isEqualTo(p);
        assertThat(e.getMessage()).contains("is not a directory");
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
      assertThat(e.path()).isEqualTo("/chain0");
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
    assertThatThrownBy(() -> walker.parent("/a/" + "x".repeat(256))).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENAMETOOLONG));
  }

  @Test
  void namesAreUtf8Bytes() throws IOException {
    assertThat(ino("/ünï/ç")).isEqualTo(cedil);
    assertThat(walker.resolve("/ünï/ç".getBytes(StandardCharsets.UTF_8), "shown", Follow.FOLLOW).ino()).isEqualTo(cedil);
    assertThat(walker.parent("/ünï/new").dir()).isEqualTo(uni);
  }

  @Test
  void parent_splitsTheLastName_andResolvesTheDirectoryThroughSymlinks() throws IOException {
    PathWalker.Parent p = walker.parent("/abs/new-file");
    assertThat(p.dir()).isEqualTo(b);
    assertThat(p.nameString()).isEqualTo("new-file");
    assertThat(p.trailingSlash()).isFalse();
    assertThat(p.path()).isEqualTo("/abs/new-file");

    PathWalker.Parent q = walker.parent("/a/b/d/");
    assertThat(q.dir()).isEqualTo(b);
    assertThat(q.name()).isEqualTo(b("d"));
    assertThat(q.trailingSlash()).isTrue();

    assertThat(walker.parent("top").dir()).isEqualTo(Ext4FileSystem.ROOT);
    assertThat(walker.parent("/tofile").name()).as("the last name is not followed").isEqualTo(b("tofile"));
  }

  @Test
  void parent_ofTheRootOrOfDotOrDotDot_isEINVAL_andOfAMissingDirectory_isENOENT() {
    for (String p : List.of("/", "//", "/a/.", "/a/b/..")) {
      assertThatThrownBy(() -> walker.parent(p)).as(p).isInstanceOfSatisfying(Ext4Exception.class,
          e -> assertThat(e.errno()).isEqualTo(Errno.EINVAL));
    }
    assertThatThrownBy(() -> walker.parent("/nope/x")).isInstanceOfSatisfying(Ext4Exception.class, e -> {
      assertThat(e.errno()).isEqualTo(Errno.ENOENT);
      assertThat(e.path()).isEqualTo("/nope/x");
    });
    assertThatThrownBy(() -> walker.parent("/f/x")).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENOTDIR));
  }

  @Test
  void resolveIfExists_isNullOnlyForMissingEntries() throws IOException {
    assertThat(walker.resolveIfExists("/a/none", Follow.NO_FOLLOW)).isNull();
    assertThat(walker.resolveIfExists("/none/none", Follow.NO_FOLLOW)).isNull();
    assertThat(walker.resolveIfExists("/a/b/c", Follow.NO_FOLLOW).ino()).isEqualTo(c);
    assertThatThrownBy(() -> walker.resolveIfExists("/f/x", Follow.NO_FOLLOW)).isInstanceOfSatisfying(Ext4Exception.class,
        e -> assertThat(e.errno()).isEqualTo(Errno.ENOTDIR));
  }
}
