package io.ext4j.jbd2;

import java.io.IOException;

/** Base type of the journal's checked failures; every subtype names the device. */
public class JournalException extends IOException {
  private static final long serialVersionUID = 1L;

  public JournalException(String message) {
    super(message);
  }

  public JournalException(String message, Throwable cause) {
    super(message, cause);
  }
}
