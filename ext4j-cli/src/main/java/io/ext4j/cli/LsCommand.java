package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.PathWalker;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j ls [-l] [-R] [-a] [-i] IMAGE [PATH]}: a directory's entries sorted by name (byte
 * order, as {@code LC_ALL=C ls}), or a non-directory itself. {@code -l} prints the columns of
 * {@code ls -ln --time-style=long-iso}: mode string, links, uid, gid, size (or {@code major, minor}),
 * mtime, name and {@code -> target}, after a {@code total} line in 1 KiB units. {@code -R} lists
 * the tree iteratively; a directory met again below itself (a corrupted image) is one line on
 * stderr, "filesystem loop detected", and the exit status 1. Opens the image read-only.
 */
@Command(name = "ls", mixinStandardHelpOptions = true,
    description = "List a directory of an ext4 image (like ls -n --time-style=long-iso).")
public final class LsCommand implements Callable<Integer> {
  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1", arity = "0..1", paramLabel = "PATH", description = "A path in the image (default /).")
  String path = "/";

  @Option(names = "-l", description = "Long listing: mode, links, uid, gid, size or major, minor, mtime, name -> target.")
  boolean longFormat;

  @Option(names = "-R", description = "List subdirectories recursively.")
  boolean recursive;

  @Option(names = "-a", description = "Include entries whose names start with '.' (and . and ..).")
  boolean all;

  @Option(names = "-i", description = "Print each entry's inode number first.")
  boolean inodes;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (Ext4FileSystem fs = target.open(false)) {
      PathWalker w = new PathWalker(fs);
      // ls follows a symlink named on the command line unless it lists it long (and no '/' ends it)
      PathWalker.Follow follow = longFormat && !path.endsWith("/") ? PathWalker.Follow.NO_FOLLOW : PathWalker.Follow.FOLLOW;
      Attributes a = ImageTarget.resolve(target, w, path, follow);
      if (!a.isDirectory()) {
        print(fs, out, List.of(new Row(path, a, null)), false);
      } else if (!recursive) {
        list(fs, out, path, a.ino(), false, null);
      } else if (!listTree(fs, out, path, a.ino())) {
        out.flush();
        return Main.EXIT_FAILURE;
      }
    } catch (IOException e) {
      throw target.failure(path, e);
    }
    out.flush();
    return 0;
  }

  /** A directory ls -R has still to list, and the directories it is in (for loops). */
  private record Visit(String path, long ino, Visit up) {
    String ancestor(long dir) {
      for (Visit v = this; v != null; v = v.up) {
        if (v.ino == dir) {
          return v.path;
        }
      }
      return null;
    }
  }

  /**
   * ls -R, iteratively (what waits is the subdirectories of the directories on the current path:
   * memory grows with depth and breadth, never by recursion); a directory met again below itself
   * (a corrupted image) gets one line on stderr and is not entered. Returns false after such a loop.
   */
  private boolean listTree(Ext4FileSystem fs, PrintWriter out, String top, long ino) throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    boolean clean = true;
    java.util.ArrayDeque<Visit> pending = new java.util.ArrayDeque<>();
    pending.push(new Visit(top, ino, null));
    boolean first = true;
    while (!pending.isEmpty()) {
      Visit v = pending.pop();
      if (!first) {
        out.println();
      }
      first = false;
      List<Row> subdirs = new ArrayList<>();
      try {
        list(fs, out, v.path(), v.ino(), true, subdirs);
      } catch (IOException e) {
        throw target.failure(v.path(), e);
      }
      for (int k = subdirs.size() - 1; k >= 0; k--) {
        Row sub = subdirs.get(k);
        String seen = v.ancestor(sub.ino());
        if (seen != null) {
          out.flush();
          err.println("ext4j: ls: " + sub.name() + ": filesystem loop detected (it is " + seen + " again); not listed ("
              + target.name() + ")");
          err.flush();
          clean = false;
          continue;
        }
        pending.push(new Visit(sub.name(), sub.ino(), v));
      }
    }
    return clean;
  }

  /** One entry to print: its name, its attributes (null when not needed), its inode. */
  private record Row(String name, Attributes attrs, DirEntry entry) {
    long ino() {
      return attrs != null ? attrs.ino() : entry.ino();
    }
  }

  /** Prints directory {@code dir}'s entries (under a header line with {@code header}); adds its subdirectories to {@code subdirs} when given. */
  private void list(Ext4FileSystem fs, PrintWriter out, String dirPath, long dir, boolean header, List<Row> subdirs)
      throws IOException {
    if (header) {
      out.println(dirPath + ":");
    }
    List<Row> rows = new ArrayList<>();
    for (DirEntry e : DirListing.sorted(fs, dir, all)) {
      if (!all && e.name().length > 0 && e.name()[0] == '.') {
        continue;
      }
      Attributes a = longFormat || subdirs != null ? fs.getattr(e.ino()) : null;
      rows.add(new Row(e.nameString(), a, e));
      if (subdirs != null && !e.isDot() && a.isDirectory()) {
        subdirs.add(new Row(DirListing.join(dirPath, e.nameString()), a, e));
      }
    }
    print(fs, out, rows, true);
  }

  private void print(Ext4FileSystem fs, PrintWriter out, List<Row> rows, boolean total) throws IOException {
    if (!longFormat) {
      for (Row r : rows) {
        out.println((inodes ? r.ino() + " " : "") + r.name());
      }
      return;
    }
    int inoW = 1, linkW = 1, uidW = 1, gidW = 1, sizeW = 1, majW = 1, minW = 1;
    long blocks = 0;
    for (Row r : rows) {
      Attributes a = r.attrs();
      blocks += a.blocks();
      inoW = Math.max(inoW, Long.toString(a.ino()).length());
      linkW = Math.max(linkW, Integer.toString(a.nlink()).length());
      uidW = Math.max(uidW, Long.toString(a.uid()).length());
      gidW = Math.max(gidW, Long.toString(a.gid()).length());
      if (Formats.isDevice(a)) {
        majW = Math.max(majW, Integer.toString(Formats.major(a.rdev())).length());
        minW = Math.max(minW, Integer.toString(Formats.minor(a.rdev())).length());
      } else {
        sizeW = Math.max(sizeW, Long.toString(a.size()).length());
      }
    }
    boolean devices = rows.stream().anyMatch(r -> Formats.isDevice(r.attrs()));
    if (devices) {
      sizeW = Math.max(sizeW, majW + 2 + minW);
    }
    if (total) {
      out.println("total " + Math.ceilDiv(blocks, 2)); // 512-byte units to 1 KiB
    }
    for (Row r : rows) {
      Attributes a = r.attrs();
      StringBuilder s = new StringBuilder();
      if (inodes) {
        s.append(pad(Long.toString(a.ino()), inoW)).append(' ');
      }
      s.append(Formats.modeString(a.mode())).append(' ');
      s.append(pad(Integer.toString(a.nlink()), linkW)).append(' ');
      s.append(pad(Long.toString(a.uid()), uidW)).append(' ');
      s.append(pad(Long.toString(a.gid()), gidW)).append(' ');
      String size = Formats.isDevice(a)
          ? pad(Integer.toString(Formats.major(a.rdev())), majW) + ", " + pad(Integer.toString(Formats.minor(a.rdev())), minW)
          : Long.toString(a.size());
      s.append(pad(size, sizeW)).append(' ');
      s.append(Formats.lsTime(a.mtime())).append(' ');
      s.append(r.name());
      if (a.isSymlink()) {
        s.append(" -> ").append(new String(fs.readlink(a.ino()), StandardCharsets.UTF_8));
      }
      out.println(s);
    }
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
  }
}
