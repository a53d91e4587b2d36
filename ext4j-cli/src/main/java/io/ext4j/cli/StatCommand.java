package io.ext4j.cli;

import io.ext4j.fs.format.Extent;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.vfs.Vfs;
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
 * {@code ext4j stat [-L] IMAGE PATH}: an inode as stat(1) shows it — type, size, blocks, inode,
 * links, mode, owners, the four timestamps with nanoseconds (Birth is ext4's crtime) — then ext4's
 * own: the inode flags by name, the generation and a summary of the extent tree. Symbolic links are
 * shown themselves unless {@code -L}. Opens the image read-only.
 */
@Command(name = "stat", mixinStandardHelpOptions = true, description = "Show an inode of an ext4 image (like stat(1)).")
public final class StatCommand implements Callable<Integer> {
  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1", paramLabel = "PATH", description = "A path in the image.")
  String path;

  @Option(names = "-L", description = "Follow a final symbolic link.")
  boolean follow;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** EXT4_*_FL bits by name. */
  private static final String[] FLAG_NAMES = {"secrm", "unrm", "compr", "sync", "immutable", "append", "nodump", "noatime",
      "dirty", "comprblk", "nocompr", "encrypt", "index", "imagic", "journal_data", "notail", "dirsync", "topdir",
      "huge_file", "extents", "verity", "ea_inode", null, null, null, null, null, null, "inline_data", "projinherit",
      "casefold", null};

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (Ext4FileSystem fs = target.open(false)) {
      Vfs vfs = fs.vfs();
      Attributes a = target.stat(vfs, path, follow);
      String name = path;
      if (a.isSymlink()) {
        name += " -> " + new String(vfs.readlinkat(null, ImageTarget.bytes(path), ImageTarget.credentials()), StandardCharsets.UTF_8);
      }
      out.println("  File: " + name);
      out.printf("  Size: %-15d Blocks: %-10d IO Block: %-6d %s%n", a.size(), a.blocks(), a.blockSize(), Formats.typeName(a));
      out.printf("Device: %s\tInode: %-11d Links: %d", target.name(), a.ino(), a.nlink());
      if (a.isDevice()) {
        out.printf("     Device type: %d,%d", Attributes.major(a.rdev()), Attributes.minor(a.rdev()));
      }
      out.println();
      out.printf("Access: (%04o/%s)  Uid: (%5d/%8s)   Gid: (%5d/%8s)%n", a.permissions(), Formats.modeString(a.mode()),
          a.uid(), bare(HostNames.user(a.uid())), a.gid(), bare(HostNames.group(a.gid())));
      out.println("Access: " + Formats.statTime(a.atime()));
      out.println("Modify: " + Formats.statTime(a.mtime()));
      out.println("Change: " + Formats.statTime(a.ctime()));
      out.println(" Birth: " + Formats.statTime(a.crtime()));
      out.printf(" Flags: 0x%08x (%s)%n", a.flags(), flagNames(a.flags()));
      out.println("Generation: " + Integer.toUnsignedString(a.generation()));
      if ((a.flags() & 0x80000) != 0) {
        List<Extent> ext = fs.extents(a.ino()); // ext4's own view; the image is open read-only and locked, so the number stays this inode's
        long mapped = 0;
        long unwritten = 0;
        for (Extent e : ext) {
          mapped += e.len();
          unwritten += e.unwritten() ? e.len() : 0;
        }
        out.printf("Extents: %d, %d blocks mapped (%d unwritten)", ext.size(), mapped, unwritten);
        if (!ext.isEmpty()) {
          Extent first = ext.getFirst();
          out.printf("; first %d+%d at block %d", first.lblk(), first.len(), first.pblk());
        }
        out.println();
      }
    } catch (IOException e) {
      throw target.failure(path, e);
    }
    out.flush();
    return 0;
  }

  /** "(user root)" → "root". */
  private static String bare(String described) {
    int sp = described.indexOf(' ');
    return described.substring(sp + 1, described.length() - 1);
  }

  static String flagNames(int flags) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      if ((flags & (1 << i)) != 0) {
        names.add(FLAG_NAMES[i] != null ? FLAG_NAMES[i] : String.format("0x%x", 1 << i));
      }
    }
    return names.isEmpty() ? "none" : String.join(",", names);
  }
}
