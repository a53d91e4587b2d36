package io.ext4j.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The test suites no Debian package ships (pjdfstest, xfstests), found where the workplace keeps
 * them: {@code shared/third_party/NAME}.
 */
public final class ThirdParty {
  private ThirdParty() {}

  /**
   * The source of suite {@code name}: {@code -Dext4j.NAME=DIR}, else {@code
   * shared/third_party/NAME} in or beside this directory or one above it, else {@code
   * /work/shared/third_party/NAME}; a candidate counts when it holds {@code marker} (a file the
   * suite always has). Missing, an AssertionError says where it looked, so the oracle test that
   * needs it fails rather than skips.
   */
  public static Path source(String name, String marker) {
    List<Path> tried = new ArrayList<>();
    String fixed = System.getProperty("ext4j." + name);
    if (fixed != null) {
      tried.add(Path.of(fixed));
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      tried.add(p.resolve("shared/third_party").resolve(name));
      tried.add(p.resolveSibling("shared").resolve("third_party").resolve(name));
    }
    tried.add(Path.of("/work/shared/third_party").resolve(name));
    for (Path p : tried) {
      if (Files.isRegularFile(p.resolve(marker))) {
        return p;
      }
    }
    throw new AssertionError(name + "'s source (" + marker + ") is in none of " + tried + "; give it with -Dext4j." + name + "=DIR");
  }
}
