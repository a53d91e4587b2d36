package io.ext4j.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * ext4 images written by the Linux kernel and copied while mounted, so that their jbd2 journal holds
 * committed, not-yet-checkpointed transactions (power-cut images). Each needs recovery; e2fsck
 * {@code -E journal_only} replays them. Made by {@code scripts/make-kernel-fixtures.sh}; the
 * resources' {@code fixtures/README.md} says what each contains (block size, transactions, revokes,
 * whether the log wraps).
 *
 * <p>Stored gzip-compressed as {@code fixtures/<name>.img.gz} next to this class.
 */
public final class KernelFixtures {
  private static final List<String> NAMES =
      List.of("1k-basic", "4k-basic", "1k-revoke", "4k-revoke", "1k-wrapped", "4k-wrapped", "1k-v1csum", "4k-v1csum");

  private KernelFixtures() {}

  /** The fixture names, e.g. {@code "4k-wrapped"}. */
  public static List<String> names() {
    return NAMES;
  }

  /** The filesystem block size of a fixture: 1024 for {@code 1k-*}, 4096 for {@code 4k-*}. */
  public static int blockSize(String name) {
    checkName(name);
    return name.startsWith("1k-") ? 1024 : 4096;
  }

  /**
   * Decompresses fixture {@code name} to {@code dir/<name>.img} (replacing any file there) and returns
   * that path. The file is a fresh copy each call, so tests may write to it.
   *
   * @throws IllegalArgumentException for an unknown name
   * @throws IOException if the resource is missing or the file cannot be written
   */
  public static Path extract(String name, Path dir) throws IOException {
    checkName(name);
    String resource = "fixtures/" + name + ".img.gz";
    try (InputStream raw = KernelFixtures.class.getResourceAsStream(resource)) {
      if (raw == null) {
        throw new IOException("kernel fixture resource io/ext4j/testkit/" + resource + " is missing from the class path");
      }
      Files.createDirectories(dir);
      Path out = dir.resolve(name + ".img");
      try (InputStream in = new GZIPInputStream(raw, 1 << 16)) {
        Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
      }
      return out;
    }
  }

  /** The fixture's bytes, decompressed. */
  public static byte[] bytes(String name) {
    checkName(name);
    String resource = "fixtures/" + name + ".img.gz";
    try (InputStream raw = KernelFixtures.class.getResourceAsStream(resource)) {
      if (raw == null) {
        throw new IOException("kernel fixture resource io/ext4j/testkit/" + resource + " is missing from the class path");
      }
      try (InputStream in = new GZIPInputStream(raw, 1 << 16)) {
        return in.readAllBytes();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void checkName(String name) {
    if (!NAMES.contains(name)) {
      throw new IllegalArgumentException("no kernel fixture named '" + name + "'; known: " + NAMES);
    }
  }
}
