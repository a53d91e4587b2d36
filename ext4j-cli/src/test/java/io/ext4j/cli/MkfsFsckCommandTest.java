package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.testkit.E2fsprogs;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ext4j mkfs} and {@code ext4j fsck} as a user runs them, against dumpe2fs, debugfs and
 * e2fsck: options reach the image, {@code -d} from a directory and from a tar, reproducible images
 * with {@code SOURCE_DATE_EPOCH} and {@code -U} (in a child JVM, to set the environment), fsck's
 * verdicts and exit codes, {@code -n} writing nothing, replay in place without it, and bad input.
 */
@Tag("oracle")
class MkfsFsckCommandTest {
  static final String UUID_TEXT = "0b5f0e2a-4f55-4b7e-9c6a-2b1d1c1f2e3d";

  @TempDir
  Path tmp;

  static String dumpe2fs(Path img) throws Exception {
    return Tools.runOk("dumpe2fs", "-h", img.toString());
  }

  @Test
  void mkfsD_underAHostDefaultAcl_keepsEachEntrysOwnAcl_notWhatTheImageWouldInherit() throws Exception {
    Path d = Files.createDirectories(tmp.resolve("acltree/d"));
    Path plain = Files.writeString(d.resolve("plain"), "made before the default ACL\n");
    Files.setPosixFilePermissions(plain, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
    byte[] dflt = io.ext4j.fs.format.PosixAcl.toVfs(List.of(new io.ext4j.fs.format.PosixAcl.Entry(1, 7, -1),
        new io.ext4j.fs.format.PosixAcl.Entry(2, 5, 1000), new io.ext4j.fs.format.PosixAcl.Entry(4, 5, -1),
        new io.ext4j.fs.format.PosixAcl.Entry(0x10, 7, -1), new io.ext4j.fs.format.PosixAcl.Entry(0x20, 4, -1)));
    io.ext4j.tools.populate.HostFs.setXattr(d, "system.posix_acl_default", dflt);
    Path inherits = Files.writeString(d.resolve("inherits"), "made after\n"); // the host gives it an access ACL
    byte[] hostAcl = io.ext4j.tools.populate.HostFs.getXattr(inherits, "system.posix_acl_access");
    assertThat(hostAcl).as("the host filesystem inherits default ACLs").isNotNull();
    Path img = tmp.resolve("acl.img");
    Cli r = Cli.run("mkfs", "-d", tmp.resolve("acltree").toString(), img.toString(), "32M");
    assertThat(r.exitCode()).as("mkfs -d: %s%s", r.out(), r.err()).isZero();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().readOnly(true).build())) {
      var root = io.ext4j.fs.vfs.Credentials.root();
      var p = fs.vfs().statat(null, "/d/plain".getBytes(StandardCharsets.UTF_8), false, root);
      assertThat(p.permissions()).isEqualTo(0640);
      assertThat(fs.listxattr(p.ino())).doesNotContain("system.posix_acl_access");
      var i = fs.vfs().statat(null, "/d/inherits".getBytes(StandardCharsets.UTF_8), false, root);
      assertThat(fs.getxattr(i.ino(), "system.posix_acl_access")).isEqualTo(hostAcl);
      String rwx = java.nio.file.attribute.PosixFilePermissions.toString(
          Files.readAttributes(inherits, java.nio.file.attribute.PosixFileAttributes.class).permissions()); // "rwxr-x---"
      assertThat(i.permissions()).isEqualTo(Integer.parseInt(rwx.replaceAll("[^-]", "1").replace('-', '0'), 2));
      assertThat(fs.getxattr(fs.vfs().statat(null, "/d".getBytes(StandardCharsets.UTF_8), true, root).ino(), "system.posix_acl_default")).isEqualTo(dflt);
    }
    Tools.assertE2fsckClean(img);
  }

  @Test
  void train_runsEveryStep_andLeavesAnImageE2fsckFindsClean() throws Exception {
    Path src = Files.createDirectories(tmp.resolve("src/d"));
    Files.writeString(src.resolve("f.txt"), "train\n");
    Files.write(tmp.resolve("src/big.bin"), new byte[200_000]);
    Path work = tmp.resolve("work");
    Cli r = Cli.run("train", tmp.resolve("src").toString(), work.toString());
    assertThat(r.exitCode()).as("train: %s%s", r.out(), r.err()).isZero();
    assertThat(work.resolve("out/d/f.txt")).hasContent("train");
    assertThat(Files.size(work.resolve("out/big.bin"))).isEqualTo(200_000);
    assertThat(Tools.debugfs(work.resolve("train.img"), "ls /")).doesNotContain(" t ");
    Tools.assertE2fsckClean(work.resolve("train.img"));
  }

  @Test
  void train_withAMissingSource_failsNamingTheStep() throws Exception {
    Cli r = Cli.run("train", tmp.resolve("nope").toString(), tmp.resolve("w").toString());
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err()).contains("ext4j train: 'mkfs").contains("nope");
  }

  @Test
  void mkfs_withOptions_makesWhatWasAsked_andE2fsckFindsNothing() throws Exception {
    Path img = tmp.resolve("opts.img");
    Cli r = Cli.run("mkfs", img.toString(), "64M", "-b", "4096", "-L", "mylabel", "-U", UUID_TEXT, "-O", "^metadata_csum,uninit_bg",
        "--journal-size", "8", "-N", "5000", "-m", "1", "-E", "root_owner=1000:1001");
    assertThat(r.exitCode()).as("mkfs: %s%s", r.out(), r.err()).isZero();
    assertThat(r.out()).contains("16384 blocks of 4096 bytes").contains(UUID_TEXT).contains("mylabel");
    String h = dumpe2fs(img);
    assertThat(h).containsPattern("Filesystem volume name:\\s+mylabel").containsPattern("Filesystem UUID:\\s+" + UUID_TEXT)
        .containsPattern("Block size:\\s+4096").containsPattern("Total journal size:\\s+8M").containsPattern("Reserved block count:\\s+163\\b")
        .contains("uninit_bg").doesNotContain("metadata_csum");
    assertThat(Long.parseLong(h.replaceAll("(?s).*Inode count:\\s+(\\d+).*", "$1"))).isGreaterThanOrEqualTo(5000);
    assertThat(Tools.debugfs(img, "stat /")).containsPattern("User:\\s+1000\\s+Group:\\s+1001");
    Tools.assertE2fsckClean(img);
  }

  @Test
  void mkfsD_ofAHostDirectory_copiesIt_andFsckAgreesWithE2fsck() throws Exception {
    Path tree = Files.createDirectories(tmp.resolve("tree/sub"));
    Files.writeString(tree.resolve("a.txt"), "hello\n");
    Files.write(tmp.resolve("tree/big.bin"), new byte[300_000]);
    for (int i = 0; i < 600; i++) {
      Files.writeString(tree.resolve("n" + i), "x" + i);
    }
    Path img = tmp.resolve("d.img");
    Cli r = Cli.run("mkfs", "-d", tmp.resolve("tree").toString(), img.toString(), "--check");
    assertThat(r.exitCode()).as("mkfs -d: %s%s", r.out(), r.err()).isZero();
    assertThat(r.out()).contains("602 files, 1 directories").contains("ext4j fsck --strict: clean");
    assertThat(Tools.debugfs(img, "cat /sub/a.txt")).isEqualTo("hello\n");
    assertThat(Tools.debugfs(img, "htree /sub")).contains("Root node dump"); // 601 names: an indexed directory
    Tools.assertE2fsckClean(img);
    Cli f = Cli.run("fsck", img.toString());
    assertThat(f.exitCode()).as("fsck: %s%s", f.out(), f.err()).isZero();
    assertThat(f.out()).containsPattern(": \\d+/\\d+ files \\(.*\\), \\d+/\\d+ blocks");
  }

  @Test
  void mkfsD_ofATar_takesOwnersModesAndDevicesFromIt_withoutRoot() throws Exception {
    Path tar = tmp.resolve("t.tar");
    try (TarArchiveOutputStream out = new TarArchiveOutputStream(Files.newOutputStream(tar))) {
      out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      TarArchiveEntry d = new TarArchiveEntry("etc/", TarArchiveEntry.LF_DIR);
      d.setMode(040755);
      out.putArchiveEntry(d);
      out.closeArchiveEntry();
      byte[] body = "root:x:0:0\n".getBytes(StandardCharsets.UTF_8);
      TarArchiveEntry f = new TarArchiveEntry("etc/passwd");
      f.setSize(body.length);
      f.setMode(0100640);
      f.setUserId(1234);
      f.setGroupId(5678);
      f.setModTime(FileTime.from(Instant.parse("2020-01-02T03:04:05Z")));
      out.putArchiveEntry(f);
      out.write(body);
      out.closeArchiveEntry();
      TarArchiveEntry c = new TarArchiveEntry("dev/null", TarArchiveEntry.LF_CHR);
      c.setMode(020666);
      c.setDevMajor(1);
      c.setDevMinor(3);
      out.putArchiveEntry(c);
      out.closeArchiveEntry();
    }
    Path img = tmp.resolve("tar.img");
    Cli r = Cli.run("mkfs", img.toString(), "32M", "-d", tar.toString());
    assertThat(r.exitCode()).as("mkfs -d tar: %s%s", r.out(), r.err()).isZero();
    String st = Tools.debugfs(img, "stat /etc/passwd");
    assertThat(st).containsPattern("User:\\s+1234\\s+Group:\\s+5678").contains("Mode:  0640");
    assertThat(Tools.debugfs(img, "stat /dev/null")).containsPattern("Type: character special").containsPattern("Device major/minor number: 01:03");
    Tools.assertE2fsckClean(img);
  }

  /** Two runs in child JVMs (the environment is theirs) over trees created in different orders. */
  @Test
  void mkfsD_withSourceDateEpochAndFixedUuid_isByteIdentical_andClampsTimes() throws Exception {
    Path a = Files.createDirectories(tmp.resolve("a"));
    Path b = Files.createDirectories(tmp.resolve("b"));
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      names.add("f" + (i * 7919 % 300));
    }
    for (String n : names) {
      Files.writeString(a.resolve(n), n);
    }
    for (String n : names.reversed()) {
      Files.writeString(b.resolve(n), n);
    }
    Instant future = Instant.parse("2099-01-01T00:00:00Z");
    for (Path dir : List.of(a, b)) {
      try (var s = Files.list(dir)) {
        for (Path p : s.toList()) {
          Files.setLastModifiedTime(p, FileTime.from(future));
        }
      }
      Files.setLastModifiedTime(dir, FileTime.from(future));
    }
    Path ia = tmp.resolve("a.img");
    Path ib = tmp.resolve("b.img");
    for (Path[] run : new Path[][] {{a, ia}, {b, ib}}) {
      E2fsprogs.Result r = childCli(Map.of("SOURCE_DATE_EPOCH", "1700000000"),
          "mkfs", run[1].toString(), "32M", "-U", UUID_TEXT, "-d", run[0].toString(), "-q");
      assertThat(r.exitCode()).as("child mkfs: %s", r.output()).isZero();
    }
    assertThat(sha256(ia)).as("two reproducible runs").isEqualTo(sha256(ib));
    assertThat(Tools.debugfs(ia, "stat /f1")).contains("mtime: 0x6553f100"); // 1700000000, clamped from 2099
    Tools.assertE2fsckClean(ia);
  }

  @Test
  void fsck_ofACorruptImage_exits4_namingTheInode_asE2fsckFindsItToo() throws Exception {
    Path img = tmp.resolve("bad.img");
    assertThat(Cli.run("mkfs", img.toString(), "16M", "-q").exitCode()).isZero();
    assertThat(Cli.run("put", img.toString(), writeHost("x", "data"), "/x").exitCode()).isZero();
    long ino = Long.parseLong(Tools.debugfs(img, "stat /x").replaceAll("(?s)^Inode: (\\d+).*", "$1"));
    Tools.runOk("debugfs", "-w", "-R", "sif /x links_count 5", img.toString());
    Cli f = Cli.run("fsck", "-n", img.toString());
    assertThat(f.exitCode()).as("fsck -n: %s%s", f.out(), f.err()).isEqualTo(4);
    assertThat(f.out()).contains("inode " + ino);
    assertThat(E2fsprogs.e2fsckForceNoChange(img).exitCode()).isNotZero();
  }

  @Test
  void fsckN_writesNothing_andChecksAsAReplayWouldLeaveIt_whileFsckReplaysInPlace() throws Exception {
    Path img = tmp.resolve("live.img");
    Path crash = tmp.resolve("crash.img");
    assertThat(Cli.run("mkfs", img.toString(), "16M", "-q").exitCode()).isZero();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      for (int i = 0; i < 20; i++) {
        long ino = fs.create(Ext4FileSystem.ROOT, ("f" + i).getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
        try (OpenFile of = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
          of.write(0, ByteBuffer.wrap(new byte[5000]));
        }
      }
      fs.syncfs(); // committed to the journal, not yet checkpointed: what a power cut now leaves
      Files.copy(img, crash, StandardCopyOption.REPLACE_EXISTING);
    }
    assertThat(needsRecovery(crash)).as("the copy needs recovery").isTrue();
    String before = sha256(crash);
    Cli n = Cli.run("fsck", "-n", crash.toString());
    assertThat(n.exitCode()).as("fsck -n: %s%s", n.out(), n.err()).isZero();
    assertThat(sha256(crash)).as("fsck -n wrote nothing").isEqualTo(before);
    Cli y = Cli.run("fsck", crash.toString());
    assertThat(y.exitCode()).as("fsck: %s%s", y.out(), y.err()).isZero();
    assertThat(y.out()).contains("recovering the journal and orphans");
    assertThat(needsRecovery(crash)).as("after fsck's replay").isFalse();
    Tools.assertE2fsckClean(crash);
    assertThat(Tools.debugfs(crash, "ls /")).contains("f19");
  }

  @Test
  void badInput_oneLine_andTheExitCodes() throws Exception {
    Path junk = Files.write(tmp.resolve("junk.img"), new byte[1 << 20]);
    Cli f = Cli.run("fsck", junk.toString());
    assertThat(f.exitCode()).isEqualTo(8);
    assertThat(f.err().lines()).hasSize(1).first().asString().contains("junk.img");
    Cli missing = Cli.run("fsck", "-n", tmp.resolve("nope.img").toString());
    assertThat(missing.exitCode()).isEqualTo(8);
    assertThat(missing.err()).contains("nope.img: no such file or directory");
    for (String[] args : new String[][] {
        {"mkfs", tmp.resolve("x.img").toString(), "12X"},
        {"mkfs", tmp.resolve("x.img").toString()},
        {"mkfs", tmp.resolve("x.img").toString(), "16M", "-O", "nosuchfeature"},
        {"mkfs", tmp.resolve("x.img").toString(), "16M", "-U", "not-a-uuid"},
        {"mkfs", tmp.resolve("x.img").toString(), "16M", "-d", tmp.resolve("absent").toString()},
        {"mkfs", tmp.resolve("x.img").toString(), "16M", "-E", "bogus=1"}}) {
      Cli r = Cli.run(args);
      assertThat(r.exitCode()).as("%s: %s", List.of(args), r.err()).isEqualTo(1);
      assertThat(r.err().lines()).as("%s", List.of(args)).hasSize(1);
      assertThat(r.err()).doesNotContain("Exception").doesNotContain("\tat ");
    }
  }

  @Test
  void mkfs_ofATebibyteSparseImage_isSmallOnDisk_andChecksClean() throws Exception {
    Path img = tmp.resolve("tib.img");
    Cli r = Cli.run("mkfs", img.toString(), "1T", "-q");
    assertThat(r.exitCode()).as("mkfs 1T: %s", r.err()).isZero();
    assertThat(Files.size(img)).isEqualTo(1L << 40);
    assertThat(Tools.allocatedBlocks(img) * 512).as("bytes allocated on the host").isLessThan(1L << 30);
    Cli f = Cli.run("fsck", img.toString());
    assertThat(f.exitCode()).as("fsck of 1 TiB: %s%s", f.out(), f.err()).isZero();
  }

  String writeHost(String name, String content) throws Exception {
    return Files.writeString(tmp.resolve(name), content).toString();
  }

  static boolean needsRecovery(Path img) throws Exception {
    try (FileBlockDevice d = FileBlockDevice.open(img, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      return Ext4JournalLocator.readSuperblock(d).needsRecovery();
    }
  }

  static String sha256(Path p) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
  }

  /** The CLI in a child JVM on this test's class path, with {@code env} added. */
  static E2fsprogs.Result childCli(Map<String, String> env, String... args) {
    List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-Xmx256m",
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    cmd.addAll(List.of(args));
    return E2fsprogs.runOrKill(Duration.ofMinutes(2), env, cmd.toArray(String[]::new));
  }
}
