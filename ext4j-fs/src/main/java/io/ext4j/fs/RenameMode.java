package io.ext4j.fs;

/** renameat2 flags, as the combinations Linux accepts. */
public enum RenameMode {
  /** Replace an existing target (of a compatible type). */
  REPLACE,
  /** Fail with EEXIST if the target exists (RENAME_NOREPLACE). */
  NOREPLACE,
  /** Swap the two entries, both of which must exist (RENAME_EXCHANGE). */
  EXCHANGE,
  /** Replace, and leave a whiteout (a character device 0:0) at the source name (RENAME_WHITEOUT). */
  WHITEOUT,
  /** RENAME_NOREPLACE | RENAME_WHITEOUT. */
  NOREPLACE_WHITEOUT;

  /** Whether the source name is left as a whiteout. */
  public boolean whiteout() {
    return this == WHITEOUT || this == NOREPLACE_WHITEOUT;
  }

  /** Whether an existing target fails the rename with EEXIST. */
  public boolean noReplace() {
    return this == NOREPLACE || this == NOREPLACE_WHITEOUT;
  }

  /** renameat2's flags as Linux numbers them (NOREPLACE 1, EXCHANGE 2, WHITEOUT 4); EINVAL-worthy combinations give null. */
  public static RenameMode ofFlags(int flags) {
    return switch (flags) {
      case 0 -> REPLACE;
      case 1 -> NOREPLACE;
      case 2 -> EXCHANGE;
      case 4 -> WHITEOUT;
      case 5 -> NOREPLACE_WHITEOUT;
      default -> null;
    };
  }
}
