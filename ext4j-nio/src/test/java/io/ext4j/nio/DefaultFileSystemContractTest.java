package io.ext4j.nio;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;

/** {@link NioContract} against the JDK's own file system in a temporary directory: the reference. */
@Tag("fast")
class DefaultFileSystemContractTest extends NioRulesContract {
  private Path dir;

  @Override
  protected Path freshRoot() throws IOException {
    dir = Files.createTempDirectory("ext4j-nio-contract");
    return dir.toRealPath();
  }

  @Override
  protected void release() throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
