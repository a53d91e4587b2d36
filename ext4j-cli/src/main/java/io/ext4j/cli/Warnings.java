package io.ext4j.cli;

import java.io.PrintWriter;
import java.util.HashSet;
import java.util.Set;

/** Warnings of a copy that goes on (an attribute the destination refuses …): each kind printed once. */
final class Warnings {
  private final PrintWriter err;
  private final Set<String> said = new HashSet<>(); // owned by the copying thread

  Warnings(PrintWriter err) {
    this.err = err;
  }

  /** Prints {@code "ext4j: warning: " + text} the first time {@code kind} is warned about. */
  void once(String kind, String text) {
    if (said.add(kind)) {
      err.println("ext4j: warning: " + text);
      err.flush();
    }
  }

  boolean any() {
    return !said.isEmpty();
  }
}
