package io.ext4j.cli;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FormatException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Warnings and errors of a copy that goes on: warnings (an attribute the destination refuses …) each
 * kind printed once; errors (an entry that could not be copied) each printed and counted, so that the
 * command exits 1 at the end, as {@code cp -a} does.
 */
final class Warnings {
  /** Engine errors that concern the whole image, not one entry: a copy stops at them. */
  private static final Set<Errno> WHOLE_IMAGE = EnumSet.of(Errno.ENOSPC, Errno.EDQUOT, Errno.EROFS, Errno.EIO,
      Errno.EUCLEAN, Errno.EBADMSG, Errno.ENOMEM);
  /** The same for the host, as the JDK words them. */
  private static final String[] WHOLE_HOST = {"no space left on device", "disk quota exceeded", "read-only file system",
      "input/output error"};

  private final PrintWriter err;
  private final Set<String> said = new HashSet<>(); // owned by the copying thread
  private int errors; // owned by the copying thread

  Warnings(PrintWriter err) {
    this.err = err;
  }

  /** Prints {@code "ext4j: warning: " + text} the first time {@code kind} is warned about. */
  void once(String kind, String text) {
    if (said.add(kind)) {
      err.println("ext4j: warning: " + text);
      err.flush();
    }
  }

  /** Prints {@code "ext4j: " + text} for an entry that was not copied, and counts it. */
  private void error(String text) {
    errors++;
    err.println("ext4j: " + text);
    err.flush();
  }

  /**
   * A copy's failure on one entry: reported (worded with {@code where} unless it is already a
   * {@link CliException}) and counted when {@link #entryOnly}, so the copy goes on; rethrown otherwise.
   */
  void skipOrThrow(IOException e, Object where) throws IOException {
    if (!entryOnly(e)) {
      throw e;
    }
    error(Main.message(e instanceof CliException ? e : new CliException(where + ": " + Main.message(e), e)));
  }

  /**
   * A directory reached again below itself (a corrupted image whose entry points back at an
   * ancestor): reported once for that path, counted, and not entered, as find and cp do.
   */
  void loop(String path, String ancestor) {
    error(path + ": filesystem loop detected (it is " + ancestor + " again); not entered");
  }

  /** The entries reported by {@link #error}. */
  int errors() {
    return errors;
  }

  /**
   * Whether a copy goes on past {@code e}, a failure to copy one entry: yes when it concerns that
   * entry alone (a host file that vanished or cannot be read, a name or attribute the destination
   * refuses), no when it concerns the whole destination (full, read-only, an I/O error, a corrupted
   * image).
   */
  private static boolean entryOnly(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if ((t instanceof Ext4Exception x && WHOLE_IMAGE.contains(x.errno())) || t instanceof Ext4FormatException) {
        return false;
      }
      String m = t.getMessage() == null ? "" : t.getMessage().toLowerCase(Locale.ROOT);
      for (String w : WHOLE_HOST) {
        if (m.contains(w)) {
          return false;
        }
      }
    }
    return true;
  }

  boolean any() {
    return !said.isEmpty();
  }
}
