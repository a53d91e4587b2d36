package io.ext4j.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What java.nio promises of a file system, as one suite: every subclass gives a fresh, empty,
 * writable directory ({@link #root}), and the same tests run against the JDK's own file system
 * and against ext4j, so ext4j behaves as Java code expects of {@code Files.*}.
 */
abstract class NioContract {
  /** A fresh empty directory of the file system under test. */
  protected abstract Path freshRoot() throws IOException;

  /** Undoes {@link #freshRoot}. */
  protected abstract void release() throws IOException;

  protected Path root;

  @BeforeEach
  void setUpRoot() throws IOException {
    root = freshRoot();
  }

  @AfterEach
  void tearDownRoot() throws IOException {
    release();
  }

  @Test
  void writeThenRead_roundTripsBytes_andSizeFollows() throws IOException {
    Path f = root.resolve("a.txt");
    Files.writeString(f, "hello, ext4");
    assertThat(Files.readString(f)).isEqualTo("hello, ext4");
    assertThat(Files.size(f)).isEqualTo(11);
    Files.write(f, "more".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
    assertThat(Files.readString(f)).isEqualTo("hello, ext4more");
    Files.writeString(f, "x"); // CREATE, TRUNCATE_EXISTING, WRITE
    assertThat(Files.readString(f)).isEqualTo("x");
  }

  @Test
  void aLargeFile_crossesBlocks_andReadsBackAtAnyPosition() throws IOException {
    Path f = root.resolve("big");
    byte[] data = new byte[300_000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i * 31 + (i >>> 9));
    }
    Files.write(f, data);
    try (SeekableByteChannel c = Files.newByteChannel(f)) {
      c.position(123_457);
      ByteBuffer b = ByteBuffer.allocate(5000);
      while (b.hasRemaining() && c.read(b) > 0) {
        // fill
      }
      byte[] got = b.array();
      for (int i = 0; i < got.length; i++) {
        assertThat(got[i]).as("byte %d", 123_457 + i).isEqualTo(data[123_457 + i]);
      }
      assertThat(c.size()).isEqualTo(data.length);
    }
    assertThat(Files.readAllBytes(f)).isEqualTo(data);
  }

  @Test
  void channels_position_truncate_sparseWrites() throws IOException {
    Path f = root.resolve("sparse");
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 100_000);
      assertThat(c.size()).isEqualTo(100_003);
      ByteBuffer hole = ByteBuffer.allocate(10);
      c.read(hole, 50_000);
      assertThat(hole.array()).as("a hole reads as zeros").containsOnly(0);
      c.truncate(10);
      assertThat(c.size()).isEqualTo(10);
      c.position(4).write(ByteBuffer.wrap(new byte[] {9}));
      assertThat(c.position()).isEqualTo(5);
      c.force(true);
    }
    assertThat(Files.readAllBytes(f)).containsExactly(0, 0, 0, 0, 9, 0, 0, 0, 0, 0);
  }

  @Test
  void createNew_onAnExistingFile_isFileAlreadyExists_andAMissingFile_isNoSuchFile() throws IOException {
    Path f = root.resolve("once");
    Files.createFile(f);
    assertThatThrownBy(() -> Files.createFile(f)).isInstanceOf(FileAlreadyExistsException.class).hasMessageContaining("once");
    assertThatThrownBy(() -> Files.readAllBytes(root.resolve("missing"))).isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("missing");
    assertThatThrownBy(() -> Files.delete(root.resolve("missing"))).isInstanceOf(NoSuchFileException.class);
    assertThat(Files.deleteIfExists(root.resolve("missing"))).isFalse();
    assertThatThrownBy(() -> Files.createDirectory(root.resolve("no/such/parent"))).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void directories_create_list_delete() throws IOException {
    Path d = Files.createDirectories(root.resolve("x/y/z"));
    assertThat(Files.isDirectory(d)).isTrue();
    Files.writeString(d.resolve("one.txt"), "1");
    Files.writeString(d.resolve("two.txt"), "2");
    Files.writeString(d.resolve("three.dat"), "3");
    List<String> all = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(d)) {
      s.forEach(p -> all.add(p.getFileName().toString()));
    }
    assertThat(all).containsExactlyInAnyOrder("one.txt", "two.txt", "three.dat");
    List<String> txt = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(d, "*.txt")) {
      s.forEach(p -> txt.add(p.getFileName().toString()));
    }
    assertThat(txt).containsExactlyInAnyOrder("one.txt", "two.txt");
    assertThatThrownBy(() -> Files.delete(root.resolve("x/y"))).isInstanceOf(DirectoryNotEmptyException.class);
    assertThatThrownBy(() -> Files.newDirectoryStream(d.resolve("one.txt"))).isInstanceOf(NotDirectoryException.class);
    try (Stream<Path> w = Files.walk(root.resolve("x"))) {
      assertThat(w.count()).isEqualTo(6);
    }
    for (String n : List.of("one.txt", "two.txt", "three.dat")) {
      Files.delete(d.resolve(n));
    }
    Files.delete(d);
    assertThat(Files.exists(d)).isFalse();
  }

  @Test
  void aManyEntryDirectory_listsEveryName() throws IOException {
    Path d = Files.createDirectory(root.resolve("many"));
    for (int i = 0; i < 700; i++) {
      Files.createFile(d.resolve(String.format("entry-with-a-longish-name-%04d", i)));
    }
    try (Stream<Path> s = Files.list(d)) {
      assertThat(s.count()).isEqualTo(700);
    }
    assertThat(Files.exists(d.resolve("entry-with-a-longish-name-0499"))).isTrue();
  }

  @Test
  void move_renames_replacesOnlyWhenAsked_andMovesDirectories() throws IOException {
    Path a = Files.writeString(root.resolve("a"), "A");
    Path b = Files.writeString(root.resolve("b"), "B");
    assertThatThrownBy(() -> Files.move(a, b)).isInstanceOf(FileAlreadyExistsException.class);
    Files.move(a, b, StandardCopyOption.REPLACE_EXISTING);
    assertThat(Files.exists(a)).isFalse();
    assertThat(Files.readString(b)).isEqualTo("A");
    Files.move(b, root.resolve("c"), StandardCopyOption.ATOMIC_MOVE);
    assertThat(Files.readString(root.resolve("c"))).isEqualTo("A");
    Path dir = Files.createDirectories(root.resolve("d1/inner"));
    Files.writeString(dir.resolve("f"), "F");
    Files.move(root.resolve("d1"), root.resolve("d2"));
    assertThat(Files.readString(root.resolve("d2/inner/f"))).isEqualTo("F");
    Files.createDirectory(root.resolve("full"));
    Files.createFile(root.resolve("full/x"));
    assertThatThrownBy(() -> Files.move(root.resolve("d2"), root.resolve("full"), StandardCopyOption.REPLACE_EXISTING))
        .isInstanceOf(DirectoryNotEmptyException.class);
  }

  @Test
  void copy_copiesBytes_andAttributesWhenAsked() throws IOException {
    Path a = Files.writeString(root.resolve("src"), "content");
    Files.setLastModifiedTime(a, FileTime.from(Instant.parse("2020-02-02T02:02:02Z")));
    Path b = root.resolve("dst");
    Files.copy(a, b);
    assertThat(Files.readString(b)).isEqualTo("content");
    assertThatThrownBy(() -> Files.copy(a, b)).isInstanceOf(FileAlreadyExistsException.class);
    Files.writeString(a, "changed");
    Files.copy(a, b, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
    assertThat(Files.readString(b)).isEqualTo("changed");
    assertThat(Files.getLastModifiedTime(b)).isEqualTo(Files.getLastModifiedTime(a));
  }

  @Test
  void attributes_basicAndPosix_readAndSet() throws IOException {
    Path f = Files.writeString(root.resolve("attrs"), "12345");
    BasicFileAttributes b = Files.readAttributes(f, BasicFileAttributes.class);
    assertThat(b.size()).isEqualTo(5);
    assertThat(b.isRegularFile()).isTrue();
    assertThat(b.isDirectory()).isFalse();
    assertThat(b.fileKey()).isNotNull();
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r-----"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).isEqualTo("rw-r-----");
    PosixFileAttributes p = Files.readAttributes(f, PosixFileAttributes.class);
    assertThat(p.permissions()).isEqualTo(PosixFilePermissions.fromString("rw-r-----"));
    FileTime t = FileTime.from(Instant.parse("2021-03-04T05:06:07.123456789Z"));
    Files.setLastModifiedTime(f, t);
    assertThat(Files.getLastModifiedTime(f).toInstant()).isEqualTo(t.toInstant());
    assertThat(Files.readAttributes(f, "basic:size,isRegularFile")).containsEntry("size", 5L).containsEntry("isRegularFile", true);
    Path d = Files.createDirectory(root.resolve("dir"));
    assertThat(Files.readAttributes(d, BasicFileAttributes.class).isDirectory()).isTrue();
    Path sub = Files.createDirectory(root.resolve("perm"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(sub))).isEqualTo("rwx------");
  }

  @Test
  void links_symbolicAndHard() throws IOException {
    Path target = Files.writeString(root.resolve("target"), "T");
    Path sym = Files.createSymbolicLink(root.resolve("sym"), target.getFileName());
    assertThat(Files.isSymbolicLink(sym)).isTrue();
    assertThat(Files.readSymbolicLink(sym).toString()).isEqualTo("target");
    assertThat(Files.readString(sym)).isEqualTo("T");
    assertThat(Files.readAttributes(sym, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isSymbolicLink()).isTrue();
    Path hard = Files.createLink(root.resolve("hard"), target);
    assertThat(Files.isSameFile(hard, target)).isTrue();
    assertThat(Files.getAttribute(target, "unix:nlink")).isEqualTo(2);
    Files.delete(target);
    assertThat(Files.readString(hard)).isEqualTo("T");
    assertThat(Files.exists(sym)).as("a dangling link").isFalse();
    assertThat(Files.exists(sym, LinkOption.NOFOLLOW_LINKS)).isTrue();
    assertThat(root.resolve("sym").toRealPath(LinkOption.NOFOLLOW_LINKS).getFileName().toString()).isEqualTo("sym");
  }

  @Test
  void fileLocks_overlapWithinOneJvm_isRefused() throws IOException {
    Path f = Files.writeString(root.resolve("locked"), "abc");
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE);
        FileChannel d = FileChannel.open(f, StandardOpenOption.WRITE)) {
      var lock = c.lock(0, 10, false);
      assertThatThrownBy(() -> d.lock(5, 10, false)).isInstanceOf(OverlappingFileLockException.class);
      lock.release();
      d.lock(5, 10, false).release();
    }
  }

  @Test
  void aWriteOpenOfADirectory_orAPathThroughAFile_fails() throws IOException {
    Path d = Files.createDirectory(root.resolve("adir"));
    assertThatThrownBy(() -> Files.newByteChannel(d, StandardOpenOption.WRITE)).isInstanceOf(FileSystemException.class);
    Path f = Files.createFile(root.resolve("afile"));
    assertThatThrownBy(() -> Files.createFile(f.resolve("under"))).isInstanceOf(FileSystemException.class);
  }

  @Test
  void deleteOnClose_removesTheFileWhenTheChannelCloses() throws IOException {
    Path f = root.resolve("scratch");
    try (SeekableByteChannel c = Files.newByteChannel(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
        StandardOpenOption.DELETE_ON_CLOSE)) {
      assertThat(c.write(ByteBuffer.wrap(new byte[] {1, 2, 3}))).isEqualTo(3); // the JDK on Linux unlinks at once; ext4j at close
    }
    assertThat(Files.exists(f)).isFalse();
  }

  @Test
  void aWatchService_seesCreateModifyDelete() throws Exception {
    Path d = Files.createDirectory(root.resolve("watched"));
    try (java.nio.file.WatchService w = root.getFileSystem().newWatchService()) {
      d.register(w, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE, java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY,
          java.nio.file.StandardWatchEventKinds.ENTRY_DELETE);
      Files.writeString(d.resolve("f"), "1");
      awaitEvent(w, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE, "f");
      Files.writeString(d.resolve("f"), "22", StandardOpenOption.APPEND);
      awaitEvent(w, java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY, "f");
      Files.delete(d.resolve("f"));
      awaitEvent(w, java.nio.file.StandardWatchEventKinds.ENTRY_DELETE, "f");
    }
  }

  /** Waits (at most 20 s) for an event of {@code kind} about {@code name}, resetting keys as they come. */
  private static void awaitEvent(java.nio.file.WatchService w, java.nio.file.WatchEvent.Kind<Path> kind, String name)
      throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    List<String> seen = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      java.nio.file.WatchKey key = w.poll(Math.max(1, (deadline - System.nanoTime()) / 1_000_000), java.util.concurrent.TimeUnit.MILLISECONDS);
      if (key == null) {
        break;
      }
      boolean hit = false;
      for (java.nio.file.WatchEvent<?> e : key.pollEvents()) {
        seen.add(e.kind().name() + " " + e.context());
        hit |= e.kind() == kind && String.valueOf(e.context()).equals(name);
      }
      key.reset();
      if (hit) {
        return;
      }
    }
    throw new AssertionError("no " + kind.name() + " of " + name + " within 20 s; saw " + seen);
  }

  @Test
  @SuppressWarnings("unchecked")
  void aSecureDirectoryStream_worksFromItsDirectory_evenAfterTheDirectoryIsRenamed() throws IOException {
    Path d = Files.createDirectory(root.resolve("sds"));
    Files.writeString(d.resolve("a"), "A");
    var fs = root.getFileSystem();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(d)) {
      assertThat(s).isInstanceOf(java.nio.file.SecureDirectoryStream.class);
      var sds = (java.nio.file.SecureDirectoryStream<Path>) s;
      Files.move(d, root.resolve("renamed"));
      try (SeekableByteChannel c = sds.newByteChannel(fs.getPath("a"), java.util.Set.of(StandardOpenOption.READ))) {
        ByteBuffer b = ByteBuffer.allocate(4);
        c.read(b);
        assertThat(new String(b.array(), 0, b.position(), StandardCharsets.UTF_8)).isEqualTo("A");
      }
      try (SeekableByteChannel c = sds.newByteChannel(fs.getPath("b"),
          java.util.Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW))) {
        c.write(ByteBuffer.wrap("B".getBytes(StandardCharsets.UTF_8)));
      }
      assertThat(Files.readString(root.resolve("renamed/b"))).isEqualTo("B");
      var v = sds.getFileAttributeView(fs.getPath("a"), java.nio.file.attribute.BasicFileAttributeView.class);
      assertThat(v.readAttributes().size()).isEqualTo(1);
      assertThat(sds.getFileAttributeView(java.nio.file.attribute.PosixFileAttributeView.class).readAttributes().isDirectory()).isTrue();
      sds.deleteFile(fs.getPath("a"));
      assertThat(Files.exists(root.resolve("renamed/a"))).isFalse();
      Files.createDirectory(root.resolve("renamed/sub"));
      sds.deleteDirectory(fs.getPath("sub"));
      assertThat(Files.exists(root.resolve("renamed/sub"))).isFalse();
      assertThatThrownBy(() -> sds.deleteFile(fs.getPath("nope"))).isInstanceOf(NoSuchFileException.class);
      Path other = Files.createDirectory(root.resolve("other"));
      try (var otherStream = Files.newDirectoryStream(other)) {
        var target = (java.nio.file.SecureDirectoryStream<Path>) otherStream;
        sds.move(fs.getPath("b"), target, fs.getPath("b2"));
      }
      assertThat(Files.readString(other.resolve("b2"))).isEqualTo("B");
    }
  }

  @Test
  void readOnlyAndPrivateMaps_showTheFile_andAPrivateWriteStaysInTheBuffer() throws IOException {
    Path f = root.resolve("mapped");
    byte[] data = new byte[10_000];
    for (int i = 0; i < data.length; i++) {
      data[i] = (byte) (i % 251);
    }
    Files.write(f, data);
    try (FileChannel c = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      var ro = c.map(FileChannel.MapMode.READ_ONLY, 4096, 100);
      assertThat(ro.isReadOnly()).isTrue();
      for (int i = 0; i < 100; i++) {
        assertThat(ro.get(i)).isEqualTo(data[4096 + i]);
      }
      var cow = c.map(FileChannel.MapMode.PRIVATE, 0, 10);
      cow.put(0, (byte) 77);
      assertThat(cow.get(0)).isEqualTo((byte) 77);
    }
    assertThat(Files.readAllBytes(f)[0]).as("a PRIVATE map's write does not reach the file").isEqualTo(data[0]);
  }

  @Test
  void paths_behaveAsUnixPaths() {
    Path p = root.getFileSystem().getPath("/a/b/../c/./d");
    assertThat(p.normalize().toString()).isEqualTo("/a/c/d");
    assertThat(p.getNameCount()).isEqualTo(6);
    assertThat(p.getFileName().toString()).isEqualTo("d");
    assertThat(p.getRoot().toString()).isEqualTo("/");
    Path rel = root.getFileSystem().getPath("x", "y", "z");
    assertThat(rel.toString()).isEqualTo("x/y/z");
    assertThat(rel.isAbsolute()).isFalse();
    assertThat(root.getFileSystem().getPath("/a/b").relativize(root.getFileSystem().getPath("/a/c/d")).toString()).isEqualTo("../c/d");
    assertThat(root.getFileSystem().getPath("/a/b").resolve("c").toString()).isEqualTo("/a/b/c");
    assertThat(root.getFileSystem().getPath("/a/b/c").startsWith("/a/b")).isTrue();
    assertThat(root.getFileSystem().getPath("/a/b/c").endsWith("b/c")).isTrue();
    assertThat(root.getFileSystem().getPath("").toString()).isEmpty();
    assertThat(root.getFileSystem().getPath("//a//b/").toString()).isEqualTo("/a/b");
    assertThat(root.getFileSystem().getPathMatcher("glob:**/*.{txt,md}").matches(root.getFileSystem().getPath("/x/y/z.md"))).isTrue();
    assertThat(root.getFileSystem().getPathMatcher("glob:*.txt").matches(root.getFileSystem().getPath("/x/y.txt"))).isFalse();
  }
}
