package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.format.PosixAcl.Entry;
import io.ext4j.testkit.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link PosixAcl} against e2fsprogs 1.47.0 (whose ea_set/ea_get convert ACLs between the two forms)
 * and against the kernel (setxattr on a loop mount).
 */
@Tag("oracle")
class PosixAclOracleTest {
  private static final String ACCESS = "system.posix_acl_access";
  private static final String DEFAULT = "system.posix_acl_default";
  private static final Pattern INODE = Pattern.compile("Inode: (\\d+)");

  @Test
  void aclsSetByDebugfs_areStoredAsToDiskWritesThem_andReadBackAsFromDiskGives() throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    Path img = Tools.mkfs("acl-debugfs", 16);
    byte[] access = PosixAcl.toVfs(PosixAclTest.randomValidAcl(rnd, true));
    byte[] dflt = PosixAcl.toVfs(PosixAclTest.randomValidAcl(rnd, rnd.nextBoolean()));
    Path a = Files.write(Files.createTempFile(Tools.DIR, "acl", ".bin"), access);
    Path d = Files.write(Files.createTempFile(Tools.DIR, "acl", ".bin"), dflt);
    try {
      Tools.debugfs(img, true, List.of("write /dev/null f", "ea_set -f " + a + " f " + ACCESS,
          "mkdir d", "ea_set -f " + d + " d " + DEFAULT));
    } finally {
      Files.delete(a);
      Files.delete(d);
    }
    TestImage image = TestImage.open(img);

    assertThat(hex(storedValue(image, inodeOf(img, "f"), XattrName.POSIX_ACL_ACCESS))).as("seed %d", seed)
        .isEqualTo(hex(PosixAcl.toDisk(access)));
    assertThat(hex(storedValue(image, inodeOf(img, "d"), XattrName.POSIX_ACL_DEFAULT))).as("seed %d", seed)
        .isEqualTo(hex(PosixAcl.toDisk(dflt)));
    // e2fsprogs converts back with id 0 where the kernel (and fromDisk) put ACL_UNDEFINED_ID.
    assertThat(withUnqualifiedIdsZero(XattrOracleTest.debugfsAttributes(img, inodeOf(img, "f")).get(ACCESS)))
        .isEqualTo(withUnqualifiedIdsZero(PosixAcl.fromDisk(PosixAcl.toDisk(access))));
  }

  @Test
  void aclWrittenByExt4j_isReadByDebugfs_andPassesE2fsck() throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    Path img = Tools.mkfs("acl-ext4j", 16);
    Tools.debugfs(img, true, List.of("write /dev/null f"));
    long ino = inodeOf(img, "f");
    byte[] access = PosixAcl.toVfs(PosixAclTest.randomValidAcl(rnd, true));
    TestImage image = TestImage.open(img);
    byte[] inode = image.inode(ino);
    XattrCodec.encodeInodeArea(List.of(XattrEntry.of(XattrName.parse(ACCESS), PosixAcl.toDisk(access))),
        inode, TestImage.xattrAreaOffset(inode), inode.length);
    image.writeInode(ino, inode);

    assertThat(withUnqualifiedIdsZero(XattrOracleTest.debugfsAttributes(img, ino).get(ACCESS))).as("seed %d", seed)
        .isEqualTo(withUnqualifiedIdsZero(access));
    Tools.assertE2fsckClean(img);
  }

  @Tag("root")
  @Test
  void aclsSetByTheKernel_areStoredAsToDiskWritesThem_andFromDiskGivesWhatGetxattrReturns() throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    Path img = Tools.mkfs("acl-kernel", 32, "-b", "4096");
    List<long[]> inodes = new ArrayList<>();
    List<byte[]> vfs = new ArrayList<>();
    List<Integer> index = new ArrayList<>();
    try (LoopMount m = LoopMount.mount(img)) {
      for (int i = 0; i < 6; i++) {
        boolean dir = i % 2 == 1;
        Path p = dir ? Files.createDirectory(m.dir.resolve("d" + i)) : Files.write(m.dir.resolve("f" + i), new byte[] {1});
        byte[] acl = PosixAcl.toVfs(PosixAclTest.randomValidAcl(rnd, true));
        String name = dir && rnd.nextBoolean() ? DEFAULT : ACCESS;
        LoopMount.setxattr(p, name, acl);
        assertThat(hex(LoopMount.getxattr(p, name))).as("seed %d: the kernel keeps the ACL as given", seed).isEqualTo(hex(acl));
        inodes.add(new long[] {(Long) Files.getAttribute(p, "unix:ino")});
        vfs.add(acl);
        index.add(name.equals(ACCESS) ? XattrName.POSIX_ACL_ACCESS : XattrName.POSIX_ACL_DEFAULT);
      }
    }
    TestImage image = TestImage.open(img);
    for (int i = 0; i < inodes.size(); i++) {
      byte[] disk = storedValue(image, inodes.get(i)[0], index.get(i));

      assertThat(hex(disk)).as("seed %d: inode %d", seed, inodes.get(i)[0]).isEqualTo(hex(PosixAcl.toDisk(vfs.get(i))));
      assertThat(hex(PosixAcl.fromDisk(disk))).as("seed %d: inode %d", seed, inodes.get(i)[0]).isEqualTo(hex(vfs.get(i)));
    }
    Tools.assertE2fsckClean(img);
  }

  private static byte[] storedValue(TestImage image, long ino, int index) throws Exception {
    List<XattrEntry> found = image.xattrs(ino).stream()
        .filter(e -> e.name().index() == index && e.name().suffixLength() == 0).toList();
    assertThat(found).as("inode %d has one ACL of index %d", ino, index).hasSize(1);
    return found.getFirst().value();
  }

  private static long inodeOf(Path img, String path) throws Exception {
    Matcher m = INODE.matcher(Tools.debugfs(img, false, List.of("stat " + path)).stdout());
    assertThat(m.find()).isTrue();
    return Long.parseLong(m.group(1));
  }

  private static String withUnqualifiedIdsZero(byte[] vfs) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : PosixAcl.parseVfs(vfs)) {
      boolean named = e.tag() == PosixAcl.USER || e.tag() == PosixAcl.GROUP;
      out.add(new Entry(e.tag(), e.perm(), named ? e.id() : 0));
    }
    return hex(PosixAcl.toVfs(out));
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
