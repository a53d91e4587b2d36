package io.ext4j.nio;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader whose file is truncated and rewritten under it, one step at a time, on 1 KiB blocks: the
 * interleaving of the concurrency workload's open-truncate-write with a {@code Files.readAllBytes}
 * that saw the size 0 and so reads one byte, then the rest (the second read through the block
 * cache). Every read gives the new content, never zeros or the freed blocks' old bytes, while the
 * truncate's freed blocks and those other files free are reused.
 */
@Tag("fast")
class TruncateUnderReaderTest {
  @TempDir
  Path tmp;

  @Test
  void aReaderOpenedBeforeATruncateAndRewrite_readsTheNewContent_byteThenRest() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    URI uri = URI.create("ext4:" + tmp.resolve("t.img").toUri());
    try (FileSystem fs = FileSystems.newFileSystem(uri, Map.of("create", "true", "size", "64m", "blockSize", "1024"))) {
      Path f = fs.getPath("/f");
      Files.write(f, content("old", 0, 2240));
      for (int round = 1; round <= 300; round++) {
        int length = 64 + r.nextInt(5000);
        if (r.nextInt(3) == 0) { // another file's freed blocks, for the rewrite to take
          Path other = fs.getPath("/other" + round);
          Files.write(other, content("other", round, 1024 * (1 + r.nextInt(4))));
          Files.delete(other);
        }
        if (r.nextBoolean()) {
          Files.readAllBytes(f); // the old content cached
        }
        try (SeekableByteChannel reader = Files.newByteChannel(f, StandardOpenOption.READ)) {
          byte[] want = content("new", round, length);
          try (SeekableByteChannel writer = Files.newByteChannel(f, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            assertThat(reader.size()).as("seed %d, round %d: size seen by the reader after the truncate", seed, round).isZero();
            writer.write(ByteBuffer.wrap(want));
          }
          ByteBuffer first = ByteBuffer.allocate(1);
          assertThat(reader.position(0).read(first)).isEqualTo(1);
          ByteBuffer rest = ByteBuffer.allocate(length - 1);
          while (rest.hasRemaining() && reader.read(rest) > 0) {
            // until the end
          }
          byte[] got = new byte[length];
          got[0] = first.get(0);
          System.arraycopy(rest.array(), 0, got, 1, length - 1);
          assertThat(got).as("seed %d, round %d: %d bytes read after the rewrite", seed, round, length).isEqualTo(want);
        }
      }
    }
  }

  /** {@code length} bytes of 64-byte labels naming {@code what}, {@code round} and the label's index. */
  private static byte[] content(String what, int round, int length) {
    StringBuilder s = new StringBuilder(length + 64);
    for (int i = 0; s.length() < length; i++) {
      String label = "<" + what + "|" + round + "|" + i + ">";
      s.append(label).append(".".repeat(64 - label.length()));
    }
    return s.substring(0, length).getBytes(StandardCharsets.US_ASCII);
  }
}
