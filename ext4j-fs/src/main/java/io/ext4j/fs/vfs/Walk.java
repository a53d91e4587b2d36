package io.ext4j.fs.vfs;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.namespace.DentryCache.Dentry;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * One path resolution, as the kernel's {@code nameidata} (fs/namei.c, path_resolution(7)): the
 * components still to walk, the directory reached, the symbolic links followed. Not thread-safe;
 * one per call. It holds a pin on the directory it stands on, so nothing it walks through can be
 * freed under it; {@link #close} drops it.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>Components are separated by one or more '/'; an absolute path starts at the root, a
 *       relative one at the starting directory. The empty path is ENOENT.
 *   <li>Each directory walked through needs search permission (may_lookup), "." and ".." included.
 *   <li>".." is physical: the parent of the directory reached (after symbolic links), from its ".."
 *       entry; ".." of the root is the root.
 *   <li>Symbolic links are followed in every component but the last, the last one as the caller
 *       asks, or always when the path ends in '/'; a relative target continues from the link's
 *       directory. More than {@link #MAX_SYMLINKS} in one resolution is ELOOP; an empty target ENOENT.
 *   <li>A trailing '/' requires a directory (ENOTDIR). A component over {@link #NAME_MAX} bytes, or
 *       a path of {@link #PATH_MAX} bytes or more, is ENAMETOOLONG.
 *   <li>A name that leads to a directory the walk came down through (a corrupted tree: an entry
 *       pointing back at an ancestor, whose own ".." names another directory) is ELOOP, "filesystem
 *       loop detected", as the kernel's dcache refuses a second alias of a directory that is its own
 *       ancestor; so every walker above the VFS visits such a directory once.
 * </ul>
 */
final class Walk implements AutoCloseable {
  static final int MAX_SYMLINKS = 40;
  static final int PATH_MAX = 4096;
  static final int NAME_MAX = 255;
  private static final byte[] DOTDOT = {'.', '.'};

  /** The last component, for an operation on a name: what kind it is. */
  enum Kind {
    /** An ordinary name. */
    NORMAL,
    /** "." */
    DOT,
    /** ".." */
    DOTDOT,
    /** No component at all: "/" (or the starting directory itself). */
    ROOT
  }

  private final Vfs vfs;
  private final Credentials cred;
  private final String shown; // the path as the caller gave it, for messages
  private final Deque<byte[]> todo = new ArrayDeque<>();
  private Inode at; // pinned: the directory the walk stands on
  private final ArrayDeque<Long> trail = new ArrayDeque<>(); // the directories the walk came down through to at, innermost last
  private int links;
  private boolean slash; // the path (or the link that replaced its last component) ended in '/'

  /** Starts at {@code start} (pinned by the caller, who keeps its pin; the walk takes one of its own). */
  Walk(Vfs vfs, Inode start, byte[] path, Credentials cred) throws IOException {
    this.vfs = vfs;
    this.cred = cred;
    this.shown = text(path);
    if (path.length >= PATH_MAX) {
      throw new Ext4Exception(Errno.ENAMETOOLONG, 0, shown.length() > 80 ? shown.substring(0, 80) + "…" : shown,
          path.length + " bytes; a path has fewer than " + PATH_MAX);
    }
    this.at = vfs.pinAgain(start);
    push(path);
  }

  String shown() {
    return shown;
  }

  /** Whether the path given ended in '/'. */
  boolean trailingSlash() {
    return slash;
  }

  /** The directory the walk stands on (pinned by the walk). */
  Inode at() {
    return at;
  }

  /** Puts {@code path}'s components before those still to walk; an absolute one restarts at the root. */
  private void push(byte[] path) throws IOException {
    if (path.length > 0 && path[0] == '/') {
      move(vfs.rootPinned());
      trail.clear();
    }
    Deque<byte[]> parts = new ArrayDeque<>();
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
              + new String(path, start, Math.min(i - start, 40), StandardCharsets.UTF_8) + "…\" has " + (i - start) + " bytes; at most "
              + NAME_MAX);
        }
        parts.addLast(Arrays.copyOfRange(path, start, i));
      }
    }
    boolean endsInSlash = path.length > 0 && path[path.length - 1] == '/';
    if (todo.isEmpty()) {
      slash = (endsInSlash && !parts.isEmpty()) || slash;
    }
    while (!parts.isEmpty()) {
      todo.addFirst(parts.removeLast());
    }
  }

  /** Stands on {@code pinned} (whose pin the walk takes over), dropping the pin on the old directory. */
  private void move(Inode pinned) throws IOException {
    Inode old = at;
    at = pinned;
    if (old != null) {
      vfs.kernel().unpin(old);
    }
  }

  /**
   * Walks every component but the last; returns the last one's bytes and leaves the walk on the
   * directory that holds it ({@link #at}). {@code null} when there is no component left (the path
   * was "/" or named the starting directory).
   */
  byte[] toLast() throws IOException {
    while (todo.size() > 1) {
      step(todo.pollFirst(), false, false);
    }
    if (todo.isEmpty()) {
      return null;
    }
    vfs.mayLookup(at, cred, shown); // the directory holding the last name must be searchable too
    return todo.peekFirst();
  }

  /** What kind of name {@code last} (from {@link #toLast}) is. */
  static Kind kind(byte[] last) {
    if (last == null) {
      return Kind.ROOT;
    }
    if (last.length == 1 && last[0] == '.') {
      return Kind.DOT;
    }
    if (last.length == 2 && last[0] == '.' && last[1] == '.') {
      return Kind.DOTDOT;
    }
    return Kind.NORMAL;
  }

  /**
   * The last component turned out to be a symbolic link to follow ({@code link}, pinned by the
   * caller): replaces it with the link's target, counted against {@link #MAX_SYMLINKS}, so that
   * {@link #toLast} walks on. The caller keeps its pin.
   */
  void followLast(Inode link) throws IOException {
    todo.pollFirst();
    follow(link);
  }

  /**
   * Walks to the end; returns what the path names, pinned (the caller unpins it). A final symbolic
   * link is followed when {@code follow} (or the path ends in '/').
   */
  Inode toEnd(boolean follow) throws IOException {
    Inode result = null;
    while (!todo.isEmpty()) {
      byte[] c = todo.pollFirst();
      boolean last = todo.isEmpty();
      result = step(c, last, follow || slash);
    }
    if (result == null) {
      result = vfs.pinAgain(at);
    }
    if (slash && !result.isDirectory()) {
      vfs.kernel().unpin(result);
      throw new Ext4Exception(Errno.ENOTDIR, result.ino, shown, "not a directory");
    }
    return result;
  }

  /**
   * Takes one component from the directory the walk stands on. Not the last: the walk moves into
   * it (a directory, after any symbolic link) and null is returned. The last: returned pinned
   * (unless it is "." or "..", or a link followed: then the walk moves and null is returned, or
   * more components follow).
   */
  private Inode step(byte[] c, boolean last, boolean followLast) throws IOException {
    vfs.mayLookup(at, cred, shown);
    Kind k = kind(c);
    if (k == Kind.DOT) {
      return last ? vfs.pinAgain(at) : null;
    }
    if (k == Kind.DOTDOT) {
      if (at.ino != Ext4FileSystem.ROOT) {
        move(vfs.child(at, DOTDOT, shown));
        trail.pollLast();
      }
      return last ? vfs.pinAgain(at) : null;
    }
    Inode child = vfs.child(at, c, shown);
    if (child.fileType() == RawInode.S_IFLNK && (!last || followLast)) {
      try {
        follow(child);
      } finally {
        vfs.kernel().unpin(child);
      }
      if (last && todo.isEmpty()) {
        return vfs.pinAgain(at); // a link to "/" or "." : the walk stands on what it names
      }
      return null;
    }
    try {
      refuseLoop(child, c);
    } catch (IOException | RuntimeException e) {
      vfs.kernel().unpin(child);
      throw e;
    }
    if (last) {
      return child;
    }
    if (!child.isDirectory()) {
      vfs.kernel().unpin(child);
      throw new Ext4Exception(Errno.ENOTDIR, child.ino, shown, "\"" + text(c) + "\" is not a directory");
    }
    trail.addLast(at.ino);
    move(child);
    return null;
  }

  /**
   * ELOOP when directory {@code child}, found as {@code name} in the directory the walk stands on,
   * is that directory or one the walk came down through, and is not a child of it by its own ".."
   * (a concurrent rename can make an ancestor a child legitimately; a corrupted entry cannot).
   */
  private void refuseLoop(Inode child, byte[] name) throws IOException {
    if (!child.isDirectory() || (child.ino != at.ino && !trail.contains(child.ino))) {
      return;
    }
    Inode parent = vfs.child(child, DOTDOT, shown);
    try {
      if (parent.ino == at.ino && child.ino != at.ino) {
        return;
      }
    } finally {
      vfs.kernel().unpin(parent);
    }
    throw new Ext4Exception(Errno.ELOOP, child.ino, shown, "filesystem loop detected: \"" + text(name)
        + "\" in directory " + at.ino + " leads back to directory " + child.ino + ", an ancestor");
  }

  private void follow(Inode link) throws IOException {
    if (++links > MAX_SYMLINKS) {
      throw new Ext4Exception(Errno.ELOOP, link.ino, shown, "more than " + MAX_SYMLINKS + " symbolic links followed");
    }
    byte[] target = vfs.kernel().names().readlink(link);
    if (target.length == 0) {
      throw new Ext4Exception(Errno.ENOENT, link.ino, shown, "a symbolic link on the way is empty");
    }
    push(target);
  }

  @Override
  public void close() throws IOException {
    Inode old = at;
    at = null;
    if (old != null) {
      vfs.kernel().unpin(old);
    }
  }

  static String text(byte[] b) {
    return b == null ? "" : new String(b, StandardCharsets.UTF_8);
  }
}
