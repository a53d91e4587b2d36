package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.PathWalker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
      Attributes a = ImageTarget.resolve(target, new PathWalker(fs), source, PathWalker.Follow.NO_FOLLOW);
      if (a.isDirectory() && !recursive) {
        throw new CliException(source + ": is a directory (use -r to copy it) (" + target.name() + ")");
      }
      Path to = dest;
      if (Files.isDirectory(dest)) {
        List<byte[]> parts = PathWalker.components(source.getBytes(StandardCharsets.UTF_8), source);
        if (a.ino() != Ext4FileSystem.ROOT && !parts.isEmpty()) {
          to = dest.resolve(new String(parts.getLast(), StandardCharsets.UTF_8));
        }
      } else if (dest.toAbsolutePath().getParent() != null && !Files.isDirectory(dest.toAbsolutePath().getParent())) {
        throw new CliException(dest + ": no such directory to copy into");
      }
      long total = show ? imageBytes(fs, a) : 0;
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

  /** The bytes of the regular files under {@code a}, for the progress bar. */
  private static long imageBytes(Ext4FileSystem fs, Attributes a) throws IOException {
    if (!a.isDirectory()) {
      return a.isRegularFile() ? a.size() : 0;
    }
    long sum = 0;
    for (DirEntry e : DirListing.sorted(fs, a.ino(), false)) {
      sum += imageBytes(fs, fs.getattr(e.ino()));
    }
    return sum;
  }
}
