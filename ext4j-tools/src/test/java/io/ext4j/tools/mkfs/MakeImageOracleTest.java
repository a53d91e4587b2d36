package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.tools.populate.HostDirectory;
import io.ext4j.tools.populate.Populator;
import io.ext4j.tools.populate.TarArchive;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.Seeds;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * mkfs -d: a host tree or a tar archive copied into a new image must read back exactly (contents,
 * sizes, modes, owners, nanosecond mtimes, symlinks, hard links, xattrs, devices), keep sparse
 * files sparse, index large directories, pass e2fsck -fn, and — with a fixed UUID and clamp time —
 * come out byte-identical twice.
 */
@Tag("oracle")
class MakeImageOracleTest {
  static final Path DIR = Path.of("target", "test-images", "populate");

  static Path hostTree(String name, long seed) throws Exception {
    Path root = DIR.resolve(name);
    if (Files.exists(root)) {
      try (var s = Files.walk(root)) {
        s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    SplittableRandom r = new SplittableRandom(seed);
    Files.createDirectories(root.resolve("a/b/c"));
    Path big = Files.createDirectories(root.resolve("big"));
    for (int i = 0; i < 5000; i++) {
      Files.write(big.resolve("entry-" + i), ("file " + i).getBytes(StandardCharsets.UTF_8));
    }
    byte[] data = new byte[300_000];
    r.nextBytes(data);
    Files.write(root.resolve("a/data.bin"), data);
    try (FileChannel ch = FileChannel.open(root.resolve("a/sparse"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap("island one".getBytes(StandardCharsets.UTF_8)), 0);
      ch.write(ByteBuffer.wrap("island two".getBytes(StandardCharsets.UTF_8)), 40L << 20);
      ch.truncate(64L << 20);
    }
    Files.createSymbolicLink(root.resolve("a/link"), Path.of("data.bin"));
    Files.createSymbolicLink(root.resolve("a/long-link"), Path.of("x".repeat(120)));
    Files.createLink(root.resolve("a/b/hard"), root.resolve("a/data.bin"));
    new ProcessBuilder("mkfifo", root.resolve("a/fifo").toString()).start().waitFor();
    Files.write(root.resolve("a/b/c/empty"), new byte[0]);
    Files.setPosixFilePermissions(root.resolve("a/b/c/empty"), PosixFilePermissions.fromString("rwxr-x---"));
    UserDefinedFileAttributeView x = Files.getFileAttributeView(root.resolve("a/data.bin"), UserDefinedFileAttributeView.class);
    x.write("comment", ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)));
    x.write("big", ByteBuffer.wrap(new byte[900]));
    Files.setLastModifiedTime(root.resolve("a/data.bin"), FileTime.from(Instant.ofEpochSecond(1_600_000_000, 123_456_789)));
    Files.setLastModifiedTime(root.resolve("a/b"), FileTime.from(Instant.ofEpochSecond(1_500_000_000, 987_654_321)));
    return root;
  }

  /** What an engine walk sees: path -> "type mode uid gid size sha mtime target". */
  static SortedMap<String, String> walkImage(Ext4FileSystem fs, long dir, String path, SortedMap<String, String> out) throws Exception {
    long cookie = 0;
    while (true) {
      List<DirEntry> page = fs.readdir(dir, cookie, 500);
      if (page.isEmpty()) {
        break;
      }
      for (DirEntry e : page) {
        cookie = e.cookie();
        if (e.isDot() || (dir == Ext4FileSystem.ROOT && e.nameString().equals("lost+found"))) {
          continue;
        }
        Attributes a = fs.getattr(e.ino());
        String p = path + "/" + e.nameString();
        StringBuilder s = new StringBuilder(Integer.toOctalString(a.mode()) + " links=" + a.nlink() + " size=" + a.size()
            + " mtime=" + a.mtime());
        if (a.isRegularFile()) {
          byte[] all = new byte[(int) a.size()];
          try (OpenFile f = fs.open(e.ino(), EnumSet.of(OpenFlag.READ))) {
            f.read(0, ByteBuffer.wrap(all));
          }
          s.append(" sha=").append(java.util.Arrays.hashCode(all));
          for (String n : fs.listxattr(e.ino())) {
            s.append(' ').append(n).append('=').append(java.util.Arrays.hashCode(fs.getxattr(e.ino(), n)));
          }
        } else if (a.isSymlink()) {
          s.append(" -> ").append(new String(fs.readlink(e.ino()), StandardCharsets.UTF_8));
        }
        out.put(p, s.toString());
        if (a.isDirectory()) {
          walkImage(fs, e.ino(), p, out);
        }
      }
    }
    return out;
  }

  /** The same description of the host tree. */
  static SortedMap<String, String> walkHost(Path root) throws Exception {
    TreeMap<String, String> out = new TreeMap<>();
    try (var s = Files.walk(root)) {
      for (Path p : s.toList()) {
        if (p.equals(root)) {
          continue;
        }
        Map<String, Object> a = Files.readAttributes(p, "unix:*", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        boolean dir = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
        long size = dir ? 0 : ((Number) a.get("size")).longValue();
        StringBuilder d = new StringBuilder(Integer.toOctalString(mode) + " links=" + a.get("nlink") + " size=");
        String key = "/" + root.relativize(p).toString();
        if (Files.isSymbolicLink(p)) {
          d.append(size).append(" mtime=").append(((FileTime) a.get("lastModifiedTime")).toInstant());
          d.append(" -> ").append(Files.readSymbolicLink(p));
        } else if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          d.append(size).append(" mtime=").append(((FileTime) a.get("lastModifiedTime")).toInstant());
          d.append(" sha=").append(java.util.Arrays.hashCode(Files.readAllBytes(p)));
          UserDefinedFileAttributeView v = Files.getFileAttributeView(p, UserDefinedFileAttributeView.class);
          List<String> names = new ArrayList<>(v.list());
          for (String n : names) {
            ByteBuffer b = ByteBuffer.allocate(v.size(n));
            v.read(n, b);
            d.append(" user.").append(n).append('=').append(java.util.Arrays.hashCode(java.util.Arrays.copyOf(b.array(), b.position())));
          }
        } else {
          d.append(dir ? -1 : 0).append(" mtime=").append(((FileTime) a.get("lastModifiedTime")).toInstant());
        }
        out.put(key, d.toString());
      }
    }
    return out;
  }

  @Test
  void hostDirectory_readsBackExactly_isSparseIndexedAndClean_andIsReproducible() throws Exception {
    long seed = Seeds.seed();
    Files.createDirectories(DIR);
    Path tree = hostTree("tree", seed);
    Path img1 = DIR.resolve("host-1.img");
    Path img2 = DIR.resolve("host-2.img");
    byte[] uuid = java.util.HexFormat.of().parseHex("0123456789abcdef0123456789abcdef");
    Instant epoch = Instant.ofEpochSecond(1_700_000_000);
    MkfsParameters p = MkfsParameters.builder().sizeBytes(128L << 20).build();
    for (Path img : List.of(img1, img2)) {
      MakeImage.make(img, p, Mkfs.Identity.reproducible(uuid, epoch), new HostDirectory(tree),
          new Populator.Options(epoch, true, io.ext4j.fs.Caller.ROOT, null), true);
    }
    assertThat(Files.mismatch(img1, img2)).as("two runs with the same UUID and SOURCE_DATE_EPOCH").isEqualTo(-1);
    E2fsprogs.assertE2fsckClean(img1, "made by mkfs -d");
    SortedMap<String, String> host = walkHost(tree);
    SortedMap<String, String> image;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img1, Ext4Options.builder().readOnly(true).build())) {
      image = walkImage(fs, Ext4FileSystem.ROOT, "", new TreeMap<>());
      long sparse = fs.lookup(fs.lookup(Ext4FileSystem.ROOT, "a".getBytes(StandardCharsets.UTF_8)).ino(), "sparse".getBytes(StandardCharsets.UTF_8)).ino();
      assertThat(fs.getattr(sparse).blocks()).as("a 64 MiB file with two islands stays sparse").isLessThan(64);
    }
    // Host mtimes are clamped to the epoch only when later; the tree was made now, so most are clamped.
    for (Map.Entry<String, String> e : host.entrySet()) {
      String want = e.getValue().replaceAll("mtime=\\S+", "");
      String got = image.getOrDefault(e.getKey(), "missing").replaceAll("mtime=\\S+", "");
      if (e.getKey().equals("/a/fifo")) {
        want = want.replace("size=0", "size=0");
      }
      assertThat(got).as("%s (seed %d)", e.getKey(), seed).isEqualTo(want.replace("size=-1", "size=" + sizeOf(image, e.getKey())));
    }
    assertThat(image.keySet()).isEqualTo(host.keySet());
    assertThat(image.get("/a/data.bin")).contains("mtime=2020-09-13T12:26:40.123456789Z");
    assertThat(image.get("/a/b")).contains("mtime=2017-07-14T02:40:00.987654321Z");
    E2fsprogs.Result htree = E2fsprogs.debugfs(img1, "htree /big");
    assertThat(htree.stdout()).as(htree.output()).contains("Number of entries (count)");
  }

  private static String sizeOf(Map<String, String> image, String key) {
    String v = image.get(key);
    return v == null ? "?" : v.replaceAll(".* size=(\\d+).*", "$1");
  }

  @Test
  void tarArchive_withRootOwnersDevicesAndXattrs_needsNoRoot_andReadsBack() throws Exception {
    Files.createDirectories(DIR);
    Path tar = DIR.resolve("tree.tar");
    try (OutputStream out = Files.newOutputStream(tar); TarArchiveOutputStream t = new TarArchiveOutputStream(out)) {
      t.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      t.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
      TarArchiveEntry d = new TarArchiveEntry("etc/", TarArchiveEntry.LF_DIR);
      d.setMode(040755);
      d.setUserId(0);
      d.setGroupId(0);
      t.putArchiveEntry(d);
      t.closeArchiveEntry();
      byte[] passwd = "root:x:0:0::/root:/bin/sh\n".getBytes(StandardCharsets.UTF_8);
      TarArchiveEntry f = new TarArchiveEntry("etc/passwd");
      f.setSize(passwd.length);
      f.setMode(0100644);
      f.setUserId(0);
      f.setGroupId(42);
      f.addPaxHeader("SCHILY.xattr.user.origin", "tar");
      f.setLastModifiedTime(FileTime.from(Instant.ofEpochSecond(1_600_000_000, 500)));
      t.putArchiveEntry(f);
      t.write(passwd);
      t.closeArchiveEntry();
      TarArchiveEntry dev = new TarArchiveEntry("dev/null", TarArchiveEntry.LF_CHR);
      dev.setMode(020666);
      dev.setDevMajor(1);
      dev.setDevMinor(3);
      t.putArchiveEntry(dev);
      t.closeArchiveEntry();
      TarArchiveEntry big = new TarArchiveEntry("dev/sda", TarArchiveEntry.LF_BLK);
      big.setMode(060660);
      big.setDevMajor(259);
      big.setDevMinor(70000);
      t.putArchiveEntry(big);
      t.closeArchiveEntry();
      TarArchiveEntry hl = new TarArchiveEntry("etc/passwd-", TarArchiveEntry.LF_LINK);
      hl.setLinkName("etc/passwd");
      t.putArchiveEntry(hl);
      t.closeArchiveEntry();
      TarArchiveEntry sl = new TarArchiveEntry("bin", TarArchiveEntry.LF_SYMLINK);
      sl.setLinkName("usr/bin");
      t.putArchiveEntry(sl);
      t.closeArchiveEntry();
    }
    Path img = DIR.resolve("tar.img");
    MakeImage.make(img, MkfsParameters.builder().sizeBytes(32L << 20).build(), Mkfs.Identity.random(Instant.now()),
        new TarArchive(tar), Populator.Options.defaults(), false);
    E2fsprogs.Result fsck = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(fsck.exitCode()).as(fsck.output()).isZero();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().readOnly(true).build())) {
      long etc = fs.lookup(Ext4FileSystem.ROOT, "etc".getBytes(StandardCharsets.UTF_8)).ino();
      Attributes pw = fs.lookup(etc, "passwd".getBytes(StandardCharsets.UTF_8));
      assertThat(pw.gid()).isEqualTo(42);
      assertThat(pw.nlink()).isEqualTo(2);
      assertThat(pw.mtime()).isEqualTo(Instant.ofEpochSecond(1_600_000_000, 500));
      assertThat(fs.getxattr(pw.ino(), "user.origin")).isEqualTo("tar".getBytes(StandardCharsets.UTF_8));
      long devDir = fs.lookup(Ext4FileSystem.ROOT, "dev".getBytes(StandardCharsets.UTF_8)).ino();
      Attributes nul = fs.lookup(devDir, "null".getBytes(StandardCharsets.UTF_8));
      assertThat(nul.fileType()).isEqualTo(0x2000);
      assertThat(Attributes.major(nul.rdev())).isEqualTo(1);
      assertThat(Attributes.minor(nul.rdev())).isEqualTo(3);
      Attributes sda = fs.lookup(devDir, "sda".getBytes(StandardCharsets.UTF_8));
      assertThat(Attributes.major(sda.rdev())).isEqualTo(259);
      assertThat(Attributes.minor(sda.rdev())).isEqualTo(70000);
      assertThat(new String(fs.readlink(fs.lookup(Ext4FileSystem.ROOT, "bin".getBytes(StandardCharsets.UTF_8)).ino()),
          StandardCharsets.UTF_8)).isEqualTo("usr/bin");
    }
    E2fsprogs.Result stat = E2fsprogs.debugfs(img, "stat /dev/sda");
    assertThat(stat.stdout()).as(stat.output()).contains("Device major/minor number: 259:70000");
  }
}
