package io.ext4j.fs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * Resolves paths on an {@link Ext4FileSystem} to inodes, as the kernel's path walk does, for
 * adapters that speak in paths (the CLI, the java.nio provider).
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>A path is a byte string of components separated by one or more {@code '/'}; a String path is
 *       taken as its UTF-8 bytes. Paths are resolved from the root directory whether or not they start
 *       with {@code '/'} (an image has no working directory).
 *   <li>{@code "."} stays, {@code ".."} goes to the parent directory; the root's parent is the root.
 *       {@code ".."} is physical: after a symbolic link it is the parent of the directory the link led
 *       to, as on Linux. The walker keeps the stack of directories it entered by name, so it never
 *       looks {@code ".."} up.
 *   <li>Symbolic links in intermediate components are always followed; the last one only with
 *       {@link Follow#FOLLOW}, or when the path ends in {@code '/'}. A relative target continues from the
 *       link's directory, an absolute one from the root. Following more than {@link #MAX_SYMLINKS}
 *       links in one resolution fails with ELOOP.
 *   <li>A trailing {@code '/'} requires the result to be a directory (ENOTDIR otherwise).
 *   <li>Limits: a component of more than 255 bytes or a path of {@link #PATH_MAX} bytes or more fails
 *       with ENAMETOOLONG (so does a symlink target that would grow the walk past it); the empty path
 *       fails with ENOENT.
 * </ul>
 *
 * <h2>Errors</h2>
 * Every failure is an {@link Ext4Exception} whose {@link Ext4Exception#path()} is the path as the
 * caller gave it, and whose message says which component failed where: ENOENT (a component is
 * missing), ENOTDIR (a component that must be a directory is not), ELOOP, ENAMETOOLONG; errors of the
 * underlying lookups (EIO, EFSCORRUPTED …) pass through unchanged.
 *
 * <h2>Threads</h2>
 * Stateless but for the filesystem it walks: any thread may use one walker. A walk is not atomic
 * against concurrent renames (neither is the kernel's without its rename lock); each lookup is.
 */
public final class PathWalker {
  /** Symbolic links one resolution may follow (the kernel's MAXSYMLINKS). */
  public static final int MAX_SYMLINKS = 40;
  /** A path, with its terminating NUL, may not be longer than this (Linux's PATH_MAX). */
  public static final int PATH_MAX = 4096;
  /** The longest name ext4 stores. */
  public static final int NAME_MAX = 255;

  private static final byte[] DOT = {'.'};
  private static final byte[] DOTDOT = {'.', '.'};

  /** Whether the last component is followed when it is a symbolic link. */
  public enum Follow {
    /** Resolve a final symbolic link to what it points at (stat, open). */
    FOLLOW,
    /** Return a final symbolic link itself (lstat, unlink, readlink). */
    NO_FOLLOW
  }

  /**
   * A path split for an operation on its last name (create, remove, rename): the directory that holds
   * it, resolved with every symbolic link followed, and the last component.
   *
   * @param path the path as the caller gave it (for messages)
   * @param dir the inode of the directory that holds (or would hold) the last name
   * @param name the last component's bytes: 1 to 255 bytes, never "." or ".."
   * @param trailingSlash whether the path ended in '/' (the entry must be, or be made, a directory)
   */
  public record Parent(String path, long dir, byte[] name, boolean trailingSlash) {
    public Parent {
      name = name.clone();
    }

    @Override
    public byte[] name() {
      return name.clone();
    }

    /** The last component as text (UTF-8; invalid bytes replaced). */
    public String nameString() {
      return new String(name, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Parent p && p.path.equals(path) && p.dir == dir && Arrays.equals(p.name, name)
          && p.trailingSlash == trailingSlash;
    }

    @Override
    public int hashCode() {
      return path.hashCode() * 31 + Arrays.hashCode(name);
    }

    @Override
    public String toString() {
      return "Parent[" + path + ": dir " + dir + ", name " + nameString() + (trailingSlash ? ", trailing /" : "") + "]";
    }
  }

  private final Ext4FileSystem fs;

  public PathWalker(Ext4FileSystem fs) {
    this.fs = fs;
  }

  /** The attributes of what {@code path} names. */
  public Attributes resolve(String path, Follow follow) throws IOException {
    return resolve(path.getBytes(StandardCharsets.UTF_8), path, follow);
  }

  /** The attributes of what {@code path} names; {@code shown} is the path for messages. */
  public Attributes resolve(byte[] path, String shown, Follow follow) throws IOException {
    checkLength(path, shown);
    boolean slash = endsWithSlash(path);
    Walk w = new Walk(shown);
    Deque<byte[]> todo = new ArrayDeque<>(components(path, shown));
    return w.run(todo, follow == Follow.FOLLOW || slash, slash);
  }

  /** The inode number of what {@code path} names, a final symbolic link followed. */
  public long inode(String path) throws IOException {
    return resolve(path, Follow.FOLLOW).ino();
  }

  /**
   * The attributes of what {@code path} names, or null when it (or a directory on the way) does not
   * exist; every other failure (ENOTDIR, ELOOP …) is thrown.
   */
  public Attributes resolveIfExists(String path, Follow follow) throws IOException {
    try {
      return resolve(path, follow);
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOENT) {
        return null;
      }
      throw e;
    }
  }

  /**
   * Splits {@code path} into the directory holding its last name (resolved, symbolic links followed)
   * and that name. The last component itself is not looked up: it may or may not exist.
   *
   * @throws Ext4Exception EINVAL when the path has no last name to operate on ("/", or a last
   *     component "." or ".."); ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG from resolving the directory
   */
  public Parent parent(String path) throws IOException {
    return parent(path.getBytes(StandardCharsets.UTF_8), path);
  }

  /** {@link #parent(String)} on path bytes; {@code shown} is the path for messages. */
  public Parent parent(byte[] path, String shown) throws IOException {
    checkLength(path, shown);
    List<byte[]> parts = components(path, shown);
    if (parts.isEmpty()) {
      throw new Ext4Exception(Errno.EINVAL, 0, shown, path.length == 0 ? "empty path" : "the root directory has no parent entry");
    }
    byte[] last = parts.removeLast();
    if (Arrays.equals(last, DOT) || Arrays.equals(last, DOTDOT)) {
      throw new Ext4Exception(Errno.EINVAL, 0, shown, "the last component is \"" + new String(last, StandardCharsets.US_ASCII)
          + "\", which names no entry of its own");
    }
    Walk w = new Walk(shown);
    Attributes dir = w.run(new ArrayDeque<>(parts), true, true);
    return new Parent(shown, dir.ino(), last, endsWithSlash(path));
  }

  /**
   * The components of a path: split on '/', empty ones dropped. Fails with ENAMETOOLONG on a
   * component longer than {@link #NAME_MAX}.
   */
  public static List<byte[]> components(byte[] path, String shown) throws Ext4Exception {
    List<byte[]> out = new ArrayList<>();
    int i = 0;
    while (i < path.length) {
      while (i < path.length && path[i] == '/') {
        i++;
      }
      int start = i;
      while (i < path.length && path[i] != '/') {
        i++;
      }
      if (i > start) {
        if (i - start > NAME_MAX) {
          throw new Ext4Exception(Errno.ENAMETOOLONG, 0, shown, "component \""
              + new String(path, start, Math.min(i - start, 40), StandardCharsets.UTF_8) + "…\" has " + (i - start)
              + " bytes; at most " + NAME_MAX);
        }
        out.add(Arrays.copyOfRange(path, start, i));
      }
    }
    return out;
  }

  private static boolean endsWithSlash(byte[] path) {
    return path.length > 0 && path[path.length - 1] == '/';
  }

  private static void checkLength(byte[] path, String shown) throws Ext4Exception {
    if (path.length == 0) {
      throw new Ext4Exception(Errno.ENOENT, 0, shown, "empty path");
    }
    if (path.length >= PATH_MAX) {
      throw new Ext4Exception(Errno.ENAMETOOLONG, 0, shown.length() > 80 ? shown.substring(0, 80) + "…" : shown,
          path.length + " bytes; a path has fewer than " + PATH_MAX);
    }
  }

  /** One resolution: the stack of directories entered, and the symbolic links followed so far. */
  private final class Walk {
    private final String shown;
    private final Deque<Long> dirs = new ArrayDeque<>(); // inode numbers, the root at the bottom
    private final Deque<String> names = new ArrayDeque<>(); // the names that entered them, for messages
    private int links;
    private long pending; // bytes of components still to walk, against PATH_MAX

    Walk(String shown) {
      this.shown = shown;
      dirs.push(Ext4FileSystem.ROOT);
    }

    /**
     * Walks {@code todo} from the root. {@code followLast}: follow a final symlink; {@code mustBeDir}:
     * the result must be a directory.
     */
    Attributes run(Deque<byte[]> todo, boolean followLast, boolean mustBeDir) throws IOException {
      for (byte[] c : todo) {
        pending += c.length + 1;
      }
      Attributes at = null; // what the walk stands on when it is not the top directory (a final non-directory)
      while (!todo.isEmpty()) {
        byte[] c = todo.pollFirst();
        pending -= c.length + 1;
        if (at != null) {
          throw new Ext4Exception(Errno.ENOTDIR, at.ino(), shown, where() + " is not a directory");
        }
        if (Arrays.equals(c, DOT)) {
          continue;
        }
        if (Arrays.equals(c, DOTDOT)) {
          if (dirs.size() > 1) {
            dirs.pop();
            names.pop();
          }
          continue;
        }
        Attributes a;
        try {
          a = fs.lookup(dirs.peek(), c);
        } catch (Ext4Exception e) {
          if (e.errno() == Errno.ENOENT || e.errno() == Errno.ENOTDIR) {
            String detail = e.errno() == Errno.ENOENT ? "no entry \"" + text(c) + "\" in " + where() : where() + " is not a directory";
            throw new Ext4Exception(e.errno(), 0, shown, detail, e);
          }
          throw e;
        }
        boolean last = todo.isEmpty();
        if (a.isSymlink() && (!last || followLast)) {
          if (++links > MAX_SYMLINKS) {
            throw new Ext4Exception(Errno.ELOOP, a.ino(), shown, "more than " + MAX_SYMLINKS + " symbolic links followed");
          }
          byte[] target = fs.readlink(a.ino());
          if (target.length == 0) {
            throw new Ext4Exception(Errno.ENOENT, a.ino(), shown, "the symbolic link \"" + text(c) + "\" in " + where() + " is empty");
          }
          List<byte[]> more = components(target, shown);
          for (byte[] m : more) {
            pending += m.length + 1;
          }
          if (pending >= PATH_MAX) {
            throw new Ext4Exception(Errno.ENAMETOOLONG, a.ino(), shown, "following symbolic links makes the path "
                + pending + " bytes long");
          }
          if (target[0] == '/') {
            while (dirs.size() > 1) {
              dirs.pop();
              names.pop();
            }
          }
          for (int i = more.size() - 1; i >= 0; i--) {
            todo.addFirst(more.get(i));
          }
          continue;
        }
        if (a.isDirectory()) {
          dirs.push(a.ino());
          names.push(text(c));
        } else {
          at = a;
          names.push(text(c));
        }
      }
      if (at == null) {
        at = fs.getattr(dirs.peek());
      } else if (mustBeDir) {
        throw new Ext4Exception(Errno.ENOTDIR, at.ino(), shown, where() + " is not a directory");
      }
      return at;
    }

    /** The physical path walked so far, "/" for the root. */
    private String where() {
      if (names.isEmpty()) {
        return "/";
      }
      StringBuilder s = new StringBuilder();
      names.descendingIterator().forEachRemaining(n -> s.append('/').append(n));
      return s.toString();
    }
  }

  private static String text(byte[] name) {
    return new String(name, StandardCharsets.UTF_8);
  }
}
