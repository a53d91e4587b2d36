package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.SetAttributes;
import io.ext4j.fs.kernel.TreeModel.Node;
import io.ext4j.testkit.FsManifest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Random operations on an existing tree — a kernel fixture's, or one the kernel wrote into — applied
 * to ext4j and to a {@link TreeModel} side by side: creates (a third of them in the largest
 * directory, to split its htree leaves), writes into the middle of deep extent trees, sparse and
 * unwritten ranges, truncates, punches, zero ranges, fallocate, unlinks of hard links, renames
 * across directories and over existing names, links, symlinks, fifos, sockets and devices, xattrs
 * set and removed in the inode and in blocks (shared ones too), chmod, chown and times. Reads are
 * checked against the model as it goes; the caller's manifest comparison afterwards compares everything. Deterministic for a
 * seed; a failure names the seed and the operation.
 */
final class TreeWorkload {
  private final Ext4FileSystem fs;
  private final TreeModel model;
  private final SplittableRandom r;
  private final long minFreeBlocks;
  private final Node biggest;
  private int serial;
  long ops;
  final Map<String, Integer> counts = new TreeMap<>();
  private final java.util.ArrayDeque<String> recent = new java.util.ArrayDeque<>(); // the last operations, for a failure
  private String detail = ""; // what the current operation did, for recent
  private Node touched; // the file whose bytes the current operation changed, or null
  /** -Dext4j.kernel.paranoid=true: after every operation that changes a file, read it all back. */
  private static final boolean PARANOID = Boolean.getBoolean("ext4j.kernel.paranoid");
  /** -Dext4j.kernel.trace=true: print every operation. */
  private static final boolean TRACE = Boolean.getBoolean("ext4j.kernel.trace");

  TreeWorkload(Ext4FileSystem fs, TreeModel model, long seed) throws IOException {
    this.fs = fs;
    this.model = model;
    this.r = new SplittableRandom(seed);
    var s = fs.statfs();
    this.minFreeBlocks = Math.max(s.freeBlocks() / 3, 256);
    Node big = model.root;
    for (Node d : model.dirs) {
      if (d.entries.size() > big.entries.size()) {
        big = d;
      }
    }
    this.biggest = big;
  }

  void run(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      try {
        touched = null;
        detail = "";
        step();
        if (PARANOID && touched != null && touched.data != null) {
          byte[] got = readAll(touched.ino, touched.data.length);
          if (!Arrays.equals(got, touched.data)) {
            throw new AssertionError("inode " + touched.ino + " differs from the model at byte "
                + Arrays.mismatch(got, touched.data));
          }
        }
      } catch (IOException | RuntimeException | AssertionError e) {
        throw new AssertionError("operation " + ops + " " + counts + ": " + e + "; the last operations:\n  "
            + String.join("\n  ", recent), e);
      }
      ops++;
    }
  }

  private void count(String op) {
    counts.merge(op, 1, Integer::sum);
    if (recent.size() == 40) {
      recent.removeFirst();
    }
    recent.addLast(ops + " " + op + (detail.isEmpty() ? "" : " " + detail));
    if (TRACE) {
      System.out.println("op " + recent.getLast());
    }
  }

  /** The recent operations (for a failure found after {@link #run}). */
  String recent() {
    return String.join("\n  ", recent);
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private <T> T pick(List<T> xs) {
    return xs.get(r.nextInt(xs.size()));
  }

  private Node dir() {
    return r.nextInt(3) == 0 ? biggest : pick(model.dirs);
  }

  private String newName() {
    int n = serial++;
    return switch (r.nextInt(5)) {
      case 0 -> "w" + n;
      case 1 -> "written-by-ext4j-into-a-kernel-tree-" + n;
      case 2 -> "x".repeat(1 + r.nextInt(220)) + "-" + n;
      case 3 -> "é ü ✓ " + n;
      default -> "an-htree-name-padded-to-forty-bytes-w" + n;
    };
  }

  /** A random name in a directory, or null if the directory is empty. */
  private Map.Entry<String, Node> entryIn(Node dir) {
    String name = dir.randomName(r);
    return name == null ? null : Map.entry(name, dir.entries.get(name));
  }

  private record Named(Node dir, String name, Node node) {}

  /** A random name of one of the types given, tried a few times. */
  private Named named(String types) {
    for (int i = 0; i < 12; i++) {
      Node d = dir();
      var e = entryIn(d);
      if (e != null && types.indexOf(e.getValue().type) >= 0) {
        return new Named(d, e.getKey(), e.getValue());
      }
    }
    return null;
  }

  private void step() throws IOException {
    int x = r.nextInt(100);
    if (x < 14) {
      create();
    } else if (x < 18) {
      mkdir();
    } else if (x < 34) {
      write();
    } else if (x < 39) {
      truncate();
    } else if (x < 45) {
      fallocate();
    } else if (x < 53) {
      readCheck();
    } else if (x < 60) {
      unlink();
    } else if (x < 62) {
      rmdir();
    } else if (x < 70) {
      rename();
    } else if (x < 74) {
      link();
    } else if (x < 77) {
      symlink();
    } else if (x < 80) {
      mknod();
    } else if (x < 89) {
      xattr();
    } else {
      setattr();
    }
  }

  static final String ACCESS_ACL = FsManifest.escape(b("system.posix_acl_access"));
  static final String DEFAULT_ACL = FsManifest.escape(b("system.posix_acl_default"));

  /**
   * The model of a new entry made with permission bits {@code asked}: under a directory with a
   * default ACL (not for a symlink) it inherits as on Linux — an access ACL and bits limited by the
   * default ACL, a directory also the default ACL itself; a setgid directory's group, and for a
   * directory its setgid bit.
   */
  private Node made(Node dir, String name, char type, int asked, Attributes a) {
    Node n = new Node(type);
    n.ino = a.ino();
    n.perms = asked;
    byte[] dflt = type == 'l' ? null : dir.xattrs.get(DEFAULT_ACL);
    if (dflt != null) {
      io.ext4j.fs.xattr.AclRules.Inherited inh = io.ext4j.fs.xattr.AclRules.inherit(io.ext4j.fs.format.PosixAcl.parseVfs(dflt), asked);
      n.perms = inh.mode() & 07777;
      if (inh.access() != null) {
        n.xattrs.put(ACCESS_ACL, io.ext4j.fs.format.PosixAcl.toVfs(inh.access()));
      }
      if (type == 'd') {
        n.xattrs.put(DEFAULT_ACL, dflt);
      }
    }
    n.uid = 0;
    n.gid = (dir.perms & 02000) != 0 ? dir.gid : 0; // a setgid directory's group wins
    if (type == 'd') {
      n.parent = dir;
      if ((dir.perms & 02000) != 0) {
        n.perms |= 02000;
      }
      model.dirs.add(n);
    } else {
      n.names = 1;
    }
    if (type == 'f') {
      n.data = new byte[0];
    }
    dir.put(FsManifest.escape(b(name)), n);
    assertThat(a.permissions()).as("permission bits of new %s", name).isEqualTo(n.perms);
    assertThat(a.uid()).as("owner of new %s", name).isEqualTo(n.uid);
    assertThat(a.gid()).as("group of new %s", name).isEqualTo(n.gid);
    return n;
  }

  private void create() throws IOException {
    Node d = dir();
    String name = newName();
    int perms = r.nextInt(4) == 0 ? r.nextInt(010000) : 0644;
    Node n = made(d, name, 'f', perms, fs.create(d.ino, b(name), perms, Caller.ROOT));
    detail = "inode " + n.ino;
    if (r.nextBoolean()) {
      writeAt(n, r.nextInt(3) == 0 ? r.nextInt(1 << 20) : 0, 1 + r.nextInt(r.nextBoolean() ? 100 : 40_000));
    }
    count("create");
  }

  private void mkdir() throws IOException {
    Node d = dir();
    String name = newName();
    made(d, name, 'd', 0755, fs.mkdir(d.ino, b(name), 0755, Caller.ROOT));
    count("mkdir");
  }

  /** Makes the model know a file's bytes: read through ext4j and checked against the digest. */
  private boolean loaded(Node f) throws IOException {
    if (f.data != null) {
      return true;
    }
    if (f.size > (16 << 20)) {
      return false; // too big to keep in memory: only metadata operations touch it
    }
    byte[] all = readAll(f.ino, (int) f.size);
    assertThat("sha256=" + FsManifest.sha256(all)).as("contents of inode %d as the manifest had them", f.ino)
        .isEqualTo(f.digest);
    f.load(all);
    return true;
  }

  private byte[] readAll(long ino, int size) throws IOException {
    byte[] all = new byte[size];
    try (OpenFile of = fs.open(ino, EnumSet.of(OpenFlag.READ))) {
      int at = 0;
      while (at < size) {
        int n = of.read(at, ByteBuffer.wrap(all, at, size - at));
        assertThat(n).as("read of inode %d at %d of %d", ino, at, size).isPositive();
        at += n;
      }
      assertThat(of.read(size, ByteBuffer.allocate(1))).as("read of inode %d at its end", ino).isEqualTo(-1);
    }
    return all;
  }

  private Node file() throws IOException {
    Named n = named("f");
    return n != null && loaded(n.node()) ? n.node() : null;
  }

  private boolean roomLeft() throws IOException {
    return fs.statfs().freeBlocks() > minFreeBlocks;
  }

  private void write() throws IOException {
    Node f = file();
    if (f == null) {
      return;
    }
    if (!roomLeft()) {
      fs.setattr(f.ino, SetAttributes.none().withSize(0));
      f.data = new byte[0];
      count("truncate-for-room");
      return;
    }
    long pos = switch (r.nextInt(4)) {
      case 0 -> f.data.length;
      case 1 -> f.data.length == 0 ? 0 : r.nextInt(f.data.length);
      case 2 -> r.nextInt(f.data.length + (1 << 20));
      default -> r.nextInt(4 << 20);
    };
    writeAt(f, pos, 1 + r.nextInt(r.nextBoolean() ? 200 : 64 << 10));
    count("write");
  }

  private void writeAt(Node f, long pos, int len) throws IOException {
    touched = f;
    detail += " write inode " + f.ino + " at " + pos + " len " + len + " (size " + f.data.length + ")";
    byte[] bytes = new byte[len];
    r.nextBytes(bytes);
    try (OpenFile of = fs.open(f.ino, EnumSet.of(OpenFlag.WRITE))) {
      long n = of.write(pos, ByteBuffer.wrap(bytes));
      assertThat(n).as("bytes written to inode %d at %d", f.ino, pos).isEqualTo(len);
    }
    if (pos + len > f.data.length) {
      f.data = Arrays.copyOf(f.data, (int) (pos + len));
    }
    System.arraycopy(bytes, 0, f.data, (int) pos, len);
  }

  private void truncate() throws IOException {
    Node f = file();
    if (f == null) {
      return;
    }
    long size = switch (r.nextInt(3)) {
      case 0 -> 0;
      case 1 -> f.data.length == 0 ? 0 : r.nextInt(f.data.length);
      default -> f.data.length + r.nextInt(3 << 20);
    };
    touched = f;
    detail = "inode " + f.ino + " from " + f.data.length + " to " + size;
    fs.setattr(f.ino, SetAttributes.none().withSize(size));
    f.data = Arrays.copyOf(f.data, (int) size);
    count("truncate");
  }

  private void fallocate() throws IOException {
    Node f = file();
    if (f == null || !roomLeft()) {
      return;
    }
    long span = Math.max(f.data.length, 1 << 16);
    long off = r.nextLong(span);
    long len = 1 + r.nextLong(Math.min(span, 1 << 18));
    int kind = r.nextInt(4);
    touched = f;
    detail = "inode " + f.ino + " at " + off + " len " + len + " (size " + f.data.length + ")";
    try (OpenFile of = fs.open(f.ino, EnumSet.of(OpenFlag.WRITE))) {
      switch (kind) {
        case 0 -> {
          of.fallocate(0x02 | 0x01, off, len);
          zero(f, off, off + len);
          count("punch");
        }
        case 1 -> {
          boolean keep = r.nextBoolean();
          detail += keep ? " keep-size" : "";
          of.fallocate(0x10 | (keep ? 1 : 0), off, len);
          zero(f, off, off + len);
          if (!keep && off + len > f.data.length) {
            f.data = Arrays.copyOf(f.data, (int) (off + len));
          }
          count("zero-range");
        }
        default -> {
          boolean keep = kind == 2;
          of.fallocate(keep ? 1 : 0, off, len);
          if (!keep && off + len > f.data.length) {
            f.data = Arrays.copyOf(f.data, (int) (off + len));
          }
          count(keep ? "fallocate-keep-size" : "fallocate");
        }
      }
    }
  }

  private static void zero(Node f, long from, long to) {
    Arrays.fill(f.data, (int) Math.min(from, f.data.length), (int) Math.min(to, f.data.length), (byte) 0);
  }

  private void readCheck() throws IOException {
    Node f = file();
    if (f == null) {
      return;
    }
    int pos = f.data.length == 0 ? 0 : r.nextInt(f.data.length + 10);
    int len = 1 + r.nextInt(1 << 17);
    ByteBuffer buf = ByteBuffer.allocate(len);
    try (OpenFile of = fs.open(f.ino, EnumSet.of(OpenFlag.READ))) {
      int got = 0;
      while (buf.hasRemaining()) {
        int n = of.read(pos + got, buf);
        if (n <= 0) {
          break;
        }
        got += n;
      }
      int want = Math.max(0, Math.min(len, f.data.length - pos));
      assertThat(got).as("bytes read from inode %d at %d", f.ino, pos).isEqualTo(want);
      if (want > 0 && !Arrays.equals(buf.array(), 0, want, f.data, pos, pos + want)) {
        int i = Arrays.mismatch(Arrays.copyOf(buf.array(), want), Arrays.copyOfRange(f.data, pos, pos + want));
        throw new AssertionError("inode " + f.ino + " at byte " + (pos + i) + " reads " + buf.get(i) + ", expected "
            + f.data[pos + i]);
      }
    }
    count("read");
  }

  private void unlink() throws IOException {
    Named n = named("flpscb");
    if (n == null) {
      return;
    }
    fs.unlink(n.dir().ino, FsManifest.unescape(n.name()));
    n.dir().remove(n.name());
    n.node().names--;
    count("unlink");
  }

  private void rmdir() throws IOException {
    Named n = named("d");
    if (n == null) {
      return;
    }
    byte[] name = FsManifest.unescape(n.name());
    if (!n.node().entries.isEmpty()) {
      Ext4Exception e = failure(() -> fs.rmdir(n.dir().ino, name));
      assertThat(e.errno()).isEqualTo(Errno.ENOTEMPTY);
      count("rmdir-not-empty");
      return;
    }
    fs.rmdir(n.dir().ino, name);
    n.dir().remove(n.name());
    model.dirs.remove(n.node());
    count("rmdir");
  }

  private void rename() throws IOException {
    Named src = named("fdlpscb");
    if (src == null) {
      return;
    }
    Node to = dir();
    if (src.node().isDir() && TreeModel.encloses(src.node(), to)) {
      return;
    }
    String newName;
    Node victim = null;
    var existing = r.nextInt(3) == 0 ? entryIn(to) : null;
    if (existing != null && existing.getValue() != src.node()
        && existing.getValue().isDir() == src.node().isDir()
        && (!existing.getValue().isDir() || existing.getValue().entries.isEmpty())) {
      newName = existing.getKey();
      victim = existing.getValue();
    } else {
      newName = FsManifest.escape(b(newName()));
    }
    if (src.dir() == to && src.name().equals(newName)) {
      return;
    }
    fs.rename(src.dir().ino, FsManifest.unescape(src.name()), to.ino, FsManifest.unescape(newName), RenameMode.REPLACE);
    src.dir().remove(src.name());
    if (victim != null) {
      if (victim.isDir()) {
        model.dirs.remove(victim);
      } else {
        victim.names--;
      }
    }
    to.put(newName, src.node());
    if (src.node().isDir()) {
      src.node().parent = to;
    }
    count(victim != null ? "rename-replace" : "rename");
  }

  private void link() throws IOException {
    Named n = named("f");
    if (n == null) {
      return;
    }
    Node d = dir();
    String name = newName();
    Attributes a = fs.link(n.node().ino, d.ino, b(name));
    d.put(FsManifest.escape(b(name)), n.node());
    n.node().names++;
    assertThat(a.nlink()).as("links of inode %d", a.ino()).isEqualTo(n.node().names);
    count("link");
  }

  private void symlink() throws IOException {
    Node d = dir();
    String name = newName();
    int max = fs.statfs().blockSize() - 1;
    byte[] target = b("../".repeat(r.nextInt(3)) + "t".repeat(1 + r.nextInt(r.nextBoolean() ? 58 : Math.min(max - 7, 1500))));
    Node n = made(d, name, 'l', 0777, fs.symlink(d.ino, b(name), target, Caller.ROOT));
    n.target = target;
    assertThat(fs.readlink(n.ino)).isEqualTo(target);
    count("symlink");
  }

  private void mknod() throws IOException {
    Node d = dir();
    String name = newName();
    int kind = r.nextInt(4);
    int type = new int[] {0x1000, 0xC000, 0x2000, 0x6000}[kind];
    int major = kind >= 2 ? r.nextInt(4096) : 0;
    int minor = kind >= 2 ? (r.nextBoolean() ? r.nextInt(256) : r.nextInt(1 << 20)) : 0;
    long rdev = kind >= 2 ? Attributes.rdev(major, minor) : 0;
    Node n = made(d, name, "pscb".charAt(kind), 0640, fs.mknod(d.ino, b(name), type | 0640, rdev, Caller.ROOT));
    n.major = major;
    n.minor = minor;
    count("mknod");
  }

  private void xattr() throws IOException {
    Named n = named("fdlpscb");
    if (n == null) {
      return;
    }
    Node x = n.node();
    if (!x.xattrs.isEmpty() && r.nextInt(3) == 0) {
      String k = pick(new ArrayList<>(x.xattrs.keySet()));
      fs.removexattr(x.ino, new String(FsManifest.unescape(k), StandardCharsets.UTF_8));
      x.xattrs.remove(k);
      count("removexattr");
      return;
    }
    boolean userOk = x.type == 'f' || x.type == 'd'; // the kernel allows user.* on files and directories only
    String ns = userOk && r.nextBoolean() ? "user." : r.nextBoolean() ? "trusted." : "security.";
    String name = ns + (r.nextInt(4) == 0 ? "k" + r.nextInt(5) : "attr-" + r.nextInt(40));
    int bs = fs.statfs().blockSize();
    byte[] v = new byte[r.nextInt(4) == 0 ? r.nextInt(bs / 2) : r.nextInt(48)];
    r.nextBytes(v);
    try {
      fs.setxattr(x.ino, name, v, 0);
      x.xattrs.put(FsManifest.escape(b(name)), v);
      count("setxattr");
    } catch (Ext4Exception e) {
      if (e.errno() != Errno.ENOSPC) {
        throw e;
      }
      count("setxattr-no-space");
    }
  }

  private void setattr() throws IOException {
    Named n = named("fdlpscb");
    if (n == null) {
      return;
    }
    Node x = n.node();
    switch (r.nextInt(3)) {
      case 0 -> {
        if (x.type == 'l') {
          return; // Linux cannot chmod a symlink
        }
        int perms = r.nextInt(010000);
        fs.setattr(x.ino, SetAttributes.none().withMode(perms));
        x.perms = perms;
        byte[] acl = x.xattrs.get(ACCESS_ACL);
        if (acl != null) { // chmod rewrites the ACL entries that mirror the bits, as on Linux
          x.xattrs.put(ACCESS_ACL, io.ext4j.fs.format.PosixAcl.toVfs(
              io.ext4j.fs.xattr.AclRules.chmod(io.ext4j.fs.format.PosixAcl.parseVfs(acl), perms)));
        }
        count("chmod");
      }
      case 1 -> {
        long uid = r.nextBoolean() ? r.nextInt(70_000) : r.nextLong(1L << 32);
        long gid = r.nextBoolean() ? r.nextInt(70_000) : r.nextLong(1L << 32);
        fs.setattr(x.ino, SetAttributes.none().withOwner(uid, gid));
        x.uid = uid;
        x.gid = gid;
        count("chown");
      }
      default -> {
        fs.setattr(x.ino, SetAttributes.none().withTimes(time(), time()));
        count("utimes");
      }
    }
  }

  /**
   * A time ext4 can store (1901 to 2446, any nanosecond) but for 2310 to 2378: e2fsck 1.47 calls
   * times with the epoch bits 3 and the low word's sign bit set "likely pre-1970" (an old kernel's
   * encoding of negative times), although the kernel writes and reads them as they are.
   */
  private Instant time() {
    long sec = switch (r.nextInt(4)) {
      case 0 -> r.nextLong(-(1L << 31), 0);
      case 1 -> r.nextLong(1L << 31, (3L << 32) - (1L << 31));
      case 2 -> r.nextLong(3L << 32, (3L << 32) + (1L << 31));
      default -> 1_700_000_000L + r.nextInt(1 << 20);
    };
    return Instant.ofEpochSecond(sec, r.nextInt(1_000_000_000));
  }

  interface Op {
    void run() throws IOException;
  }

  static Ext4Exception failure(Op op) throws IOException {
    try {
      op.run();
    } catch (Ext4Exception e) {
      return e;
    }
    throw new AssertionError("expected an Ext4Exception");
  }
}
