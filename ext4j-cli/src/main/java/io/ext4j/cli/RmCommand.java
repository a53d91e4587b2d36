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
 * points at). A directory needs {@code -r}, which removes its contents depth-first and then it (a
 * directory met again below itself, in a corrupted image, is reported as a loop and left).
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

  /** A directory being emptied: its entries still to remove, and the directory it is in (for loops). */
  private record Frame(long dir, byte[] name, String shown, java.util.Iterator<DirEntry> entries, Frame up) {
    String ancestor(long ino) {
      for (Frame f = this; f != null; f = f.up) {
        if (f.dir == ino) {
          return f.shown;
        }
      }
      return null;
    }
  }

  /**
   * Empties directory {@code dir}, depth-first and iteratively (one frame per level: memory grows
   * with the tree's depth, not its size). A directory met again below itself (a corrupted image) is
   * reported as a filesystem loop and left, so the directories above it stay too.
   */
  private void removeTree(Ext4FileSystem fs, long dir, String shown) throws IOException {
    java.util.ArrayDeque<Frame> stack = new java.util.ArrayDeque<>();
    stack.push(new Frame(dir, null, shown, DirListing.sorted(fs, dir, false).iterator(), null));
    String loop = null;
    while (!stack.isEmpty()) {
      Frame f = stack.peek();
      if (!f.entries().hasNext()) {
        stack.pop();
        if (f.up() != null) {
          try {
            fs.rmdir(f.up().dir(), f.name());
          } catch (Ext4Exception x) {
            if (loop == null) {
              throw new CliException(Main.message(target.failure(f.shown(), x)), x);
            }
          }
        }
        continue;
      }
      DirEntry e = f.entries().next();
      String child = DirListing.join(f.shown(), e.nameString());
      try {
        Attributes a = fs.getattr(e.ino());
        if (a.isDirectory()) {
          String seen = f.ancestor(a.ino());
          if (seen != null) {
            loop = child + ": filesystem loop detected (it is " + seen + " again); not entered (" + target.name() + ")";
            continue;
          }
          stack.push(new Frame(a.ino(), e.name(), child, DirListing.sorted(fs, a.ino(), false).iterator(), f));
        } else {
          fs.unlink(f.dir(), e.name());
        }
      } catch (Ext4Exception x) {
        throw new CliException(Main.message(target.failure(child, x)), x);
      }
    }
    if (loop != null) {
      throw new CliException(loop);
    }
  }
}
