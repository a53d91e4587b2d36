package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j cat IMAGE PATH}: a regular file's bytes to standard output, streamed in 1 MiB reads
 * (any size, in constant memory; holes read as zeros). Symbolic links are followed. Opens the image
 * read-only.
 */
@Command(name = "cat", mixinStandardHelpOptions = true, description = "Write a file of an ext4 image to standard output.")
public final class CatCommand implements Callable<Integer> {
  static final int CHUNK = 1 << 20;

  @CommandLine.Mixin
  ImageTarget target;

  @Parameters(index = "1", paramLabel = "PATH", description = "A regular file in the image.")
  String path;

  @CommandLine.ParentCommand
  Main main;

  @Override
  public Integer call() throws Exception {
    OutputStream out = main.stdout();
    try (Ext4FileSystem fs = target.open(false)) {
      Vfs vfs = fs.vfs();
      Attributes a = target.stat(vfs, path, true);
      if (a.isDirectory()) {
        throw target.failure(path, Errno.EISDIR, null);
      }
      if (!a.isRegularFile()) {
        throw new CliException(path + ": not a regular file (" + Formats.typeName(a) + ") (" + target.name() + ")");
      }
      try (OpenFile f = vfs.openat(null, ImageTarget.bytes(path), EnumSet.of(OpenFlag.READ), 0, ImageTarget.credentials())) {
        ByteBuffer buf = ByteBuffer.allocate(CHUNK);
        long pos = 0;
        while (true) {
          buf.clear();
          int n = f.read(pos, buf);
          if (n <= 0) {
            break;
          }
          out.write(buf.array(), 0, n);
          pos += n;
        }
      }
    } catch (IOException e) {
      throw target.failure(path, e);
    } finally {
      out.flush();
    }
    return 0;
  }
}
