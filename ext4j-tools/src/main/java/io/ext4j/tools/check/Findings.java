package io.ext4j.tools.check;

import java.util.ArrayList;
import java.util.List;

/**
 * Collects the problems and notes of one check, keeping at most {@code max} of each (later ones are
 * counted). A muted collector (for the second walk that names the owners of shared blocks) drops
 * everything. Single-threaded.
 */
final class Findings {
  private final int max;
  private final boolean strict;
  private final boolean muted;
  private final List<Problem> problems = new ArrayList<>();
  private final List<Problem> notes = new ArrayList<>();
  private int omittedProblems;
  private int omittedNotes;
  private long errors;

  Findings(int max, boolean strict) {
    this(max, strict, false);
  }

  private Findings(int max, boolean strict, boolean muted) {
    this.max = max;
    this.strict = strict;
    this.muted = muted;
  }

  /** A collector that records nothing. */
  static Findings muted() {
    return new Findings(1, false, true);
  }

  /** An error: the filesystem is not clean. */
  void error(String structure, long ino, long block, String what) {
    if (muted) {
      return;
    }
    errors++;
    if (problems.size() < max) {
      problems.add(new Problem(structure, ino, block, what));
    } else {
      omittedProblems++;
    }
  }

  /** A note: reported, but the filesystem stays clean. */
  void note(String structure, long ino, long block, String what) {
    if (muted) {
      return;
    }
    if (notes.size() < max) {
      notes.add(new Problem(structure, ino, block, what));
    } else {
      omittedNotes++;
    }
  }

  /** A note that {@link CheckOptions#strict()} makes an error. */
  void strictNote(String structure, long ino, long block, String what) {
    if (strict) {
      error(structure, ino, block, what);
    } else {
      note(structure, ino, block, what);
    }
  }

  /**
   * What e2fsck -fn is silent about but a clean unmount never leaves (an orphan list head, errors
   * recorded in s_state): an error with {@link CheckOptions#strict()}, else nothing.
   */
  void strictOnly(String structure, long ino, long block, String what) {
    if (strict) {
      error(structure, ino, block, what);
    }
  }

  /** Errors so far, listed or not. */
  long errorCount() {
    return errors;
  }

  boolean isMuted() {
    return muted;
  }

  List<Problem> problems() {
    return problems;
  }

  List<Problem> notes() {
    return notes;
  }

  int omittedProblems() {
    return omittedProblems;
  }

  int omittedNotes() {
    return omittedNotes;
  }
}
