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
class Ext4jContractTest extends NioRulesContract {
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
      var report = io.ext4j.tools.check.Checker.check(dev, io.ext4j.tools.check.CheckOptions.defaults().withStrict(true));
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

  /** Names resolve through the image's own /etc/passwd and /etc/group; digits always; other names are not found. */
  @org.junit.jupiter.api.Test
  void principals_resolveThroughTheImagesOwnUserDatabase() throws IOException {
    var lookup = fs.getUserPrincipalLookupService();
    assertThat(lookup.lookupPrincipalByName("1000").getName()).isEqualTo("1000");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> lookup.lookupPrincipalByName("alice"))
        .isInstanceOf(java.nio.file.attribute.UserPrincipalNotFoundException.class);
    Files.createDirectories(fs.getPath("/etc"));
    Files.writeString(fs.getPath("/etc/passwd"), "root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1001::/home/alice:/bin/sh\n");
    Files.writeString(fs.getPath("/etc/group"), "root:x:0:\nstaff:x:50:alice\n");
    assertThat(lookup.lookupPrincipalByName("alice").getName()).isEqualTo("1000");
    assertThat(lookup.lookupPrincipalByName("root").getName()).isEqualTo("0");
    assertThat(lookup.lookupPrincipalByGroupName("staff").getName()).isEqualTo("50");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> lookup.lookupPrincipalByGroupName("alice"))
        .isInstanceOf(java.nio.file.attribute.UserPrincipalNotFoundException.class);
    Path f = Files.createFile(fs.getPath("/owned"));
    Files.setOwner(f, lookup.lookupPrincipalByName("alice"));
    assertThat(Files.getAttribute(f, "unix:uid")).isEqualTo(1000);
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

  @org.junit.jupiter.api.Test
  void close_closesEveryChannelAndStream_andLaterCallsThrowClosedFileSystem() throws IOException {
    Path f = Files.writeString(root.resolve("held"), "x");
    var channel = java.nio.channels.FileChannel.open(f, StandardOpenOption.READ);
    var store = Files.getFileStore(f);
    try (var stream = Files.newDirectoryStream(root)) { // closing it again after the file system did is a no-op
      fs.close();
      assertThat(channel.isOpen()).isFalse();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> channel.read(java.nio.ByteBuffer.allocate(1)))
          .isInstanceOf(java.nio.channels.ClosedChannelException.class);
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> stream.iterator().hasNext()).isInstanceOf(IllegalStateException.class);
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Files.exists(f)).isInstanceOf(java.nio.file.ClosedFileSystemException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(store::getTotalSpace).isInstanceOf(java.nio.file.ClosedFileSystemException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Files.newByteChannel(f))
        .isInstanceOf(java.nio.file.ClosedFileSystemException.class);
  }

  @org.junit.jupiter.api.Test
  void aNameThatIsNotUtf8_keepsItsBytes_throughListingReadCopyAndDelete() throws IOException {
    byte[] name = {'c', 'a', 'f', (byte) 0xE9, '.', 't', 'x', 't'}; // Latin-1, as the kernel took it
    var nio = (Ext4NioFileSystem) fs;
    try (var f = nio.vfs().openat(null, ("/" + new String(name, java.nio.charset.StandardCharsets.ISO_8859_1))
        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), java.util.EnumSet.of(io.ext4j.fs.OpenFlag.WRITE,
            io.ext4j.fs.OpenFlag.CREATE), 0644, nio.creds())) {
      f.write(0, java.nio.ByteBuffer.wrap("latin".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
    Path listed;
    try (var s = Files.list(root)) {
      listed = s.filter(p -> p.getFileName().toString().startsWith("caf")).findFirst().orElseThrow();
    }
    assertThat(((Ext4Path) listed).lastName()).isEqualTo(name);
    assertThat(listed).as("the shown string is not the name").isNotEqualTo(root.resolve(listed.getFileName().toString()));
    assertThat(Files.readString(listed)).isEqualTo("latin");
    Path copy = Files.copy(listed, root.resolve("copy"));
    assertThat(Files.readString(copy)).isEqualTo("latin");
    try (var walk = Files.walk(root)) {
      assertThat(walk.filter(listed::equals).count()).isEqualTo(1);
    }
    Files.delete(listed);
    assertThat(Files.exists(listed, java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
  }

  @org.junit.jupiter.api.Test
  void theUserView_throughGetAttributeAndReadAttributes_withLinuxNameRules() throws IOException {
    Path f = Files.writeString(root.resolve("tagged"), "x");
    assertThat(Files.getFileStore(f).supportsFileAttributeView(java.nio.file.attribute.UserDefinedFileAttributeView.class)).isTrue();
    Files.setAttribute(f, "user:origin", "camera-7".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Files.setAttribute(f, "user:lens", java.nio.ByteBuffer.wrap(new byte[] {1, 2}));
    assertThat((byte[]) Files.getAttribute(f, "user:origin")).asString().isEqualTo("camera-7");
    var all = Files.readAttributes(f, "user:*");
    assertThat(all).containsOnlyKeys("origin", "lens");
    assertThat((byte[]) all.get("lens")).containsExactly(1, 2);
    var v = Files.getFileAttributeView(f, java.nio.file.attribute.UserDefinedFileAttributeView.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> v.write("", java.nio.ByteBuffer.allocate(1)))
        .isInstanceOf(java.nio.file.FileSystemException.class).hasMessageContaining("Invalid argument");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> v.write("n".repeat(251), java.nio.ByteBuffer.allocate(1)))
        .isInstanceOf(java.nio.file.FileSystemException.class).hasMessageContaining("out of range");
    Path link = Files.createSymbolicLink(root.resolve("link"), f);
    var onLink = Files.getFileAttributeView(link, java.nio.file.attribute.UserDefinedFileAttributeView.class,
        java.nio.file.LinkOption.NOFOLLOW_LINKS);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> onLink.write("x", java.nio.ByteBuffer.allocate(1)))
        .isInstanceOf(java.nio.file.AccessDeniedException.class).hasMessageContaining("link");
  }

  @org.junit.jupiter.api.Test
  void aBlockSizeTheKernelCannotMount_isRefused() {
    java.net.URI uri = java.net.URI.create("ext4:" + image.resolveSibling("big-blocks.img").toUri());
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> FileSystems.newFileSystem(uri, Map.of("create", "true", "blockSize", "65536")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1024, 2048 or 4096").hasMessageContaining("65536");
    assertThat(Files.exists(image.resolveSibling("big-blocks.img"))).isFalse();
  }

  static int blockSize(Path img) throws IOException {
    byte[] sb = new byte[1024];
    try (var c = java.nio.channels.FileChannel.open(img)) {
      c.read(java.nio.ByteBuffer.wrap(sb), 1024);
    }
    return 1024 << java.nio.ByteBuffer.wrap(sb).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0x18);
  }
}
