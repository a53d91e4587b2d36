package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built jars work as named modules and on the class path alike: the same commands (mkfs, put,
 * ls, cat, fsck) run through {@code java -m io.ext4j.cli/io.ext4j.cli.Main} with every ext4j module
 * and library on the module path, and through {@code java -cp}. On the module path the modules'
 * {@code requires} must resolve the whole graph (no {@code --add-modules}), the engine's services
 * must be found and no module may reach a package another does not export. A failsafe test: it
 * runs after {@code package}, on the jars this build made.
 */
@Tag("fast")
class ModulePathIT {
  /** The one module that makes restricted FFM calls: io.ext4j.block.os binds libc for every other module. */
  private static final String NATIVE = "--enable-native-access=io.ext4j.block";

  @TempDir Path tmp;

  @Test
  void theCliRunsAsANamedModule() throws Exception {
    List<String> modulePath = built();
    assertThat(modulePath).as("the jars of this build on the test class path")
        .anyMatch(p -> p.endsWith(".jar") && p.contains("ext4j-fs"))
        .anyMatch(p -> p.contains("ext4j-cli"));
    session(List.of("--module-path", String.join(File.pathSeparator, modulePath), NATIVE, "-m", "io.ext4j.cli/io.ext4j.cli.Main"));
  }

  @Test
  void theCliRunsOnTheClassPath() throws Exception {
    session(List.of("-cp", String.join(File.pathSeparator, built()), "--enable-native-access=ALL-UNNAMED", "io.ext4j.cli.Main"));
  }

  /** mkfs, put, ls, cat and fsck through one launch line, each asserted. */
  private void session(List<String> launch) throws Exception {
    Path img = tmp.resolve("m.img");
    Path file = Files.writeString(tmp.resolve("hello.txt"), "hello from a module\n");
    run(launch, "mkfs", img.toString(), "8M");
    run(launch, "put", img.toString(), file.toString(), "/hello.txt");
    assertThat(run(launch, "ls", img.toString(), "/")).contains("hello.txt");
    assertThat(run(launch, "cat", img.toString(), "/hello.txt")).isEqualTo("hello from a module\n");
    run(launch, "fsck", img.toString());
  }

  /**
   * The class path this test runs with, less the test classes: the modules' jars (or, for this
   * module, its classes directory, which holds module-info.class) and their libraries.
   */
  private static List<String> built() {
    String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> out = new ArrayList<>();
    for (String entry : cp.split(File.pathSeparator, 0)) {
      Path p = Path.of(entry);
      boolean jar = entry.endsWith(".jar") && Files.isRegularFile(p);
      boolean module = Files.isDirectory(p) && Files.isRegularFile(p.resolve("module-info.class"));
      if ((jar || module) && !entry.contains("test-classes")) {
        out.add(entry);
      }
    }
    return out;
  }

  /** Runs the CLI with {@code args}; its standard output, or an assertion failure with everything it said. */
  private static String run(List<String> launch, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(launch);
    command.addAll(List.of(args));
    Path errFile = Files.createTempFile("ext4j-module-path", ".err");
    try {
      Process p = new ProcessBuilder(command).redirectError(errFile.toFile()).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s finished", args[0]).isTrue();
      String err = Files.readString(errFile);
      assertThat(p.exitValue()).as("%s: exit status; stdout:%n%s%nstderr:%n%s", String.join(" ", command), out, err).isZero();
      assertThat(err).as("%s: stderr", args[0]).doesNotContain("Exception").doesNotContain("WARNING");
      return out;
    } finally {
      Files.delete(errFile);
    }
  }
}

