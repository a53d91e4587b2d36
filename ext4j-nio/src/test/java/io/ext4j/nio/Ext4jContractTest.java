package io.ext4j.nio;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import org.junit.jupiter.api.Tag;

/**
 * {@link NioContract} against ext4j: a fresh image made through the provider ({@code create}), its
 * root directory the test's root; the image checked by ext4j's own fsck after every test.
 */
@Tag("fast")
class Ext4jContractTest extends NioContract {
  private Path image;
  private FileSystem fs;

  @Override
  protected Path freshRoot() throws IOException {
    image = Files.createTempDirectory("ext4j-nio").resolve("contract.img");
    // by URI: FileSystems.newFileSystem(Path, env) would let zipfs create a zip file of that name
    fs = FileSystems.newFileSystem(java.net.URI.create("ext4:" + image.toUri()), Map.of("create", "true", "size", "32m"));
    assertThat(fs.provider()).isInstanceOf(Ext4FileSystemProvider.class);
    return fs.getPath("/");
  }

  @Override
  protected void release() throws IOException {
    fs.close();
    try (var dev = io.ext4j.block.FileBlockDevice.open(image, blockSize(image),
        io.ext4j.block.FileBlockDevice.Options.defaults().withReadOnly(true))) {
      var report = io.ext4j.fs.check.Checker.check(dev, io.ext4j.fs.check.CheckOptions.defaults().withStrict(true));
      assertThat(report.clean()).as("the image after the test: %s", report.toText()).isTrue();
    }
    Files.delete(image);
    Files.delete(image.getParent());
  }

  @org.junit.jupiter.api.Test
  void userDefinedAttributes_areUserXattrs() throws IOException {
    Path f = Files.writeString(root.resolve("tagged"), "x");
    var v = Files.getFileAttributeView(f, java.nio.file.attribute.UserDefinedFileAttributeView.class);
    v.write("origin", java.nio.charset.StandardCharsets.UTF_8.encode("camera-7"));
    assertThat(v.list()).containsExactly("origin");
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(v.size("origin"));
    v.read("origin", b);
    assertThat(new String(b.array(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("camera-7");
    assertThat(Files.getFileStore(f).supportsFileAttributeView("user")).isTrue();
    v.delete("origin");
    assertThat(v.list()).isEmpty();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> v.size("origin")).isInstanceOf(java.nio.file.FileSystemException.class)
        .hasMessageContaining("tagged");
  }

  @org.junit.jupiter.api.Test
  void journalOptions_areTaken_andAMisspelledOneRefused() throws IOException {
    Path img = image.resolveSibling("options.img");
    java.net.URI uri = java.net.URI.create("ext4:" + img.toUri());
    try (FileSystem other = FileSystems.newFileSystem(uri, Map.of("create", "true", "size", "16m", "commitInterval", "1s",
        "batchingPolicy", "jbd2", "minBatchTime", "0ms", "maxBatchTime", "PT0.015S"))) {
      Files.writeString(other.getPath("/f"), "y", StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.SYNC);
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> FileSystems.newFileSystem(uri, Map.of("commitIntervall", "1s")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("commitIntervall");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> FileSystems.newFileSystem(uri, Map.of("batchingPolicy", "fastest")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("fastest");
    try (FileSystem other = FileSystems.newFileSystem(uri, Map.of("dioLocking", "always-exclusive", "committedCheck", "STATE_LOCK",
        "writeAccessPath", io.ext4j.jbd2.WriteAccessPath.ALWAYS_LOCKED))) {
      assertThat(Files.readString(other.getPath("/f"))).isEqualTo("y");
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> FileSystems.newFileSystem(uri, Map.of("dioLocking", "shared")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'dioLocking' must be one of [always-exclusive, shared-overwrite, shared-with-unwritten], not 'shared'");
    Files.delete(img);
  }

  /** Transactions the journal of {@code fs} has committed so far. */
  private static long commits(FileSystem fs) throws IOException {
    return ((io.ext4j.jbd2.JournalStats) Files.getFileStore(fs.getPath("/")).getAttribute("journalStats")).transactions();
  }

  @org.junit.jupiter.api.Test
  void dirSync_commitsEachDirectoryChangeBeforeItReturns() throws IOException {
    Path img = image.resolveSibling("dirsync.img");
    java.net.URI uri = java.net.URI.create("ext4:" + img.toUri());
    try (FileSystem plain = FileSystems.newFileSystem(uri, Map.of("create", "true", "size", "16m", "commitInterval", "1h"))) {
      long before = commits(plain);
      Files.createFile(plain.getPath("/a"));
      assertThat(commits(plain)).as("a create without dirSync").isEqualTo(before);
    }
    try (FileSystem synced = FileSystems.newFileSystem(uri, Map.of("dirSync", true, "commitInterval", "1h"))) {
      long before = commits(synced);
      Files.createFile(synced.getPath("/b"));
      long created = commits(synced);
      assertThat(created).as("a create with dirSync").isGreaterThan(before);
      Files.delete(synced.getPath("/a"));
      assertThat(commits(synced)).as("a delete with dirSync").isGreaterThan(created);
    }
    Files.delete(img);
  }

  @org.junit.jupiter.api.Test
  void filesMoveBetweenTheHostAndTheImage_throughTheJdksCrossProviderCopy() throws IOException {
    Path host = Files.createTempFile("ext4j-host", ".bin");
    try {
      byte[] data = new byte[70_000];
      new java.util.Random(7).nextBytes(data);
      Files.write(host, data);
      Path in = root.resolve("from-host.bin");
      Files.copy(host, in);
      assertThat(Files.readAllBytes(in)).isEqualTo(data);
      Path back = host.resolveSibling(host.getFileName() + ".back");
      Files.move(in, back);
      assertThat(Files.exists(in)).as("moved off the image").isFalse();
      assertThat(Files.readAllBytes(back)).isEqualTo(data);
      Files.delete(back);
      try (var s = Files.newInputStream(host); var os = Files.newOutputStream(root.resolve("streamed"))) {
        s.transferTo(os);
      }
      assertThat(Files.mismatch(host, root.resolve("streamed"))).isEqualTo(-1L);
    } finally {
      Files.deleteIfExists(host);
    }
  }

  @org.junit.jupiter.api.Test
  void aReadWriteMap_isRefusedSayingWhy() throws IOException {
    Path f = Files.writeString(root.resolve("rw-map"), "abc");
    try (var c = java.nio.channels.FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.map(java.nio.channels.FileChannel.MapMode.READ_WRITE, 0, 3))
          .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("READ_ONLY or PRIVATE").hasMessageContaining("rw-map");
    }
  }

  static int blockSize(Path img) throws IOException {
    byte[] sb = new byte[1024];
    try (var c = java.nio.channels.FileChannel.open(img)) {
      c.read(java.nio.ByteBuffer.wrap(sb), 1024);
    }
    return 1024 << java.nio.ByteBuffer.wrap(sb).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0x18);
  }
}
