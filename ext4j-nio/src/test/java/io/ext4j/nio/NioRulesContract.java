package io.ext4j.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.NonWritableChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

/**
 * The rules users found broken in the ext4j provider, each run against the JDK's default
 * file system and against ext4j by the same subclasses as {@link NioContract}: ext4j must do what
 * the default file system does.
 */
abstract class NioRulesContract extends NioContract {
  @Test
  void createDirectories_ofTheRoot_andThroughDotDot_work_andCreateDirectoryOfTheRoot_isAlreadyExists() throws IOException {
    Path top = root.getRoot();
    assertThat(Files.createDirectories(top)).isEqualTo(top);
    Files.createDirectories(root.resolve("x/..")); // the JDK may or may not make x on the way; it does not fail
    Files.createDirectories(root.resolve("y"));
    Files.createDirectories(root.resolve("y/.."));
    assertThat(Files.isDirectory(root.resolve("y"))).isTrue();
    assertThatThrownBy(() -> Files.createDirectory(top)).isInstanceOf(FileAlreadyExistsException.class);
  }

  @Test
  void aPathStringWithNoEncoding_isInvalidPath_neverAQuestionMark() {
    assertThatThrownBy(() -> root.getFileSystem().getPath("s\uD800")).isInstanceOf(InvalidPathException.class);
    assertThatThrownBy(() -> root.resolve("s\uD800")).isInstanceOf(InvalidPathException.class);
  }

  @Test
  void setPosixFilePermissions_replacesTheBits_andClearsSetuidSetgidSticky() throws IOException {
    Path f = Files.createFile(root.resolve("setuid"));
    Files.setAttribute(f, "unix:mode", 06755);
    assertThat((int) Files.getAttribute(f, "unix:mode") & 07777).isEqualTo(06755);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
    assertThat((int) Files.getAttribute(f, "unix:mode") & 07777).as("chmod 644 leaves no setuid").isEqualTo(0644);
    Path d = Files.createDirectory(root.resolve("sticky"));
    Files.setAttribute(d, "unix:mode", 01777);
    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat((int) Files.getAttribute(d, "unix:mode") & 07777).isEqualTo(0755);
  }

  @Test
  void writingThroughADanglingSymlink_createsItsTarget() throws IOException {
    Path link = Files.createSymbolicLink(root.resolve("link"), root.getFileSystem().getPath("target"));
    Files.writeString(link, "through the link");
    assertThat(Files.readString(root.resolve("target"))).isEqualTo("through the link");
    assertThat(Files.isSymbolicLink(link)).isTrue();
    Files.writeString(root.resolve("plain"), "x", StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
    assertThatThrownBy(() -> Files.writeString(link, "x", StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS))
        .as("NOFOLLOW_LINKS on a link").isInstanceOf(IOException.class);
    Path dangling = Files.createSymbolicLink(root.resolve("dangling"), root.getFileSystem().getPath("nowhere"));
    assertThatThrownBy(() -> Files.writeString(dangling, "x", StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        .as("O_EXCL never follows a final link").isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.exists(root.resolve("nowhere"))).isFalse();
  }

  @Test
  void moveReplacing_anEmptyDirectory_orAFileByADirectory_asRenameDoes() throws IOException {
    Path a = Files.createDirectory(root.resolve("a"));
    Files.writeString(a.resolve("inside"), "kept");
    Path empty = Files.createDirectory(root.resolve("empty"));
    Files.move(a, empty, StandardCopyOption.REPLACE_EXISTING);
    assertThat(Files.readString(empty.resolve("inside"))).isEqualTo("kept");
    assertThat(Files.exists(a)).isFalse();
    Path file = Files.writeString(root.resolve("file"), "replaced");
    Files.move(empty, file, StandardCopyOption.REPLACE_EXISTING);
    assertThat(Files.isDirectory(file)).as("a directory moved over a file").isTrue();
    Path other = Files.writeString(root.resolve("other"), "y");
    assertThatThrownBy(() -> Files.move(other, file, StandardCopyOption.REPLACE_EXISTING))
        .as("a file over a directory that is not empty").isInstanceOf(DirectoryNotEmptyException.class);
    assertThatThrownBy(() -> Files.move(other, file)).isInstanceOf(FileAlreadyExistsException.class);
    Path alias = Files.createLink(root.resolve("alias"), other);
    Files.move(other, alias); // two names of one file: nothing to do
    assertThat(Files.exists(other)).isTrue();
  }

  @Test
  void aDirectoryMovedIntoItself_isInvalidArgument_saidOnce() throws IOException {
    Path self = Files.createDirectory(root.resolve("self"));
    assertThatThrownBy(() -> Files.move(self, self.resolve("sub")))
        .isInstanceOf(FileSystemException.class)
        .hasMessageStartingWith(self + " -> " + self.resolve("sub") + ": Invalid argument")
        .satisfies(e -> assertThat(e.getMessage().toLowerCase(java.util.Locale.ROOT)).doesNotContain("einval"));
  }

  @Test
  void copy_keepsThePermissions_andCopyAttributes_theTimesToo() throws IOException {
    Path src = Files.writeString(root.resolve("src"), "data");
    Files.setPosixFilePermissions(src, PosixFilePermissions.fromString("rwxr-x---"));
    FileTime old = FileTime.from(Instant.parse("2001-02-03T04:05:06Z"));
    Files.setLastModifiedTime(src, old);
    Path plain = Files.copy(src, root.resolve("plain"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(plain))).isEqualTo("rwxr-x---");
    assertThat(Files.getLastModifiedTime(plain)).isNotEqualTo(old);
    Path all = Files.copy(src, root.resolve("all"), StandardCopyOption.COPY_ATTRIBUTES);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(all))).isEqualTo("rwxr-x---");
    assertThat(Files.getLastModifiedTime(all)).isEqualTo(old);
    assertThat(Files.getOwner(all)).isEqualTo(Files.getOwner(src));
    assertThat(Files.readString(all)).isEqualTo("data");
  }

  @Test
  void mapPastTheEnd_ofAReadOnlyChannel_andAPrivateMapOfOne_failAsTheJdks() throws IOException {
    Path f = Files.writeString(root.resolve("mapped"), "0123456789");
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.READ)) {
      assertThatThrownBy(() -> c.map(FileChannel.MapMode.READ_ONLY, 0, 20)).isInstanceOf(IOException.class)
          .hasMessageContaining("cannot extend file");
      assertThatThrownBy(() -> c.map(FileChannel.MapMode.PRIVATE, 0, 5)).isInstanceOf(NonWritableChannelException.class);
      ByteBuffer m = c.map(FileChannel.MapMode.READ_ONLY, 2, 3);
      assertThat(StandardCharsets.UTF_8.decode(m).toString()).isEqualTo("234");
    }
    assertThat(Files.size(f)).isEqualTo(10);
  }

  /**
   * open(2) with O_CREAT never fails for the name being there or not: threads opening one new
   * file with CREATE+APPEND while others delete it each succeed, and each append lands whole.
   */
  @Test
  void createWithoutCreateNew_isAtomic_underConcurrentCreatesAndDeletes() throws Exception {
    long seed = new Random().nextLong();
    System.out.println("createWithoutCreateNew_isAtomic seed " + seed);
    Random rnd = new Random(seed);
    int rounds = 40;
    for (int r = 0; r < rounds; r++) {
      Path f = root.resolve("shared-" + r);
      int threads = 6;
      CyclicBarrier start = new CyclicBarrier(threads);
      ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
      List<Thread> ts = new ArrayList<>();
      boolean withDeletes = rnd.nextBoolean();
      for (int t = 0; t < threads; t++) {
        int id = t;
        ts.add(Thread.ofPlatform().start(() -> {
          try {
            start.await();
            for (int i = 0; i < 10; i++) {
              if (withDeletes && id >= 4) {
                Files.deleteIfExists(f);
              } else {
                Files.writeString(f, "<" + id + ">", StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
              }
            }
          } catch (Throwable e) {
            failures.add(e);
          }
        }));
      }
      for (Thread t : ts) {
        t.join();
      }
      assertThat(failures).as("round %d (deletes %s, seed %d)", r, withDeletes, seed).isEmpty();
      if (Files.exists(f)) {
        assertThat(Files.readString(f)).as("appends land whole").matches("(<[0-5]>)*");
        if (!withDeletes) {
          assertThat(Files.size(f)).isEqualTo((long) threads * 10 * 3);
        }
      }
    }
  }

  @Test
  void deleteOfAMissingName_andOfADirectoryThatIsNot_asTheJdk() throws IOException {
    assertThatThrownBy(() -> Files.delete(root.resolve("none"))).isInstanceOf(NoSuchFileException.class);
    Path d = Files.createDirectories(root.resolve("full/inner"));
    assertThatThrownBy(() -> Files.delete(d.getParent())).isInstanceOf(DirectoryNotEmptyException.class);
    Files.delete(d);
    Files.delete(d.getParent());
    assertThat(Files.exists(d.getParent())).isFalse();
  }
}
