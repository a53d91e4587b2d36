package io.ext4j.testkit.block;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.BlockDeviceException;
import io.ext4j.block.FileBlockDevice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.testkit.ReadOnlyBlockDeviceContract;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The SPI contract for buffered {@link FileBlockDevice}, plus its own behaviour. Images live under
 * {@code target/} (a real disk filesystem, unlike a tmpfs {@code /tmp}, so direct I/O works there).
 */
@Tag("fast")
class FileBlockDeviceTest extends ReadOnlyBlockDeviceContract {
  private Path dir;
  private final Map<BlockDevice, Path> paths = new HashMap<>();

  @BeforeEach
  void makeDir() throws IOException {
    Path target = Files.createDirectories(Path.of("target", "file-block-device-tests"));
    dir = Files.createTempDirectory(target.toAbsolutePath(), getClass().getSimpleName());
  }

  @AfterEach
  void removeDir() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Options for the contract's devices; the direct-I/O subclass adds O_DIRECT. */
  protected FileBlockDevice.Options options() {
    return FileBlockDevice.Options.defaults();
  }

  @Override
  protected BlockDevice create(int blockSize, long blockCount) throws IOException {
    Path image = Files.createTempFile(dir, "image", ".img");
    Files.delete(image);
    FileBlockDevice d = FileBlockDevice.open(image, blockSize, options().create(blockCount));
    paths.put(d, image);
    return d;
  }

  @Override
  protected BlockDevice reopenReadOnly(BlockDevice device) throws IOException {
    device.close();
    return FileBlockDevice.open(paths.get(device), device.blockSize(), options().withReadOnly(true));
  }

  @Test
  void open_missingFile_throwsNoSuchFileNamingThePath() {
    Path missing = dir.resolve("no-such.img");
    assertThatThrownBy(() -> FileBlockDevice.open(missing, 1024))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("Options.create");
    assertThatThrownBy(() -> FileBlockDevice.open(missing, 4096, FileBlockDevice.Options.defaults().withReadOnly(true)))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(missing.toString());
  }

  @Test
  void open_withCreate_makesASparseImageOfThatManyBlocks() throws IOException {
    Path image = dir.resolve("new.img");
    try (FileBlockDevice d = FileBlockDevice.open(image, 4096, FileBlockDevice.Options.defaults().create(1000))) {
      assertThat(d.blockCount()).isEqualTo(1000);
      assertThat(d.path()).isEqualTo(image);
      assertThat(readBlock(d, 999)).containsOnly(0);
    }
    assertThat(Files.size(image)).isEqualTo(4096L * 1000);
  }

  @Test
  void open_withCreate_refusesAnExistingFile() throws IOException {
    Path image = Files.write(dir.resolve("exists.img"), new byte[1024]);
    assertThatThrownBy(() -> FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().create(8)))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.size(image)).isEqualTo(1024);
  }

  @Test
  void options_createReadOnly_isRejected() {
    assertThatThrownBy(() -> FileBlockDevice.Options.defaults().withReadOnly(true).create(8))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FileBlockDevice.Options.defaults().create(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void open_existingImage_usesTheCallersBlockSize_andIgnoresATrailingPartialBlock() throws IOException {
    byte[] bytes = new byte[4096 * 3 + 100];
    bytes[4096] = 7;
    Path image = Files.write(dir.resolve("odd.img"), bytes);
    try (FileBlockDevice d4 = FileBlockDevice.open(image, 4096)) {
      assertThat(d4.blockCount()).isEqualTo(3);
      assertThat(readBlock(d4, 1)[0]).isEqualTo((byte) 7);
    }
    try (FileBlockDevice d1 = FileBlockDevice.open(image, 1024)) {
      assertThat(d1.blockCount()).isEqualTo(12);
      assertThat(readBlock(d1, 4)[0]).isEqualTo((byte) 7);
    }
  }

  @Test
  void read_pastAFileThatShrank_failsNamingDeviceAndBlock() throws IOException {
    Path image = dir.resolve("shrinks.img");
    try (FileBlockDevice d = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().create(8))) {
      try (FileChannel ch = FileChannel.open(image, StandardOpenOption.WRITE)) {
        ch.truncate(6 * 1024);
      }
      assertThatThrownBy(() -> d.read(6, ByteBuffer.allocate(2048)))
          .isInstanceOf(BlockDeviceException.class)
          .hasMessageContaining(image.toString())
          .hasMessageContaining("block 6")
          .hasMessageContaining("short read")
          .satisfies(e -> assertThat(((BlockDeviceException) e).block()).isEqualTo(6));
    }
  }

  @Test
  void write_persistsAcrossReopen() throws IOException {
    Path image = dir.resolve("persist.img");
    try (FileBlockDevice d = FileBlockDevice.open(image, blockSize(), options().create(16))) {
      d.write(3, pattern(2, 61), pattern(1, 62));
      d.flush();
    }
    try (FileBlockDevice d = FileBlockDevice.open(image, blockSize(), options().withReadOnly(true))) {
      assertThat(readBlock(d, 5)).isEqualTo(bytes(pattern(1, 62)));
    }
  }
}
