package io.ext4j.tools.check;

/** The filesystem cannot be checked at all (exit code 8): not ext4, unreadable, or unsupported. */
final class CannotCheck extends Exception {
  private static final long serialVersionUID = 1L;
  private final String structure;

  CannotCheck(String structure, String what) {
    super(what);
    this.structure = structure;
  }

  CannotCheck(String structure, String what, Throwable cause) {
    super(what, cause);
    this.structure = structure;
  }

  String structure() {
    return structure;
  }
}
