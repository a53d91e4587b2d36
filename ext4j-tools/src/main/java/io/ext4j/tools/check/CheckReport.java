package io.ext4j.tools.check;

import java.util.List;
import java.util.Locale;

/**
 * What {@link Checker#check} found.
 *
 * @param device the device's name
 * @param checked false when the filesystem could not be checked at all (not ext4, unreadable,
 *     unsupported); {@link #problems} then says why
 * @param problems errors: each makes the filesystem unclean (e2fsck would exit 4)
 * @param notes findings that do not make it unclean: what e2fsck -fn prints but exits 0 on (free
 *     totals, extent trees that could be smaller, a skipped journal replay) and states a clean
 *     unmount does not leave but e2fsck -fn accepts (an orphan list head); with
 *     {@link CheckOptions#strict()} the stricter ones are problems instead
 * @param omittedProblems problems found beyond {@link CheckOptions#maxProblems()}, counted only
 * @param omittedNotes notes found beyond {@link CheckOptions#maxProblems()}, counted only
 * @param counts what the check counted (meaningful when {@code checked})
 * @param journalReplayed whether the journal was replayed into an overlay before checking
 */
public record CheckReport(String device, boolean checked, List<Problem> problems, List<Problem> notes,
    int omittedProblems, int omittedNotes, Counts counts, boolean journalReplayed) {

  /**
   * Totals the check computed from the structures, not the superblock's stored counts (e2fsck -fn's
   * summary line shows the stored ones, which differ exactly when the free-totals note appears).
   *
   * @param fragmentedFiles files whose data blocks are not physically contiguous in logical order
   */
  public record Counts(long inodesCount, long inodesUsed, long directories, long regularFiles, long symlinks,
      long specialFiles, long blocksCount, long blocksUsed, long fragmentedFiles, long xattrBlocks) {
    static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  public CheckReport {
    problems = List.copyOf(problems);
    notes = List.copyOf(notes);
  }

  /** Checked, and no problem (notes allowed): e2fsck -fn would exit 0. */
  public boolean clean() {
    return checked && problems.isEmpty(); // a problem is omitted only after maxProblems ≥ 1 were listed
  }

  /** Clean and without notes either: e2fsck -fn would print nothing but its pass headers and summary. */
  public boolean silent() {
    return clean() && notes.isEmpty();
  }

  /** e2fsck's exit status: 0 clean, 4 errors left uncorrected, 8 could not check. */
  public int exitCode() {
    if (!checked) {
      return 8;
    }
    return clean() ? 0 : 4;
  }

  /**
   * The report as e2fsck prints its own: one line per problem, then per note, then the summary
   * {@code device: N/M files (P% non-contiguous), X/Y blocks}.
   */
  public String toText() {
    StringBuilder s = new StringBuilder();
    for (Problem p : problems) {
      s.append(p).append('\n');
    }
    for (Problem n : notes) {
      s.append("note: ").append(n).append('\n');
    }
    if (omittedProblems + omittedNotes > 0) {
      s.append("… and ").append(omittedProblems).append(" more problems and ").append(omittedNotes)
          .append(" more notes not listed\n");
    }
    if (!checked) {
      return s.append(device).append(": could not check the filesystem\n").toString();
    }
    if (!clean()) {
      s.append('\n').append(device).append(": ********** WARNING: Filesystem still has errors **********\n\n");
    }
    double frag = counts.inodesUsed() == 0 ? 0 : 100.0 * counts.fragmentedFiles() / counts.inodesUsed();
    s.append(String.format(Locale.ROOT, "%s: %d/%d files (%.1f%% non-contiguous), %d/%d blocks%n", device,
        counts.inodesUsed(), counts.inodesCount(), frag, counts.blocksUsed(), counts.blocksCount()));
    return s.toString();
  }
}
