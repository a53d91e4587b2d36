package io.ext4j.fs;

/**
 * Sizes as people write them for file systems: a whole number with an optional binary unit,
 * {@code k}, {@code m}, {@code g} or {@code t} (KiB, MiB, GiB, TiB; either case), as mke2fs,
 * truncate(1) and fio read them. The one parser of the project: the CLI's sizes, the java.nio
 * provider's size options and the benchmark's image sizes all go through it.
 */
public final class ByteSize {
  private ByteSize() {}

  /**
   * The number of bytes {@code text} writes: {@code "64m"} is 67,108,864, {@code "4096"} is 4,096.
   *
   * @throws IllegalArgumentException naming {@code text} if it is not a positive whole number with an
   *     optional unit, or if the size does not fit in a long
   */
  public static long parse(String text) {
    int shift = unitShift(text);
    String t = text.strip();
    String digits = shift > 0 ? t.substring(0, t.length() - 1) : t;
    long n;
    try {
      n = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a size (a positive whole number with an optional unit k, m, g or t)");
    }
    if (n <= 0) {
      throw new IllegalArgumentException("'" + text + "' is not a size (a positive whole number with an optional unit k, m, g or t)");
    }
    if (n > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("'" + text + "' is too large a size (more than 2^63 - 1 bytes)");
    }
    return n << shift;
  }

  /** Whether {@code text} ends in one of the units (after surrounding blanks), so that it is not a bare number. */
  public static boolean hasUnit(String text) {
    return unitShift(text) > 0;
  }

  /** 10, 20, 30 or 40 for a trailing k, m, g or t; 0 without one. */
  private static int unitShift(String text) {
    String t = text.strip();
    if (t.isEmpty()) {
      return 0;
    }
    return switch (Character.toLowerCase(t.charAt(t.length() - 1))) {
      case 'k' -> 10;
      case 'm' -> 20;
      case 'g' -> 30;
      case 't' -> 40;
      default -> 0;
    };
  }
}
