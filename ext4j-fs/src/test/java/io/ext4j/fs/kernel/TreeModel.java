package io.ext4j.fs.kernel;

import io.ext4j.testkit.FsManifest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The oracle of the kernel-parity write tests: a tree of every file type, kept in memory, that
 * starts from a manifest (what the kernel or ext4j showed) and follows the operations a workload
 * applies. Its own manifest holds what the operations determine — names, types, modes, owners,
 * sizes, link counts, inode numbers, contents, targets, device numbers, xattrs — not block counts,
 * times or statfs, which the tests compare between ext4j and the kernel instead.
 *
 * <p>A file's contents are known as a digest (the manifest's {@code sha256} or {@code data} field)
 * until an operation needs the bytes; the workload then reads them through ext4j and checks them
 * against the digest ({@link Node#load}).
 */
final class TreeModel {
  static final class Node {
    char type; // f d l p s c b
    int perms;
    long uid;
    long gid;
    long ino;
    byte[] data; // f: the contents, or null while only the digest is known
    String digest; // f: "sha256=..." or "data=..." while data is null
    long size; // f
    byte[] target; // l
    int major; // c b
    int minor;
    final TreeMap<String, byte[]> xattrs = Facts.xattrMap(); // escaped name -> value
    int names; // non-directories: how many names it has
    final TreeMap<String, Node> entries = new TreeMap<>(); // d: escaped name -> node; change through put/remove
    private final List<String> order = new ArrayList<>(); // d: the names of entries, for a random pick
    private final Map<String, Integer> at = new HashMap<>(); // d: name -> index in order
    Node parent; // d

    Node(char type) {
      this.type = type;
    }

    /** Adds or replaces the entry {@code name} (escaped); returns the node it replaced, or null. */
    Node put(String name, Node n) {
      Node old = entries.put(name, n);
      if (old == null) {
        at.put(name, order.size());
        order.add(name);
      }
      return old;
    }

    /** Removes the entry {@code name} (escaped); returns its node, or null. */
    Node remove(String name) {
      Node old = entries.remove(name);
      if (old != null) {
        int i = at.remove(name);
        String last = order.removeLast();
        if (i < order.size()) {
          order.set(i, last);
          at.put(last, i);
        }
      }
      return old;
    }

    /** A name of this directory chosen by {@code r}, or null if it is empty. */
    String randomName(java.util.SplittableRandom r) {
      return order.isEmpty() ? null : order.get(r.nextInt(order.size()));
    }

    boolean isDir() {
      return type == 'd';
    }

    long size() {
      return switch (type) {
        case 'f' -> data != null ? data.length : size;
        case 'l' -> target.length;
        default -> size;
      };
    }

    /** The contents once loaded (the caller checks them against {@link #digest} first). */
    void load(byte[] bytes) {
      data = bytes;
      digest = null;
    }

    int subdirs() {
      int n = 0;
      for (Node c : entries.values()) {
        if (c.isDir()) {
          n++;
        }
      }
      return n;
    }

    String content() {
      return data != null ? "sha256=" + FsManifest.sha256(data) : digest;
    }
  }

  final Node root;
  final List<Node> dirs = new ArrayList<>(); // every directory, root first

  private TreeModel(Node root) {
    this.root = root;
  }

  /**
   * The tree a manifest describes: names sharing an inode number (not directories) are one node.
   * Directory sizes are not modelled (they are ext4j's business and the kernel's comparison's).
   */
  static TreeModel of(FsManifest m) {
    Map<String, Node> byPath = new HashMap<>();
    Map<Long, Node> byIno = new HashMap<>();
    TreeModel t = null;
    for (String path : m.paths()) {
      Map<String, String> f = m.entry(path);
      char type = f.get("type").charAt(0);
      long ino = Long.parseLong(f.get("ino"));
      Node n = type != 'd' ? byIno.get(ino) : null;
      if (n == null) {
        n = new Node(type);
        n.ino = ino;
        n.perms = Integer.parseInt(f.get("mode"), 8);
        n.uid = Long.parseLong(f.get("uid"));
        n.gid = Long.parseLong(f.get("gid"));
        n.size = Long.parseLong(f.get("size"));
        if (type == 'f') {
          n.digest = f.containsKey("sha256") ? "sha256=" + f.get("sha256") : "data=" + f.get("data");
        } else if (type == 'l') {
          n.target = FsManifest.unescape(f.get("target"));
        } else if (type == 'c' || type == 'b') {
          String[] r = f.get("rdev").split(":", 0);
          n.major = Integer.parseInt(r[0]);
          n.minor = Integer.parseInt(r[1]);
        }
        for (Map.Entry<String, String> e : f.entrySet()) {
          if (e.getKey().startsWith("xattr.")) {
            n.xattrs.put(e.getKey().substring(6), FsManifest.parseHex(e.getValue()));
          }
        }
        if (type != 'd') {
          byIno.put(ino, n);
        }
      }
      if (path.equals("/")) {
        t = new TreeModel(n);
        n.parent = n;
        t.dirs.add(n);
      } else {
        int slash = path.lastIndexOf('/');
        Node dir = byPath.get(slash == 0 ? "/" : path.substring(0, slash));
        if (dir == null || !dir.isDir()) {
          throw new IllegalArgumentException("manifest: " + path + " has no directory above it");
        }
        dir.put(path.substring(slash + 1), n);
        if (n.isDir()) {
          n.parent = dir;
          t.dirs.add(n);
        } else {
          n.names++;
        }
      }
      byPath.put(path, n);
    }
    if (t == null) {
      throw new IllegalArgumentException("manifest has no root");
    }
    return t;
  }

  /** The fields the model determines (see the class doc), for every name. */
  FsManifest manifest() {
    FsManifest.Builder b = FsManifest.builder();
    add(b, "/", root, new java.util.IdentityHashMap<>());
    return b.build();
  }

  private void add(FsManifest.Builder b, String path, Node n, Map<Node, String> contents) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("type", String.valueOf(n.type));
    f.put("mode", String.format("%04o", n.perms));
    f.put("uid", Long.toString(n.uid));
    f.put("gid", Long.toString(n.gid));
    if (!n.isDir()) {
      f.put("size", Long.toString(n.size()));
    }
    f.put("nlink", Long.toString(n.isDir() ? 2 + n.subdirs() : n.names));
    f.put("ino", Long.toString(n.ino));
    if (n.type == 'c' || n.type == 'b') {
      f.put("rdev", n.major + ":" + n.minor);
    }
    if (n.type == 'l') {
      f.put("target", FsManifest.escape(n.target));
    }
    if (n.type == 'f') {
      String c = contents.computeIfAbsent(n, Node::content); // once per inode, not per hard link
      int eq = c.indexOf('=');
      f.put(c.substring(0, eq), c.substring(eq + 1));
    }
    n.xattrs.forEach((k, v) -> f.put("xattr." + k, FsManifest.hex(v)));
    b.add(path, f);
    if (n.isDir()) {
      for (Map.Entry<String, Node> e : n.entries.entrySet()) {
        add(b, (path.equals("/") ? "" : path) + "/" + e.getKey(), e.getValue(), contents);
      }
    }
  }

  /** The fields of a full manifest the model's manifest has (directory sizes, times, blocks, statfs dropped). */
  static FsManifest comparable(FsManifest full) {
    FsManifest.Builder b = FsManifest.builder();
    for (String p : full.paths()) {
      Map<String, String> f = new LinkedHashMap<>(full.entry(p));
      f.remove("blocks");
      f.remove("atime");
      f.remove("mtime");
      f.remove("ctime");
      if (f.get("type").equals("d")) {
        f.remove("size");
      }
      b.add(p, f);
    }
    return b.build();
  }

  /** Whether {@code a} is {@code d} or one of its ancestors. */
  static boolean encloses(Node a, Node d) {
    for (Node at = d; ; at = at.parent) {
      if (at == a) {
        return true;
      }
      if (at.parent == at) {
        return false;
      }
    }
  }

  /** The escaped path of a directory. */
  String path(Node dir) {
    if (dir == root) {
      return "/";
    }
    Node p = dir.parent;
    for (Map.Entry<String, Node> e : p.entries.entrySet()) {
      if (e.getValue() == dir) {
        return FsManifest.child(path(p), FsManifest.unescape(e.getKey()));
      }
    }
    throw new IllegalStateException("directory inode " + dir.ino + " is not in its parent");
  }
}
