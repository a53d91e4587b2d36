package io.ext4j.nio;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.vfs.AttrChange;
import java.io.IOException;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.LinkOption;
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
 * it holds the directory open (an engine {@link OpenFile}, as a descriptor), and every method
 * passes it to the engine's *at call with the path given — a relative path is resolved from this
 * directory whatever was renamed meanwhile, an absolute one from the root, as openat(2) resolves
 * them. Closing the stream closes the directory.
 */
final class Ext4SecureDirectoryStream implements SecureDirectoryStream<Path> {
  private final Ext4NioFileSystem fs;
  private final Ext4Path dir;
  private final OpenFile open;
  private final Ext4DirectoryStream entries;
  private volatile boolean closed; // set once by close

  Ext4SecureDirectoryStream(Ext4NioFileSystem fs, Ext4Path dir, OpenFile open, java.nio.file.DirectoryStream.Filter<? super Path> filter) {
    this.fs = fs;
    this.dir = dir;
    this.open = open;
    this.entries = new Ext4DirectoryStream(fs, dir, open, filter);
  }

  @Override
  public Iterator<Path> iterator() {
    return entries.iterator();
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    entries.close();
    fs.untrack(this);
    open.close();
  }

  private OpenFile dirfd() {
    if (closed) {
      throw new ClosedDirectoryStreamException();
    }
    return open;
  }

  private static Ext4Path path(Path p) {
    return Ext4Path.check(p);
  }

  /** The path as messages show it: under this directory when relative. */
  private Ext4Path shown(Path p) {
    return dir.resolve(path(p));
  }

  @Override
  public SecureDirectoryStream<Path> newDirectoryStream(Path path, LinkOption... options) throws IOException {
    return fs.list(dirfd(), path(path), shown(path), null, options);
  }

  @Override
  public Ext4FileChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
    return fs.open(dirfd(), path(path), shown(path), options, attrs);
  }

  @Override
  public void deleteFile(Path path) throws IOException {
    fs.remove(dirfd(), path(path), shown(path), false);
  }

  @Override
  public void deleteDirectory(Path path) throws IOException {
    fs.remove(dirfd(), path(path), shown(path), true);
  }

  @Override
  public void move(Path srcpath, SecureDirectoryStream<Path> targetdir, Path targetpath) throws IOException {
    if (!(targetdir instanceof Ext4SecureDirectoryStream t) || t.fs != fs) {
      throw new ProviderMismatchException("the target directory is not of this ext4 file system");
    }
    fs.rename(dirfd(), path(srcpath), shown(srcpath), t.dirfd(), path(targetpath), t.shown(targetpath), true, true);
  }

  @Override
  public <V extends FileAttributeView> V getFileAttributeView(Class<V> type) {
    return view(new InodeRef() {
      @Override
      public Attributes stat() throws IOException {
        try {
          return fs.vfs().fstat(dirfd());
        } catch (IOException e) {
          throw NioErrors.translate(e, dir, null);
        }
      }

      @Override
      public void setattr(AttrChange change) throws IOException {
        fs.ensureWritableForViews();
        try {
          fs.vfs().setattr(dirfd(), change, fs.creds());
        } catch (IOException e) {
          throw NioErrors.translate(e, dir, null);
        }
      }

      @Override
      public Object shown() {
        return dir;
      }
    }, type);
  }

  @Override
  public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
    LinkOption[] o = options.clone();
    Ext4Path p = path(path);
    Ext4Path shown = shown(path);
    return view(new InodeRef() { // resolved from this directory at each call, as a view of a path is
      @Override
      public Attributes stat() throws IOException {
        return fs.stat(dirfd(), p, shown, o);
      }

      @Override
      public void setattr(AttrChange change) throws IOException {
        fs.setattr(dirfd(), p, shown, change, o);
      }

      @Override
      public Object shown() {
        return shown;
      }
    }, type);
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
