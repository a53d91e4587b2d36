package io.ext4j.jbd2;

/**
 * The journal was aborted after an I/O error on a durability path. Every later handle start, stop
 * and commit wait fails with this exception; its cause is the original failure.
 */
public final class JournalAbortedException extends JournalException {
  private static final long serialVersionUID = 1L;

  public JournalAbortedException(String device, Throwable cause) {
    super(device + ": journal aborted" + (cause == null ? "" : " after: " + cause.getMessage()), cause);
  }
}
