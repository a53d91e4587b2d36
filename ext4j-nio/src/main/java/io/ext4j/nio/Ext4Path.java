package io.ext4j.nio;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.ProviderMismatchException;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A path of an {@link Ext4NioFileSystem}: Unix syntax, {@code '/'} between names, absolute when it
 * starts with {@code '/'}. Kept as its names' bytes, as {@code UnixPath} keeps them: a name read
 * from a directory keeps the bytes it has on disk whatever they are, so a listing's paths walk,
 * read and delete what they name even when they are not UTF-8; a name given as a Java string is
 * its UTF-8 encoding, and a string that has none (a lone surrogate) is an
 * {@link InvalidPathException}. Redundant and trailing slashes are removed; {@code "."} and
 * {@code ".."} stay until {@link #normalize}. Relative paths resolve against the root (an image
 * has no working directory). Immutable.
 */
final class Ext4Path implements Path {
  private static final byte[] DOT = {'.'};
  private static final byte[] DOTDOT = {'.', '.'};

  private final Ext4NioFileSystem fs;
  private final boolean absolute;
  private final byte[][] names; // never empty, except the single name of the empty path; never mutated

  private Ext4Path(Ext4NioFileSystem fs, boolean absolute, byte[][] names) {
    this.fs = fs;
    this.absolute = absolute;
    this.names = names;
  }

  /** Parses {@code path} (the pieces of {@code getPath(first, more…)} joined with '/'). */
  static Ext4Path parse(Ext4NioFileSystem fs, String path) {
    if (path.indexOf('\0') >= 0) {
      throw new InvalidPathException(path, "a name cannot hold NUL");
    }
    return parse(fs, encode(path));
  }

  /** The path whose bytes are {@code path} ('/' between names), as a symbolic link holds one. */
  static Ext4Path parse(Ext4NioFileSystem fs, byte[] path) {
    boolean abs = path.length > 0 && path[0] == '/';
    List<byte[]> parts = new ArrayList<>();
    int i = 0;
    while (i < path.length) {
      int j = i;
      while (j < path.length && path[j] != '/') {
        j++;
      }
      if (j > i) {
        parts.add(Arrays.copyOfRange(path, i, j));
      }
      i = j + 1;
    }
    return of(fs, abs, parts);
  }

  /** The single-name relative path of {@code name} (an entry read from a directory). */
  static Ext4Path ofName(Ext4NioFileSystem fs, byte[] name) {
    return new Ext4Path(fs, false, new byte[][] {name.clone()});
  }

  /** {@code s} as UTF-8, or InvalidPathException when it has no encoding. */
  private static byte[] encode(String s) {
    CharsetEncoder e = StandardCharsets.UTF_8.newEncoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    try {
      ByteBuffer b = e.encode(CharBuffer.wrap(s));
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    } catch (CharacterCodingException x) {
      throw new InvalidPathException(s, "the name cannot be encoded as UTF-8");
    }
  }

  private static String decode(byte[] name) {
    return new String(name, StandardCharsets.UTF_8); // as UnixPath shows bytes that are not UTF-8: replaced
  }

  private boolean isEmptyPath() {
    return !absolute && names.length == 1 && names[0].length == 0;
  }

  private static Ext4Path of(Ext4NioFileSystem fs, boolean abs, List<byte[]> parts) {
    if (!abs && parts.isEmpty()) {
      return new Ext4Path(fs, false, new byte[][] {new byte[0]});
    }
    return new Ext4Path(fs, abs, parts.toArray(byte[][]::new));
  }

  private Ext4Path of(boolean abs, List<byte[]> parts) {
    return of(fs, abs, parts);
  }

  private List<byte[]> nameList() {
    return isEmptyPath() ? List.of() : Arrays.asList(names);
  }

  /**
   * The path's bytes as the VFS resolves them: "/a/b" for an absolute path, "a/b" for a relative
   * one (resolved from the directory a call names, the root by default), "." for the empty path.
   */
  byte[] bytes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (absolute) {
      out.write('/');
    }
    List<byte[]> parts = nameList();
    for (int i = 0; i < parts.size(); i++) {
      if (i > 0) {
        out.write('/');
      }
      out.writeBytes(parts.get(i));
    }
    if (out.size() == 0) {
      out.write('.');
    }
    return out.toByteArray();
  }

  /** The last name's bytes (empty for the root). */
  byte[] lastName() {
    return names.length == 0 ? new byte[0] : names[names.length - 1].clone();
  }

  /** {@code other} as an ext4 path, or ProviderMismatchException. */
  static Ext4Path check(Path other) {
    if (!(other instanceof Ext4Path p)) {
      throw new ProviderMismatchException("not an ext4 path: " + (other == null ? "null" : other.getClass().getName()));
    }
    return p;
  }

  @Override
  public Ext4NioFileSystem getFileSystem() {
    return fs;
  }

  @Override
  public boolean isAbsolute() {
    return absolute;
  }

  @Override
  public Ext4Path getRoot() {
    return absolute ? new Ext4Path(fs, true, new byte[0][]) : null;
  }

  @Override
  public Ext4Path getFileName() {
    if (names.length == 0) {
      return null;
    }
    if (isEmptyPath()) {
      return this;
    }
    return new Ext4Path(fs, false, new byte[][] {names[names.length - 1]});
  }

  @Override
  public Ext4Path getParent() {
    if (names.length == 0 || isEmptyPath()) {
      return null;
    }
    if (names.length == 1) {
      return getRoot();
    }
    return new Ext4Path(fs, absolute, Arrays.copyOf(names, names.length - 1));
  }

  @Override
  public int getNameCount() {
    return names.length;
  }

  @Override
  public Ext4Path getName(int index) {
    if (index < 0 || index >= names.length) {
      throw new IllegalArgumentException("name " + index + " of a path of " + names.length);
    }
    return new Ext4Path(fs, false, new byte[][] {names[index]});
  }

  @Override
  public Ext4Path subpath(int beginIndex, int endIndex) {
    if (beginIndex < 0 || beginIndex >= names.length || endIndex > names.length || beginIndex >= endIndex) {
      throw new IllegalArgumentException("names [" + beginIndex + ", " + endIndex + ") of a path of " + names.length);
    }
    return new Ext4Path(fs, false, Arrays.copyOfRange(names, beginIndex, endIndex));
  }

  @Override
  public boolean startsWith(Path other) {
    if (!(other instanceof Ext4Path o) || o.fs != fs) {
      return false;
    }
    if (o.absolute != absolute || o.names.length > names.length) {
      return false;
    }
    if (o.isEmptyPath()) {
      return isEmptyPath();
    }
    for (int i = 0; i < o.names.length; i++) {
      if (!Arrays.equals(o.names[i], names[i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean endsWith(Path other) {
    if (!(other instanceof Ext4Path o) || o.fs != fs) {
      return false;
    }
    if (o.absolute) {
      return equals(o);
    }
    if (o.isEmptyPath()) {
      return isEmptyPath();
    }
    if (o.names.length > names.length) {
      return false;
    }
    for (int i = 1; i <= o.names.length; i++) {
      if (!Arrays.equals(o.names[o.names.length - i], names[names.length - i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Ext4Path normalize() {
    List<byte[]> out = new ArrayList<>();
    for (byte[] n : nameList()) {
      if (Arrays.equals(n, DOT)) {
        continue;
      }
      if (Arrays.equals(n, DOTDOT)) {
        if (!out.isEmpty() && !Arrays.equals(out.get(out.size() - 1), DOTDOT)) {
          out.remove(out.size() - 1);
          continue;
        }
        if (absolute) {
          continue; // the root's parent is the root
        }
      }
      out.add(n);
    }
    return of(absolute, out);
  }

  @Override
  public Ext4Path resolve(Path other) {
    Ext4Path o = check(other);
    if (o.absolute) {
      return o;
    }
    if (o.isEmptyPath()) {
      return this;
    }
    if (isEmptyPath()) {
      return o;
    }
    List<byte[]> all = new ArrayList<>(nameList());
    all.addAll(o.nameList());
    return of(absolute, all);
  }

  @Override
  public Ext4Path relativize(Path other) {
    Ext4Path o = check(other);
    if (o.absolute != absolute) {
      throw new IllegalArgumentException("'" + other + "' and '" + this + "' are not both absolute or both relative");
    }
    List<byte[]> a = nameList();
    List<byte[]> b = o.nameList();
    int common = 0;
    while (common < a.size() && common < b.size() && Arrays.equals(a.get(common), b.get(common))) {
      common++;
    }
    List<byte[]> out = new ArrayList<>();
    for (int i = common; i < a.size(); i++) {
      out.add(DOTDOT);
    }
    out.addAll(b.subList(common, b.size()));
    return of(false, out);
  }

  @Override
  public URI toUri() {
    try {
      String inner = toAbsolutePath().normalize().toString();
      return new URI(Ext4FileSystemProvider.SCHEME + ":" + fs.image().toUri() + "!" + new URI(null, null, inner, null).getRawPath());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("no URI for " + this, e);
    }
  }

  @Override
  public Ext4Path toAbsolutePath() {
    return absolute ? this : new Ext4Path(fs, true, nameList().toArray(byte[][]::new));
  }

  @Override
  public Ext4Path toRealPath(LinkOption... options) throws IOException {
    return fs.realPath(this, options);
  }

  @Override
  public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) throws IOException {
    if (!(watcher instanceof Ext4WatchService w) || !w.watches(fs)) {
      throw new ProviderMismatchException("not a watch service of this ext4 file system: " + watcher);
    }
    return w.register(this, events, modifiers);
  }

  @Override
  public int compareTo(Path other) {
    return Arrays.compareUnsigned(bytesShown(), check(other).bytesShown());
  }

  private byte[] bytesShown() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (absolute) {
      out.write('/');
    }
    for (int i = 0; i < names.length; i++) {
      if (i > 0) {
        out.write('/');
      }
      out.writeBytes(names[i]);
    }
    return out.toByteArray();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Ext4Path p && p.fs == fs && p.absolute == absolute && Arrays.deepEquals(p.names, names);
  }

  @Override
  public int hashCode() {
    return Objects.hash(System.identityHashCode(fs), absolute, Arrays.deepHashCode(names));
  }

  @Override
  public String toString() {
    return decode(bytesShown());
  }
}
