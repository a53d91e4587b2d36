package io.ext4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The host's user and group names (from /etc/passwd and /etc/group), as dumpe2fs shows them next to ids. */
final class HostNames {
  private HostNames() {}

  /** {@code (user NAME)}, or {@code (user unknown)}. */
  static String user(long uid) {
    String n = lookup(Path.of("/etc/passwd"), uid);
    return "(user " + (n == null ? "unknown" : n) + ")";
  }

  /** {@code (group NAME)}, or {@code (group unknown)}. */
  static String group(long gid) {
    String n = lookup(Path.of("/etc/group"), gid);
    return "(group " + (n == null ? "unknown" : n) + ")";
  }

  /** The name of the line whose third field is {@code id}, or null. */
  static String lookup(Path file, long id) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException | RuntimeException e) {
      return null;
    }
    for (String line : lines) {
      String[] f = line.split(":", -1);
      if (f.length > 2 && f[2].equals(Long.toString(id))) {
        return f[0];
      }
    }
    return null;
  }
}
