package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
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
 * {@code ext4j rm [-r] [-f] IMAGE PATH...}: removes names (a symbolic link itself, never what it
 * points at). A directory needs {@code -r}, which removes its contents depth-first and then it.
 * Refuses the root directory and paths ending in "." or "..". {@code -f} ignores paths that do not
 * exist. Each failing path is reported on one line, the others still removed; the exit status is
 * then 1. Closes the image cleanly.
 */
@Command(name = "rm", mixinStandardHelpOptions = true, description = "Remove files or directories from an ext4 image.")
public final class RmCommand implements Callable<Integer> {
  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH", description = "Paths to remove.")
  List<String> paths;

  @Option(names = {"-r", "-R"}, description = "Remove directories and their contents recursively.")
  boolean recursive;

  @Option(names = "-f", description = "Ignore paths that do not exist.")
  boolean force;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    int failed = 0;
    try (Ext4FileSystem fs = target.open(true)) {
      PathWalker w = new PathWalker(fs);
      for (String p : paths) {
        try {
          remove(fs, w, p);
        } catch (Ext4Exception e) {
          if (!(force && e.errno() == Errno.ENOENT)) {
            target.report(err, p, e);
            failed++;
          }
        } catch (IOException e) {
          target.report(err, p, e);
          failed++;
        }
      }
    }
    return failed == 0 ? 0 : Main.EXIT_FAILURE;
  }

  private void remove(Ext4FileSystem fs, PathWalker w, String p) throws IOException {
    List<byte[]> parts = PathWalker.components(p.getBytes(StandardCharsets.UTF_8), p);
    if (parts.isEmpty()) {
      throw new CliException(p + ": refusing to remove the root directory (" + target.name() + ")");
    }
    String last = new String(parts.getLast(), StandardCharsets.UTF_8);
    if (last.equals(".") || last.equals("..")) {
      throw new CliException(p + ": refusing to remove '.' or '..' (" + target.name() + ")");
    }
    PathWalker.Parent at = w.parent(p);
    Attributes a = fs.lookup(at.dir(), at.name());
    if (a.ino() == Ext4FileSystem.ROOT) {
      throw new CliException(p + ": refusing to remove the root directory (" + target.name() + ")");
    }
    if (!a.isDirectory()) {
      if (at.trailingSlash()) {
        throw target.failure(p, Errno.ENOTDIR, null);
      }
      fs.unlink(at.dir(), at.name());
      return;
    }
    if (!recursive) {
      throw target.failure(p, Errno.EISDIR, "use -r");
    }
    removeTree(fs, a.ino(), p);
    fs.rmdir(at.dir(), at.name());
  }

  /** Empties directory {@code dir}, depth-first. */
  private void removeTree(Ext4FileSystem fs, long dir, String shown) throws IOException {
    for (DirEntry e : DirListing.sorted(fs, dir, false)) {
      String child = DirListing.join(shown, e.nameString());
      try {
        Attributes a = fs.getattr(e.ino());
        if (a.isDirectory()) {
          removeTree(fs, a.ino(), child);
          fs.rmdir(dir, e.name());
        } else {
          fs.unlink(dir, e.name());
        }
      } catch (Ext4Exception x) {
        throw new CliException(Main.message(target.failure(child, x)), x);
      }
    }
  }
}
