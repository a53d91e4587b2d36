package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.tools.populate.HostFs;
import io.ext4j.testkit.Seeds;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * put -r of a generated host tree, e2fsck -fn clean, debugfs's view of what put wrote, then get -r
 * into a fresh host directory and a recursive comparison with the source: types, contents, sizes,
 * permission bits, owners, mtimes to the nanosecond, symlink targets, hard links, xattrs, and
 * sparseness (allocated blocks).
 */
@Tag("oracle")
class PutGetRoundTripTest {
  static final long MIB = 1 << 20;

  @TempDir
  Path tmp;

  final boolean root = ImageTarget.isRoot();

  /** The tree: see the statements; every entry gets a seeded mtime with nanoseconds. */
  Path makeTree(Random r) throws Exception {
    Path src = Files.createDirectories(tmp.resolve("src"));
    Path deep = Files.createDirectories(src.resolve("d1/d2/d3"));
    Files.writeString(deep.resolve("leaf.txt"), "deep leaf\n");
    Path many = Files.createDirectory(src.resolve("many"));
    for (int i = 0; i < 1000; i++) {
      Files.writeString(many.resolve(String.format("entry-%04d.txt", i)), "file " + i + "\n".repeat(i % 7));
    }
    Path sparse = src.resolve("sparse.bin");
    try (RandomAccessFile f = new RandomAccessFile(sparse.toFile(), "rw")) {
      f.setLength(64 * MIB);
      for (int k = 0; k < 5; k++) {
        byte[] island = new byte[1 + r.nextInt(100_000)];
        r.nextBytes(island);
        island[0] = 1; // never all zeros at its first block
        f.seek(k * 12L * MIB + r.nextInt((int) MIB)); // unaligned starts
        f.write(island);
      }
    }
    byte[] blob = new byte[3 * (int) MIB + 123];
    r.nextBytes(blob);
    Files.write(src.resolve("blob.bin"), blob);
    Files.write(src.resolve("empty"), new byte[0]);
    Path exec = Files.writeString(src.resolve("tool.sh"), "#!/bin/sh\necho hi\n");
    Files.setAttribute(exec, "unix:mode", 04755);
    Path priv = Files.writeString(src.resolve("private"), "secret");
    Files.setAttribute(priv, "unix:mode", 0600);
    Path sticky = Files.createDirectory(src.resolve("sticky"));
    Files.setAttribute(sticky, "unix:mode", 01777);
    Files.createSymbolicLink(src.resolve("rel-link"), Path.of("d1/d2/d3/leaf.txt"));
    Files.createSymbolicLink(src.resolve("dangling"), Path.of("/nowhere/at/all"));
    Files.createSymbolicLink(src.resolve("long-link"), Path.of("x".repeat(70) + "/" + "y".repeat(70)));
    Path orig = Files.writeString(src.resolve("linked"), "three names, one inode\n");
    Files.createLink(src.resolve("d1/linked-again"), orig);
    Files.createLink(many.resolve("linked-thrice"), orig);
    Tools.runOk("mkfifo", src.resolve("pipe").toString());
    HostFs.setXattr(orig, "user.comment", "a hard-linked file".getBytes(StandardCharsets.UTF_8));
    HostFs.setXattr(src.resolve("d1"), "user.dir", new byte[] {1, 2, 3});
    byte[] big = new byte[2000];
    r.nextBytes(big);
    HostFs.setXattr(src.resolve("blob.bin"), "user.big", big);
    Path acl = Files.writeString(src.resolve("acl-file"), "with an access ACL");
    HostFs.setXattr(acl, "system.posix_acl_access", aclUserReads(1000));
    if (root) {
      HostFs.setXattr(priv, "trusted.note", "root only".getBytes(StandardCharsets.UTF_8));
      Files.setAttribute(priv, "unix:uid", 1234);
      Files.setAttribute(priv, "unix:gid", 5678);
      HostFs.mknod(src.resolve("null-dev"), Attributes.S_IFCHR | 0640, ImageToHost.glibcDev(1, 3));
    }
    List<Path> all;
    try (Stream<Path> s = Files.walk(src)) {
      all = new ArrayList<>(s.toList());
    }
    all.sort((a, b) -> b.getNameCount() - a.getNameCount()); // children before their directories
    for (Path p : all) {
      Instant t = Instant.ofEpochSecond(946684800L + r.nextInt(700_000_000), r.nextInt(1_000_000_000));
      HostFs.setTimes(p, t.minusSeconds(r.nextInt(1000)), t);
    }
    return src;
  }

  @Test
  void putR_thenGetR_givesBackTheTree_andE2fsckAndDebugfsAgree() throws Exception {
    long seed = Seeds.seed();
    Random r = new Random(seed);
    Path src = makeTree(r);
    Path img = Tools.mkfs(tmp.resolve("disk.img"), 256, "-b", "4096");

    Cli put = Cli.run("put", "-r", img.toString(), src.toString(), "/");
    assertThat(put.exitCode()).as("put -r: %s", put.err()).isZero();
    assertThat(put.err()).isEmpty();
    Tools.assertE2fsckClean(img);
    checkWithDebugfs(img, src);

    Path out = Files.createDirectory(tmp.resolve("out"));
    Cli get = Cli.run("get", "-r", img.toString(), "/src", out.toString());
    assertThat(get.exitCode()).as("get -r: %s", get.err()).isZero();
    assertThat(get.err()).isEmpty();
    assertSameTree(src, out.resolve("src"));
    Tools.assertE2fsckClean(img);
  }

  /** debugfs's stat and ls -l of what put wrote agree with the host tree. */
  void checkWithDebugfs(Path img, Path src) throws Exception {
    for (String rel : List.of("tool.sh", "private", "linked", "sparse.bin", "sticky", "d1")) {
      Map<String, Object> h = Files.readAttributes(src.resolve(rel), "unix:*", LinkOption.NOFOLLOW_LINKS);
      String st = Tools.debugfs(img, "stat /src/" + rel);
      assertThat(st).as(rel).contains(String.format("Mode:  0%03o", (Integer) h.get("mode") & 07777),
          "Links: " + h.get("nlink"), "Size: " + h.get("size"));
      Matcher u = Pattern.compile("User:\\s+(\\d+)\\s+Group:\\s+(\\d+)").matcher(st);
      assertThat(u.find()).as(st).isTrue();
      assertThat(Long.parseLong(u.group(1))).as(rel + " uid").isEqualTo(((Integer) h.get("uid")).longValue());
      assertThat(Long.parseLong(u.group(2))).as(rel + " gid").isEqualTo(((Integer) h.get("gid")).longValue());
      Instant m = ((FileTime) h.get("lastModifiedTime")).toInstant();
      Matcher mt = Pattern.compile("mtime: 0x([0-9a-f]{8}):([0-9a-f]{8})").matcher(st);
      assertThat(mt.find()).as(st).isTrue();
      long extra = Long.parseLong(mt.group(2), 16);
      assertThat(extra >> 2).as(rel + " mtime nanoseconds").isEqualTo(m.getNano());
      assertThat((int) Long.parseLong(mt.group(1), 16)).as(rel + " mtime seconds (low 32 bits)").isEqualTo((int) m.getEpochSecond());
    }
    Matcher bc = Pattern.compile("Blockcount: (\\d+)").matcher(Tools.debugfs(img, "stat /src/sparse.bin"));
    assertThat(bc.find()).isTrue();
    assertThat(Long.parseLong(bc.group(1))).as("512-byte blocks the sparse file holds in the image (5 islands of < 100 kB)")
        .isPositive().isLessThan(5 * (100_000 / 512 + 2 * 8) + 8);
    assertThat(Tools.debugfs(img, "cat /src/d1/d2/d3/leaf.txt")).isEqualTo("deep leaf\n");
    assertThat(Tools.debugfs(img, "ea_list /src/acl-file")).contains("system.posix_acl_access");
    assertThat(Tools.debugfs(img, "ea_get /src/linked user.comment")).contains("a hard-linked file");
    assertThat(Tools.debugfs(img, "stat /src/long-link")).contains("Size: 141");
    Map<String, String[]> listed = new TreeMap<>();
    Pattern line = Pattern.compile("^\\s*(\\d+)\\s+(\\d+)\\s+\\(\\d+\\)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+(?:,\\s*\\d+)?)\\s+\\S+\\s+\\S+\\s+(.+)$");
    for (String l : Tools.debugfs(img, "ls -l /src").lines().toList()) {
      Matcher m = line.matcher(l);
      if (m.matches() && !m.group(6).equals(".") && !m.group(6).equals("..")) {
        listed.put(m.group(6), new String[] {m.group(2), m.group(3), m.group(4), m.group(5)});
      }
    }
    Map<String, String[]> host = new TreeMap<>();
    try (Stream<Path> s = Files.list(src)) {
      for (Path p : s.toList()) {
        Map<String, Object> h = Files.readAttributes(p, "unix:*", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) h.get("mode");
        int type = mode & 0xF000;
        String size = type == Attributes.S_IFDIR ? null : h.get("size").toString(); // debugfs shows a device's i_size, 0
        host.put(p.getFileName().toString(), new String[] {Integer.toOctalString(mode), h.get("uid").toString(),
            h.get("gid").toString(), size});
      }
    }
    assertThat(listed.keySet()).isEqualTo(host.keySet());
    if (root) {
      assertThat(Tools.debugfs(img, "stat /src/null-dev")).contains("Type: character special", "Device major/minor number: 01:03");
    }
    for (String n : host.keySet()) {
      String[] want = host.get(n);
      String[] got = listed.get(n);
      assertThat(got[0]).as(n + " mode").isEqualTo(want[0]);
      assertThat(got[1] + ":" + got[2]).as(n + " owner").isEqualTo(want[1] + ":" + want[2]);
      if (want[3] != null) {
        assertThat(got[3].replace(" ", "")).as(n + " size").isEqualTo(want[3].replace(" ", ""));
      }
    }
  }

  /** Every entry of {@code a} is in {@code b} and the other way round, alike in every way cp -a keeps. */
  void assertSameTree(Path a, Path b) throws Exception {
    List<Path> as;
    List<Path> bs;
    try (Stream<Path> s = Files.walk(a); Stream<Path> t = Files.walk(b)) {
      as = s.map(a::relativize).sorted().toList();
      bs = t.map(b::relativize).sorted().toList();
    }
    assertThat(bs).isEqualTo(as);
    Map<Object, Object> inodes = new HashMap<>(); // source inode → copy inode: hard links map one to one
    for (Path rel : as) {
      Path x = a.resolve(rel);
      Path y = b.resolve(rel);
      Map<String, Object> ha = Files.readAttributes(x, "unix:*", LinkOption.NOFOLLOW_LINKS);
      Map<String, Object> hb = Files.readAttributes(y, "unix:*", LinkOption.NOFOLLOW_LINKS);
      String what = rel.toString();
      assertThat(hb.get("mode")).as(what + " mode").isEqualTo(ha.get("mode"));
      assertThat(hb.get("uid")).as(what + " uid").isEqualTo(ha.get("uid"));
      assertThat(hb.get("gid")).as(what + " gid").isEqualTo(ha.get("gid"));
      assertThat(hb.get("lastModifiedTime")).as(what + " mtime").isEqualTo(ha.get("lastModifiedTime"));
      assertThat(hb.get("nlink")).as(what + " links").isEqualTo(ha.get("nlink"));
      assertThat(hb.get("rdev")).as(what + " rdev").isEqualTo(ha.get("rdev"));
      boolean dir = (Boolean) ha.get("isDirectory");
      if (!dir) {
        Object prev = inodes.putIfAbsent(ha.get("ino"), hb.get("ino"));
        assertThat(prev == null ? hb.get("ino") : prev).as(what + ": a hard link in the source is one in the copy")
            .isEqualTo(hb.get("ino"));
      }
      if ((Boolean) ha.get("isRegularFile")) {
        assertThat(hb.get("size")).as(what + " size").isEqualTo(ha.get("size"));
        assertThat(Files.mismatch(x, y)).as(what + " contents").isEqualTo(-1L);
      }
      if ((Boolean) ha.get("isSymbolicLink")) {
        assertThat(Files.readSymbolicLink(y)).as(what + " target").isEqualTo(Files.readSymbolicLink(x));
      } else {
        Map<String, String> xa = xattrs(x);
        assertThat(xattrs(y)).as(what + " xattrs").isEqualTo(xa);
      }
    }
    assertThat(xattrs(a.resolve("linked"))).containsKey("user.comment");
    assertThat(xattrs(a.resolve("blob.bin"))).containsKey("user.big");
    assertThat(xattrs(b.resolve("acl-file"))).containsEntry("system.posix_acl_access",
        new String(aclUserReads(1000), StandardCharsets.ISO_8859_1));
    if (root) {
      assertThat(xattrs(b.resolve("private"))).containsEntry("trusted.note", "root only");
      assertThat(Files.readAttributes(b.resolve("null-dev"), "unix:rdev", LinkOption.NOFOLLOW_LINKS).get("rdev"))
          .isEqualTo(ImageToHost.glibcDev(1, 3));
    }
    long srcBlocks = Tools.allocatedBlocks(a.resolve("sparse.bin"));
    long outBlocks = Tools.allocatedBlocks(b.resolve("sparse.bin"));
    assertThat(outBlocks).as("the copy's allocated 512-byte blocks (source: %d)", srcBlocks)
        .isLessThanOrEqualTo(srcBlocks + 8 * 5).isLessThan(64 * MIB / 512 / 50);
  }

  /**
   * An access ACL in the VFS xattr form (version 2; entries of le16 tag, le16 perm, le32 id):
   * user::rw- user:UID:r-- group::r-- mask::r-- other::r--.
   */
  static byte[] aclUserReads(int uid) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(4 + 5 * 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    b.putInt(2);
    b.putShort((short) 0x01).putShort((short) 6).putInt(-1); // ACL_USER_OBJ
    b.putShort((short) 0x02).putShort((short) 4).putInt(uid); // ACL_USER
    b.putShort((short) 0x04).putShort((short) 4).putInt(-1); // ACL_GROUP_OBJ
    b.putShort((short) 0x10).putShort((short) 4).putInt(-1); // ACL_MASK
    b.putShort((short) 0x20).putShort((short) 4).putInt(-1); // ACL_OTHER
    return b.array();
  }

  static Map<String, String> xattrs(Path p) throws Exception {
    Map<String, String> m = new TreeMap<>();
    for (String n : HostFs.listXattrs(p)) {
      if (n.startsWith("user.") || n.startsWith("trusted.") || n.startsWith("system.posix_acl")) {
        m.put(n, new String(HostFs.getXattr(p, n), StandardCharsets.ISO_8859_1));
      }
    }
    return m;
  }
}
