package io.ext4j.nio;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second JVM that opens an image this JVM holds open read-write is refused with a message naming
 * the image, and may open it once this one has closed it.
 */
@Tag("fast")
class SecondJvmTest {
  @TempDir
  Path tmp;

  /** The child: opens the image given as its argument and reports how that went on stdout. */
  public static void main(String[] args) throws Exception {
    if (args.length > 1 && args[1].equals("write-and-exit")) { // leaves the file system open: the shutdown hook closes it
      FileSystem fs = FileSystems.newFileSystem(Path.of(args[0]));
      Files.writeString(fs.getPath("/late"), "written just before exit");
      System.out.println("exiting");
      System.exit(0);
    }
    try (FileSystem fs = FileSystems.newFileSystem(Path.of(args[0]))) {
      System.out.println("opened " + Files.readString(fs.getPath("/hello")));
    } catch (java.io.IOException e) {
      System.out.println("refused: " + e.getMessage());
    }
  }

  private String child(Path img, String... more) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
        SecondJvmTest.class.getName(), img.toString()));
    cmd.addAll(List.of(more));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    p.getOutputStream().close();
    String out;
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      out = String.join("\n", r.lines().toList());
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the child JVM ends").isTrue();
    return out;
  }

  @Test
  void aSecondJvm_isRefusedWhileThisOneHoldsTheImage() throws Exception {
    Path img = tmp.resolve("held.img");
    try (FileSystem fs = FileSystems.newFileSystem(URI.create("ext4:" + img.toUri()), Map.of("create", "true", "size", "16m"))) {
      Files.writeString(fs.getPath("/hello"), "world");
      String out = child(img);
      assertThat(out).as("the child's report").startsWith("refused: ").contains(img.getFileName().toString());
    }
    assertThat(child(img)).as("after this JVM closed it").isEqualTo("opened world");
  }

  @Test
  void aFileSystemLeftOpenAtExit_isClosedByTheShutdownHook_andKeepsItsLastWrites() throws Exception {
    Path img = tmp.resolve("left-open.img");
    try (FileSystem fs = FileSystems.newFileSystem(URI.create("ext4:" + img.toUri()), Map.of("create", "true", "size", "16m"))) {
      Files.writeString(fs.getPath("/hello"), "world");
    }
    assertThat(child(img, "write-and-exit")).isEqualTo("exiting");
    io.ext4j.testkit.E2fsprogs.assertE2fsckClean(img, "after a JVM exited with the file system open");
    try (FileSystem fs = FileSystems.newFileSystem(img)) {
      assertThat(Files.readString(fs.getPath("/late"))).isEqualTo("written just before exit");
    }
  }
}
