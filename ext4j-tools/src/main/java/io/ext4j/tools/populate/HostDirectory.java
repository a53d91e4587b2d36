package io.ext4j.tools.populate;

import io.ext4j.fs.Attributes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A host directory as a {@link TreeSource}: walked depth first, each directory's names in byte
 * order (so the image does not depend on the order the host lists them in), symlinks not followed.
 * Owners, permissions, times with nanoseconds, device numbers and hard links come from the host's
 * {@code unix:*} attributes (one stat per entry); extended attributes as {@link HostFs#copiedXattr}
 * keeps them, read without opening the file; a regular file's data ranges by SEEK_DATA and
 * SEEK_HOLE, so its holes are never read. A directory that cannot be listed or an entry that cannot
 * be stat'ed goes to {@link Sink#failed} and the walk goes on with the rest.
 */
public final class HostDirectory implements TreeSource {
  private static final boolean ROOT = HostFs.effectiveUid() == 0; // root reads trusted.* and security.* too

  private final Path root;
  private final byte[] rootName; // null: the root is the tree's root (its entries go into the target)

  /** The directory {@code root}'s contents, and its own attributes as the tree's root (mkfs -d). */
  public HostDirectory(Path root) {
    this.root = root;
    this.rootName = null;
  }

  private HostDirectory(Path root, byte[] name) {
    this.root = root;
    this.rootName = name.clone();
  }

  /**
   * {@code host} — a file of any type, a directory with what is below it — as the entry {@code name}
   * of the target (put: the copy of a directory or file under a name).
   */
  public static HostDirectory named(Path host, byte[] name) {
    return new HostDirectory(host, name);
  }

  @Override
  public String name() {
    return root.toString();
  }

  @Override
  public void entries(Sink sink) throws IOException {
    if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      throw new NoSuchFileException(root.toString(), null, rootName == null ? "no such directory to copy into the image" : null);
    }
    Map<List<Long>, List<byte[]>> seen = new HashMap<>(); // (dev, ino) of multiply-linked files -> first path
    List<byte[]> path = rootName == null ? List.of() : List.of(rootName);
    if (rootName == null && !Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      throw new NotDirectoryException(root.toString());
    }
    TreeEntry top = entry(root, path, seen);
    sink.accept(top);
    if (top.kind() == TreeEntry.Kind.DIR) {
      children(root, path, sink, seen);
    }
  }

  /**
   * The entries below directory {@code dir}, depth first; one that cannot be read (listed, or
   * stat'ed) goes to {@link Sink#failed} and the walk goes on.
   */
  private void children(Path dir, List<byte[]> path, Sink sink, Map<List<Long>, List<byte[]>> seen) throws IOException {
    List<Path> children = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      ds.forEach(children::add);
    } catch (IOException | java.nio.file.DirectoryIteratorException e) {
      sink.failed(path, e instanceof java.nio.file.DirectoryIteratorException d ? d.getCause() : (IOException) e);
      return;
    }
    List<byte[]> names = new ArrayList<>(children.size());
    Integer[] order = new Integer[children.size()];
    for (int i = 0; i < order.length; i++) {
      names.add(nameBytes(children.get(i)));
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Arrays.compareUnsigned(names.get(a), names.get(b)));
    for (int i : order) {
      Path c = children.get(i);
      List<byte[]> p = new ArrayList<>(path);
      p.add(names.get(i));
      TreeEntry e;
      try {
        e = entry(c, p, seen); // one stat tells a directory from the rest
      } catch (IOException x) {
        sink.failed(p, x);
        continue;
      }
      sink.accept(e);
      if (e.kind() == TreeEntry.Kind.DIR) {
        children(c, p, sink, seen);
      }
    }
  }

  private static byte[] nameBytes(Path p) {
    return p.getFileName().toString().getBytes(StandardCharsets.UTF_8);
  }

  private TreeEntry entry(Path p, List<byte[]> path, Map<List<Long>, List<byte[]>> seen) throws IOException {
    Map<String, Object> a = Files.readAttributes(p, HostFs.STAT_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
    int mode = (Integer) a.get("mode");
    long uid = ((Number) a.get("uid")).longValue();
    long gid = ((Number) a.get("gid")).longValue();
    Instant atime = ((FileTime) a.get("lastAccessTime")).toInstant();
    Instant mtime = ((FileTime) a.get("lastModifiedTime")).toInstant();
    Instant ctime = ((FileTime) a.get("ctime")).toInstant();
    long size = ((Number) a.get("size")).longValue();
    int type = mode & Attributes.S_IFMT;
    TreeEntry.Kind kind = switch (type) {
      case Attributes.S_IFDIR -> TreeEntry.Kind.DIR;
      case Attributes.S_IFLNK -> TreeEntry.Kind.SYMLINK;
      case Attributes.S_IFIFO -> TreeEntry.Kind.FIFO;
      case Attributes.S_IFSOCK -> TreeEntry.Kind.SOCKET;
      case Attributes.S_IFCHR -> TreeEntry.Kind.CHAR_DEVICE;
      case Attributes.S_IFBLK -> TreeEntry.Kind.BLOCK_DEVICE;
      default -> TreeEntry.Kind.FILE;
    };
    byte[] link = null;
    if (kind == TreeEntry.Kind.SYMLINK) {
      link = Files.readSymbolicLink(p).toString().getBytes(StandardCharsets.UTF_8);
    }
    int nlink = ((Number) a.get("nlink")).intValue();
    if (kind != TreeEntry.Kind.DIR && nlink > 1) {
      List<Long> key = List.of(((Number) a.get("dev")).longValue(), ((Number) a.get("ino")).longValue());
      List<byte[]> first = seen.putIfAbsent(key, path);
      if (first != null) {
        return new TreeEntry(path, TreeEntry.Kind.HARDLINK, mode & 07777, uid, gid, atime, mtime, ctime, 0, 0, 0,
            join(first), Map.of(), null);
      }
    }
    long rdev = ((Number) a.get("rdev")).longValue();
    int major = (int) (((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL));
    int minor = (int) ((rdev & 0xff) | ((rdev >>> 12) & ~0xffL));
    TreeEntry.Contents contents = kind == TreeEntry.Kind.FILE ? contents(p, size) : null;
    return new TreeEntry(path, kind, mode & 07777, uid, gid, atime, mtime, ctime, kind == TreeEntry.Kind.FILE ? size : 0,
        major, minor, link, xattrs(p, kind), contents);
  }

  /** A host file's bytes, and where it has data when the native calls can ask (SEEK_DATA). */
  private static TreeEntry.Contents contents(Path p, long size) {
    return new TreeEntry.Contents() {
      @Override
      public java.io.InputStream open() throws IOException {
        return Files.newInputStream(p);
      }

      @Override
      public List<TreeEntry.DataRange> dataRanges() throws IOException {
        if (!HostFs.available() || size == 0) {
          return null;
        }
        List<TreeEntry.DataRange> out = new ArrayList<>();
        for (long[] r : HostFs.dataRegions(p, size)) {
          out.add(new TreeEntry.DataRange(r[0], r[1]));
        }
        return out;
      }
    };
  }

  /** The path's components joined with '/' (hard-link targets are given that way). */
  static byte[] join(List<byte[]> path) {
    int n = 0;
    for (byte[] c : path) {
      n += c.length + 1;
    }
    ByteBuffer b = ByteBuffer.allocate(Math.max(0, n - 1));
    for (int i = 0; i < path.size(); i++) {
      if (i > 0) {
        b.put((byte) '/');
      }
      b.put(path.get(i));
    }
    return b.array();
  }

  /**
   * The attributes a copy keeps ({@link HostFs#copiedXattr}: user.* and ACLs, trusted.* and
   * security.* as root), read without opening the file; where the native calls are missing, the
   * user namespace through java.nio, for files and directories only (it opens the file, which would
   * block on a fifo).
   */
  private static Map<String, byte[]> xattrs(Path p, TreeEntry.Kind kind) throws IOException {
    if (HostFs.available()) {
      List<String> names;
      try {
        names = new ArrayList<>(HostFs.listXattrs(p));
      } catch (HostFs.HostCallException e) {
        if (e.errno() == HostFs.ENOTSUP) {
          return Map.of(); // a host filesystem without xattrs
        }
        throw e;
      }
      names.sort(null);
      Map<String, byte[]> out = new LinkedHashMap<>();
      for (String n : names) {
        if (HostFs.copiedXattr(n, ROOT)) {
          out.put(n, HostFs.getXattr(p, n));
        }
      }
      return out;
    }
    if (kind != TreeEntry.Kind.FILE && kind != TreeEntry.Kind.DIR) {
      return Map.of();
    }
    UserDefinedFileAttributeView v = Files.getFileAttributeView(p, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (v == null) {
      return Map.of();
    }
    Map<String, byte[]> out = new LinkedHashMap<>();
    try {
      List<String> names = new ArrayList<>(v.list());
      names.sort(null);
      for (String n : names) {
        ByteBuffer buf = ByteBuffer.allocate(v.size(n));
        v.read(n, buf);
        out.put("user." + n, Arrays.copyOf(buf.array(), buf.position()));
      }
    } catch (IOException | UnsupportedOperationException e) {
      return Map.of(); // a filesystem without user xattrs: nothing to copy
    }
    return out;
  }
}
