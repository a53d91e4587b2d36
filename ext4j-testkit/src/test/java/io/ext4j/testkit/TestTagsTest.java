package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every test class of every module carries one of the tags the build selects by (fast, crash,
 * oracle, root, soak; see CONTRIBUTING.md), itself or through the class it extends — so a
 * new suite cannot slip into, or out of, the default run unnoticed. Reads the sources.
 */
@Tag("fast")
class TestTagsTest {
  private static final Pattern TAG = Pattern.compile("@Tag\\(\"(fast|crash|oracle|root|soak)\"\\)\\s*(?:@[^\\n]*\\s*)*(?:public |final )*class ");
  private static final Pattern EXTENDS = Pattern.compile("class \\w+ extends (\\w+)");

  @Test
  void everyTestClassInEveryModule_isTaggedFastCrashOracleRootOrSoak() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent(); // tests run in the module's directory
    Map<String, String> sources = new HashMap<>(); // simple class name -> source
    try (Stream<Path> modules = Files.list(root)) {
      for (Path module : modules.filter(m -> Files.isDirectory(m.resolve("src/test/java"))).toList()) {
        try (Stream<Path> files = Files.walk(module.resolve("src/test/java"))) {
          for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
            sources.put(f.getFileName().toString().replace(".java", ""), Files.readString(f));
          }
        }
      }
    }
    assertThat(sources).as("test sources found under %s", root).containsKey("TestTagsTest");
    List<String> untagged = new ArrayList<>();
    for (Map.Entry<String, String> e : sources.entrySet()) {
      String name = e.getKey();
      if ((name.endsWith("Test") || name.endsWith("IT")) && !e.getValue().contains("abstract class " + name)
          && !tagged(name, sources)) {
        untagged.add(name);
      }
    }
    assertThat(untagged).as("test classes without @Tag(\"fast\"|\"crash\"|\"oracle\"|\"soak\")").isEmpty();
  }

  private static boolean tagged(String name, Map<String, String> sources) {
    for (String at = name; at != null; ) {
      String src = sources.get(at);
      if (src == null) {
        return false;
      }
      if (TAG.matcher(src).find()) {
        return true;
      }
      Matcher m = EXTENDS.matcher(src);
      at = m.find() ? m.group(1) : null;
    }
    return false;
  }
}
