package io.ext4j.nio;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.vfs.AttrChange;
import io.ext4j.tools.mkfs.MakeImage;
import io.ext4j.tools.mkfs.Mkfs;
import io.ext4j.tools.mkfs.MkfsParameters;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileOwnerAttributeView;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.spi.FileSystemProvider;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code ext4} file system provider: ext4 images as {@link FileSystem}s, the way zipfs opens
 * zip files. Registered through {@code META-INF/services}, so
 * {@code FileSystems.newFileSystem(Path.of("disk.img"))} finds it: an image is recognized by its
 * superblock magic, and any other file is declined (UnsupportedOperationException, so the JDK
 * asks the next provider). URIs are {@code ext4:file:///…/disk.img!/inner/path}.
 *
 * <h2>Environment keys</h2>
 * <ul>
 *   <li>{@code readOnly} (Boolean or "true"/"false", default false): open without writing; an
 *       image that needs journal recovery is then replayed in memory.
 *   <li>{@code create} (default false): when the image file does not exist, make one (as
 *       {@code mkfs.ext4} would) first, of {@code size} bytes (a number, or with k/m/g/t:
 *       "64m"; default 64 MiB) and {@code blockSize} 1024, 2048 or 4096 (default: mke2fs's choice).
 *   <li>{@code cacheBytes} (a number, default the engine's 64 MiB): the engine's block cache.
 *   <li>{@code dentryCacheSize} (a number, default the engine's 65536): names the engine's dentry
 *       cache keeps; 0 turns it off (every path walk reads the directories), for the benchmark.
 *   <li>{@code directDevice} (default false): open the image file with O_DIRECT, bypassing the
 *       host's page cache, so {@code ExtendedOpenOption.DIRECT} is direct down to the disk.
 *   <li>{@code dirSync} (default false): the {@code dirsync} mount option: every directory change
 *       (create, delete, move, link, mkdir) is durable when its call returns.
 *   <li>{@code commitInterval} (a duration: 500ms, 5s, 2m, 1h, PT5S, or milliseconds; default 5 s): how long
 *       the journal lets a transaction run before it commits it without being asked.
 *   <li>{@code batchingPolicy} (a name of {@link io.ext4j.jbd2.BatchingPolicies}, default adaptive),
 *       {@code minBatchTime}, {@code maxBatchTime}: how synchronous commits are batched.
 *   <li>The strategies the benchmark compares, each an enum constant's name in any case, with
 *       {@code -} for {@code _} (or the constant itself): {@code dioLocking} ({@link
 *       io.ext4j.fs.DioLocking}: always-exclusive, shared-overwrite, shared-with-unwritten, the
 *       default), {@code committedCheck} ({@link io.ext4j.jbd2.CommittedCheck}: lock-free, the
 *       default, or state-lock) and {@code writeAccessPath} ({@link io.ext4j.jbd2.WriteAccessPath}:
 *       lock-free-fast-path, the default, or always-locked).
 * </ul>
 * Other keys are refused (IllegalArgumentException naming them): a misspelled key would otherwise
 * open the image in a way the caller did not ask for.
 *
 * <h2>Threads</h2>
 * Thread-safe: the table of open file systems is guarded by {@code this}; everything else is the
 * file system's.
 */
public final class Ext4FileSystemProvider extends FileSystemProvider {
  /** The URI scheme. */
  public static final String SCHEME = "ext4";

  private static final Set<String> KEYS = Set.of("readOnly", "create", "size", "blockSize", "cacheBytes", "directDevice", "dirSync",
      "commitInterval", "batchingPolicy", "minBatchTime", "maxBatchTime", "dioLocking", "committedCheck", "writeAccessPath",
      "dentryCacheSize");
  @GuardedBy("this") private final Map<Path, Ext4NioFileSystem> open = new HashMap<>();

  /** The provider the service loader makes (and tests may make their own). */
  public Ext4FileSystemProvider() {}

  @Override
  public String getScheme() {
    return SCHEME;
  }

  private static Path imageOf(URI uri) {
    if (!SCHEME.equalsIgnoreCase(uri.getScheme())) {
      throw new IllegalArgumentException("not an " + SCHEME + ": URI: " + uri);
    }
    String spec = uri.getRawSchemeSpecificPart();
    int bang = spec.indexOf("!/");
    String file = bang >= 0 ? spec.substring(0, bang) : spec;
    return Path.of(URI.create(file));
  }

  private static String innerOf(URI uri) {
    String spec = uri.getRawSchemeSpecificPart();
    int bang = spec.indexOf("!/");
    return bang >= 0 ? URI.create("x:" + spec.substring(bang + 1)).getPath() : "/";
  }

  @Override
  public FileSystem newFileSystem(URI uri, Map<String, ?> env) throws IOException {
    return open(imageOf(uri), env, true);
  }

  @Override
  public FileSystem newFileSystem(Path path, Map<String, ?> env) throws IOException {
    return open(path, env, false);
  }

  private synchronized Ext4NioFileSystem open(Path path, Map<String, ?> env, boolean byUri) throws IOException {
    for (String k : env.keySet()) {
      if (!KEYS.contains(k)) {
        throw new IllegalArgumentException("unknown ext4 file system option '" + k + "' (known: " + KEYS + ")");
      }
    }
    if (path.getFileSystem() != java.nio.file.FileSystems.getDefault()) {
      throw new UnsupportedOperationException(path + " is not a file of the default file system");
    }
    boolean create = flag(env, "create");
    if (create && Files.notExists(path)) {
      create(path, env);
    } else if (!looksLikeExt4(path)) {
      if (!byUri) {
        throw new UnsupportedOperationException(path + " is not an ext4 image"); // the JDK tries the next provider
      }
      throw new java.nio.file.FileSystemException(path.toString(), null,
          "not an ext4 image (no ext4 superblock magic at byte 1080)");
    }
    Path real = path.toRealPath();
    if (open.containsKey(real)) {
      throw new FileSystemAlreadyExistsException(real.toString());
    }
    Ext4Options.Builder o = Ext4Options.builder().readOnly(flag(env, "readOnly")).directDevice(flag(env, "directDevice"))
        .dirSync(flag(env, "dirSync"));
    if (env.containsKey("cacheBytes")) {
      o.cacheBytes(size(env.get("cacheBytes"), "cacheBytes"));
    }
    io.ext4j.jbd2.JournalOptions.Builder j = Ext4Options.builder().build().journal().toBuilder(); // the engine's defaults
    if (env.containsKey("commitInterval")) {
      j.commitInterval(duration(env.get("commitInterval"), "commitInterval"));
    }
    if (env.containsKey("minBatchTime")) {
      j.minBatchTime(duration(env.get("minBatchTime"), "minBatchTime"));
    }
    if (env.containsKey("maxBatchTime")) {
      j.maxBatchTime(duration(env.get("maxBatchTime"), "maxBatchTime"));
    }
    if (env.containsKey("batchingPolicy")) {
      Object v = env.get("batchingPolicy");
      j.batchingPolicy(v instanceof io.ext4j.jbd2.BatchingPolicy b ? b : io.ext4j.jbd2.BatchingPolicies.byName(v.toString()));
    }
    if (env.containsKey("committedCheck")) {
      j.committedCheck(constant(env, "committedCheck", io.ext4j.jbd2.CommittedCheck.class));
    }
    if (env.containsKey("writeAccessPath")) {
      j.writeAccessPath(constant(env, "writeAccessPath", io.ext4j.jbd2.WriteAccessPath.class));
    }
    if (env.containsKey("dentryCacheSize")) {
      o.dentryCacheSize(Math.toIntExact(size(env.get("dentryCacheSize"), "dentryCacheSize")));
    }
    if (env.containsKey("dioLocking")) {
      o.dioLocking(constant(env, "dioLocking", io.ext4j.fs.DioLocking.class));
    }
    o.journal(j.build());
    Ext4NioFileSystem fs = new Ext4NioFileSystem(this, real, Ext4FileSystem.open(real, o.build()));
    open.put(real, fs);
    fs.armShutdownHook();
    return fs;
  }

  synchronized void closed(Ext4NioFileSystem fs) {
    open.remove(fs.image(), fs);
  }

  /** An enum option: the constant itself, or its name in any case with '-' for '_'. */
  private static <E extends Enum<E>> E constant(Map<String, ?> env, String key, Class<E> type) {
    Object v = env.get(key);
    if (type.isInstance(v)) {
      return type.cast(v);
    }
    String name = String.valueOf(v).strip().replace('-', '_').toUpperCase(java.util.Locale.ROOT);
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(name)) {
        return e;
      }
    }
    java.util.List<String> known = new java.util.ArrayList<>();
    for (E e : type.getEnumConstants()) {
      known.add(e.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    }
    throw new IllegalArgumentException("option '" + key + "' must be one of " + known + ", not '" + v + "'");
  }

  private static boolean flag(Map<String, ?> env, String key) {
    Object v = env.get(key);
    if (v == null) {
      return false;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    String s = v.toString();
    if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(s);
    }
    throw new IllegalArgumentException("option '" + key + "' must be true or false, not '" + v + "'");
  }

  private static long size(Object v, String key) {
    if (v instanceof Number n) {
      return n.longValue();
    }
    try {
      return io.ext4j.fs.ByteSize.parse(v.toString());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("option '" + key + "' must be a size (64m, 1g, bytes): " + e.getMessage(), e);
    }
  }

  /** A Duration, a number of milliseconds, ISO-8601 ("PT5S") or a number with ms, s or m ("5s"). */
  private static java.time.Duration duration(Object v, String key) {
    if (v instanceof java.time.Duration d) {
      return d;
    }
    if (v instanceof Number n) {
      return java.time.Duration.ofMillis(n.longValue());
    }
    String s = v.toString().trim().toLowerCase(java.util.Locale.ROOT);
    try {
      if (s.startsWith("p")) {
        return java.time.Duration.parse(s.toUpperCase(java.util.Locale.ROOT));
      }
      if (s.endsWith("ms")) {
        return java.time.Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
      }
      if (s.endsWith("s")) {
        return java.time.Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
      }
      if (s.endsWith("m")) {
        return java.time.Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
      }
      if (s.endsWith("h")) {
        return java.time.Duration.ofHours(Long.parseLong(s.substring(0, s.length() - 1)));
      }
      return java.time.Duration.ofMillis(Long.parseLong(s));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("option '" + key + "' must be a duration (500ms, 5s, 2m, 1h, PT5S), not '" + v + "'");
    }
  }

  private static void create(Path path, Map<String, ?> env) throws IOException {
    MkfsParameters.Builder p = MkfsParameters.builder()
        .sizeBytes(env.containsKey("size") ? size(env.get("size"), "size") : 64L << 20);
    if (env.containsKey("blockSize")) {
      long b = size(env.get("blockSize"), "blockSize");
      if (b != 1024 && b != 2048 && b != 4096) {
        throw new IllegalArgumentException("option 'blockSize' must be 1024, 2048 or 4096 (what the kernel mounts), not '"
            + env.get("blockSize") + "'");
      }
      p.blockSize((int) b);
    }
    MakeImage.make(path, p.build(), Mkfs.Identity.random(Instant.now()), null, null, false);
  }

  /** Whether {@code path} is a regular file with the ext4 superblock magic at byte 1080. */
  static boolean looksLikeExt4(Path path) throws IOException {
    if (!Files.isRegularFile(path) && !Files.exists(path)) {
      throw new java.nio.file.NoSuchFileException(path.toString());
    }
    try (FileChannel c = FileChannel.open(path, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN);
      return c.read(b, io.ext4j.fs.format.Ext4Superblock.OFFSET + 0x38) == 2
          && Short.toUnsignedInt(b.getShort(0)) == io.ext4j.fs.format.Ext4Superblock.MAGIC;
    }
  }

  @Override
  public synchronized FileSystem getFileSystem(URI uri) {
    Ext4NioFileSystem fs;
    try {
      fs = open.get(imageOf(uri).toRealPath());
    } catch (IOException e) {
      fs = null;
    }
    if (fs == null) {
      throw new FileSystemNotFoundException(uri.toString());
    }
    return fs;
  }

  @Override
  public Path getPath(URI uri) {
    return ((Ext4NioFileSystem) getFileSystem(uri)).getPath(innerOf(uri));
  }

  private static Ext4Path path(Path p) {
    return Ext4Path.check(p);
  }

  private static Ext4NioFileSystem fsOf(Path p) {
    return path(p).getFileSystem();
  }

  @Override
  public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
      throws IOException {
    return fsOf(path).open(path(path), options, attrs);
  }

  @Override
  public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
    return fsOf(path).open(path(path), options, attrs);
  }

  @Override
  public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter) throws IOException {
    return fsOf(dir).list(null, path(dir), path(dir), filter);
  }

  @Override
  public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
    fsOf(dir).createDirectory(null, path(dir), path(dir), attrs);
  }

  @Override
  public void createSymbolicLink(Path link, Path target, FileAttribute<?>... attrs) throws IOException {
    fsOf(link).createSymbolicLink(path(link), target, attrs);
  }

  @Override
  public void createLink(Path link, Path existing) throws IOException {
    requireSame(link, existing);
    fsOf(link).createLink(path(link), path(existing));
  }

  @Override
  public Path readSymbolicLink(Path link) throws IOException {
    return fsOf(link).readSymbolicLink(path(link));
  }

  @Override
  public void delete(Path path) throws IOException {
    fsOf(path).delete(path(path));
  }

  @Override
  public void copy(Path source, Path target, CopyOption... options) throws IOException {
    requireSame(source, target);
    fsOf(source).copy(path(source), path(target), options);
  }

  @Override
  public void move(Path source, Path target, CopyOption... options) throws IOException {
    requireSame(source, target);
    fsOf(source).move(path(source), path(target), options);
  }

  private static void requireSame(Path a, Path b) {
    if (fsOf(a) != fsOf(b)) {
      throw new ProviderMismatchException("between two ext4 file systems: copy through Files.copy(InputStream, Path)");
    }
  }

  @Override
  public boolean isSameFile(Path path, Path path2) throws IOException {
    if (path.equals(path2)) {
      return true;
    }
    if (!(path instanceof Ext4Path a) || !(path2 instanceof Ext4Path b) || a.getFileSystem() != b.getFileSystem()) {
      return false;
    }
    return a.getFileSystem().isSameFile(a, b);
  }

  @Override
  public boolean isHidden(Path path) {
    Path name = path(path).getFileName();
    return name != null && name.toString().startsWith(".");
  }

  @Override
  public FileStore getFileStore(Path path) throws IOException {
    fsOf(path).stat(path(path));
    return fsOf(path).getFileStores().iterator().next();
  }

  @Override
  public void checkAccess(Path path, AccessMode... modes) throws IOException {
    fsOf(path).checkAccess(path(path), modes);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
    String name;
    if (type == BasicFileAttributeView.class) {
      name = "basic";
    } else if (type == PosixFileAttributeView.class) {
      name = "posix";
    } else if (type == FileOwnerAttributeView.class) {
      name = "owner";
    } else if (type == java.nio.file.attribute.UserDefinedFileAttributeView.class) {
      return (V) new Ext4UserAttributeView(fsOf(path), path(path), options);
    } else {
      return null;
    }
    return (V) new Ext4AttributeView(fsOf(path), path(path), name, options);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options) throws IOException {
    if (type != BasicFileAttributes.class && type != PosixFileAttributes.class) {
      throw new UnsupportedOperationException("attributes " + type.getName() + " (basic and posix are supported)");
    }
    return (A) new Ext4FileAttributes(fsOf(path).stat(path(path), options));
  }

  private static String[] viewAndNames(String attributes) {
    int colon = attributes.indexOf(':');
    String view = colon < 0 ? "basic" : attributes.substring(0, colon);
    String names = colon < 0 ? attributes : attributes.substring(colon + 1);
    if (!Set.of("basic", "posix", "unix", "owner", "user").contains(view)) {
      throw new UnsupportedOperationException("attribute view '" + view + "' (basic, posix, unix, owner, user are supported)");
    }
    return new String[] {view, names};
  }

  /** "user:a,b" or "user:*" as the JDK's: each name to its value's bytes. */
  private static Map<String, Object> userAttributes(Ext4UserAttributeView v, String names) throws IOException {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String n : names.split(",", 0)) {
      for (String name : n.equals("*") ? v.list() : java.util.List.of(n)) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(v.size(name));
        v.read(name, b);
        out.put(name, b.array());
      }
    }
    return out;
  }

  @Override
  public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
    String[] vn = viewAndNames(attributes);
    if (vn[0].equals("user")) {
      return userAttributes(new Ext4UserAttributeView(fsOf(path), path(path), options), vn[1]);
    }
    Map<String, Object> all = new Ext4FileAttributes(fsOf(path).stat(path(path), options)).asMap(vn[0]);
    if (vn[1].equals("*")) {
      return all;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (String n : vn[1].split(",", 0)) {
      if (n.equals("*")) {
        out.putAll(all);
      } else if (all.containsKey(n)) {
        out.put(n, all.get(n));
      } else {
        throw new IllegalArgumentException("'" + n + "' is not an attribute of view '" + vn[0] + "'");
      }
    }
    return out;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
    String[] vn = viewAndNames(attribute);
    if (vn[0].equals("user")) {
      java.nio.ByteBuffer b = value instanceof byte[] bytes ? java.nio.ByteBuffer.wrap(bytes) : ((java.nio.ByteBuffer) value).duplicate();
      new Ext4UserAttributeView(fsOf(path), path(path), options).write(vn[1], b);
      return;
    }
    Ext4AttributeView v = new Ext4AttributeView(fsOf(path), path(path), vn[0], options);
    switch (vn[1]) {
      case "lastModifiedTime" -> v.setTimes((FileTime) value, null, null);
      case "lastAccessTime" -> v.setTimes(null, (FileTime) value, null);
      case "creationTime" -> v.setTimes(null, null, (FileTime) value);
      case "permissions" -> v.setPermissions((Set<PosixFilePermission>) value);
      case "owner" -> v.setOwner((UserPrincipal) value);
      case "group" -> v.setGroup((GroupPrincipal) value);
      case "mode" -> fsOf(path).setattr(path(path), AttrChange.chmod((Integer) value & 07777), options);
      case "uid" -> fsOf(path).setattr(path(path), AttrChange.chown(((Number) value).longValue(), null), options);
      case "gid" -> fsOf(path).setattr(path(path), AttrChange.chown(null, ((Number) value).longValue()), options);
      default -> throw new IllegalArgumentException("'" + vn[1] + "' cannot be set in view '" + vn[0] + "'");
    }
  }
}
