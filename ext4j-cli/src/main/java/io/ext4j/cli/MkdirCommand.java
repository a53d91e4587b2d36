package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.PathWalker;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
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
    int umask = ImageTarget.umask();
    int perms;
    try {
      perms = mode == null ? 0777 & ~umask : Integer.parseInt(mode, 8);
    } catch (NumberFormatException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "invalid mode '" + mode + "' (octal, e.g. 0755)");
    }
    if (perms < 0 || perms > 07777) {
      throw new CommandLine.ParameterException(spec.commandLine(), "invalid mode '" + mode + "' (at most 07777)");
    }
    PrintWriter err = spec.commandLine().getErr();
    Caller who = ImageTarget.caller();
    int failed = 0;
    try (Ext4FileSystem fs = target.open(true)) {
      PathWalker w = new PathWalker(fs);
      for (String p : paths) {
        try {
          if (parents) {
            makeParents(fs, w, p, perms, (0777 & ~umask) | 0300, who);
          } else {
            make(fs, w, p, perms, who);
          }
        } catch (IOException e) {
          target.report(err, p, e);
          failed++;
        }
      }
    }
    return failed == 0 ? 0 : Main.EXIT_FAILURE;
  }

  private void make(Ext4FileSystem fs, PathWalker w, String p, int perms, Caller who) throws IOException {
    if (PathWalker.components(p.getBytes(StandardCharsets.UTF_8), p).isEmpty()) {
      throw target.failure(p, Errno.EEXIST, null); // "/" exists
    }
    PathWalker.Parent at = w.parent(p);
    fs.mkdir(at.dir(), at.name(), perms, who);
  }

  /** mkdir -p: each missing component made with {@code between}, the last with {@code perms}. */
  private void makeParents(Ext4FileSystem fs, PathWalker w, String p, int perms, int between, Caller who) throws IOException {
    List<byte[]> parts = PathWalker.components(p.getBytes(StandardCharsets.UTF_8), p);
    StringBuilder prefix = new StringBuilder();
    for (int i = 0; i < parts.size(); i++) {
      prefix.append('/').append(new String(parts.get(i), StandardCharsets.UTF_8));
      String sofar = prefix.toString();
      Attributes a = w.resolveIfExists(sofar, PathWalker.Follow.FOLLOW);
      if (a != null) {
        if (!a.isDirectory()) {
          throw target.failure(sofar, Errno.ENOTDIR, null);
        }
        continue;
      }
      PathWalker.Parent at = w.parent(sofar);
      fs.mkdir(at.dir(), at.name(), i == parts.size() - 1 ? perms : between, who);
    }
  }
}
