package io.ext4j.nio;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the concurrency race reports of a file beside a violation: the engine's view and the image's bytes. */
@Tag("fast")
class InspectingOpsTest {
  @TempDir
  Path tmp;

  @Test
  void inspect_namesTheInodeSizeExtentsAndTheBlocksBytesOnTheImage_orThatTheNameIsGone() throws Exception {
    Path img = tmp.resolve("i.img");
    try (FileSystem fs = FileSystems.newFileSystem(URI.create("ext4:" + img.toUri()), Map.of("create", "true", "size", "64m", "blockSize", "1024"))) {
      InspectingOps ops = new InspectingOps(fs, img);
      ops.mkdir("d0");
      byte[] data = new byte[2240];
      java.util.Arrays.fill(data, 0, 1024, (byte) 0x41);
      ops.write("d0/s2", data, false);
      try (var ch = java.nio.channels.FileChannel.open(fs.getPath("/d0/s2"), java.nio.file.StandardOpenOption.WRITE)) {
        ch.force(true);
      }
      String seen = ops.inspect("d0/s2");
      assertThat(seen).matches("inode \\d+ \\(generation -?\\d+\\), size 2240, extents 0\\+\\d+→\\d+.*")
          .contains("on the image: " + "41".repeat(16) + "…, 0 of 1024 bytes zero]")
          .contains("1024 of 1024 bytes zero]");
      assertThat(ops.inspect("d0/gone")).startsWith("not found now (");
    }
  }
}
