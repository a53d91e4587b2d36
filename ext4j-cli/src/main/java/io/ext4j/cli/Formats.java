package io.ext4j.cli;

import static io.ext4j.fs.Attributes.S_IFBLK;
import static io.ext4j.fs.Attributes.S_IFCHR;
import static io.ext4j.fs.Attributes.S_IFDIR;
import static io.ext4j.fs.Attributes.S_IFIFO;
import static io.ext4j.fs.Attributes.S_IFLNK;
import static io.ext4j.fs.Attributes.S_IFREG;
import static io.ext4j.fs.Attributes.S_IFSOCK;

import io.ext4j.fs.Attributes;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** How the file commands print what the engine returns: mode strings, type names, times, device numbers. */
final class Formats {
  private static final DateTimeFormatter LS_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT);
  private static final DateTimeFormatter STAT_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.nnnnnnnnn xx", Locale.ROOT);
  private static final DateTimeFormatter CTIME = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT);

  private Formats() {}

  /** ls's mode string: the type letter and the nine permission letters with s/S, t/T. */
  static String modeString(int mode) {
    StringBuilder s = new StringBuilder(10);
    s.append(switch (mode & Attributes.S_IFMT) {
      case S_IFDIR -> 'd';
      case S_IFLNK -> 'l';
      case S_IFCHR -> 'c';
      case S_IFBLK -> 'b';
      case S_IFIFO -> 'p';
      case S_IFSOCK -> 's';
      case S_IFREG -> '-';
      default -> '?';
    });
    triple(s, mode >> 6, (mode & 04000) != 0, 's');
    triple(s, mode >> 3, (mode & 02000) != 0, 's');
    triple(s, mode, (mode & 01000) != 0, 't');
    return s.toString();
  }

  private static void triple(StringBuilder s, int bits, boolean special, char letter) {
    s.append((bits & 4) != 0 ? 'r' : '-');
    s.append((bits & 2) != 0 ? 'w' : '-');
    boolean x = (bits & 1) != 0;
    s.append(special ? (x ? letter : Character.toUpperCase(letter)) : (x ? 'x' : '-'));
  }

  /** stat(1)'s name of a file type. */
  static String typeName(Attributes a) {
    return switch (a.fileType()) {
      case S_IFREG -> a.size() == 0 ? "regular empty file" : "regular file";
      case S_IFDIR -> "directory";
      case S_IFLNK -> "symbolic link";
      case S_IFCHR -> "character special file";
      case S_IFBLK -> "block special file";
      case S_IFIFO -> "fifo";
      case S_IFSOCK -> "socket";
      default -> "weird file";
    };
  }

  /** ls -l's time (as {@code --time-style=long-iso}), in the local time zone. */
  static String lsTime(Instant t) {
    return LS_TIME.format(t.atZone(ZoneId.systemDefault()));
  }

  /** stat(1)'s time with nanoseconds and the zone offset. */
  static String statTime(Instant t) {
    return STAT_TIME.format(t.atZone(ZoneId.systemDefault()));
  }

  /** ctime(3)'s form, as dumpe2fs prints times: {@code Tue Dec  1 10:05:38 2026}; "n/a" for 0. */
  static String ctime(long epochSeconds) {
    if (epochSeconds == 0) {
      return "n/a";
    }
    ZonedDateTime z = Instant.ofEpochSecond(epochSeconds).atZone(ZoneId.systemDefault());
    return CTIME.format(z);
  }
}
