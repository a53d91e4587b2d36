package io.ext4j.nio;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.PathWalker;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.SetAttributes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.AccessMode;
import java.nio.file.ClosedFileSystemException;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.WatchService;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An ext4 image opened through {@link Ext4FileSystemProvider}: the {@link java.nio.file.FileSystem}
 * over one {@link Ext4FileSystem} engine, and the place where NIO operations become engine calls —
 * paths resolved with the engine's {@link PathWalker}, errors translated by {@link NioErrors}. No
 * filesystem rule lives here: permissions, link counts, times and durability are the engine's.
 * Every operation runs as root ({@link Caller#ROOT}), as a JVM opening an image file has no other
 * identity to give.
 *
 * <h2>Threads</h2>
 * Any thread may use it; the engine serializes what must be. {@link #close} waits for nothing:
 * operations that started before it may fail with {@link ClosedFileSystemException}.
 *
 * <h2>Durability</h2>
 * The engine's: what {@code force}, SYNC/DSYNC writes or {@link #close} made durable survives a
 * crash; {@code close} checkpoints and leaves an image {@code e2fsck -fn} finds clean.
 */
final class Ext4NioFileSystem extends FileSystem {
  private static final int DEFAULT_FILE_MODE = 0644; // 0666 under the usual umask 022
  private static final int DEFAULT_DIR_MODE = 0755;

  private final Ext4FileSystemProvider provider;
  private final Path image;
  private final Ext4FileSystem engine;
  private final PathWalker walker;
  private final FileLocks locks = new FileLocks();
  private final List<Ext4WatchService> watchers = new java.util.concurrent.CopyOnWriteArrayList<>(); // closed with the file system
  private volatile boolean open = true; // written by close, read by every operation

  Ext4NioFileSystem(Ext4FileSystemProvider provider, Path image, Ext4FileSystem engine) {
    this.provider = provider;
    this.image = image;
    this.engine = engine;
    this.walker = new PathWalker(engine);
  }

  /** The image file this file system is on (absolute, real). */
  Path image() {
    return image;
  }

  Ext4FileSystem engine() {
    return engine;
  }

  private void ensureOpen() {
    if (!open) {
      throw new ClosedFileSystemException();
    }
  }

  /** For the attribute views: a write to a read-only file system. */
  void ensureWritableForViews() {
    ensureWritable();
  }

  private void ensureWritable() {
    ensureOpen();
    if (engine.isReadOnly()) {
      throw NioErrors.readOnly();
    }
  }

  // ------------------------------------------------------------------ FileSystem

  @Override
  public Ext4FileSystemProvider provider() {
    return provider;
  }

  @Override
  public synchronized void close() throws IOException {
    if (!open) {
      return;
    }
    open = false;
    for (Ext4WatchService w : watchers) {
      w.close();
    }
    try {
      engine.close();
    } finally {
      provider.closed(this);
    }
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public boolean isReadOnly() {
    return engine.isReadOnly();
  }

  @Override
  public String getSeparator() {
    return "/";
  }

  @Override
  public Iterable<Path> getRootDirectories() {
    ensureOpen();
    return List.of(Ext4Path.parse(this, "/"));
  }

  @Override
  public Iterable<FileStore> getFileStores() {
    ensureOpen();
    return List.of(new Ext4FileStore(this));
  }

  @Override
  public Set<String> supportedFileAttributeViews() {
    return Set.of("basic", "posix", "unix", "owner", "user");
  }

  @Override
  public Ext4Path getPath(String first, String... more) {
    StringBuilder s = new StringBuilder(first);
    for (String m : more) {
      if (!m.isEmpty()) {
        if (!s.isEmpty()) {
          s.append('/');
        }
        s.append(m);
      }
    }
    return Ext4Path.parse(this, s.toString());
  }

  @Override
  public PathMatcher getPathMatcher(String syntaxAndPattern) {
    int colon = syntaxAndPattern.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("expected syntax:pattern, got '" + syntaxAndPattern + "'");
    }
    String syntax = syntaxAndPattern.substring(0, colon);
    String pattern = syntaxAndPattern.substring(colon + 1);
    Pattern regex = switch (syntax.toLowerCase(java.util.Locale.ROOT)) {
      case "glob" -> Pattern.compile(Globs.toRegex(pattern));
      case "regex" -> Pattern.compile(pattern);
      default -> throw new UnsupportedOperationException("syntax '" + syntax + "' (glob and regex are)");
    };
    return p -> regex.matcher(p.toString()).matches();
  }

  @Override
  public UserPrincipalLookupService getUserPrincipalLookupService() {
    return Ext4Principal.LOOKUP;
  }

  @Override
  public WatchService newWatchService() {
    ensureOpen();
    Ext4WatchService w = new Ext4WatchService(this);
    watchers.add(w);
    return w;
  }

  // ------------------------------------------------------------------ operations (the provider's)

  /** FOLLOW unless {@code options} hold NOFOLLOW_LINKS. */
  static PathWalker.Follow follow(LinkOption... options) {
    for (LinkOption o : options) {
      if (o == LinkOption.NOFOLLOW_LINKS) {
        return PathWalker.Follow.NO_FOLLOW;
      }
    }
    return PathWalker.Follow.FOLLOW;
  }

  Attributes stat(Ext4Path p, LinkOption... options) throws IOException {
    ensureOpen();
    try {
      return walker.resolve(p.walkPath(), follow(options));
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  private Attributes statIfExists(Ext4Path p, PathWalker.Follow f) throws IOException {
    try {
      return walker.resolveIfExists(p.walkPath(), f);
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  private PathWalker.Parent parent(Ext4Path p) throws IOException {
    try {
      return walker.parent(p.walkPath());
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  private static int modeOf(FileAttribute<?>[] attrs, int dflt) {
    for (FileAttribute<?> a : attrs) {
      if (a.name().equals("posix:permissions") || a.name().equals("unix:permissions")) {
        @SuppressWarnings("unchecked")
        Set<PosixFilePermission> perms = (Set<PosixFilePermission>) a.value();
        return Ext4FileAttributes.mode(perms);
      }
      throw new UnsupportedOperationException("initial attribute '" + a.name() + "' (posix:permissions is supported)");
    }
    return dflt;
  }

  /** Where {@link #open} finds, or makes, the file it opens. */
  interface Locator {
    /** The file, or null when there is none. */
    Attributes find(PathWalker.Follow follow) throws IOException;

    /** Creates it with {@code mode}; returns the inode. */
    long create(int mode) throws IOException;
  }

  Ext4FileChannel open(Ext4Path p, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
    return open(p, options, attrs, new Locator() {
      @Override
      public Attributes find(PathWalker.Follow follow) throws IOException {
        return statIfExists(p, follow);
      }

      @Override
      public long create(int mode) throws IOException {
        PathWalker.Parent at = parent(p);
        return engine.create(at.dir(), at.name(), mode, Caller.ROOT).ino();
      }
    });
  }

  /** Opens the file {@code where} finds, as {@code Files.newByteChannel} opens a path ({@code p} names it in messages). */
  Ext4FileChannel open(Ext4Path p, Set<? extends OpenOption> options, FileAttribute<?>[] attrs, Locator where) throws IOException {
    ensureOpen();
    boolean read = options.contains(StandardOpenOption.READ);
    boolean append = options.contains(StandardOpenOption.APPEND);
    boolean write = options.contains(StandardOpenOption.WRITE) || append;
    if (!read && !write) {
      read = true;
    }
    if (append && read) {
      throw new IllegalArgumentException("READ + APPEND not allowed");
    }
    if (append && options.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
      throw new IllegalArgumentException("APPEND + TRUNCATE_EXISTING not allowed");
    }
    boolean createNew = write && options.contains(StandardOpenOption.CREATE_NEW);
    boolean create = write && (createNew || options.contains(StandardOpenOption.CREATE));
    boolean deleteOnClose = options.contains(StandardOpenOption.DELETE_ON_CLOSE);
    if (write) {
      ensureWritable();
    }
    PathWalker.Follow f = options.contains(LinkOption.NOFOLLOW_LINKS) ? PathWalker.Follow.NO_FOLLOW : PathWalker.Follow.FOLLOW;
    EnumSet<OpenFlag> flags = EnumSet.noneOf(OpenFlag.class);
    if (read) {
      flags.add(OpenFlag.READ);
    }
    if (write) {
      flags.add(OpenFlag.WRITE);
    }
    if (append) {
      flags.add(OpenFlag.APPEND);
    }
    if (options.contains(StandardOpenOption.SYNC)) {
      flags.add(OpenFlag.SYNC);
    }
    if (options.contains(StandardOpenOption.DSYNC)) {
      flags.add(OpenFlag.DSYNC);
    }
    for (OpenOption o : options) {
      if (o.toString().equals("DIRECT")) { // com.sun.nio.file.ExtendedOpenOption.DIRECT
        flags.add(OpenFlag.DIRECT);
      }
    }
    try {
      long ino;
      Attributes found = createNew ? null : where.find(f);
      if (found == null && create) {
        ino = where.create(modeOf(attrs, DEFAULT_FILE_MODE));
      } else if (found == null) {
        throw new NoSuchFileException(p.toString());
      } else {
        if (found.isDirectory() && write) {
          throw new FileSystemException(p.toString(), null, "is a directory");
        }
        ino = found.ino();
      }
      OpenFile file = engine.open(ino, flags, Caller.ROOT);
      if (write && options.contains(StandardOpenOption.TRUNCATE_EXISTING) && file.size() > 0) {
        file.truncate(0);
      }
      Runnable onClose = deleteOnClose ? () -> deleteQuietly(p) : () -> { };
      return new Ext4FileChannel(file, p, read, write, append, locks, onClose);
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  /** DELETE_ON_CLOSE's delete: best effort, as the JDK's (the name may have gone or changed meanwhile). */
  private void deleteQuietly(Ext4Path p) {
    try {
      if (open) {
        delete(p);
      }
    } catch (IOException | RuntimeException e) {
      // the JDK's DELETE_ON_CLOSE is best effort too: the file may already be gone
    }
  }

  void createDirectory(Ext4Path p, FileAttribute<?>... attrs) throws IOException {
    ensureWritable();
    PathWalker.Parent at = parent(p);
    try {
      engine.mkdir(at.dir(), at.name(), modeOf(attrs, DEFAULT_DIR_MODE), Caller.ROOT);
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  void createSymbolicLink(Ext4Path link, Path target, FileAttribute<?>... attrs) throws IOException {
    ensureWritable();
    if (attrs.length > 0) {
      throw new UnsupportedOperationException("initial attributes of a symbolic link");
    }
    PathWalker.Parent at = parent(link);
    try {
      engine.symlink(at.dir(), at.name(), target.toString().getBytes(StandardCharsets.UTF_8), Caller.ROOT);
    } catch (IOException e) {
      throw NioErrors.translate(e, link, target);
    }
  }

  void createLink(Ext4Path link, Ext4Path existing) throws IOException {
    ensureWritable();
    Attributes target = stat(existing, LinkOption.NOFOLLOW_LINKS);
    PathWalker.Parent at = parent(link);
    try {
      engine.link(target.ino(), at.dir(), at.name());
    } catch (IOException e) {
      throw NioErrors.translate(e, link, existing);
    }
  }

  Ext4Path readSymbolicLink(Ext4Path link) throws IOException {
    Attributes a = stat(link, LinkOption.NOFOLLOW_LINKS);
    if (!a.isSymlink()) {
      throw NioErrors.notLink(link);
    }
    try {
      return getPath(new String(engine.readlink(a.ino()), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw NioErrors.translate(e, link, null);
    }
  }

  void delete(Ext4Path p) throws IOException {
    ensureWritable();
    Attributes a = stat(p, LinkOption.NOFOLLOW_LINKS);
    PathWalker.Parent at = parent(p);
    try {
      if (a.isDirectory()) {
        engine.rmdir(at.dir(), at.name());
      } else {
        engine.unlink(at.dir(), at.name());
      }
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  void move(Ext4Path from, Ext4Path to, CopyOption... options) throws IOException {
    ensureWritable();
    boolean replace = false;
    for (CopyOption o : options) {
      if (o == StandardCopyOption.REPLACE_EXISTING) {
        replace = true;
      } else if (o != StandardCopyOption.ATOMIC_MOVE && o != LinkOption.NOFOLLOW_LINKS && o != StandardCopyOption.COPY_ATTRIBUTES) {
        throw new UnsupportedOperationException("copy option " + o);
      }
    }
    Attributes src = stat(from, LinkOption.NOFOLLOW_LINKS);
    Attributes dst = statIfExists(to, PathWalker.Follow.NO_FOLLOW);
    if (dst != null && dst.ino() == src.ino()) {
      return; // the same file: nothing to do, as Files.move says
    }
    if (dst != null && !replace) {
      throw new FileAlreadyExistsException(to.toString());
    }
    PathWalker.Parent a = parent(from);
    PathWalker.Parent b = parent(to);
    try {
      engine.rename(a.dir(), a.name(), b.dir(), b.name(), replace ? RenameMode.REPLACE : RenameMode.NOREPLACE);
    } catch (Ext4Exception e) {
      if (e.errno() == io.ext4j.fs.Errno.ENOTEMPTY) {
        throw new DirectoryNotEmptyException(to.toString());
      }
      throw NioErrors.translate(e, from, to);
    } catch (IOException e) {
      throw NioErrors.translate(e, from, to);
    }
  }

  void copy(Ext4Path from, Ext4Path to, CopyOption... options) throws IOException {
    ensureWritable();
    boolean replace = false;
    boolean attributes = false;
    LinkOption[] follow = {};
    for (CopyOption o : options) {
      if (o == StandardCopyOption.REPLACE_EXISTING) {
        replace = true;
      } else if (o == StandardCopyOption.COPY_ATTRIBUTES) {
        attributes = true;
      } else if (o == LinkOption.NOFOLLOW_LINKS) {
        follow = new LinkOption[] {LinkOption.NOFOLLOW_LINKS};
      } else {
        throw new UnsupportedOperationException("copy option " + o);
      }
    }
    Attributes src = stat(from, follow);
    Attributes dst = statIfExists(to, PathWalker.Follow.NO_FOLLOW);
    if (dst != null) {
      if (dst.ino() == src.ino()) {
        return;
      }
      if (!replace) {
        throw new FileAlreadyExistsException(to.toString());
      }
      delete(to);
    }
    int perms = src.mode() & 07777;
    if (src.isDirectory()) {
      createDirectory(to);
    } else if (src.isSymlink()) {
      createSymbolicLink(to, readSymbolicLink(from));
    } else if (src.isRegularFile()) {
      try (Ext4FileChannel in = open(from, Set.of(StandardOpenOption.READ));
          Ext4FileChannel out = open(to, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW))) {
        in.transferTo(0, Long.MAX_VALUE, out); // to the end of the file
      }
    } else {
      throw new UnsupportedOperationException("copying a special file (" + from + ")");
    }
    if (attributes && !src.isSymlink()) {
      setattr(to, SetAttributes.none().withMode(perms).withTimes(src.atime(), src.mtime()));
    }
  }

  void setattr(Ext4Path p, SetAttributes change, LinkOption... options) throws IOException {
    ensureWritable();
    Attributes a = stat(p, options);
    try {
      engine.setattr(a.ino(), change);
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  void checkAccess(Ext4Path p, AccessMode... modes) throws IOException {
    Attributes a = stat(p);
    for (AccessMode m : modes) {
      if (m == AccessMode.WRITE && engine.isReadOnly()) {
        throw new AccessDeniedException(p.toString(), null, "read-only file system");
      }
      if (m == AccessMode.EXECUTE && !a.isDirectory() && (a.mode() & 0111) == 0) {
        throw new AccessDeniedException(p.toString(), null, "no execute permission");
      }
    }
  }

  /** The entries of directory {@code dir} as paths under it, read a page at a time. */
  DirectoryStream<Path> list(Ext4Path dir, DirectoryStream.Filter<? super Path> filter, LinkOption... options) throws IOException {
    Attributes a = stat(dir, options);
    if (!a.isDirectory()) {
      throw new NotDirectoryException(dir.toString());
    }
    return new Ext4SecureDirectoryStream(this, dir, a.ino(), new Ext4DirectoryStream(this, dir, a.ino(), filter));
  }

  /** One page of entries of inode {@code ino} from {@code cookie}, "." and ".." left out. */
  List<DirEntry> readdir(Ext4Path dir, long ino, long cookie) throws IOException {
    ensureOpen();
    try {
      return engine.readdir(ino, cookie, 128);
    } catch (IOException e) {
      throw NioErrors.translate(e, dir, null);
    }
  }

  Ext4Path realPath(Ext4Path p, LinkOption... options) throws IOException {
    Ext4Path abs = p.toAbsolutePath().normalize();
    stat(abs, options);
    if (follow(options) == PathWalker.Follow.NO_FOLLOW) {
      return abs;
    }
    Ext4Path out = abs.getRoot();
    List<String> todo = new ArrayList<>();
    for (Path n : abs) {
      todo.add(n.toString());
    }
    int links = 0;
    while (!todo.isEmpty()) {
      Ext4Path next = out.resolve(getPath(todo.removeFirst()));
      Attributes a = stat(next, LinkOption.NOFOLLOW_LINKS);
      if (a.isSymlink()) {
        if (++links > PathWalker.MAX_SYMLINKS) {
          throw new java.nio.file.FileSystemLoopException(p.toString());
        }
        Ext4Path target = readSymbolicLink(next);
        List<String> rest = new ArrayList<>();
        for (Path n : target) {
          rest.add(n.toString());
        }
        rest.addAll(todo);
        todo = rest;
        if (target.isAbsolute()) {
          out = out.getRoot();
        }
        continue;
      }
      out = next.normalize();
    }
    return out.normalize();
  }
}
