package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.PathWalker;
import io.ext4j.fs.RenameMode;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j mv IMAGE SRC DST}: renames within the image, atomically (one engine rename, one
 * journal transaction). As mv: when DST is an existing directory (or a symbolic link to one), SRC
 * moves into it under its own name; otherwise SRC takes the name DST, replacing a file there (a
 * directory there only if it is empty). Closes the image cleanly.
 */
@Command(name = "mv", mixinStandardHelpOptions = true, description = "Rename or move a file or directory within an ext4 image.")
public final class MvCommand implements Callable<Integer> {
  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1", paramLabel = "SRC", description = "The path to move.")
  String src;

  @Parameters(index = "2", paramLabel = "DST", description = "The new path, or an existing directory to move SRC into.")
  String dst;

  @Override
  public Integer call() throws Exception {
    try (Ext4FileSystem fs = target.open(true)) {
      PathWalker w = new PathWalker(fs);
      PathWalker.Parent from;
      try {
        from = w.parent(src);
        fs.lookup(from.dir(), from.name());
      } catch (IOException e) {
        throw target.failure(src, e);
      }
      try {
        Attributes there = w.resolveIfExists(dst, PathWalker.Follow.FOLLOW);
        if (there != null && there.isDirectory()) {
          fs.rename(from.dir(), from.name(), there.ino(), from.name(), RenameMode.REPLACE);
        } else {
          PathWalker.Parent to = w.parent(dst);
          fs.rename(from.dir(), from.name(), to.dir(), to.name(), RenameMode.REPLACE);
        }
      } catch (IOException e) {
        throw target.failure(dst, e);
      }
    }
    return 0;
  }
}
