package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.SetAttributes;
import io.ext4j.fs.kernel.TreeModel.Node;
import io.ext4j.testkit.FsManifest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A tree written by ext4j alone into a fresh mkfs.ext4 image, recorded in a {@link TreeModel} as it
 * goes, with something of every structure the kernel must read back: a directory of
 * {@link #BIG_ENTRIES}+ names (a two-level htree), a large sequential file, holes, unwritten extents,
 * a block past logical block 2^31, an extent tree of depth 2 made by punching every other block,
 * fast and slow symlinks, hard links, fifos, sockets, devices, xattrs in the inode and in blocks,
 * POSIX ACLs, odd modes and owners, nanosecond and far-off times, an emptied indexed directory and a
 * deep path. Random contents from the seed.
 */
final class Ext4jTree {
  static final int BIG_ENTRIES = 20_400;

  private final Ext4FileSystem fs;
  private final TreeModel model;
  private final SplittableRandom r;
  private final int bs;

  private Ext4jTree(Ext4FileSystem fs, TreeModel model, long seed) throws IOException {
    this.fs = fs;
    this.model = model;
    this.r = new SplittableRandom(seed);
    this.bs = fs.statfs().blockSize();
  }

  /** Writes the tree into {@code fs} (a fresh image) and returns its model. */
  static TreeModel write(Ext4FileSystem fs, long seed) throws IOException {
    TreeModel model = TreeModel.of(EngineManifest.of(fs, 100, false, seed));
    new Ext4jTree(fs, model, seed).build();
    return model;
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private Node add(Node dir, String name, char type, Attributes a) {
    Node n = new Node(type);
    n.ino = a.ino();
    n.perms = a.permissions();
    n.uid = a.uid();
    n.gid = a.gid();
    if (type == 'd') {
      n.parent = dir;
      model.dirs.add(n);
    } else {
      n.names = 1;
    }
    if (type == 'f') {
      n.data = new byte[0];
    }
    dir.put(FsManifest.escape(b(name)), n);
    return n;
  }

  private Node dir(Node parent, String name) throws IOException {
    return add(parent, name, 'd', fs.mkdir(parent.ino, b(name), 0755, Caller.ROOT));
  }

  private Node file(Node dir, String name, byte[] data) throws IOException {
    Node f = add(dir, name, 'f', fs.create(dir.ino, b(name), 0644, Caller.ROOT));
    if (data.length > 0) {
      write(f, 0, data);
    }
    return f;
  }

  private void write(Node f, long pos, byte[] data) throws IOException {
    try (OpenFile of = fs.open(f.ino, EnumSet.of(OpenFlag.WRITE))) {
      int at = 0;
      while (at < data.length) {
        int n = Math.min(data.length - at, 1 << 20);
        assertThat(of.write(pos + at, ByteBuffer.wrap(data, at, n))).isEqualTo(n);
        at += n;
      }
    }
    if (f.data != null) {
      if (pos + data.length > f.data.length) {
        f.data = Arrays.copyOf(f.data, (int) (pos + data.length));
      }
      System.arraycopy(data, 0, f.data, (int) pos, data.length);
    }
  }

  private byte[] random(int n) {
    byte[] x = new byte[n];
    r.nextBytes(x);
    return x;
  }

  private void fallocate(Node f, int mode, long off, long len) throws IOException {
    try (OpenFile of = fs.open(f.ino, EnumSet.of(OpenFlag.WRITE))) {
      of.fallocate(mode, off, len);
    }
    boolean keep = (mode & 1) != 0;
    if ((mode & 0x12) != 0) { // punch or zero range
      Arrays.fill(f.data, (int) Math.min(off, f.data.length), (int) Math.min(off + len, f.data.length), (byte) 0);
    }
    if (!keep && off + len > f.data.length) {
      f.data = Arrays.copyOf(f.data, (int) (off + len));
    }
  }

  private void setattr(Node n, SetAttributes s) throws IOException {
    Attributes a = fs.setattr(n.ino, s);
    n.perms = a.permissions();
    n.uid = a.uid();
    n.gid = a.gid();
  }

  private void xattr(Node n, String name, byte[] value) throws IOException {
    fs.setxattr(n.ino, name, value, 0);
    n.xattrs.put(FsManifest.escape(b(name)), value);
  }

  private static byte[] acl(int[][] entries) {
    ByteBuffer bb = ByteBuffer.allocate(4 + 8 * entries.length).order(ByteOrder.LITTLE_ENDIAN);
    bb.putInt(2);
    for (int[] e : entries) {
      bb.putShort((short) e[0]).putShort((short) e[1]).putInt(e[2]);
    }
    return bb.array();
  }

  private void build() throws IOException {
    Node root = model.root;
    // --- /files
    Node files = dir(root, "files");
    file(files, "empty", new byte[0]);
    file(files, "small.txt", b("small file written by ext4j\n"));
    file(files, "one-block.bin", random(bs));
    file(files, "sequential.bin", random(6 << 20));
    file(files, "odd-size.bin", random(3 * bs + 17));
    file(files, "h\u00e9llo w\u00f6rld \u2713.txt", random(500));
    file(files, "n".repeat(255), random(10));
    int[] modes = {04755, 02750, 0, 07777, 01777};
    for (int m : modes) {
      Node f = file(files, "mode-" + Integer.toOctalString(m), random(64));
      setattr(f, SetAttributes.none().withMode(m));
    }
    setattr(file(files, "owned", random(64)), SetAttributes.none().withOwner(1000L, 1000L));
    setattr(file(files, "high-ids", random(64)), SetAttributes.none().withOwner(4_000_000_000L, 3_000_000_000L));
    // --- /sparse
    Node sparse = dir(root, "sparse");
    Node holes = file(sparse, "holes.bin", new byte[0]);
    for (long off : new long[] {0, 1 << 20, (5 << 20) + 100}) {
      write(holes, off, random(3000));
    }
    fs.setattr(holes.ino, SetAttributes.none().withSize(8 << 20));
    holes.data = Arrays.copyOf(holes.data, 8 << 20);
    Node unwritten = file(sparse, "unwritten.bin", random(4 * bs));
    fallocate(unwritten, 0, 4L * bs, 20L * bs);
    write(unwritten, 10L * bs + 7, random(100));
    Node keep = file(sparse, "unwritten-past-eof.bin", random(3 * bs + 5));
    fallocate(keep, 1, 0, 64L * bs);
    Node zeroed = file(sparse, "zeroed.bin", random(32 * bs));
    fallocate(zeroed, 0x10, 3L * bs + 100, 9L * bs);
    fallocate(zeroed, 0x10 | 1, 30L * bs, 10L * bs);
    Node punched = file(sparse, "punched.bin", random(64 * bs));
    for (int[] p : new int[][] {{0, 1}, {5, 3}, {20, 10}, {63, 1}}) {
      fallocate(punched, 0x02 | 1, (long) p[0] * bs, (long) p[1] * bs);
    }
    // Past logical block 2^31 (the sign bit of ee_block): too big for the model's bytes, so its
    // digest is what the kernel's lseek(SEEK_DATA) would find.
    Node far = file(sparse, "far.bin", new byte[0]);
    far.data = null;
    byte[] head = random(10);
    byte[] mid = random(2 * bs);
    long midAt = ((1L << 31) + 5) * bs;
    write(far, 0, head);
    write(far, midAt, mid);
    far.size = midAt + mid.length;
    // SEEK_DATA finds whole blocks, but for the one holding the end of the file
    far.digest = "data=" + FsManifest.segments(List.of(new FsManifest.Segment(0, bs, FsManifest.sha256(Arrays.copyOf(head, bs))),
        new FsManifest.Segment(midAt, mid.length, FsManifest.sha256(mid))));
    // --- /deep: a run of blocks, every other one punched: depth 2 once past 4 full leaves
    Node deepDir = dir(root, "deep");
    int extents = 4 * ((bs - 12) / 12) + 150;
    Node deep = file(deepDir, "deep.bin", random(2 * extents * bs));
    for (int i = 1; i < 2 * extents; i += 2) {
      fallocate(deep, 0x02 | 1, (long) i * bs, bs);
    }
    long written = fs.extents(deep.ino).stream().filter(e -> !e.unwritten()).count();
    assertThat(written).as("extents of deep.bin").isGreaterThanOrEqualTo(extents);
    // --- /links
    Node links = dir(root, "links");
    Node other = dir(links, "other");
    String[][] targets = {{"fast", "files/small.txt"}, {"fast-59", "t".repeat(59)}, {"slow-60", "u".repeat(60)},
        {"slow-long", "/" + "v".repeat(Math.min(1000, bs - 1) - 1)}, {"dangling", "no/such/file"},
        {"to-dir", "../files"}};
    for (String[] t : targets) {
      Node s = add(links, t[0], 'l', fs.symlink(links.ino, b(t[0]), b(t[1]), Caller.ROOT));
      s.target = b(t[1]);
    }
    Node hard = file(links, "hard-a", random(5000));
    for (Object[] l : new Object[][] {{links, "hard-b"}, {other, "hard-c"}}) {
      Node d = (Node) l[0];
      fs.link(hard.ino, d.ino, b((String) l[1]));
      d.put(FsManifest.escape(b((String) l[1])), hard);
      hard.names++;
    }
    // --- /special
    Node special = dir(root, "special");
    Object[][] nodes = {{"fifo", 0x1000, 0, 0, 'p'}, {"socket", 0xC000, 0, 0, 's'}, {"null", 0x2000, 1, 3, 'c'},
        {"disk", 0x6000, 8, 1, 'b'}, {"wide-minor", 0x2000, 259, 300000, 'c'}, {"big-major", 0x6000, 4095, 255, 'b'}};
    for (Object[] n : nodes) {
      int maj = (int) n[2];
      int min = (int) n[3];
      Node x = add(special, (String) n[0], (char) n[4], fs.mknod(special.ino, b((String) n[0]), (int) n[1] | 0640,
          Attributes.rdev(maj, min), Caller.ROOT));
      x.major = maj;
      x.minor = min;
    }
    // --- /xattr
    Node xd = dir(root, "xattr");
    Node in = file(xd, "in-inode", random(10));
    xattr(in, "user.a", b("1"));
    xattr(in, "trusted.t", b("trusted value"));
    xattr(in, "security.s", b("sec"));
    xattr(file(xd, "in-block", random(10)), "user.big", random(Math.min(2000, bs - 200)));
    Node both = file(xd, "both", random(10));
    xattr(both, "user.small", b("s"));
    xattr(both, "user.large", random(Math.min(1500, bs - 300)));
    byte[] shared = random(Math.min(1200, bs - 300));
    xattr(file(xd, "same-1", random(10)), "user.shared", shared);
    xattr(file(xd, "same-2", random(10)), "user.shared", shared);
    xattr(file(xd, "empty-value", new byte[0]), "user.empty", new byte[0]);
    Node many = file(xd, "many", new byte[0]);
    for (int i = 0; i < 30; i++) {
      xattr(many, String.format("user.n%02d", i), b(("v" + i).repeat(1 + i % 3)));
    }
    xattr(dir(xd, "dir"), "user.on-a-dir", b("directory attribute"));
    Node sl = add(xd, "symlink", 'l', fs.symlink(xd.ino, b("symlink"), b("in-inode"), Caller.ROOT));
    sl.target = b("in-inode");
    xattr(sl, "trusted.on-a-symlink", b("symlink attribute"));
    Node aclFile = file(xd, "acl-file", random(10));
    setattr(aclFile, SetAttributes.none().withMode(0660));
    xattr(aclFile, "system.posix_acl_access", acl(new int[][] {{1, 6, -1}, {2, 6, 1000}, {2, 4, (int) 4_000_000_000L},
        {4, 4, -1}, {8, 5, 100}, {0x10, 6, -1}, {0x20, 0, -1}}));
    Node aclDir = dir(xd, "acl-dir");
    setattr(aclDir, SetAttributes.none().withMode(0750));
    xattr(aclDir, "system.posix_acl_access", acl(new int[][] {{1, 7, -1}, {4, 5, -1}, {8, 5, 100}, {0x10, 5, -1}, {0x20, 0, -1}}));
    xattr(aclDir, "system.posix_acl_default", acl(new int[][] {{1, 7, -1}, {2, 7, 1000}, {4, 5, -1}, {0x10, 7, -1},
        {0x20, 5, -1}}));
    // --- /times
    Node times = dir(root, "times");
    long ns = 1_000_000_000L;
    long[][] ts = {{1614834367L * ns + 987654321, 1614834367L * ns + 123456789}, {-ns / 2, -86400L * 365 * 50 * ns + 1},
        {2147483648L * ns + 1, 2147483647L * ns + 999_999_999}, {4294967296L * ns + 42, 4294967297L * ns + 7},
        {13569465600L * ns + 5, 13569465600L * ns + 999_999_999}};
    String[] tn = {"ns", "pre-1970", "y2038", "y2106", "y2400"};
    for (int i = 0; i < ts.length; i++) {
      Node f = file(times, tn[i], random(20));
      fs.setattr(f.ino, SetAttributes.none().withTimes(instant(ts[i][0]), instant(ts[i][1])));
    }
    // --- /dirs
    Node dirs = dir(root, "dirs");
    dir(dirs, "empty");
    Node emptied = dir(dirs, "emptied-index");
    for (int i = 0; i < 400; i++) {
      fs.create(emptied.ino, b(String.format("removed-name-%04d-with-some-padding", i)), 0644, Caller.ROOT);
    }
    for (int i = 0; i < 400; i++) {
      fs.unlink(emptied.ino, b(String.format("removed-name-%04d-with-some-padding", i)));
    }
    Node at = dirs;
    for (int i = 0; i < 12; i++) {
      at = dir(at, String.format("level%02d", i));
    }
    file(at, "bottom", random(30));
    // --- /big: distinct files, hard links to a few, subdirectories and symlinks
    Node big = dir(root, "big");
    String stem = "an-htree-name-padded-to-forty-bytes-";
    List<Node> linked = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      linked.add(file(big, stem + String.format("t%05d", i), random(100 + i)));
    }
    for (int i = 0; i < 200; i++) {
      dir(big, stem + String.format("d%05d", i));
      Node s = add(big, stem + String.format("s%05d", i), 'l', fs.symlink(big.ino, b(stem + String.format("s%05d", i)),
          b("target-" + i), Caller.ROOT));
      s.target = b("target-" + i);
    }
    for (int i = 0; i < 4000; i++) {
      file(big, stem + String.format("f%05d", i), new byte[0]);
    }
    int made = 40 + 400 + 4000;
    for (int i = 0; made < BIG_ENTRIES; i++, made++) {
      Node t = linked.get(i % linked.size());
      String name = stem + String.format("%06d", i);
      fs.link(t.ino, big.ino, b(name));
      big.put(FsManifest.escape(b(name)), t);
      t.names++;
    }
  }

  private static Instant instant(long nanos) {
    return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
  }
}
