package io.ext4j.nio;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.format.Extent;
import io.ext4j.testkit.NamespaceWorkload;
import io.ext4j.testkit.PathOps;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;

/**
 * The workload's calls through the provider ({@link PathOps}), and, for a violation's message, what
 * the engine holds for a name now: its inode, size and extents, and the first bytes of its first
 * blocks as the image file holds them (read through a descriptor of its own, so no cache of the
 * engine's is in the way).
 */
final class InspectingOps implements NamespaceWorkload.Ops {
  private final PathOps paths;
  private final Ext4NioFileSystem fs;
  private final Path image;

  InspectingOps(FileSystem fs, Path image) {
    this.paths = new PathOps(fs.getPath("/"));
    this.fs = (Ext4NioFileSystem) fs;
    this.image = image;
  }

  @Override
  public void write(String name, byte[] data, boolean exclusive) throws IOException {
    paths.write(name, data, exclusive);
  }

  @Override
  public byte[] read(String name) throws IOException {
    return paths.read(name);
  }

  @Override
  public void unlink(String name) throws IOException {
    paths.unlink(name);
  }

  @Override
  public void rename(String from, String to) throws IOException {
    paths.rename(from, to);
  }

  @Override
  public void link(String existing, String name) throws IOException {
    paths.link(existing, name);
  }

  @Override
  public void mkdir(String name) throws IOException {
    paths.mkdir(name);
  }

  @Override
  public void rmdir(String name) throws IOException {
    paths.rmdir(name);
  }

  @Override
  public List<String> list(String dir) throws IOException {
    return paths.list(dir);
  }

  @Override
  public String errno(IOException e) {
    return paths.errno(e);
  }

  @Override
  public String inspect(String name) {
    try {
      Ext4FileSystem engine = fs.engine();
      long ino = Ext4FileSystem.ROOT;
      for (String part : name.split("/", -1)) {
        ino = engine.lookup(ino, part.getBytes(StandardCharsets.UTF_8)).ino();
      }
      Attributes a = engine.getattr(ino);
      int bs = a.blockSize();
      StringBuilder s = new StringBuilder("inode " + ino + " (generation " + a.generation() + "), size " + a.size() + ", extents");
      List<Extent> extents = engine.extents(ino);
      if (extents.isEmpty()) {
        s.append(" none");
      }
      try (FileChannel ch = FileChannel.open(image, StandardOpenOption.READ)) {
        for (Extent e : extents) {
          s.append(' ').append(e.lblk()).append('+').append(e.len()).append("→").append(e.pblk()).append(e.unwritten() ? " unwritten" : "");
          for (long l = 0; l < Math.min(e.len(), 3); l++) {
            ByteBuffer b = ByteBuffer.allocate(bs);
            ch.read(b, (e.pblk() + l) * bs);
            byte[] head = java.util.Arrays.copyOf(b.array(), 16);
            int zeros = 0;
            for (byte x : b.array()) {
              zeros += x == 0 ? 1 : 0;
            }
            s.append(" [block ").append(e.pblk() + l).append(" on the image: ").append(HexFormat.of().formatHex(head))
                .append("…, ").append(zeros).append(" of ").append(bs).append(" bytes zero]");
          }
        }
      }
      return s.toString();
    } catch (IOException e) {
      return "not found now (" + e + ")";
    }
  }
}
