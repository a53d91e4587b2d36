package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.vfs.AttrChange;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j mkdir [-p] [-m MODE] IMAGE PATH...}: makes directories, owned by the user running the
 * command, with mode 0777 less the umask unless {@code -m}. {@code -p} makes missing parents and
 * accepts directories that exist. A failing path is reported on one line and the others are still
 * made; the exit status is then 1. Closes the image cleanly.
 */
@Command(name = "mkdir", mixinStandardHelpOptions = true, description = "Make directories in an ext4 image.")
public final class MkdirCommand implements Callable<Integer> {
  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH", description = "Directories to make.")
  List<String> paths;

  @Option(names = "-p", description = "Make parent directories as needed; no error if a directory exists.")
  boolean parents;

  @Option(names = "-m", paramLabel = "MODE", description = "Permission bits in octal (default 0777 less the umask).")
  String mode;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    int perms;
    try {
      perms = mode == null ? 0777 : Integer.parseInt(mode, 8);
    } catch (NumberFormatException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "invalid mode '" + mode + "' (octal, e.g. 0755)");
    }
    if (perms < 0 || perms > 07777) {
      throw new CommandLine.ParameterException(spec.commandLine(), "invalid mode '" + mode + "' (at most 07777)");
    }
    PrintWriter err = spec.commandLine().getErr();
    Credentials who = ImageTarget.credentials();
    int failed = 0;
    try (Ext4FileSystem fs = target.open(true)) {
      Vfs vfs = fs.vfs();
      for (String p : paths) {
        try {
          if (parents) {
            makeParents(vfs, p, perms, who);
          } else {
            make(vfs, p, perms, who);
          }
        } catch (IOException e) {
          target.report(err, p, e);
          failed++;
        }
      }
    }
    return failed == 0 ? 0 : Main.EXIT_FAILURE;
  }

  /**
   * mkdir(2) of {@code p}: with {@code -m} the mode is exactly MODE (a chmod follows when the umask
   * or a default ACL took bits away, as mkdir -m does); without it 0777 less the umask, or what the
   * directory's default ACL gives.
   */
  private void make(Vfs vfs, String p, int perms, Credentials who) throws IOException {
    byte[] path = ImageTarget.bytes(p);
    Attributes a = vfs.mkdirat(null, path, mode == null ? 0777 : perms, who);
    if (mode != null && a.permissions() != perms) {
      vfs.setattrat(null, path, false, AttrChange.chmod(perms), who);
    }
  }

  /** mkdir -p: each missing component made with 0777 less the umask (and u+wx), the last as {@link #make}. */
  private void makeParents(Vfs vfs, String p, int perms, Credentials who) throws IOException {
    List<String> parts = ImageTarget.components(p);
    StringBuilder prefix = new StringBuilder();
    for (int i = 0; i < parts.size(); i++) {
      prefix.append('/').append(parts.get(i));
      String sofar = prefix.toString();
      try {
        if (i == parts.size() - 1) {
          make(vfs, sofar, perms, who);
        } else {
          vfs.mkdirat(null, ImageTarget.bytes(sofar), (0777 & ~who.umask()) | 0300, who.withUmask(0));
        }
      } catch (Ext4Exception e) {
        if (e.errno() != Errno.EEXIST) {
          throw e;
        }
        if (!vfs.statat(null, ImageTarget.bytes(sofar), true, who).isDirectory()) {
          throw target.failure(sofar, Errno.ENOTDIR, null);
        }
      }
    }
  }
}
