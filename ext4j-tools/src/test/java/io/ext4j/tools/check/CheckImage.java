package io.ext4j.tools.check;

import io.ext4j.block.FileBlockDevice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/** Runs the {@link Checker} on an image file, opened read-only with the filesystem's block size. */
public final class CheckImage {
  private CheckImage() {}

  /** The block size the superblock of {@code image} declares (1024 if it declares nonsense). */
  public static int blockSize(Path image) throws IOException {
    try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      ByteBuffer b = ByteBuffer.allocate(1024);
      probe.read(1, b);
      int log = b.get(0x18) & 0xFF;
      return log <= 6 ? 1024 << log : 1024;
    }
  }

  public static CheckReport check(Path image, CheckOptions options) throws IOException {
    try (FileBlockDevice d = FileBlockDevice.open(image, blockSize(image), FileBlockDevice.Options.defaults().withReadOnly(true))) {
      return Checker.check(d, options);
    }
  }

  public static CheckReport check(Path image) throws IOException {
    return check(image, CheckOptions.defaults());
  }
}
