package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.tools.populate.HostDirectory;
import io.ext4j.tools.populate.Populator;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j put [-r] IMAGE HOST_SRC IMAGE_DEST}: copies a host file, or with {@code -r} a host
 * tree, into the image like {@code cp -a}, through the one tree copier ({@link Populator}, merging:
 * an existing directory is merged into, an existing non-directory replaced; every type, permission
 * bits, owners, times to the nanosecond, extended attributes, hard links within the tree, holes). When
 * IMAGE_DEST is an existing directory the copy goes in it under HOST_SRC's name; otherwise it is
 * made at IMAGE_DEST. Needs no root: owners are the host files' whoever runs it; trusted.* and
 * security.* attributes are read only as root. A progress bar is drawn for {@code -r} on a terminal.
 * Closes the image cleanly, also after a failure.
 */
@Command(name = "put", mixinStandardHelpOptions = true,
    description = "Copy a host file or tree into an ext4 image (like cp -a).")
public final class PutCommand implements Callable<Integer> {
  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1", paramLabel = "HOST_SRC", description = "The host file or directory to copy.")
  Path source;

  @Parameters(index = "2", paramLabel = "IMAGE_DEST", description = "Where in the image (an existing directory: into it).")
  String dest;

  @Option(names = {"-r", "-R"}, description = "Copy directories recursively.")
  boolean recursive;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (!Files.exists(source, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      throw new NoSuchFileException(source.toString());
    }
    if (Files.isDirectory(source, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !recursive) {
      throw new CliException(source + ": is a directory (use -r to copy it)");
    }
    boolean show = recursive && Progress.onTerminal();
    long total = show ? hostBytes(source) : 0;
    Warnings warnings = new Warnings(spec.commandLine().getErr());
    Credentials who = ImageTarget.credentials();
    try (Ext4FileSystem fs = target.open(true);
        Progress progress = Progress.start("put", total, show)) {
      Vfs vfs = fs.vfs();
      String at = dest;
      try {
        Attributes there = ImageTarget.statIfExists(vfs, dest);
        if (there != null && there.isDirectory()) {
          Path leaf = source.toAbsolutePath().normalize().getFileName();
          if (leaf == null) {
            throw new CliException(source + ": has no name to copy into " + dest + "; name the destination");
          }
          at = DirListing.join(dest, leaf.toString());
        }
      } catch (IOException e) {
        throw target.failure(dest, e);
      }
      List<String> parts = ImageTarget.components(at);
      if (parts.isEmpty()) {
        throw target.failure(at, Errno.EEXIST, null);
      }
      String dir = "/" + String.join("/", parts.subList(0, parts.size() - 1));
      Populator.Options options = new Populator.Options(null, true, ImageTarget.caller(), progress(progress))
          .merging((path, e) -> failed(warnings, dir, path, e));
      OpenFile into;
      try {
        into = vfs.openat(null, ImageTarget.bytes(dir), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0, who);
      } catch (IOException e) {
        throw target.failure(at, e);
      }
      try (into) {
        Populator.copy(fs, HostDirectory.named(source, ImageTarget.bytes(parts.getLast())), into, options);
      }
    }
    return warnings.errors() == 0 ? 0 : Main.EXIT_FAILURE;
  }

  /**
   * An entry the copy could not make ({@code path} below the directory {@code dir} it copies into):
   * worded with its image path (or its host path when the host refused), reported and skipped when
   * it concerns that entry alone, and the copy's end when it concerns the whole image.
   */
  private void failed(Warnings warnings, String dir, String path, IOException e) throws IOException {
    String imgPath = DirListing.join(dir, path.substring(1));
    if (e instanceof Ext4Exception) {
      warnings.skipOrThrow(target.failure(imgPath, e), imgPath);
      return;
    }
    int below = path.indexOf('/', 1); // the host path: the source, then what is below it
    Path host = below < 0 ? source : source.resolve(path.substring(below + 1));
    warnings.skipOrThrow(e, host);
  }

  /** The copier's running totals as the progress bar's steps. */
  private static Populator.Progress progress(Progress bar) {
    long[] last = new long[2]; // entries, bytes reported so far
    return (entries, bytes) -> {
      for (; last[0] < entries; last[0]++) {
        bar.entry();
      }
      bar.bytes(bytes - last[1]);
      last[1] = bytes;
    };
  }

  /** The bytes of the regular files under {@code root}, for the progress bar. */
  static long hostBytes(Path root) throws IOException {
    long[] sum = {0};
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        if (attrs.isRegularFile()) {
          sum[0] += attrs.size();
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException exc) {
        return FileVisitResult.CONTINUE;
      }
    });
    return sum[0];
  }
}
