package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.vfs.Capability;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code IMAGE} argument of the file commands (ls, cat, put …), opening it through
 * {@link Ext4FileSystem}, and the wording of their failures: an engine error on a path becomes one
 * line naming the path, the error and the image, e.g. {@code /a/b: no such file or directory (disk.img)}.
 */
public final class ImageTarget {
  @Parameters(index = "0", paramLabel = "IMAGE", description = "An ext4 image file or block device.")
  Path image;

  @Option(names = "--journal-dev", paramLabel = "PATH",
      description = "IMAGE's external journal device (IMAGE made by mke2fs -J device=); its UUID must be IMAGE's journal UUID.")
  Path journalDevice;

  /** Errors whose description says it all; the others also carry the engine's evidence. */
  private static final Set<Errno> PLAIN = EnumSet.of(Errno.ENOENT, Errno.ENOTDIR, Errno.EEXIST, Errno.EISDIR,
      Errno.ENOTEMPTY, Errno.ELOOP, Errno.ENAMETOOLONG, Errno.ENOSPC, Errno.EMLINK, Errno.EROFS, Errno.EPERM,
      Errno.EACCES, Errno.EDQUOT, Errno.EFBIG);

  /**
   * Opens the image: read-only ({@link Ext4Options#readOnly}; an image that needs journal recovery is
   * replayed in memory) or writable, in which case an image the engine will only open read-only (an
   * unknown ro_compat feature) is refused with the engine's reason.
   */
  Ext4FileSystem open(boolean writable) throws IOException {
    return open(writable, false);
  }

  /** As {@link #open(boolean)}, with {@code dirSync} the {@code dirsync} mount option ({@link Ext4Options#dirSync}). */
  Ext4FileSystem open(boolean writable, boolean dirSync) throws IOException {
    return open(writable, b -> b.dirSync(dirSync));
  }

  /** As {@link #open(boolean)}, with the engine's options a mount sets ({@code dirsync}, atime) applied by {@code mount}. */
  Ext4FileSystem open(boolean writable, java.util.function.UnaryOperator<Ext4Options.Builder> mount) throws IOException {
    if (Files.isDirectory(image)) {
      throw new CliException(image + ": is a directory, not an ext4 image");
    }
    if (!writable) {
      return open(mount.apply(Ext4Options.builder()).readOnly(true).build());
    }
    Ext4FileSystem fs = open(mount.apply(Ext4Options.builder()).build());
    if (fs.isReadOnly()) {
      String why = fs.readOnlyReason();
      fs.close();
      throw new CliException(image + ": cannot write: " + why);
    }
    return fs;
  }

  private Ext4FileSystem open(Ext4Options options) throws IOException {
    return journalDevice == null ? Ext4FileSystem.open(image, options) : Ext4FileSystem.open(image, journalDevice, options);
  }

  /** The image's name as the user gave it. */
  String name() {
    return image.toString();
  }

  /**
   * One line for a failure on {@code path} in the image: an engine error names the path, the error
   * (with the engine's evidence unless the error says it all) and the image; anything else (the
   * image missing or not ext4, a host file's error, a line already worded) is returned as it is.
   */
  IOException failure(String path, IOException e) {
    if (e instanceof Ext4Exception x) {
      String detail = PLAIN.contains(x.errno()) ? "" : evidence(x);
      return new CliException(path + ": " + x.errno().description() + detail + " (" + image + ")", e);
    }
    return e; // an Ext4FormatException names the image and the structure already
  }

  /** The engine's evidence: its message without the "ERRNO (description)" it starts with. */
  private static String evidence(Ext4Exception x) {
    String m = x.getMessage();
    String prefix = x.errno().name() + " (" + x.errno().description() + ")";
    if (m.startsWith(prefix)) {
      m = m.substring(prefix.length());
      return m.startsWith(": ") ? m : m.isEmpty() ? "" : ": " + m;
    }
    return ": " + m;
  }

  /**
   * Reports one failure of a command that goes on with its other paths (mkdir a b, rm a b): one line
   * on {@code err}, as {@link Main} would print it.
   */
  void report(java.io.PrintWriter err, String path, IOException e) {
    err.println("ext4j: " + Main.message(failure(path, e)));
    err.flush();
  }

  /** A failure on {@code path} with an errno of the command's own (EISDIR for rm of a directory …). */
  CliException failure(String path, Errno errno, String hint) {
    return new CliException(path + ": " + errno.description() + (hint == null ? "" : " (" + hint + ")") + " (" + image + ")");
  }

  /** What {@code path} names (a final symbolic link followed when {@code follow}), wording a failure. */
  Attributes stat(Vfs vfs, String path, boolean follow) throws IOException {
    try {
      return vfs.statat(null, bytes(path), follow, credentials());
    } catch (IOException e) {
      throw failure(path, e);
    }
  }

  /** What {@code path} names (a final symbolic link followed), or null when nothing does; other failures are thrown as they are. */
  static Attributes statIfExists(Vfs vfs, String path) throws IOException {
    try {
      return vfs.statat(null, bytes(path), true, credentials());
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOENT) {
        return null;
      }
      throw e;
    }
  }

  /** A path argument as the bytes the VFS resolves. */
  static byte[] bytes(String path) {
    return path.getBytes(StandardCharsets.UTF_8);
  }

  /** A path argument's components (split on '/', empty ones dropped), as basename(1) sees them. */
  static List<String> components(String path) {
    List<String> out = new ArrayList<>();
    for (String c : path.split("/", 0)) {
      if (!c.isEmpty()) {
        out.add(c);
      }
    }
    return out;
  }

  /**
   * The user running the command, with its umask and every capability: the identity of the file
   * commands' VFS calls (see the class doc).
   */
  static Credentials credentials() {
    return Who.CREDENTIALS;
  }

  /** The process's identity, read once. */
  private static final class Who {
    static final Credentials CREDENTIALS = of(caller());

    private static Credentials of(Caller c) {
      return Credentials.user(c.uid(), c.gid()).withUmask(umask()).withCapabilities(java.util.EnumSet.allOf(Capability.class));
    }
  }

  /** Who creates things: the user running the command, as the kernel would make it the owner. */
  static Caller caller() {
    try {
      Path self = Path.of("/proc/self"); // a link to /proc/<pid>, owned by the process's effective ids
      int uid = (Integer) Files.getAttribute(self, "unix:uid");
      int gid = (Integer) Files.getAttribute(self, "unix:gid");
      return new Caller(uid, gid);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return Caller.ROOT;
    }
  }

  /** Whether the command runs as root (owners are then applied on the host, and every xattr namespace copied). */
  static boolean isRoot() {
    return caller().uid() == 0;
  }

  /** The process's umask (from /proc/self/status), 022 where it cannot be read. */
  static int umask() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Umask:")) {
          return Integer.parseInt(line.substring(6).strip(), 8);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // fall through to the usual default
    }
    return 022;
  }
}
