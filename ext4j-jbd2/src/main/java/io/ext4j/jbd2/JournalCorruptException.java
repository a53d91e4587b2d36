package io.ext4j.jbd2;

/**
 * A journal structure failed a check: bad magic, wrong block type, bad checksum, a field out of
 * range. Carries the device, the journal block and the evidence.
 */
public class JournalCorruptException extends JournalException {
  private static final long serialVersionUID = 1L;
  private final String device;
  private final long journalBlock;
  private final String what;

  /**
   * @param journalBlock the journal (logical) block that failed, or -1
   * @param what the check that failed, e.g. "commit block checksum"
   * @param evidence what was expected and found, e.g. "expected 0x1234abcd, found 0x00000000"
   */
  public JournalCorruptException(String device, long journalBlock, String what, String evidence) {
    super(device + ": journal " + (journalBlock >= 0 ? "block " + journalBlock + ": " : "") + what
        + (evidence == null || evidence.isEmpty() ? "" : " (" + evidence + ")"));
    this.device = device;
    this.journalBlock = journalBlock;
    this.what = what;
  }

  /** Convenience for a checksum or magic mismatch. */
  public static JournalCorruptException mismatch(String device, long journalBlock, String what, long expected, long actual) {
    return new JournalCorruptException(device, journalBlock, what,
        String.format("expected 0x%08x, found 0x%08x", expected, actual));
  }

  public String device() {
    return device;
  }

  public long journalBlock() {
    return journalBlock;
  }

  public String what() {
    return what;
  }
}
