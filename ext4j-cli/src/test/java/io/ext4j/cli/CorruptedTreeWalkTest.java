package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.E2fsprogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tree walkers on an image whose directory entry points back at an ancestor (made with
 * debugfs's {@code link}, as a corruption would leave it): ls -R, get -r and rm -r each visit the
 * looping directory once, say "filesystem loop detected" on one line, end with exit status 1, and
 * never follow the loop (once they grew without bound: OutOfMemoryError, StackOverflowError, an
 * ever deeper host tree).
 */
@Tag("oracle")
class CorruptedTreeWalkTest {
  @TempDir
  Path tmp;
  Path img;

  @BeforeEach
  void loopingImage() throws Exception {
    img = Tools.mkfs(tmp.resolve("loop.img"), 16, "-b", "1024");
    Path host = Files.writeString(tmp.resolve("f.txt"), "inside\n");
    for (String req : new String[] {"mkdir /a", "mkdir /a/b", "write " + host + " /a/b/f", "link /a /a/b/up"}) {
      E2fsprogs.Result r = E2fsprogs.run(Duration.ofSeconds(60), "debugfs", "-w", "-R", req, img.toString());
      assertThat(r.exitCode()).as("debugfs %s: %s", req, r.output()).isZero();
    }
  }

  @Test
  void lsR_listsEachDirectoryOnce_andReportsTheLoop() {
    Cli c = Cli.run("ls", "-R", img.toString(), "/a");
    assertThat(c.exitCode()).as(c.err()).isEqualTo(1);
    assertThat(c.err().strip().lines()).singleElement().asString().contains("/a/b/up").contains("filesystem loop detected");
    assertThat(c.out()).contains("/a/b:").doesNotContain("/a/b/up:");
    assertThat(c.out().lines().filter(l -> l.endsWith(":"))).containsExactly("/a:", "/a/b:");
  }

  @Test
  void getR_copiesTheTreeOnce_andReportsTheLoop() throws Exception {
    Path out = tmp.resolve("out");
    Cli c = Cli.run("get", "-r", img.toString(), "/a", out.toString());
    assertThat(c.exitCode()).as(c.err()).isEqualTo(1);
    assertThat(c.err()).contains("/a/b/up").contains("filesystem loop detected");
    assertThat(Files.readString(out.resolve("b/f"))).isEqualTo("inside\n");
    try (Stream<Path> all = Files.walk(out)) {
      assertThat(all.map(p -> out.relativize(p).toString()).sorted()).containsExactly("", "b", "b/f");
    }
  }

  @Test
  void rmR_removesWhatIsNotInTheLoop_andReportsIt() {
    Cli c = Cli.run("rm", "-r", img.toString(), "/a");
    assertThat(c.exitCode()).as(c.err()).isEqualTo(1);
    assertThat(c.err()).contains("/a/b/up").contains("filesystem loop detected");
    Cli ls = Cli.run("ls", img.toString(), "/a/b");
    assertThat(ls.out().lines()).containsExactly("up");
  }
}
