package io.ext4j.nio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.testkit.E2fsprogs;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.ProviderNotFoundException;
import java.nio.file.ReadOnlyFileSystemException;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider as a Java user meets it: {@code FileSystems.newFileSystem(Path)} finds it for an
 * image mkfs.ext4 made and declines other files, URIs round-trip, options are checked, a second
 * open is refused, a read-only open writes nothing, and what is written through NIO leaves an
 * image {@code e2fsck -fn} finds clean and debugfs reads back.
 */
@Tag("oracle")
class ProviderOracleTest {
  @TempDir
  Path tmp;

  private Path mkfs(String name, String... args) throws Exception {
    Path img = tmp.resolve(name);
    try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
      f.setLength(32L << 20);
    }
    E2fsprogs.mkfs(img, args);
    return img;
  }

  @Test
  void anImageMkfsMade_isFoundByTheServiceLoader_writtenThroughNio_andE2fsckFindsItClean() throws Exception {
    Path img = mkfs("kernel-layout.img", "-b", "4096");
    try (FileSystem fs = FileSystems.newFileSystem(img)) {
      assertThat(fs.provider().getScheme()).isEqualTo("ext4");
      Path d = Files.createDirectories(fs.getPath("/docs/deep"));
      Files.writeString(d.resolve("note.txt"), "written through java.nio");
      Files.write(fs.getPath("/docs/blob"), new byte[200_000]);
      Path p = d.resolve("note.txt");
      URI uri = p.toUri();
      assertThat(uri.getScheme()).isEqualTo("ext4");
      assertThat(Path.of(uri)).as("the URI %s leads back", uri).isEqualTo(p);
      assertThat(Files.readString(Path.of(uri))).isEqualTo("written through java.nio");
      assertThatThrownBy(() -> FileSystems.newFileSystem(img)).isInstanceOf(FileSystemAlreadyExistsException.class);
      var store = Files.getFileStore(p);
      assertThat(store.type()).isEqualTo("ext4");
      // statfs's f_blocks: the blocks less the metadata overhead, as df shows (the kernel's figure, checked elsewhere)
      assertThat(store.getTotalSpace()).isBetween(24L << 20, 32L << 20);
      assertThat(store.getUnallocatedSpace()).isLessThan(store.getTotalSpace()).isGreaterThanOrEqualTo(store.getUsableSpace());
      try (var ch = java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.WRITE)) {
        ch.force(true); // the writes above commit
      }
      var journal = (io.ext4j.jbd2.JournalStats) store.getAttribute("journalStats");
      assertThat(journal.transactions()).as("transactions committed since open").isGreaterThanOrEqualTo(1);
    }
    E2fsprogs.Result e = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(e.exitCode()).as(e.output()).isZero();
    assertThat(E2fsprogs.debugfs(img, "cat /docs/deep/note.txt").stdout()).isEqualTo("written through java.nio");
  }

  @Test
  void otherFiles_areDeclined_andBadOptions_refused() throws Exception {
    Path text = Files.writeString(tmp.resolve("plain.txt"), "not an image at all, but long enough? no.");
    assertThatThrownBy(() -> FileSystems.newFileSystem(text)).isInstanceOf(ProviderNotFoundException.class);
    assertThatThrownBy(() -> FileSystems.newFileSystem(URI.create("ext4:" + text.toUri()), Map.of()))
        .isInstanceOf(java.nio.file.FileSystemException.class).isNotInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(text.toString()).hasMessageContaining("not an ext4 image");
    Path img = mkfs("opts.img");
    assertThatThrownBy(() -> FileSystems.newFileSystem(img, Map.of("readonly", "true")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("readonly");
    assertThatThrownBy(() -> FileSystems.newFileSystem(URI.create("ext4:" + tmp.resolve("absent.img").toUri()), Map.of()))
        .isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void aReadOnlyOpen_refusesWrites_andLeavesTheImageAsItWas() throws Exception {
    Path img = mkfs("ro.img");
    byte[] before = Files.readAllBytes(img);
    try (FileSystem fs = FileSystems.newFileSystem(img, Map.of("readOnly", true))) {
      assertThat(fs.isReadOnly()).isTrue();
      assertThat(Files.isDirectory(fs.getPath("/lost+found"))).isTrue();
      assertThatThrownBy(() -> Files.createFile(fs.getPath("/x"))).isInstanceOf(ReadOnlyFileSystemException.class);
    }
    assertThat(Files.readAllBytes(img)).isEqualTo(before);
  }
}
