package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.SetAttributes;
import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.format.PosixAcl.Entry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * POSIX ACLs and permission bits follow each other as the kernel's ext4 makes them: the same
 * operations — a default ACL on a directory, files and directories made under it (inheriting; the
 * umask does not apply), chmod of a file with an extended ACL (its mask follows), an access ACL set
 * on a file (its bits follow), one the bits express fully (not stored) — run through the kernel on a
 * loop mount of one image and through the engine on an identical one; then every path's mode and ACL
 * attributes, read back by ext4j from both images, are the same, and e2fsck finds both clean.
 */
@Tag("oracle")
@Tag("root")
class KernelAclParityTest {
  static final List<String> PATHS = List.of("/d", "/d/f", "/d/sub", "/d/sub/g", "/d/sub/h", "/e", "/m");
  static final List<String> ACLS = List.of("system.posix_acl_access", "system.posix_acl_default");

  static byte[] defaultAcl() {
    return PosixAcl.toVfs(List.of(new Entry(PosixAcl.USER_OBJ, 7, -1), new Entry(PosixAcl.USER, 5, 1000),
        new Entry(PosixAcl.GROUP_OBJ, 5, -1), new Entry(PosixAcl.GROUP, 6, 2000), new Entry(PosixAcl.MASK, 7, -1),
        new Entry(PosixAcl.OTHER, 4, -1)));
  }

  static byte[] extendedAcl() {
    return PosixAcl.toVfs(List.of(new Entry(PosixAcl.USER_OBJ, 6, -1), new Entry(PosixAcl.USER, 6, 1000),
        new Entry(PosixAcl.GROUP_OBJ, 4, -1), new Entry(PosixAcl.MASK, 6, -1), new Entry(PosixAcl.OTHER, 0, -1)));
  }

  static byte[] minimalAcl() {
    return PosixAcl.toVfs(List.of(new Entry(PosixAcl.USER_OBJ, 6, -1), new Entry(PosixAcl.GROUP_OBJ, 4, -1),
        new Entry(PosixAcl.OTHER, 0, -1)));
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aclsAndModes_afterTheSameOperations_matchTheKernels() throws Exception {
    Path dir = KernelImages.dir("acl");
    Path kernel = KernelImages.mkfs(dir.resolve("kernel.img"), 32, 4096);
    Path ours = dir.resolve("ext4j.img");
    Files.copy(kernel, ours, java.nio.file.StandardCopyOption.REPLACE_EXISTING);

    try (LoopMount m = LoopMount.readWrite(kernel)) {
      Path root = m.dir;
      Files.createDirectory(root.resolve("d"));
      Files.setPosixFilePermissions(root.resolve("d"), PosixFilePermissions.fromString("rwxr-xr-x"));
      Libc.setxattr(b(root.resolve("d").toString()), "system.posix_acl_default", defaultAcl());
      Files.createFile(root.resolve("d/f")); // mode 0666 asked; no umask under a default ACL
      Files.createDirectory(root.resolve("d/sub")); // 0777 asked
      Files.createFile(root.resolve("d/sub/g"));
      Files.setPosixFilePermissions(root.resolve("d/f"), PosixFilePermissions.fromString("rw----r--")); // 0604
      Files.createFile(root.resolve("d/sub/h"));
      Libc.removexattr(b(root.resolve("d/sub/h").toString()), "system.posix_acl_access");
      Files.setPosixFilePermissions(root.resolve("d/sub/h"), PosixFilePermissions.fromString("rwxr-x---"));
      Files.createFile(root.resolve("e"));
      Files.setPosixFilePermissions(root.resolve("e"), PosixFilePermissions.fromString("rw-r--r--"));
      Libc.setxattr(b(root.resolve("e").toString()), "system.posix_acl_access", extendedAcl());
      Files.createFile(root.resolve("m"));
      Files.setPosixFilePermissions(root.resolve("m"), PosixFilePermissions.fromString("rw-r--r--"));
      Libc.setxattr(b(root.resolve("m").toString()), "system.posix_acl_access", minimalAcl());
    }

    try (Ext4FileSystem fs = Ext4FileSystem.open(ours, Ext4Options.defaults())) {
      long root = Ext4FileSystem.ROOT;
      long d = fs.mkdir(root, b("d"), 0755, Caller.ROOT).ino();
      fs.setxattr(d, "system.posix_acl_default", defaultAcl(), 0);
      long f = fs.create(d, b("f"), 0666, Caller.ROOT).ino();
      long sub = fs.mkdir(d, b("sub"), 0777, Caller.ROOT).ino();
      fs.create(sub, b("g"), 0666, Caller.ROOT);
      fs.setattr(f, SetAttributes.none().withMode(0604));
      long h = fs.create(sub, b("h"), 0666, Caller.ROOT).ino();
      fs.removexattr(h, "system.posix_acl_access");
      fs.setattr(h, SetAttributes.none().withMode(0750));
      long e = fs.create(root, b("e"), 0644, Caller.ROOT).ino();
      fs.setxattr(e, "system.posix_acl_access", extendedAcl(), 0);
      long mi = fs.create(root, b("m"), 0644, Caller.ROOT).ino();
      fs.setxattr(mi, "system.posix_acl_access", minimalAcl(), 0);
    }

    KernelImages.assertE2fsckClean(kernel, "after the kernel's ACL operations");
    KernelImages.assertE2fsckClean(ours, "after ext4j's ACL operations");
    String theirs = describe(kernel);
    System.out.print("kernel:\n" + theirs);
    assertThat(theirs).as("the kernel inherited an access ACL").contains("/d/f mode 100604 system.posix_acl_access=");
    assertThat(describe(ours)).isEqualTo(theirs);
  }

  /** Each path's mode and ACL attributes (hex of the VFS value, or absent), read by ext4j. */
  static String describe(Path img) throws Exception {
    StringBuilder out = new StringBuilder();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().readOnly(true).build())) {
      for (String p : PATHS) {
        Attributes a = fs.vfs().statat(null, p.getBytes(java.nio.charset.StandardCharsets.UTF_8), false,
            io.ext4j.fs.vfs.Credentials.root());
        out.append(p).append(" mode ").append(Integer.toOctalString(a.mode()));
        for (String acl : ACLS) {
          try {
            String value = HexFormat.of().formatHex(fs.getxattr(a.ino(), acl));
            out.append(' ').append(acl).append('=').append(value);
          } catch (Ext4Exception x) {
            assertThat(x.errno()).isEqualTo(Errno.ENODATA);
            out.append(' ').append(acl).append(" absent");
          }
        }
        out.append('\n');
      }
    }
    return out.toString();
  }
}
