package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
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
      Vfs vfs = fs.vfs();
      for (String p : paths) {
        try {
          remove(vfs, p);
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

  private void remove(Vfs vfs, String p) throws IOException {
    List<String> parts = ImageTarget.components(p);
    if (parts.isEmpty()) {
      throw new CliException(p + ": refusing to remove the root directory (" + target.name() + ")");
    }
    String last = parts.getLast();
    if (last.equals(".") || last.equals("..")) {
      throw new CliException(p + ": refusing to remove '.' or '..' (" + target.name() + ")");
    }
    Credentials who = ImageTarget.credentials();
    byte[] path = ImageTarget.bytes(p);
    Attributes a = vfs.statat(null, path, false, who);
    if (a.ino() == Ext4FileSystem.ROOT) {
      throw new CliException(p + ": refusing to remove the root directory (" + target.name() + ")");
    }
    if (!a.isDirectory()) {
      vfs.unlinkat(null, path, false, who);
      return;
    }
    if (!recursive) {
      throw target.failure(p, Errno.EISDIR, "use -r");
    }
    removeTree(vfs, path, p);
    vfs.unlinkat(null, path, true, who);
  }

  /** A directory being emptied, held open: its entries still to remove, its name in the directory above, which is {@code up}. */
  private record Frame(OpenFile dir, byte[] name, String shown, java.util.Iterator<DirEntry> entries, Frame up) {
    String ancestor(long ino) {
      for (Frame f = this; f != null; f = f.up) {
        if (f.dir.ino() == ino) {
          return f.shown;
        }
      }
      return null;
    }
  }

  /**
   * Empties the directory at {@code path}, depth-first and iteratively (one open directory per level:
   * memory grows with the tree's depth, not its size). A directory met again below itself (a
   * corrupted image) is reported as a filesystem loop and left, so the directories above it stay too.
   */
  private void removeTree(Vfs vfs, byte[] path, String shown) throws IOException {
    Credentials who = ImageTarget.credentials();
    java.util.ArrayDeque<Frame> stack = new java.util.ArrayDeque<>();
    OpenFile top = DirListing.open(vfs, null, path);
    stack.push(new Frame(top, null, shown, DirListing.sorted(vfs, top, false).iterator(), null));
    String loop = null;
    try {
      while (!stack.isEmpty()) {
        Frame f = stack.peek();
        if (!f.entries().hasNext()) {
          stack.pop().dir().close();
          if (f.up() != null) {
            try {
              vfs.unlinkat(f.up().dir(), f.name(), true, who);
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
          Attributes a = vfs.statat(f.dir(), e.name(), false, who);
          if (a.isDirectory()) {
            String seen = f.ancestor(a.ino());
            if (seen != null) {
              loop = child + ": filesystem loop detected (it is " + seen + " again); not entered (" + target.name() + ")";
              continue;
            }
            OpenFile sub = DirListing.open(vfs, f.dir(), e.name());
            stack.push(new Frame(sub, e.name(), child, DirListing.sorted(vfs, sub, false).iterator(), f));
          } else {
            vfs.unlinkat(f.dir(), e.name(), false, who);
          }
        } catch (Ext4Exception x) {
          throw new CliException(Main.message(target.failure(child, x)), x);
        }
      }
    } finally {
      for (Frame f : stack) {
        f.dir().close();
      }
    }
    if (loop != null) {
      throw new CliException(loop);
    }
  }
}
