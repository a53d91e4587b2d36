package io.ext4j.fs.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The oracle of the randomized engine tests: what a filesystem should contain, kept in memory.
 * Inodes carry the engine's inode number once known; directories map names to inodes; files have
 * their bytes; hard links share one inode object.
 */
final class FsModel {
  enum Kind { FILE, DIR, SYMLINK }

  static final class Node {
    final Kind kind;
    long ino;
    byte[] data = new byte[0]; // FILE
    int links = 1; // FILE: names; DIR: 2 + subdirectories
    final TreeMap<String, Node> entries = new TreeMap<>(); // DIR
    Node parent; // DIR
    byte[] target; // SYMLINK
    final Map<String, byte[]> xattrs = new LinkedHashMap<>();

    Node(Kind kind) {
      this.kind = kind;
    }

    long size() {
      return kind == Kind.FILE ? data.length : kind == Kind.SYMLINK ? target.length : -1;
    }

    void write(long pos, byte[] bytes) {
      long end = pos + bytes.length;
      if (end > data.length) {
        data = Arrays.copyOf(data, (int) end);
      }
      System.arraycopy(bytes, 0, data, (int) pos, bytes.length);
    }

    void truncate(long size) {
      data = Arrays.copyOf(data, (int) size);
    }

    void zero(long from, long to) {
      for (long i = from; i < Math.min(to, data.length); i++) {
        data[(int) i] = 0;
      }
    }
  }

  /** A name in a directory. */
  record Entry(Node dir, String name, Node node) {}

  final Node root = new Node(Kind.DIR);

  FsModel(long rootIno) {
    root.ino = rootIno;
    root.links = 2;
    root.parent = root;
  }

  /** Every name under root, depth first. */
  List<Entry> all() {
    List<Entry> out = new ArrayList<>();
    walk(root, out);
    return out;
  }

  private static void walk(Node dir, List<Entry> out) {
    for (Map.Entry<String, Node> e : dir.entries.entrySet()) {
      out.add(new Entry(dir, e.getKey(), e.getValue()));
      if (e.getValue().kind == Kind.DIR) {
        walk(e.getValue(), out);
      }
    }
  }

  List<Node> dirs() {
    List<Node> out = new ArrayList<>();
    out.add(root);
    for (Entry e : all()) {
      if (e.node().kind == Kind.DIR) {
        out.add(e.node());
      }
    }
    return out;
  }

  /** Whether {@code a} is {@code d} or an ancestor of it. */
  static boolean contains(Node a, Node d) {
    Node at = d;
    for (int i = 0; i < 100_000; i++) {
      if (at == a) {
        return true;
      }
      if (at.parent == at) {
        return false;
      }
      at = at.parent;
    }
    throw new IllegalStateException("model tree loops");
  }

  static String path(Node dir, String name) {
    List<String> parts = new ArrayList<>();
    parts.add(name);
    Node at = dir;
    while (at.parent != at) {
      Node p = at.parent;
      String n = null;
      for (Map.Entry<String, Node> e : p.entries.entrySet()) {
        if (e.getValue() == at) {
          n = e.getKey();
        }
      }
      parts.add(n);
      at = p;
    }
    java.util.Collections.reverse(parts);
    return "/" + String.join("/", parts);
  }
}
