package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** One writer per image file: a second read-write open is refused naming the image; read-only opens are not. */
@Tag("oracle")
class ImageLockTest {
  @Test
  void aSecondReadWriteOpen_isRefused_untilTheFirstCloses_whileReadOnlyOpensAreAllowed() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "lock"));
    Path img = dir.resolve("lock.img");
    Oracle.mkfs(img, 16L << 20, 4096);
    try (Ext4FileSystem first = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      IOException refused = catchThrowableOfType(IOException.class, () -> Ext4FileSystem.open(img, Ext4Options.defaults()));
      assertThat(refused).isNotNull();
      assertThat(refused.getMessage()).contains(img.toString()).contains("already open for writing");
      try (Ext4FileSystem reader = Ext4FileSystem.open(img, Ext4Options.builder().readOnly(true).build())) {
        assertThat(reader.statfs().blockSize()).isEqualTo(4096);
      }
      first.mkdir(Ext4FileSystem.ROOT, "still-writable".getBytes(StandardCharsets.UTF_8), 0755, Caller.ROOT);
    }
    try (Ext4FileSystem again = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      assertThat(again.lookup(Ext4FileSystem.ROOT, "still-writable".getBytes(StandardCharsets.UTF_8)).isDirectory()).isTrue();
    }
    LargeStructuresOracleTest.assertClean(img);
  }
}
