package io.ext4j.testkit.block;

import io.ext4j.block.FileBlockDevice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The SPI contract for {@link FileBlockDevice} opened with O_DIRECT (4 KiB blocks, heap buffers bounced). */
@Tag("fast")
class FileBlockDeviceDirectIoTest extends FileBlockDeviceTest {
  @Override
  protected FileBlockDevice.Options options() {
    return FileBlockDevice.Options.defaults().withDirect(true);
  }

  @Override
  protected int blockSize() {
    return 4096;
  }

  @Test
  void direct_roundTripsThroughAlignedAndUnalignedDirectBuffers() throws IOException {
    FileBlockDevice d = (FileBlockDevice) device();
    assertThat(d.isDirect()).isTrue();
    ByteBuffer aligned = d.allocateAligned(2 * 4096);
    aligned.put(pattern(2, 71)).flip();
    d.write(4, aligned);

    ByteBuffer unaligned = ByteBuffer.allocateDirect(2 * 4096 + 3).position(3).slice();
    d.read(4, unaligned);
    assertThat(bytes(unaligned.flip())).isEqualTo(bytes(pattern(2, 71)));

    ByteBuffer back = d.allocateAligned(4096);
    d.read(5, back);
    assertThat(bytes(back.flip())).isEqualTo(bytes(pattern(2, 71).position(4096)));
  }

  @Test
  void direct_withABlockSmallerThanTheFileStoreAlignment_isRejectedAtOpen() throws IOException {
    Path image = Path.of("target", "file-block-device-tests", "small-direct.img").toAbsolutePath();
    java.nio.file.Files.deleteIfExists(image);
    try {
      assertThatThrownBy(() -> FileBlockDevice.open(image, 512, FileBlockDevice.Options.defaults().withDirect(true).create(8)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("multiple of");
    } finally {
      java.nio.file.Files.deleteIfExists(image);
    }
  }
}
