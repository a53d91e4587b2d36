package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.vfs.FileHandle;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
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
      Vfs vfs = fs.vfs();
      // ls follows a symlink named on the command line unless it lists it long (and no '/' ends it)
      boolean follow = !longFormat || path.endsWith("/");
      Attributes a = target.stat(vfs, path, follow);
      if (!a.isDirectory()) {
        byte[] link = a.isSymlink() && longFormat ? vfs.readlinkat(null, ImageTarget.bytes(path), ImageTarget.credentials()) : null;
        print(out, List.of(new Row(path, a, null, link)), false);
      } else if (!recursive) {
        try (OpenFile dir = vfs.openat(null, ImageTarget.bytes(path), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0,
            ImageTarget.credentials())) {
          list(vfs, out, path, dir, false, null);
        }
      } else if (!listTree(vfs, out, path, new FileHandle(a.ino(), a.generation()))) {
        out.flush();
        return Main.EXIT_FAILURE;
      }
    } catch (IOException e) {
      throw target.failure(path, e);
    }
    out.flush();
    return 0;
  }

  /** A directory ls -R has still to list (by handle: it is opened when its turn comes), and the directories it is in (for loops). */
  private record Visit(String path, FileHandle dir, Visit up) {
    String ancestor(long ino) {
      for (Visit v = this; v != null; v = v.up) {
        if (v.dir.ino() == ino) {
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
  private boolean listTree(Vfs vfs, PrintWriter out, String top, FileHandle dir) throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    boolean clean = true;
    java.util.ArrayDeque<Visit> pending = new java.util.ArrayDeque<>();
    pending.push(new Visit(top, dir, null));
    boolean first = true;
    while (!pending.isEmpty()) {
      Visit v = pending.pop();
      if (!first) {
        out.println();
      }
      first = false;
      List<Row> subdirs = new ArrayList<>();
      try (OpenFile d = vfs.openByHandle(v.dir(), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), ImageTarget.credentials())) {
        list(vfs, out, v.path(), d, true, subdirs);
      } catch (IOException e) {
        throw target.failure(v.path(), e);
      }
      for (int k = subdirs.size() - 1; k >= 0; k--) {
        Row sub = subdirs.get(k);
        String seen = v.ancestor(sub.attrs().ino());
        if (seen != null) {
          out.flush();
          err.println("ext4j: ls: " + sub.name() + ": filesystem loop detected (it is " + seen + " again); not listed ("
              + target.name() + ")");
          err.flush();
          clean = false;
          continue;
        }
        pending.push(new Visit(sub.name(), new FileHandle(sub.attrs().ino(), sub.attrs().generation()), v));
      }
    }
    return clean;
  }

  /** One entry to print: its name, its attributes (null when not needed), its entry, a symbolic link's target (long listings). */
  private record Row(String name, Attributes attrs, DirEntry entry, byte[] link) {
    long ino() {
      return attrs != null ? attrs.ino() : entry.ino();
    }
  }

  /** Prints the open directory {@code dir}'s entries (under a header line with {@code header}); adds its subdirectories to {@code subdirs} when given. */
  private void list(Vfs vfs, PrintWriter out, String dirPath, OpenFile dir, boolean header, List<Row> subdirs)
      throws IOException {
    if (header) {
      out.println(dirPath + ":");
    }
    List<Row> rows = new ArrayList<>();
    for (DirEntry e : DirListing.sorted(vfs, dir, all)) {
      if (!all && e.name().length > 0 && e.name()[0] == '.') {
        continue;
      }
      Attributes a = longFormat || subdirs != null ? vfs.statat(dir, e.name(), false, ImageTarget.credentials()) : null;
      byte[] link = longFormat && a.isSymlink() ? vfs.readlinkat(dir, e.name(), ImageTarget.credentials()) : null;
      rows.add(new Row(e.nameString(), a, e, link));
      if (subdirs != null && !e.isDot() && a.isDirectory()) {
        subdirs.add(new Row(DirListing.join(dirPath, e.nameString()), a, e, null));
      }
    }
    print(out, rows, true);
  }

  private void print(PrintWriter out, List<Row> rows, boolean total) {
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
      if (a.isDevice()) {
        majW = Math.max(majW, Integer.toString(Attributes.major(a.rdev())).length());
        minW = Math.max(minW, Integer.toString(Attributes.minor(a.rdev())).length());
      } else {
        sizeW = Math.max(sizeW, Long.toString(a.size()).length());
      }
    }
    boolean devices = rows.stream().anyMatch(r -> r.attrs().isDevice());
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
      String size = a.isDevice()
          ? pad(Integer.toString(Attributes.major(a.rdev())), majW) + ", " + pad(Integer.toString(Attributes.minor(a.rdev())), minW)
          : Long.toString(a.size());
      s.append(pad(size, sizeW)).append(' ');
      s.append(Formats.lsTime(a.mtime())).append(' ');
      s.append(r.name());
      if (a.isSymlink()) {
        s.append(" -> ").append(new String(r.link(), StandardCharsets.UTF_8));
      }
      out.println(s);
    }
  }

  private static String pad(String s, int width) {
    return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
  }
}
