package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.FileHandle;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j get [-r] IMAGE IMAGE_SRC HOST_DEST}: copies a file, or with {@code -r} a tree, out of
 * the image like {@code cp -a} (see {@link ImageToHost} for what is kept). A final symbolic link in
 * IMAGE_SRC is copied as a link (as cp -a does). When HOST_DEST is an existing directory the copy
 * goes in it under IMAGE_SRC's name (the image's root: its contents go into HOST_DEST); otherwise
 * it is made at HOST_DEST. Owners are applied only as root, devices made only as root. A progress
 * bar is drawn for {@code -r} on a terminal. Opens the image read-only.
 */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = "Copy a file or tree out of an ext4 image to the host (like cp -a).")
public final class GetCommand implements Callable<Integer> {
  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1", paramLabel = "IMAGE_SRC", description = "The file or directory in the image.")
  String source;

  @Parameters(index = "2", paramLabel = "HOST_DEST", description = "Where on the host (an existing directory: into it).")
  Path dest;

  @Option(names = {"-r", "-R"}, description = "Copy directories recursively.")
  boolean recursive;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    boolean show = recursive && Progress.onTerminal();
    Warnings warnings = new Warnings(spec.commandLine().getErr());
    try (Ext4FileSystem fs = target.open(false)) {
      Vfs vfs = fs.vfs();
      Attributes a = target.stat(vfs, source, false);
      if (a.isDirectory() && !recursive) {
        throw new CliException(source + ": is a directory (use -r to copy it) (" + target.name() + ")");
      }
      Path to = dest;
      if (Files.isDirectory(dest)) {
        List<String> parts = ImageTarget.components(source);
        if (a.ino() != Ext4FileSystem.ROOT && !parts.isEmpty()) {
          to = dest.resolve(parts.getLast());
        }
      } else if (dest.toAbsolutePath().getParent() != null && !Files.isDirectory(dest.toAbsolutePath().getParent())) {
        throw new CliException(dest + ": no such directory to copy into");
      }
      long total = show ? imageBytes(vfs, a) : 0;
      ImageToHost copier;
      try (Progress progress = Progress.start("get", total, show)) {
        copier = new ImageToHost(fs, target, ImageTarget.isRoot(), warnings, progress);
        copier.copy(a, source, to);
      }
      List<String> skipped = copier.skippedDevices();
      if (!skipped.isEmpty()) {
        warnings.once("devices", skipped.size() + " device file" + (skipped.size() == 1 ? "" : "s") + " not created ("
            + "making devices needs root), first " + skipped.getFirst());
      }
    } catch (IOException e) {
      throw target.failure(source, e);
    }
    return warnings.errors() == 0 ? 0 : Main.EXIT_FAILURE;
  }

  /** The bytes of the regular files under {@code a} (each directory counted once), for the progress bar. */
  private long imageBytes(Vfs vfs, Attributes a) throws IOException {
    if (!a.isDirectory()) {
      return a.isRegularFile() ? a.size() : 0;
    }
    Credentials who = ImageTarget.credentials();
    java.util.Set<Long> seen = new java.util.HashSet<>();
    java.util.ArrayDeque<FileHandle> todo = new java.util.ArrayDeque<>();
    todo.push(new FileHandle(a.ino(), a.generation()));
    long sum = 0;
    while (!todo.isEmpty()) {
      FileHandle h = todo.pop();
      if (!seen.add(h.ino())) {
        continue;
      }
      try (OpenFile dir = vfs.openByHandle(h, EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), who)) {
        for (DirEntry e : DirListing.sorted(vfs, dir, false)) {
          Attributes c = vfs.statat(dir, e.name(), false, who);
          if (c.isDirectory()) {
            todo.push(new FileHandle(c.ino(), c.generation()));
          } else if (c.isRegularFile()) {
            sum += c.size();
          }
        }
      }
    }
    return sum;
  }
}
