package io.ext4j.fs;

/** renameat2 flags. */
public enum RenameMode {
  /** Replace an existing target (of a compatible type). */
  REPLACE,
  /** Fail with EEXIST if the target exists (RENAME_NOREPLACE). */
  NOREPLACE,
  /** Swap the two entries, both of which must exist (RENAME_EXCHANGE). */
  EXCHANGE
}
