package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** e2fsprogs as the engine tests' oracle; a missing tool fails the test. */
final class Oracle {
  private Oracle() {}

  record Result(int exit, String out, String err) {
    String all() {
      return out + err;
    }
  }

  static Result run(String... cmd) throws IOException, InterruptedException {
    boolean found = false;
    for (String d : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
      found |= Files.isExecutable(Path.of(d, cmd[0]));
    }
    if (!found) {
      throw new AssertionError(cmd[0] + " is not installed (apt-get install e2fsprogs)");
    }
    Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread a = drain(p.getInputStream(), out);
    Thread b = drain(p.getErrorStream(), err);
    boolean done = p.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    if (!done) {
      p.destroyForcibly();
    }
    a.join(5000);
    b.join(5000);
    assertThat(done).as("%s finished in time", List.of(cmd)).isTrue();
    return new Result(p.exitValue(), out.toString(StandardCharsets.ISO_8859_1), err.toString(StandardCharsets.ISO_8859_1));
  }

  private static Thread drain(InputStream in, ByteArrayOutputStream to) {
    Thread t = Thread.ofPlatform().daemon().start(() -> {
      try (in) {
        in.transferTo(to);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    return t;
  }

  /** mkfs.ext4 with the upstream default features (the Debian config lacks two). */
  static void mkfs(Path img, long bytes, int blockSize, String... extra) throws IOException, InterruptedException {
    Files.deleteIfExists(img);
    try (var ch = java.nio.channels.FileChannel.open(img, java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(0);
      ch.write(java.nio.ByteBuffer.allocate(1), bytes - 1);
    }
    List<String> cmd = new java.util.ArrayList<>(List.of("mkfs.ext4", "-q", "-F", "-b", String.valueOf(blockSize)));
    cmd.addAll(List.of(extra));
    cmd.add(img.toString());
    Result r = run(cmd.toArray(String[]::new));
    assertThat(r.exit()).as("mkfs.ext4: %s", r.all()).isZero();
  }

  /** e2fsck -fn: asserts a clean result with no message at all. */
  static void assertClean(Path img) throws IOException, InterruptedException {
    Result r = run("e2fsck", "-fn", img.toString());
    assertThat(r.exit()).as("e2fsck -fn exit; output:%n%s%s", r.out(), r.err()).isZero();
    assertThat(r.out().lines().filter(l -> !l.startsWith("Pass ") && !l.matches(".*: \\d+/\\d+ files \\(.*") && !l.isBlank()))
        .as("e2fsck -fn messages:%n%s", r.out()).isEmpty();
  }
}
