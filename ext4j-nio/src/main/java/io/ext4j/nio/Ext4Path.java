package io.ext4j.nio;

import java.io.IOException;
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
 * starts with {@code '/'}. Kept as its names with redundant and trailing slashes removed, as
 * {@code UnixPath} keeps them; {@code "."} and {@code ".."} stay until {@link #normalize}. Names are
 * Java strings, stored on disk as their UTF-8 bytes. Relative paths resolve against the root (an
 * image has no working directory). Immutable.
 */
final class Ext4Path implements Path {
  private final Ext4NioFileSystem fs;
  private final boolean absolute;
  private final String[] names; // never empty strings, except the single name of the empty path

  private Ext4Path(Ext4NioFileSystem fs, boolean absolute, String[] names) {
    this.fs = fs;
    this.absolute = absolute;
    this.names = names;
  }

  /** Parses {@code path} (the pieces of {@code getPath(first, more…)} joined with '/'). */
  static Ext4Path parse(Ext4NioFileSystem fs, String path) {
    if (path.indexOf('\0') >= 0) {
      throw new java.nio.file.InvalidPathException(path, "a name cannot hold NUL");
    }
    boolean abs = path.startsWith("/");
    List<String> parts = new ArrayList<>();
    for (String p : path.split("/")) {
      if (!p.isEmpty()) {
        parts.add(p);
      }
    }
    if (!abs && parts.isEmpty()) {
      return new Ext4Path(fs, false, new String[] {""});
    }
    return new Ext4Path(fs, abs, parts.toArray(String[]::new));
  }

  private boolean isEmptyPath() {
    return !absolute && names.length == 1 && names[0].isEmpty();
  }

  private Ext4Path of(boolean abs, List<String> parts) {
    if (!abs && parts.isEmpty()) {
      return new Ext4Path(fs, false, new String[] {""});
    }
    return new Ext4Path(fs, abs, parts.toArray(String[]::new));
  }

  private List<String> nameList() {
    return isEmptyPath() ? List.of() : Arrays.asList(names);
  }

  /** The names from the root, for the engine's path walk (a relative path is taken from the root). */
  String walkPath() {
    return "/" + String.join("/", nameList());
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
    return absolute ? new Ext4Path(fs, true, new String[0]) : null;
  }

  @Override
  public Ext4Path getFileName() {
    if (names.length == 0) {
      return null;
    }
    if (isEmptyPath()) {
      return this;
    }
    return new Ext4Path(fs, false, new String[] {names[names.length - 1]});
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
    return new Ext4Path(fs, false, new String[] {names[index]});
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
      if (!o.names[i].equals(names[i])) {
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
      if (!o.names[o.names.length - i].equals(names[names.length - i])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public Ext4Path normalize() {
    List<String> out = new ArrayList<>();
    for (String n : nameList()) {
      if (n.equals(".")) {
        continue;
      }
      if (n.equals("..")) {
        if (!out.isEmpty() && !out.get(out.size() - 1).equals("..")) {
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
    List<String> all = new ArrayList<>(nameList());
    all.addAll(o.nameList());
    return of(absolute, all);
  }

  @Override
  public Ext4Path relativize(Path other) {
    Ext4Path o = check(other);
    if (o.absolute != absolute) {
      throw new IllegalArgumentException("'" + other + "' and '" + this + "' are not both absolute or both relative");
    }
    List<String> a = nameList();
    List<String> b = o.nameList();
    int common = 0;
    while (common < a.size() && common < b.size() && a.get(common).equals(b.get(common))) {
      common++;
    }
    List<String> out = new ArrayList<>();
    for (int i = common; i < a.size(); i++) {
      out.add("..");
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
    return absolute ? this : new Ext4Path(fs, true, nameList().toArray(String[]::new));
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
    return toString().compareTo(check(other).toString());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Ext4Path p && p.fs == fs && p.absolute == absolute && Arrays.equals(p.names, names);
  }

  @Override
  public int hashCode() {
    return Objects.hash(System.identityHashCode(fs), absolute, Arrays.hashCode(names));
  }

  @Override
  public String toString() {
    if (isEmptyPath()) {
      return "";
    }
    return (absolute ? "/" : "") + String.join("/", names);
  }
}
