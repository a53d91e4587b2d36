package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.util.List;
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
    Credentials who = ImageTarget.credentials();
    try (Ext4FileSystem fs = target.open(true)) {
      Vfs vfs = fs.vfs();
      target.stat(vfs, src, false); // a missing SRC is SRC's failure, not DST's
      String to = dst;
      try {
        Attributes there = ImageTarget.statIfExists(vfs, dst);
        if (there != null && there.isDirectory()) {
          List<String> parts = ImageTarget.components(src);
          if (!parts.isEmpty()) {
            to = DirListing.join(dst, parts.getLast());
          }
        }
        vfs.renameat(null, ImageTarget.bytes(src), null, ImageTarget.bytes(to), RenameMode.REPLACE, who);
      } catch (IOException e) {
        throw target.failure(to, e);
      }
    }
    return 0;
  }
}
