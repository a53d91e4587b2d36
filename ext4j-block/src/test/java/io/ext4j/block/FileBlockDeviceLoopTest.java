package io.ext4j.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link FileBlockDevice} over a raw block device (a loop device, so root): its size comes from sysfs. */
@Tag("root")
class FileBlockDeviceLoopTest {
  @Test
  void open_rawBlockDevice_takesItsSizeFromTheKernel() throws IOException, InterruptedException {
    long bytes = 9L << 20;
    Path dir = Files.createDirectories(Path.of("target", "file-block-device-tests").toAbsolutePath());
    Path img = dir.resolve("loop.img");
    Files.deleteIfExists(img);
    try (FileChannel ch = FileChannel.open(img, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(1), bytes - 1);
    }
    Path dev = Path.of(losetup("-f", "--show", img.toString()).strip());
    try {
      assertThat(FileBlockDevice.sysfsSectors(dev)).as("sysfs size of %s", dev).hasValue(bytes / 512);
      try (FileBlockDevice d = FileBlockDevice.open(dev, 4096, FileBlockDevice.Options.defaults().withReadOnly(true))) {
        assertThat(d.blockCount()).isEqualTo(bytes / 4096);
      }
    } finally {
      losetup("-d", dev.toString());
      Files.deleteIfExists(img);
    }
  }

  /** Runs losetup with {@code args}; its standard output, or an assertion failure with what it said. */
  private static String losetup(String... args) throws IOException, InterruptedException {
    String[] command = new String[args.length + 1];
    command[0] = "losetup";
    System.arraycopy(args, 0, command, 1, args.length);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("losetup %s finished", String.join(" ", args)).isTrue();
    assertThat(p.exitValue()).as("losetup %s: %s", String.join(" ", args), out).isZero();
    return out;
  }
}
