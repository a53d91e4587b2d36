package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j ln [-s] IMAGE TARGET LINKPATH}: a hard link LINKPATH to the inode TARGET names (a
 * symbolic link itself, as {@code ln -P}; directories refused), or with {@code -s} a symbolic link
 * LINKPATH whose target is TARGET's text, stored as given and not checked. When LINKPATH is an
 * existing directory the link goes in it under TARGET's last name, as ln does. Closes the image
 * cleanly.
 */
@Command(name = "ln", mixinStandardHelpOptions = true, description = "Make a hard or symbolic link in an ext4 image.")
public final class LnCommand implements Callable<Integer> {
  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1", paramLabel = "TARGET", description = "The file to link to (with -s: any text).")
  String linkTarget;

  @Parameters(index = "2", paramLabel = "LINKPATH", description = "The new name, or an existing directory to put it in.")
  String linkPath;

  @Option(names = "-s", description = "Make a symbolic link.")
  boolean symbolic;

  @Override
  public Integer call() throws Exception {
    Credentials who = ImageTarget.credentials();
    try (Ext4FileSystem fs = target.open(true)) {
      Vfs vfs = fs.vfs();
      if (!symbolic) {
        Attributes linked = target.stat(vfs, linkTarget, false);
        if (linked.isDirectory()) {
          throw target.failure(linkTarget, Errno.EPERM, "hard links to directories are not allowed");
        }
      }
      String at = linkPath;
      try {
        Attributes there = ImageTarget.statIfExists(vfs, linkPath);
        if (there != null && there.isDirectory()) {
          List<String> parts = ImageTarget.components(linkTarget);
          if (parts.isEmpty()) {
            throw target.failure(linkPath, Errno.EEXIST, null);
          }
          at = DirListing.join(linkPath, parts.getLast());
        }
        if (symbolic) {
          vfs.symlinkat(ImageTarget.bytes(linkTarget), null, ImageTarget.bytes(at), who);
        } else {
          vfs.linkat(null, ImageTarget.bytes(linkTarget), null, ImageTarget.bytes(at), false, who);
        }
      } catch (IOException e) {
        throw target.failure(at, e);
      }
    }
    return 0;
  }
}
