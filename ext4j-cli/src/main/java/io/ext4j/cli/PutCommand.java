package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.PathWalker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j put [-r] IMAGE HOST_SRC IMAGE_DEST}: copies a host file, or with {@code -r} a host
 * tree, into the image like {@code cp -a} (see {@link HostToImage} for what is kept). When
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
    HostToImage.HostAttrs h = HostToImage.HostAttrs.of(source);
    if (h.isDirectory() && !recursive) {
      throw new CliException(source + ": is a directory (use -r to copy it)");
    }
    boolean show = recursive && Progress.onTerminal();
    long total = show ? hostBytes(source) : 0;
    Warnings warnings = new Warnings(spec.commandLine().getErr());
    try (Ext4FileSystem fs = target.open(true);
        Progress progress = Progress.start("put", total, show)) {
      PathWalker w = new PathWalker(fs);
      long dir;
      byte[] name;
      String imgPath;
      try {
        Attributes there = w.resolveIfExists(dest, PathWalker.Follow.FOLLOW);
        if (there != null && there.isDirectory()) {
          Path leaf = source.toAbsolutePath().normalize().getFileName();
          if (leaf == null) {
            throw new CliException(source + ": has no name to copy into " + dest + "; name the destination");
          }
          dir = there.ino();
          name = leaf.toString().getBytes(StandardCharsets.UTF_8);
          imgPath = DirListing.join(dest, leaf.toString());
        } else {
          PathWalker.Parent at = w.parent(dest);
          dir = at.dir();
          name = at.name();
          imgPath = dest;
        }
      } catch (IOException e) {
        throw target.failure(dest, e);
      }
      new HostToImage(fs, target, ImageTarget.isRoot(), warnings, progress).copy(source, h, dir, name, imgPath);
    }
    return warnings.errors() == 0 ? 0 : Main.EXIT_FAILURE;
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
