package io.ext4j.nio;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.vfs.AttrChange;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Permissions;
import io.ext4j.fs.vfs.TimeSpec;
import io.ext4j.fs.vfs.Vfs;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.ClosedFileSystemException;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.WatchService;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * An ext4 image opened through {@link Ext4FileSystemProvider}: the {@link java.nio.file.FileSystem}
 * over one {@link Ext4FileSystem} engine. It translates, and does nothing else: an NIO call becomes
 * one call of the engine's {@link Vfs} on the path's bytes ({@link Ext4Path#bytes()}), and the
 * engine's errno becomes the JDK's exception ({@link NioErrors}). Path resolution, atomicity
 * (O_CREAT, O_EXCL, rename's replace), permissions, privilege clearing, link counts, times and
 * inode lifetime are the engine's. Every operation runs as root with umask 022
 * ({@link Credentials#root()}), as a JVM opening an image file has no other identity to give; the
 * JDK's default file system, run as root, is what it behaves like.
 *
 * <h2>Threads</h2>
 * Any thread may use it; the engine serializes what must be. {@link #close} closes every channel and
 * directory stream opened from it first; operations racing it may fail with
 * {@link ClosedFileSystemException}.
 *
 * <h2>Durability</h2>
 * The engine's: what {@code force}, SYNC/DSYNC writes or {@link #close} made durable survives a
 * crash; {@code close} checkpoints and leaves an image {@code e2fsck -fn} finds clean. A file system
 * still open when the JVM exits is closed by a shutdown hook.
 */
final class Ext4NioFileSystem extends FileSystem {
  private static final int DEFAULT_FILE_MODE = 0666; // less the umask, as open(2) takes it
  private static final int DEFAULT_DIR_MODE = 0777;
  private static final int PAGE = 128; // directory entries read per engine call

  private final Ext4FileSystemProvider provider;
  private final Path image;
  private final Ext4FileSystem engine;
  private final Vfs vfs;
  private final Credentials creds = Credentials.root();
  private final FileLocks locks = new FileLocks();
  private final Set<Closeable> opened = ConcurrentHashMap.newKeySet(); // channels, streams, watch services: closed with the file system
  private final Thread shutdownHook = Thread.ofPlatform().name("ext4j-nio-shutdown").unstarted(this::closeAtExit);
  private volatile boolean open = true; // written by close, read by every operation

  Ext4NioFileSystem(Ext4FileSystemProvider provider, Path image, Ext4FileSystem engine) {
    this.provider = provider;
    this.image = image;
    this.engine = engine;
    this.vfs = engine.vfs();
  }

  /** Closes this file system when the JVM exits with it open (called once, by the provider). */
  void armShutdownHook() {
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  private void closeAtExit() {
    try {
      close();
    } catch (IOException | RuntimeException e) {
      System.err.println("ext4j: closing " + image + " at exit: " + e.getMessage());
    }
  }

  /** The image file this file system is on (absolute, real). */
  Path image() {
    return image;
  }

  Ext4FileSystem engine() {
    ensureOpen();
    return engine;
  }

  Vfs vfs() {
    ensureOpen();
    return vfs;
  }

  Credentials creds() {
    return creds;
  }

  void ensureOpen() {
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

  /** Registers a channel, stream or watch service to be closed with this file system. */
  <T extends Closeable> T track(T c) {
    opened.add(c);
    if (!open) { // closed meanwhile: close() may have missed it
      opened.remove(c);
      try {
        c.close();
      } catch (IOException e) {
        // it was opened on a file system that is closed: the exception below is what counts
      }
      throw new ClosedFileSystemException();
    }
    return c;
  }

  void untrack(Closeable c) {
    opened.remove(c);
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
    IOException first = null;
    for (Closeable c : List.copyOf(opened)) {
      try {
        c.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    opened.clear();
    try {
      engine.close();
    } finally {
      provider.closed(this);
      if (Thread.currentThread() != shutdownHook) {
        try {
          Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException exiting) {
          // the JVM is shutting down: the hook runs and finds this closed
        }
      }
    }
    if (first != null) {
      throw first;
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
    ensureOpen();
    return Ext4Principal.lookup(this);
  }

  @Override
  public WatchService newWatchService() {
    ensureOpen();
    return track(new Ext4WatchService(this));
  }

  // ------------------------------------------------------------------ operations (the provider's)

  /** Whether {@code options} follow a final symbolic link (no NOFOLLOW_LINKS). */
  static boolean follows(LinkOption... options) {
    for (LinkOption o : options) {
      if (o == LinkOption.NOFOLLOW_LINKS) {
        return false;
      }
    }
    return true;
  }

  /** stat (or lstat) of {@code p}, from {@code dirfd} when relative (null: the root). */
  Attributes stat(OpenFile dirfd, Ext4Path p, Object shown, LinkOption... options) throws IOException {
    try {
      return vfs().statat(dirfd, p.bytes(), follows(options), creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  Attributes stat(Ext4Path p, LinkOption... options) throws IOException {
    return stat(null, p, p, options);
  }

  /** {@link #stat} that gives null for a name that does not exist. */
  Attributes statIfExists(OpenFile dirfd, Ext4Path p, Object shown, LinkOption... options) throws IOException {
    try {
      return vfs().statat(dirfd, p.bytes(), follows(options), creds);
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOENT) {
        return null;
      }
      throw NioErrors.translate(e, shown, null);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
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

  Ext4FileChannel open(Ext4Path p, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
    return open(null, p, p, options, attrs);
  }

  /**
   * Opens {@code p} (from {@code dirfd} when relative) as {@code Files.newByteChannel} does: the
   * options become open(2)'s flags and the engine's openat does the rest in one call (CREATE and
   * CREATE_NEW are O_CREAT and O_CREAT|O_EXCL, TRUNCATE_EXISTING O_TRUNC; without WRITE they are
   * ignored, as the JDK ignores them). {@code shown} names it in messages.
   */
  Ext4FileChannel open(OpenFile dirfd, Ext4Path p, Ext4Path shown, Set<? extends OpenOption> options, FileAttribute<?>[] attrs)
      throws IOException {
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
    EnumSet<OpenFlag> flags = EnumSet.noneOf(OpenFlag.class);
    if (read) {
      flags.add(OpenFlag.READ);
    }
    if (write) {
      ensureWritable();
      flags.add(OpenFlag.WRITE);
      if (options.contains(StandardOpenOption.CREATE_NEW)) {
        flags.add(OpenFlag.CREATE);
        flags.add(OpenFlag.EXCLUSIVE);
      } else if (options.contains(StandardOpenOption.CREATE)) {
        flags.add(OpenFlag.CREATE);
      }
      if (options.contains(StandardOpenOption.TRUNCATE_EXISTING)) {
        flags.add(OpenFlag.TRUNCATE);
      }
    }
    if (append) {
      flags.add(OpenFlag.APPEND);
    }
    if (options.contains(LinkOption.NOFOLLOW_LINKS)) {
      flags.add(OpenFlag.NOFOLLOW);
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
    OpenFile file;
    try {
      file = vfs().openat(dirfd, p.bytes(), flags, modeOf(attrs, DEFAULT_FILE_MODE), creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
    Ext4Path absolute = shown.toAbsolutePath();
    Runnable onClose = options.contains(StandardOpenOption.DELETE_ON_CLOSE) ? () -> deleteQuietly(absolute) : () -> { };
    return track(new Ext4FileChannel(this, file, shown, read, write, append, locks, onClose));
  }

  /** DELETE_ON_CLOSE's delete: best effort, as the JDK's (the name may have gone or changed meanwhile). */
  private void deleteQuietly(Ext4Path p) {
    try {
      if (open) {
        delete(null, p, p);
      }
    } catch (IOException | RuntimeException e) {
      // the JDK's DELETE_ON_CLOSE is best effort too: the file may already be gone
    }
  }

  /** Opens directory {@code p} (from {@code dirfd} when relative) for listing and for *at calls. */
  OpenFile openDirectory(OpenFile dirfd, Ext4Path p, Object shown, LinkOption... options) throws IOException {
    EnumSet<OpenFlag> flags = EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY);
    if (!follows(options)) {
      flags.add(OpenFlag.NOFOLLOW);
    }
    try {
      return vfs().openat(dirfd, p.bytes(), flags, 0, creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  /** The entries of directory {@code dir} (from {@code dirfd} when relative) as paths under {@code shown}. */
  Ext4SecureDirectoryStream list(OpenFile dirfd, Ext4Path dir, Ext4Path shown, DirectoryStream.Filter<? super Path> filter,
      LinkOption... options) throws IOException {
    OpenFile d = openDirectory(dirfd, dir, shown, options);
    try {
      return track(new Ext4SecureDirectoryStream(this, shown, d, filter));
    } catch (RuntimeException e) {
      d.close();
      throw e;
    }
  }

  /** One page of entries of the open directory {@code dir} from {@code cookie}, "." and ".." included. */
  List<DirEntry> readdir(OpenFile dir, Object shown, long cookie) throws IOException {
    try {
      return vfs().readdir(dir, cookie, PAGE);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  void createDirectory(OpenFile dirfd, Ext4Path p, Object shown, FileAttribute<?>... attrs) throws IOException {
    ensureWritable();
    try {
      vfs().mkdirat(dirfd, p.bytes(), modeOf(attrs, DEFAULT_DIR_MODE), creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  void createSymbolicLink(Ext4Path link, Path target, FileAttribute<?>... attrs) throws IOException {
    ensureWritable();
    if (attrs.length > 0) {
      throw new UnsupportedOperationException("initial attributes of a symbolic link");
    }
    byte[] to = target instanceof Ext4Path t ? t.bytes() : Ext4Path.parse(this, target.toString()).bytes();
    try {
      vfs().symlinkat(to, null, link.bytes(), creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, link, target);
    }
  }

  void createLink(Ext4Path link, Ext4Path existing) throws IOException {
    ensureWritable();
    try {
      vfs().linkat(null, existing.bytes(), null, link.bytes(), false, creds); // link(2) does not follow
    } catch (IOException e) {
      throw NioErrors.translate(e, link, existing);
    }
  }

  Ext4Path readSymbolicLink(Ext4Path link) throws IOException {
    try {
      return Ext4Path.parse(this, vfs().readlinkat(null, link.bytes(), creds));
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.EINVAL) {
        throw NioErrors.notLink(link);
      }
      throw NioErrors.translate(e, link, null);
    } catch (IOException e) {
      throw NioErrors.translate(e, link, null);
    }
  }

  void delete(Ext4Path p) throws IOException {
    delete(null, p, p);
  }

  /** unlink, or rmdir where {@code p} names a directory, as {@code Files.delete}. */
  void delete(OpenFile dirfd, Ext4Path p, Object shown) throws IOException {
    ensureWritable();
    try {
      try {
        vfs().unlinkat(dirfd, p.bytes(), false, creds);
      } catch (Ext4Exception e) {
        if (e.errno() != Errno.EISDIR) {
          throw e;
        }
        vfs().unlinkat(dirfd, p.bytes(), true, creds);
      }
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  /** unlink ({@code directory} false) or rmdir of exactly that kind, as SecureDirectoryStream's delete calls. */
  void remove(OpenFile dirfd, Ext4Path p, Object shown, boolean directory) throws IOException {
    ensureWritable();
    try {
      vfs().unlinkat(dirfd, p.bytes(), directory, creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  /**
   * {@code Files.move}: rename(2), replacing the target only with REPLACE_EXISTING. As the JDK, a
   * non-atomic replace of a directory by a file or a file by a directory removes the target first;
   * ATOMIC_MOVE is rename(2) alone, with its rules.
   */
  void move(Ext4Path from, Ext4Path to, CopyOption... options) throws IOException {
    ensureWritable();
    boolean replace = false;
    boolean atomic = false;
    for (CopyOption o : options) {
      if (o == StandardCopyOption.REPLACE_EXISTING) {
        replace = true;
      } else if (o == StandardCopyOption.ATOMIC_MOVE) {
        atomic = true;
      } else if (o != LinkOption.NOFOLLOW_LINKS && o != StandardCopyOption.COPY_ATTRIBUTES) {
        throw new UnsupportedOperationException("copy option " + o);
      }
    }
    rename(null, from, from, null, to, to, replace || atomic, atomic);
  }

  /** rename from {@code olddir}/{@code from} to {@code newdir}/{@code to} (null dirs: the root). */
  void rename(OpenFile olddir, Ext4Path from, Object fromShown, OpenFile newdir, Ext4Path to, Object toShown, boolean replace,
      boolean atomic) throws IOException {
    ensureWritable();
    try {
      try {
        vfs().renameat(olddir, from.bytes(), newdir, to.bytes(), replace ? RenameMode.REPLACE : RenameMode.NOREPLACE, creds);
      } catch (Ext4Exception e) {
        if (e.errno() == Errno.EEXIST && !replace) {
          Attributes a = statIfExists(olddir, from, fromShown, LinkOption.NOFOLLOW_LINKS);
          Attributes b = statIfExists(newdir, to, toShown, LinkOption.NOFOLLOW_LINKS);
          if (a != null && b != null && a.ino() == b.ino()) {
            return; // the same file: nothing to do, as Files.move says
          }
          throw new FileAlreadyExistsException(toShown.toString());
        }
        if (atomic || (e.errno() != Errno.ENOTDIR && e.errno() != Errno.EISDIR)) {
          throw e;
        }
        Attributes a = statIfExists(olddir, from, fromShown, LinkOption.NOFOLLOW_LINKS);
        Attributes b = statIfExists(newdir, to, toShown, LinkOption.NOFOLLOW_LINKS);
        if (a == null || b == null || a.isDirectory() == b.isDirectory()) {
          throw e; // not a file replaced by a directory, or the reverse
        }
        if (b.isDirectory()) {
          vfs().unlinkat(newdir, to.bytes(), true, creds);
        } else {
          vfs().unlinkat(newdir, to.bytes(), false, creds);
        }
        vfs().renameat(olddir, from.bytes(), newdir, to.bytes(), RenameMode.NOREPLACE, creds);
      }
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOTEMPTY || (e.errno() == Errno.EEXIST && replace)) {
        throw new DirectoryNotEmptyException(toShown.toString());
      }
      throw NioErrors.translate(e, fromShown, toShown);
    } catch (IOException e) {
      throw NioErrors.translate(e, fromShown, toShown);
    }
  }

  /**
   * {@code Files.copy} within this file system, as the JDK's copies: the target is made with the
   * source's permission bits (less the umask); COPY_ATTRIBUTES adds the owner, the whole mode, the
   * times and the extended attributes; NOFOLLOW_LINKS copies a link as a link.
   */
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
    Attributes dst = statIfExists(null, to, to, LinkOption.NOFOLLOW_LINKS);
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
      createDirectory(null, to, to, permissions(perms));
    } else if (src.isSymlink()) {
      createSymbolicLink(to, readSymbolicLink(from));
    } else if (src.isRegularFile()) {
      try (Ext4FileChannel in = open(from, Set.of(StandardOpenOption.READ));
          Ext4FileChannel out = open(null, to, to, Set.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW),
              new FileAttribute<?>[] {permissions(perms)})) {
        in.transferTo(0, Long.MAX_VALUE, out); // to the end of the file
      }
    } else {
      throw new UnsupportedOperationException("copying a special file (" + from + ")");
    }
    if (attributes) {
      copyAttributes(from, src, to);
    }
  }

  private void copyAttributes(Ext4Path from, Attributes src, Ext4Path to) throws IOException {
    try {
      byte[] f = from.bytes();
      byte[] t = to.bytes();
      boolean link = src.isSymlink();
      for (String name : vfs().listxattrat(null, f, !link, creds)) {
        vfs().setxattrat(null, t, false, name, vfs().getxattrat(null, f, !link, name, creds), 0, creds);
      }
      AttrChange c = AttrChange.chown(src.uid(), src.gid());
      if (!link) {
        c = c.withMode(src.mode() & 07777);
      }
      vfs().setattrat(null, t, false, c.withTimes(TimeSpec.at(src.atime()), TimeSpec.at(src.mtime())), creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, to, from);
    }
  }

  /** chmod, chown, utimensat of {@code p} (from {@code dirfd} when relative). */
  void setattr(OpenFile dirfd, Ext4Path p, Object shown, AttrChange change, LinkOption... options) throws IOException {
    ensureWritable();
    try {
      vfs().setattrat(dirfd, p.bytes(), follows(options), change, creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  void setattr(Ext4Path p, AttrChange change, LinkOption... options) throws IOException {
    setattr(null, p, p, change, options);
  }

  /** faccessat(2); WRITE on a read-only file system is EROFS, as the JDK's. */
  void checkAccess(Ext4Path p, java.nio.file.AccessMode... modes) throws IOException {
    int mask = 0;
    for (java.nio.file.AccessMode m : modes) {
      mask |= switch (m) {
        case READ -> Permissions.MAY_READ;
        case WRITE -> Permissions.MAY_WRITE;
        case EXECUTE -> Permissions.MAY_EXEC;
      };
    }
    try {
      vfs().accessat(null, p.bytes(), mask, true, creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  Ext4Path realPath(Ext4Path p, LinkOption... options) throws IOException {
    try {
      return Ext4Path.parse(this, vfs().realpath(null, p.toAbsolutePath().bytes(), follows(options), creds));
    } catch (IOException e) {
      throw NioErrors.translate(e, p, null);
    }
  }

  /** getxattr of {@code p} (from {@code dirfd} when relative). */
  byte[] getxattr(OpenFile dirfd, Ext4Path p, Object shown, String name, LinkOption... options) throws IOException {
    try {
      return vfs().getxattrat(dirfd, p.bytes(), follows(options), name, creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  void setxattr(OpenFile dirfd, Ext4Path p, Object shown, String name, byte[] value, LinkOption... options) throws IOException {
    ensureWritable();
    try {
      vfs().setxattrat(dirfd, p.bytes(), follows(options), name, value, 0, creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  List<String> listxattr(OpenFile dirfd, Ext4Path p, Object shown, LinkOption... options) throws IOException {
    try {
      return vfs().listxattrat(dirfd, p.bytes(), follows(options), creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  void removexattr(OpenFile dirfd, Ext4Path p, Object shown, String name, LinkOption... options) throws IOException {
    ensureWritable();
    try {
      vfs().removexattrat(dirfd, p.bytes(), follows(options), name, creds);
    } catch (IOException e) {
      throw NioErrors.translate(e, shown, null);
    }
  }

  private static FileAttribute<Set<PosixFilePermission>> permissions(int mode) {
    return java.nio.file.attribute.PosixFilePermissions.asFileAttribute(Ext4FileAttributes.permissions(mode & 0777));
  }

  /** Whether two paths name the same inode. */
  boolean isSameFile(Ext4Path a, Ext4Path b) throws IOException {
    return stat(a).ino() == stat(b).ino();
  }
}
