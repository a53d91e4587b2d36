package io.ext4j.cli;

import java.io.IOException;

/**
 * A failure the user can act on, with its one-line message already worded ("{@code /a/b: no such file
 * or directory (disk.img)}"); {@link Main} prints it after {@code "ext4j: "} and exits 1.
 */
final class CliException extends IOException {
  private static final long serialVersionUID = 1L;

  CliException(String message) {
    super(message);
  }

  CliException(String message, Throwable cause) {
    super(message, cause);
  }
}
