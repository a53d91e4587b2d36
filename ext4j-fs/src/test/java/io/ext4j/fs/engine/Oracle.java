package io.ext4j.fs.engine;

import io.ext4j.testkit.E2fsprogs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/** e2fsprogs as the engine tests' oracle (through the testkit's runner); a missing tool fails the test. */
final class Oracle {
  private Oracle() {}

  /** {@code mkfs.ext4 -q -F -b BLOCKSIZE EXTRA… IMAGE} on a fresh sparse file of {@code bytes}. */
  static void mkfs(Path img, long bytes, int blockSize, String... extra) throws IOException {
    Files.deleteIfExists(img);
    try (FileChannel ch = FileChannel.open(img, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(1), bytes - 1);
    }
    List<String> args = new ArrayList<>(List.of("-b", String.valueOf(blockSize)));
    args.addAll(List.of(extra));
    E2fsprogs.mkfs(img, args.toArray(String[]::new));
  }

  /** e2fsck -fn: asserts exit 0 and no message beyond the pass headers and the summary line. */
  static void assertClean(Path img) {
    E2fsprogs.assertE2fsckClean(img, "");
  }
}
