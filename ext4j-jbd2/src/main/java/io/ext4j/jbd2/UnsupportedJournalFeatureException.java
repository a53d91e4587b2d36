package io.ext4j.jbd2;

/** The journal superblock sets a feature this implementation does not understand; nothing was changed. */
public final class UnsupportedJournalFeatureException extends JournalException {
  private static final long serialVersionUID = 1L;

  public UnsupportedJournalFeatureException(String device, String feature) {
    super(device + ": journal uses unsupported feature " + feature + "; refusing to open it");
  }
}
