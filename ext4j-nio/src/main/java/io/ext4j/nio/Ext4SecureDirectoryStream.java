package io.ext4j.nio;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.PathWalker;
import io.ext4j.fs.RenameMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileOwnerAttributeView;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.Iterator;
import java.util.Set;

/**
 * The directory stream {@code Files.newDirectoryStream} returns, as a {@link SecureDirectoryStream}:
 * it holds the directory's inode, and relative paths given to its methods are looked up from that
 * inode, not by name from the root — a rename of the directory meanwhile does not change what they
 * reach (the engine works on inodes, as openat does on a descriptor). Absolute paths are resolved
 * from the root. A relative path whose last name is a symbolic link is followed only when that
 * link is absolute (a relative target is resolved from the root by name, which this stream
 * exists to avoid, so it is refused).
 */
final class Ext4SecureDirectoryStream implements SecureDirectoryStream<Path> {
  private final Ext4NioFileSystem fs;
  private final Ext4Path dir;
  private final long ino;
  private final Ext4DirectoryStream entries;

  Ext4SecureDirectoryStream(Ext4NioFileSystem fs, Ext4Path dir, long ino, Ext4DirectoryStream entries) {
    this.fs = fs;
    this.dir = dir;
    this.ino = ino;
    this.entries = entries;
  }

  @Override
  public Iterator<Path> iterator() {
    return entries.iterator();
  }

  @Override
  public void close() {
    entries.close();
  }

  /** A relative path's last name and the inode of the directory that holds it, looked up from this stream's directory. */
  private record At(long dir, byte[] name, Ext4Path shown) {}

  private static Ext4Path path(Path p) {
    return Ext4Path.check(p);
  }

  private At at(Path p) throws IOException {
    Ext4Path rel = path(p);
    Ext4Path shown = dir.resolve(rel);
    if (rel.getNameCount() == 0 || rel.toString().isEmpty()) {
      throw new IllegalArgumentException("no name in '" + p + "'");
    }
    long d = ino;
    try {
      for (int i = 0; i < rel.getNameCount() - 1; i++) {
        Attributes a = fs.engine().lookup(d, bytes(rel.getName(i)));
        if (!a.isDirectory()) {
          throw new NotDirectoryException(shown.toString());
        }
        d = a.ino();
      }
    } catch (Ext4Exception e) {
      throw NioErrors.translate(e, shown, null);
    }
    return new At(d, bytes(rel.getFileName()), shown);
  }

  private static byte[] bytes(Path name) {
    return name.toString().getBytes(StandardCharsets.UTF_8);
  }

  private Attributes lookupIfExists(At a, PathWalker.Follow follow) throws IOException {
    Attributes found;
    try {
      found = fs.engine().lookup(a.dir(), a.name());
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOENT) {
        return null;
      }
      throw NioErrors.translate(e, a.shown(), null);
    }
    if (found.isSymlink() && follow == PathWalker.Follow.FOLLOW) {
      Ext4Path target;
      try {
        target = fs.getPath(new String(fs.engine().readlink(found.ino()), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw NioErrors.translate(e, a.shown(), null);
      }
      if (!target.isAbsolute()) {
        throw new UnsupportedOperationException("following the relative symbolic link " + a.shown()
            + " from a secure directory stream (use NOFOLLOW_LINKS, or the path)");
      }
      return fs.stat(target);
    }
    return found;
  }

  private Attributes lookup(At a, LinkOption... options) throws IOException {
    Attributes found = lookupIfExists(a, Ext4NioFileSystem.follow(options));
    if (found == null) {
      throw new java.nio.file.NoSuchFileException(a.shown().toString());
    }
    return found;
  }

  private static PathWalker.Follow follow(LinkOption... options) {
    for (LinkOption o : options) {
      if (o == LinkOption.NOFOLLOW_LINKS) {
        return PathWalker.Follow.NO_FOLLOW;
      }
    }
    return PathWalker.Follow.FOLLOW;
  }

  @Override
  public SecureDirectoryStream<Path> newDirectoryStream(Path path, LinkOption... options) throws IOException {
    if (path(path).isAbsolute()) {
      return (SecureDirectoryStream<Path>) fs.list(path(path), null, options);
    }
    At a = at(path);
    Attributes d = lookup(a, options);
    if (!d.isDirectory()) {
      throw new NotDirectoryException(a.shown().toString());
    }
    return new Ext4SecureDirectoryStream(fs, a.shown(), d.ino(), new Ext4DirectoryStream(fs, a.shown(), d.ino(), null));
  }

  @Override
  public Ext4FileChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
    if (path(path).isAbsolute()) {
      return fs.open(path(path), options, attrs);
    }
    At a = at(path);
    return fs.open(a.shown(), options, attrs, new Ext4NioFileSystem.Locator() {
      @Override
      public Attributes find(PathWalker.Follow follow) throws IOException {
        return lookupIfExists(a, follow);
      }

      @Override
      public long create(int mode) throws IOException {
        try {
          return fs.engine().create(a.dir(), a.name(), mode, Caller.ROOT).ino();
        } catch (IOException e) {
          throw NioErrors.translate(e, a.shown(), null);
        }
      }
    });
  }

  @Override
  public void deleteFile(Path path) throws IOException {
    remove(path, false);
  }

  @Override
  public void deleteDirectory(Path path) throws IOException {
    remove(path, true);
  }

  private void remove(Path path, boolean directory) throws IOException {
    if (path(path).isAbsolute()) {
      Attributes a = fs.stat(path(path), LinkOption.NOFOLLOW_LINKS);
      if (a.isDirectory() != directory) {
        throw wrongType(path(path), directory);
      }
      fs.delete(path(path));
      return;
    }
    fs.ensureWritableForViews();
    At a = at(path);
    Attributes found = lookup(a, LinkOption.NOFOLLOW_LINKS);
    if (found.isDirectory() != directory) {
      throw wrongType(a.shown(), directory);
    }
    try {
      if (directory) {
        fs.engine().rmdir(a.dir(), a.name());
      } else {
        fs.engine().unlink(a.dir(), a.name());
      }
    } catch (IOException e) {
      throw NioErrors.translate(e, a.shown(), null);
    }
  }

  private static IOException wrongType(Ext4Path p, boolean wantedDirectory) {
    return wantedDirectory ? new NotDirectoryException(p.toString())
        : new java.nio.file.FileSystemException(p.toString(), null, "is a directory");
  }

  @Override
  public void move(Path srcpath, SecureDirectoryStream<Path> targetdir, Path targetpath) throws IOException {
    if (!(targetdir instanceof Ext4SecureDirectoryStream t) || t.fs != fs) {
      throw new ProviderMismatchException("the target directory is not of this ext4 file system");
    }
    fs.ensureWritableForViews();
    At from = at(srcpath);
    At to = t.at(targetpath);
    try {
      fs.engine().rename(from.dir(), from.name(), to.dir(), to.name(), RenameMode.REPLACE); // as ATOMIC_MOVE
    } catch (IOException e) {
      throw NioErrors.translate(e, from.shown(), to.shown());
    }
  }

  @Override
  public <V extends FileAttributeView> V getFileAttributeView(Class<V> type) {
    return view(InodeRef.ofInode(fs, ino, dir), type);
  }

  @Override
  public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
    if (path(path).isAbsolute()) {
      return fs.provider().getFileAttributeView(path, type, options);
    }
    LinkOption[] o = options.clone();
    InodeRef lazy = new InodeRef() { // looked up from this directory at each call, as a view of a path is
      @Override
      public Attributes stat() throws IOException {
        return lookup(at(path), o);
      }

      @Override
      public void setattr(io.ext4j.fs.SetAttributes change) throws IOException {
        fs.ensureWritableForViews();
        At a = at(path);
        Attributes found = lookup(a, o);
        try {
          fs.engine().setattr(found.ino(), change);
        } catch (IOException e) {
          throw NioErrors.translate(e, a.shown(), null);
        }
      }

      @Override
      public Object shown() {
        return dir.resolve(path(path));
      }
    };
    return view(lazy, type);
  }

  @SuppressWarnings("unchecked")
  private static <V extends FileAttributeView> V view(InodeRef target, Class<V> type) {
    if (type == BasicFileAttributeView.class) {
      return (V) new Ext4AttributeView(target, "basic");
    }
    if (type == PosixFileAttributeView.class) {
      return (V) new Ext4AttributeView(target, "posix");
    }
    if (type == FileOwnerAttributeView.class) {
      return (V) new Ext4AttributeView(target, "owner");
    }
    return null;
  }
}
