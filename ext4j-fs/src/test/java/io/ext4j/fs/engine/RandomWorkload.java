package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.engine.FsModel.Entry;
import io.ext4j.fs.engine.FsModel.Kind;
import io.ext4j.fs.engine.FsModel.Node;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Random operations applied to an {@link Ext4FileSystem} and an {@link FsModel} side by side;
 * every read, listing and attribute is checked against the model as it goes. Deterministic for a
 * seed: a failure names the seed and the operation number.
 */
final class RandomWorkload {
  private final Ext4FileSystem fs;
  private final FsModel model;
  private final SplittableRandom r;
  private final int maxFile;
  private final boolean allowXattrBlocks;
  private final Map<Node, OpenFile> openUnlinked = new HashMap<>(); // files kept open after their last unlink
  private int names;
  long ops;
  long budget = 12L << 20; // bytes of file data the workload keeps at most
  final Map<String, Integer> counts = new TreeMap<>();

  RandomWorkload(Ext4FileSystem fs, FsModel model, long seed, int maxFile) {
    this.fs = fs;
    this.model = model;
    this.r = new SplittableRandom(seed);
    this.maxFile = maxFile;
    this.allowXattrBlocks = true;
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private String newName() {
    int n = names++;
    return switch (r.nextInt(4)) {
      case 0 -> "f" + n;
      case 1 -> "name-with-some-length-" + n;
      case 2 -> "x".repeat(1 + r.nextInt(200)) + n;
      default -> "é-ü-" + n;
    };
  }

  private <T> T pick(List<T> xs) {
    return xs.get(r.nextInt(xs.size()));
  }

  private List<Entry> entries(Kind kind) {
    return model.all().stream().filter(e -> e.node().kind == kind).toList();
  }

  /** Runs {@code n} random operations. */
  void run(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      step();
      ops++;
    }
  }

  private void count(String op) {
    counts.merge(op, 1, Integer::sum);
  }

  void step() throws IOException {
    int x = r.nextInt(100);
    List<FsModel.Node> dirs = model.dirs();
    if (x < 14) {
      Node dir = pick(dirs);
      String name = newName();
      Attributes a = fs.create(dir.ino, b(name), 0644, Caller.ROOT);
      Node f = new Node(Kind.FILE);
      f.ino = a.ino();
      dir.entries.put(name, f);
      count("create");
    } else if (x < 18) {
      Node dir = pick(dirs);
      String name = newName();
      Attributes a = fs.mkdir(dir.ino, b(name), 0755, Caller.ROOT);
      Node d = new Node(Kind.DIR);
      d.ino = a.ino();
      d.links = 2;
      d.parent = dir;
      dir.entries.put(name, d);
      dir.links++;
      count("mkdir");
    } else if (x < 40) {
      write();
    } else if (x < 46) {
      truncate();
    } else if (x < 56) {
      readCheck();
    } else if (x < 62) {
      unlink();
    } else if (x < 64) {
      rmdir();
    } else if (x < 72) {
      rename();
    } else if (x < 75) {
      link();
    } else if (x < 78) {
      symlink();
    } else if (x < 82) {
      xattr();
    } else if (x < 86) {
      fallocate();
    } else if (x < 92) {
      listCheck(pick(dirs));
    } else if (x < 95) {
      openUnlinked();
    } else if (x < 97) {
      if (!openUnlinked.isEmpty()) {
        Node n = pick(new ArrayList<>(openUnlinked.keySet()));
        openUnlinked.remove(n).close();
        count("close-unlinked");
      }
    } else {
      Entry e = model.all().isEmpty() ? null : pick(model.all());
      if (e != null) {
        fs.fsync(e.node().ino, r.nextBoolean());
      }
      count("fsync");
    }
  }

  private void write() throws IOException {
    List<Entry> files = entries(Kind.FILE);
    Node f;
    OpenFile kept = null;
    if (!openUnlinked.isEmpty() && r.nextInt(5) == 0) {
      f = pick(new ArrayList<>(openUnlinked.keySet()));
      kept = openUnlinked.get(f);
    } else if (!files.isEmpty()) {
      f = pick(files).node();
    } else {
      return;
    }
    long total = model.all().stream().filter(e -> e.node().kind == Kind.FILE).mapToLong(e -> e.node().data.length).sum();
    if (total > budget) {
      f.truncate(0); // keep the image from filling up: this workload is not about ENOSPC
      fs.setattr(f.ino, io.ext4j.fs.SetAttributes.none().withSize(0));
      count("truncate-budget");
      return;
    }
    long pos = r.nextInt(4) == 0 ? f.data.length : r.nextInt(maxFile);
    int len = 1 + r.nextInt(r.nextBoolean() ? 64 : 20_000);
    if (pos + len > maxFile * 2L) {
      len = (int) Math.max(1, maxFile * 2L - pos);
    }
    byte[] bytes = new byte[len];
    r.nextBytes(bytes);
    if (kept != null) {
      assertThat(kept.write(pos, ByteBuffer.wrap(bytes))).isEqualTo(len);
    } else {
      try (OpenFile of = fs.open(f.ino, EnumSet.of(OpenFlag.WRITE))) {
        assertThat(of.write(pos, ByteBuffer.wrap(bytes))).isEqualTo(len);
      }
    }
    f.write(pos, bytes);
    count("write");
  }

  private void truncate() throws IOException {
    List<Entry> files = entries(Kind.FILE);
    if (files.isEmpty()) {
      return;
    }
    Node f = pick(files).node();
    long size = r.nextInt(3) == 0 ? 0 : r.nextInt(maxFile + maxFile / 2);
    fs.setattr(f.ino, io.ext4j.fs.SetAttributes.none().withSize(size));
    f.truncate(size);
    count("truncate");
  }

  private void readCheck() throws IOException {
    List<Entry> files = entries(Kind.FILE);
    if (files.isEmpty()) {
      return;
    }
    Entry e = pick(files);
    checkFile(e.node(), FsModel.path(e.dir(), e.name()));
    count("read");
  }

  void checkFile(Node f, String path) throws IOException {
    Attributes a = fs.getattr(f.ino);
    assertThat(a.size()).as("size of %s (inode %d) after %d ops", path, f.ino, ops).isEqualTo(f.data.length);
    assertThat(a.nlink()).as("links of %s", path).isEqualTo(f.links);
    try (OpenFile of = fs.open(f.ino, EnumSet.of(OpenFlag.READ))) {
      ByteBuffer all = ByteBuffer.allocate(f.data.length + 10);
      int got = 0;
      while (true) {
        int n = of.read(got, all);
        if (n < 0) {
          break;
        }
        got += n;
        if (n == 0) {
          break;
        }
      }
      assertThat(got).as("bytes read from %s", path).isEqualTo(f.data.length);
      byte[] read = Arrays.copyOf(all.array(), got);
      if (!Arrays.equals(read, f.data)) {
        int i = Arrays.mismatch(read, f.data);
        throw new AssertionError("contents of " + path + " (inode " + f.ino + ") differ at byte " + i + " of "
            + f.data.length + " after " + ops + " ops: read " + read[i] + ", expected " + f.data[i]);
      }
    }
  }

  private void unlink() throws IOException {
    List<Entry> files = model.all().stream().filter(e -> e.node().kind != Kind.DIR).toList();
    if (files.isEmpty()) {
      return;
    }
    Entry e = pick(files);
    fs.unlink(e.dir().ino, b(e.name()));
    e.dir().entries.remove(e.name());
    e.node().links--;
    count("unlink");
  }

  private void rmdir() throws IOException {
    List<Entry> ds = entries(Kind.DIR);
    if (ds.isEmpty()) {
      return;
    }
    Entry e = pick(ds);
    if (!e.node().entries.isEmpty()) {
      Ext4Exception ex = catchEx(() -> fs.rmdir(e.dir().ino, b(e.name())));
      assertThat(ex.errno()).isEqualTo(Errno.ENOTEMPTY);
      count("rmdir-notempty");
      return;
    }
    fs.rmdir(e.dir().ino, b(e.name()));
    e.dir().entries.remove(e.name());
    e.dir().links--;
    count("rmdir");
  }

  private void rename() throws IOException {
    List<Entry> all = model.all();
    if (all.isEmpty()) {
      return;
    }
    Entry src = pick(all);
    Node to = pick(model.dirs());
    boolean replace = r.nextInt(3) == 0 && !to.entries.isEmpty();
    String newName = replace ? pick(new ArrayList<>(to.entries.keySet())) : newName();
    Node target = to.entries.get(newName);
    if (src.node().kind == Kind.DIR && FsModel.contains(src.node(), to)) {
      Ext4Exception ex = catchEx(() -> fs.rename(src.dir().ino, b(src.name()), to.ino, b(newName), RenameMode.REPLACE));
      assertThat(ex.errno()).isEqualTo(Errno.EINVAL);
      count("rename-into-self");
      return;
    }
    if (target == src.node()) {
      return;
    }
    if (target != null && r.nextInt(4) == 0) {
      boolean bad = (src.node().kind == Kind.DIR && FsModel.contains(src.node(), to))
          || (target.kind == Kind.DIR && FsModel.contains(target, src.dir()));
      if (bad) {
        return;
      }
      fs.rename(src.dir().ino, b(src.name()), to.ino, b(newName), RenameMode.EXCHANGE);
      src.dir().entries.put(src.name(), target);
      to.entries.put(newName, src.node());
      if (src.dir() != to) {
        if (src.node().kind == Kind.DIR) {
          src.node().parent = to;
        }
        if (target.kind == Kind.DIR) {
          target.parent = src.dir();
        }
        if ((src.node().kind == Kind.DIR) != (target.kind == Kind.DIR)) {
          Node gains = src.node().kind == Kind.DIR ? to : src.dir();
          Node loses = src.node().kind == Kind.DIR ? src.dir() : to;
          gains.links++;
          loses.links--;
        }
      }
      count("rename-exchange");
      return;
    }
    if (target != null) {
      boolean srcDir = src.node().kind == Kind.DIR;
      boolean tgtDir = target.kind == Kind.DIR;
      Errno expect = srcDir && !tgtDir ? Errno.ENOTDIR : !srcDir && tgtDir ? Errno.EISDIR
          : tgtDir && !target.entries.isEmpty() ? Errno.ENOTEMPTY : null;
      if (expect != null) {
        Ext4Exception ex = catchEx(() -> fs.rename(src.dir().ino, b(src.name()), to.ino, b(newName), RenameMode.REPLACE));
        assertThat(ex.errno()).as("rename %s over %s", src.name(), newName).isEqualTo(expect);
        count("rename-refused");
        return;
      }
      if (r.nextInt(4) == 0) {
        Ext4Exception ex = catchEx(() -> fs.rename(src.dir().ino, b(src.name()), to.ino, b(newName), RenameMode.NOREPLACE));
        assertThat(ex.errno()).isEqualTo(Errno.EEXIST);
        count("rename-noreplace");
        return;
      }
    }
    fs.rename(src.dir().ino, b(src.name()), to.ino, b(newName), RenameMode.REPLACE);
    src.dir().entries.remove(src.name());
    if (target != null) {
      if (target.kind == Kind.DIR) {
        to.links--;
      } else {
        target.links--;
      }
    }
    to.entries.put(newName, src.node());
    if (src.node().kind == Kind.DIR && src.dir() != to) {
      src.node().parent = to;
      src.dir().links--;
      to.links++;
    }
    count(target != null ? "rename-replace" : "rename");
  }

  private void link() throws IOException {
    List<Entry> files = entries(Kind.FILE);
    if (files.isEmpty()) {
      return;
    }
    Node f = pick(files).node();
    Node dir = pick(model.dirs());
    String name = newName();
    fs.link(f.ino, dir.ino, b(name));
    dir.entries.put(name, f);
    f.links++;
    count("link");
  }

  private void symlink() throws IOException {
    Node dir = pick(model.dirs());
    String name = newName();
    byte[] target = b("t".repeat(1 + r.nextInt(r.nextBoolean() ? 40 : 300)));
    Attributes a = fs.symlink(dir.ino, b(name), target, Caller.ROOT);
    Node s = new Node(Kind.SYMLINK);
    s.ino = a.ino();
    s.target = target;
    dir.entries.put(name, s);
    assertThat(fs.readlink(a.ino())).isEqualTo(target);
    count("symlink");
  }

  private void xattr() throws IOException {
    List<Entry> all = model.all();
    if (all.isEmpty()) {
      return;
    }
    Node n = pick(all).node();
    if (!n.xattrs.isEmpty() && r.nextInt(3) == 0) {
      String k = pick(new ArrayList<>(n.xattrs.keySet()));
      fs.removexattr(n.ino, k);
      n.xattrs.remove(k);
      count("removexattr");
      return;
    }
    String name = (r.nextBoolean() ? "user." : "trusted.") + "k" + r.nextInt(6);
    byte[] v = new byte[r.nextInt(allowXattrBlocks && r.nextInt(4) == 0 ? 900 : 40)];
    r.nextBytes(v);
    try {
      fs.setxattr(n.ino, name, v, 0);
      n.xattrs.put(name, v);
      count("setxattr");
    } catch (Ext4Exception e) {
      if (e.errno() != Errno.ENOSPC) {
        throw e;
      }
      count("setxattr-nospace");
    }
    assertThat(fs.listxattr(n.ino)).containsExactlyInAnyOrderElementsOf(n.xattrs.keySet());
    for (Map.Entry<String, byte[]> e : n.xattrs.entrySet()) {
      assertThat(fs.getxattr(n.ino, e.getKey())).as("xattr %s of inode %d", e.getKey(), n.ino).isEqualTo(e.getValue());
    }
  }

  private void fallocate() throws IOException {
    List<Entry> files = entries(Kind.FILE);
    if (files.isEmpty()) {
      return;
    }
    Node f = pick(files).node();
    long off = r.nextInt(maxFile);
    long len = 1L + r.nextInt(maxFile / 2);
    int kind = r.nextInt(3);
    try (OpenFile of = fs.open(f.ino, EnumSet.of(OpenFlag.WRITE))) {
      switch (kind) {
        case 0 -> {
          of.fallocate(0x02 | 0x01, off, len); // punch
          f.zero(off, off + len);
          count("punch");
        }
        case 1 -> {
          boolean keep = r.nextBoolean();
          of.fallocate(0x10 | (keep ? 1 : 0), off, len); // zero range
          f.zero(off, off + len);
          if (!keep && off + len > f.data.length) {
            f.truncate(off + len);
          }
          count("zero-range");
        }
        default -> {
          boolean keep = r.nextBoolean();
          of.fallocate(keep ? 1 : 0, off, len);
          if (!keep && off + len > f.data.length) {
            f.truncate(off + len);
          }
          count("fallocate");
        }
      }
    }
  }

  private void openUnlinked() throws IOException {
    List<Entry> files = entries(Kind.FILE).stream().filter(e -> e.node().links == 1).toList();
    if (files.isEmpty() || openUnlinked.size() > 4) {
      return;
    }
    Entry e = pick(files);
    OpenFile of = fs.open(e.node().ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE));
    fs.unlink(e.dir().ino, b(e.name()));
    e.dir().entries.remove(e.name());
    e.node().links = 0;
    openUnlinked.put(e.node(), of);
    count("open-unlink");
  }

  void listCheck(Node dir) throws IOException {
    List<String> seen = new ArrayList<>();
    long cookie = 0;
    int page = 1 + r.nextInt(50);
    while (true) {
      List<DirEntry> got = fs.readdir(dir.ino, cookie, page);
      if (got.isEmpty()) {
        break;
      }
      for (DirEntry d : got) {
        String n = d.nameString();
        if (n.equals(".")) {
          assertThat(d.ino()).isEqualTo(dir.ino);
        } else if (n.equals("..")) {
          assertThat(d.ino()).isEqualTo(dir.parent.ino);
        } else {
          Node want = dir.entries.get(n);
          assertThat(want).as("listed %s in directory inode %d after %d ops", n, dir.ino, ops).isNotNull();
          assertThat(d.ino()).as("inode of %s", n).isEqualTo(want.ino);
          seen.add(n);
        }
      }
      cookie = got.getLast().cookie();
    }
    assertThat(seen).as("listing of directory inode %d", dir.ino).containsExactlyInAnyOrderElementsOf(dir.entries.keySet());
    Attributes a = fs.getattr(dir.ino);
    assertThat(a.nlink()).as("links of directory inode %d", dir.ino).isEqualTo(dir.links);
    count("list");
  }

  /** Checks every name, file and directory against the model. */
  void checkAll() throws IOException {
    for (Node d : model.dirs()) {
      listCheck(d);
    }
    for (Entry e : model.all()) {
      switch (e.node().kind) {
        case FILE -> checkFile(e.node(), FsModel.path(e.dir(), e.name()));
        case SYMLINK -> assertThat(fs.readlink(e.node().ino)).isEqualTo(e.node().target);
        case DIR -> { }
      }
      assertThat(fs.lookup(e.dir().ino, b(e.name())).ino()).isEqualTo(e.node().ino);
      assertThat(fs.listxattr(e.node().ino)).containsExactlyInAnyOrderElementsOf(e.node().xattrs.keySet());
    }
    for (Map.Entry<Node, OpenFile> e : openUnlinked.entrySet()) {
      checkFile(e.getKey(), "(open, unlinked) inode " + e.getKey().ino);
    }
  }

  /** Closes the open-unlinked files (freeing them). */
  void closeAll() throws IOException {
    for (OpenFile of : openUnlinked.values()) {
      of.close();
    }
    openUnlinked.clear();
  }

  interface Io {
    void run() throws IOException;
  }

  static Ext4Exception catchEx(Io op) throws IOException {
    try {
      op.run();
    } catch (Ext4Exception e) {
      return e;
    }
    throw new AssertionError("expected an Ext4Exception");
  }
}
