package io.ext4j.testkit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/**
 * {@link NamespaceWorkload.Ops} through java.nio.file under {@code root}: the JDK's file system
 * (a temporary directory, or a FUSE mount point: plain syscalls) or any provider's. A rename is
 * {@code Files.move} with ATOMIC_MOVE (rename(2) alone), a delete of a directory
 * {@code Files.delete}. The JDK's exceptions map back to errno names.
 */
public final class PathOps implements NamespaceWorkload.Ops {
  private final Path root;

  public PathOps(Path root) {
    this.root = root;
  }

  private Path at(String name) {
    return name.isEmpty() ? root : root.resolve(name);
  }

  @Override
  public void write(String name, byte[] data, boolean exclusive) throws IOException {
    EnumSet<StandardOpenOption> o = EnumSet.of(StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
        exclusive ? StandardOpenOption.CREATE_NEW : StandardOpenOption.CREATE);
    try (FileChannel c = FileChannel.open(at(name), o)) {
      ByteBuffer b = ByteBuffer.wrap(data);
      int n = c.write(b, 0);
      if (n != data.length) {
        throw new IOException(at(name) + ": one write of " + data.length + " bytes wrote " + n);
      }
    }
  }

  @Override
  public byte[] read(String name) throws IOException {
    return Files.readAllBytes(at(name));
  }

  @Override
  public void unlink(String name) throws IOException {
    Files.delete(at(name));
  }

  @Override
  public void rename(String from, String to) throws IOException {
    Files.move(at(from), at(to), StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public void link(String existing, String name) throws IOException {
    Files.createLink(at(name), at(existing));
  }

  @Override
  public void mkdir(String name) throws IOException {
    Files.createDirectory(at(name));
  }

  @Override
  public void rmdir(String name) throws IOException {
    Files.delete(at(name));
  }

  @Override
  public List<String> list(String dir) throws IOException {
    List<String> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(at(dir))) {
      for (Path p : s) {
        out.add(p.getFileName().toString());
      }
    } catch (DirectoryIteratorException e) {
      throw e.getCause();
    }
    return out;
  }

  @Override
  public String errno(IOException e) {
    return switch (e) {
      case NoSuchFileException x -> "ENOENT";
      case FileAlreadyExistsException x -> "EEXIST";
      case DirectoryNotEmptyException x -> "ENOTEMPTY";
      case NotDirectoryException x -> "ENOTDIR";
      case AccessDeniedException x -> "EACCES";
      case FileSystemException x when x.getReason() != null -> byReason(x.getReason());
      default -> null;
    };
  }

  /** The JDK's own FileSystemException carries strerror's text; ext4j's starts with the same words. */
  private static String byReason(String reason) {
    if (reason.startsWith("No such file or directory")) {
      return "ENOENT";
    }
    if (reason.startsWith("File exists")) {
      return "EEXIST";
    }
    if (reason.startsWith("Directory not empty")) {
      return "ENOTEMPTY";
    }
    if (reason.startsWith("Is a directory")) {
      return "EISDIR";
    }
    if (reason.startsWith("Not a directory")) {
      return "ENOTDIR";
    }
    return null;
  }
}
