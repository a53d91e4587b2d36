package io.ext4j.fs.vfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.format.RawInode;
import io.ext4j.tools.mkfs.Geometry;
import io.ext4j.tools.mkfs.Mkfs;
import io.ext4j.tools.mkfs.MkfsParameters;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The VFS's path rules, lifetimes and permission rules on an in-memory image, one rule per test. */
@Tag("fast")
class VfsTest {
  static final Credentials ROOT = Credentials.root();
  static final Credentials ALICE = Credentials.user(1000, 1000);
  static final Credentials BOB = Credentials.user(1001, 1001);

  Ext4FileSystem fs;
  Vfs vfs;

  static MemoryBlockDevice image() throws IOException {
    Geometry geo = Geometry.of(MkfsParameters.builder().sizeBytes(32 << 20).blockSize(4096).build());
    MemoryBlockDevice dev = new MemoryBlockDevice("vfs-test", 4096, geo.blocksCount());
    Mkfs.format(dev, geo, Mkfs.Identity.reproducible(new byte[16], Instant.ofEpochSecond(1_700_000_000L)), true);
    return dev;
  }

  @BeforeEach
  void open() throws IOException {
    fs = Ext4FileSystem.open(image(), Ext4Options.defaults(), true);
    vfs = fs.vfs();
  }

  @AfterEach
  void close() throws IOException {
    fs.close();
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static void assertErrno(Errno e, ThrowingCallable call) {
    assertThatThrownBy(call).isInstanceOfSatisfying(Ext4Exception.class, x -> assertThat(x.errno()).isEqualTo(e));
  }

  void write(String path, String data, Credentials c) throws IOException {
    try (OpenFile f = vfs.openat(null, b(path), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE, OpenFlag.TRUNCATE), 0644, c)) {
      f.write(0, ByteBuffer.wrap(b(data)));
    }
  }

  /** mkdir then chmod: mkdir's mode passes through the umask, as on Linux. */
  void mkdirWide(String path, int mode) throws IOException {
    vfs.mkdirat(null, b(path), 0700, ROOT);
    vfs.setattrat(null, b(path), true, AttrChange.chmod(mode), ROOT);
  }

  String read(String path, Credentials c) throws IOException {
    try (OpenFile f = vfs.openat(null, b(path), EnumSet.of(OpenFlag.READ), 0, c)) {
      ByteBuffer buf = ByteBuffer.allocate(4096);
      int n = f.read(0, buf);
      return n < 0 ? "" : new String(buf.array(), 0, n, StandardCharsets.UTF_8);
    }
  }

  // ---------------------------------------------------------------- path resolution

  @Test
  void dotDotIsPhysical_notTheSymlinkTextsParent() throws IOException {
    vfs.mkdirat(null, b("/a"), 0755, ROOT);
    vfs.mkdirat(null, b("/a/b"), 0755, ROOT);
    vfs.mkdirat(null, b("/c"), 0755, ROOT);
    vfs.symlinkat(b("/a/b"), null, b("/c/link"), ROOT);
    write("/a/x", "in a", ROOT);
    // /c/link/.. is /a (b's parent), not /c
    assertThat(read("/c/link/../x", ROOT)).isEqualTo("in a");
    assertThat(new String(vfs.realpath(null, b("/c/link/.."), true, ROOT), StandardCharsets.UTF_8)).isEqualTo("/a");
    assertThat(vfs.statat(null, b("/.."), true, ROOT).ino()).isEqualTo(Ext4FileSystem.ROOT);
  }

  @Test
  void symlinkLoopsEndInEloop_andFortyLinksAreTheLimit() throws IOException {
    vfs.symlinkat(b("l2"), null, b("/l1"), ROOT);
    vfs.symlinkat(b("l1"), null, b("/l2"), ROOT);
    assertErrno(Errno.ELOOP, () -> vfs.statat(null, b("/l1"), true, ROOT));
    write("/target", "t", ROOT);
    vfs.symlinkat(b("target"), null, b("/s0"), ROOT);
    for (int i = 1; i <= 40; i++) {
      vfs.symlinkat(b("s" + (i - 1)), null, b("/s" + i), ROOT);
    }
    // s39 takes 40 links to reach target; s40 takes 41
    assertThat(vfs.statat(null, b("/s39"), true, ROOT).size()).isEqualTo(1);
    assertErrno(Errno.ELOOP, () -> vfs.statat(null, b("/s40"), true, ROOT));
    // not following the last component stats the link itself
    assertThat(vfs.statat(null, b("/s40"), false, ROOT).fileType()).isEqualTo(RawInode.S_IFLNK);
  }

  @Test
  void trailingSlashNeedsADirectory_andLongNamesAreEnametoolong() throws IOException {
    write("/f", "x", ROOT);
    assertErrno(Errno.ENOTDIR, () -> vfs.statat(null, b("/f/"), true, ROOT));
    assertErrno(Errno.ENOTDIR, () -> vfs.statat(null, b("/f/x"), true, ROOT));
    assertErrno(Errno.EISDIR, () -> vfs.openat(null, b("/new/"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0644, ROOT));
    assertThat(vfs.mkdirat(null, b("/d/"), 0755, ROOT).fileType()).isEqualTo(RawInode.S_IFDIR);
    assertErrno(Errno.ENAMETOOLONG, () -> vfs.statat(null, b("/" + "n".repeat(256)), true, ROOT));
    assertErrno(Errno.ENAMETOOLONG, () -> vfs.statat(null, b("/a".repeat(2048)), true, ROOT));
    assertErrno(Errno.ENOENT, () -> vfs.statat(null, new byte[0], true, ROOT));
  }

  @Test
  void namesAreBytes_notStrings() throws IOException {
    byte[] latin1 = {'/', 'c', 'a', 'f', (byte) 0xE9};
    try (OpenFile f = vfs.openat(null, latin1, EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0644, ROOT)) {
      f.write(0, ByteBuffer.wrap(b("bytes")));
    }
    try (OpenFile root = vfs.openat(null, b("/"), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0, ROOT)) {
      assertThat(vfs.readdir(root, 0, 100)).anySatisfy(e -> assertThat(e.name()).isEqualTo(new byte[] {'c', 'a', 'f', (byte) 0xE9}));
    }
    assertThat(vfs.statat(null, latin1, true, ROOT).size()).isEqualTo(5);
    vfs.unlinkat(null, latin1, false, ROOT);
    assertErrno(Errno.ENOENT, () -> vfs.statat(null, latin1, true, ROOT));
  }

  // ---------------------------------------------------------------- open(2)

  @Test
  void openFlagsAsOpen2() throws IOException {
    write("/f", "hello", ROOT);
    assertErrno(Errno.EEXIST, () -> vfs.openat(null, b("/f"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE, OpenFlag.EXCLUSIVE), 0644, ROOT));
    vfs.symlinkat(b("f"), null, b("/l"), ROOT);
    assertErrno(Errno.ELOOP, () -> vfs.openat(null, b("/l"), EnumSet.of(OpenFlag.READ, OpenFlag.NOFOLLOW), 0, ROOT));
    assertErrno(Errno.ENOTDIR, () -> vfs.openat(null, b("/f"), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0, ROOT));
    assertErrno(Errno.EISDIR, () -> vfs.openat(null, b("/"), EnumSet.of(OpenFlag.WRITE), 0, ROOT));
    // O_EXCL on a symlink fails even when it dangles
    vfs.symlinkat(b("nowhere"), null, b("/dangling"), ROOT);
    assertErrno(Errno.EEXIST, () -> vfs.openat(null, b("/dangling"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE, OpenFlag.EXCLUSIVE), 0644, ROOT));
    // without O_EXCL a dangling symlink's target is created
    try (OpenFile f = vfs.openat(null, b("/dangling"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0644, ROOT)) {
      f.write(0, ByteBuffer.wrap(b("made")));
    }
    assertThat(read("/nowhere", ROOT)).isEqualTo("made");
    // O_TRUNC empties it, O_APPEND writes at the end whatever the position
    try (OpenFile f = vfs.openat(null, b("/f"), EnumSet.of(OpenFlag.WRITE, OpenFlag.TRUNCATE), 0, ROOT)) {
      assertThat(f.size()).isZero();
    }
    try (OpenFile f = vfs.openat(null, b("/f"), EnumSet.of(OpenFlag.WRITE, OpenFlag.APPEND), 0, ROOT)) {
      f.write(0, ByteBuffer.wrap(b("ab")));
      f.write(0, ByteBuffer.wrap(b("cd")));
    }
    assertThat(read("/f", ROOT)).isEqualTo("abcd");
  }

  @Test
  void umaskAndSetgidDirectoriesShapeNewModes() throws IOException {
    Credentials alice = ALICE.withUmask(027);
    mkdirWide("/shared", 02777);
    vfs.setattrat(null, b("/shared"), true, AttrChange.chown(null, 50L), ROOT);
    try (OpenFile f = vfs.openat(null, b("/shared/f"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0666, alice)) {
      Attributes a = f.attributes();
      assertThat(a.mode() & 07777).isEqualTo(0640);
      assertThat(a.gid()).isEqualTo(50); // the directory's group
      assertThat(a.uid()).isEqualTo(1000);
    }
    Attributes sub = vfs.mkdirat(null, b("/shared/sub"), 0777, alice);
    assertThat(sub.mode() & 07777).isEqualTo(02750); // setgid inherited by a directory
    assertThat(sub.gid()).isEqualTo(50);
  }

  // ---------------------------------------------------------------- lifetimes and handles

  @Test
  void anUnlinkedOpenFileKeepsItsDataUntilTheLastClose() throws IOException {
    write("/f", "still here", ROOT);
    long freeBefore = fs.statfs().freeInodes();
    OpenFile f = vfs.openat(null, b("/f"), EnumSet.of(OpenFlag.READ), 0, ROOT);
    vfs.unlinkat(null, b("/f"), false, ROOT);
    assertErrno(Errno.ENOENT, () -> vfs.statat(null, b("/f"), true, ROOT));
    // a new file cannot take the number while the open file holds it
    write("/g", "other", ROOT);
    assertThat(vfs.statat(null, b("/g"), true, ROOT).ino()).isNotEqualTo(f.ino());
    ByteBuffer buf = ByteBuffer.allocate(100);
    assertThat(f.read(0, buf)).isEqualTo(10);
    assertThat(vfs.fstat(f).nlink()).isZero();
    f.close();
    assertThat(fs.statfs().freeInodes()).isEqualTo(freeBefore); // /f freed, /g taken
  }

  @Test
  void aHandleOfAFreedInodeIsStale_evenWhenTheNumberIsReused() throws IOException {
    write("/f", "first", ROOT);
    FileHandle h = vfs.handleat(null, b("/f"), true, ROOT);
    assertThat(vfs.stat(h).size()).isEqualTo(5);
    vfs.unlinkat(null, b("/f"), false, ROOT);
    assertErrno(Errno.ESTALE, () -> vfs.stat(h));
    write("/g", "second", ROOT);
    FileHandle g = vfs.handleat(null, b("/g"), true, ROOT);
    if (g.ino() == h.ino()) {
      assertThat(g.generation()).isNotEqualTo(h.generation());
    }
    assertErrno(Errno.ESTALE, () -> vfs.stat(h));
    assertErrno(Errno.ESTALE, () -> vfs.openByHandle(h, EnumSet.of(OpenFlag.READ), ROOT));
    try (OpenFile f = vfs.openByHandle(g, EnumSet.of(OpenFlag.READ), ROOT)) {
      assertThat(f.size()).isEqualTo(6);
    }
    assertThat(FileHandle.decode(g.encode())).isEqualTo(g);
  }

  @Test
  void lookupReferencesKeepAnUnlinkedInodeUntilForgotten() throws IOException {
    write("/f", "data", ROOT);
    Lookups lookups = vfs.newLookups();
    Attributes a = lookups.remember(vfs.lookup(Ext4FileSystem.ROOT, b("f"), ROOT));
    lookups.remember(vfs.lookup(Ext4FileSystem.ROOT, b("f"), ROOT));
    assertThat(lookups.count(a.ino())).isEqualTo(2);
    long free = fs.statfs().freeInodes();
    vfs.unlink(Ext4FileSystem.ROOT, b("f"), ROOT);
    assertThat(vfs.getattr(a.ino()).nlink()).isZero();
    assertThat(fs.statfs().freeInodes()).isEqualTo(free);
    lookups.forget(a.ino(), 1);
    assertThat(fs.statfs().freeInodes()).isEqualTo(free);
    lookups.forget(a.ino(), 1);
    assertThat(fs.statfs().freeInodes()).isEqualTo(free + 1);
    assertErrno(Errno.ESTALE, () -> vfs.getattr(a.ino()));
  }

  @Test
  void tmpfileIsNamelessUntilLinked() throws IOException {
    vfs.mkdirat(null, b("/d"), 0755, ROOT);
    long free = fs.statfs().freeInodes();
    try (OpenFile t = vfs.openat(null, b("/d"), EnumSet.of(OpenFlag.WRITE, OpenFlag.TMPFILE), 0600, ROOT)) {
      t.write(0, ByteBuffer.wrap(b("anonymous")));
      assertThat(vfs.fstat(t).nlink()).isZero();
      vfs.linkat(t, null, b("/d/named"), ROOT);
    }
    assertThat(read("/d/named", ROOT)).isEqualTo("anonymous");
    assertThat(fs.statfs().freeInodes()).isEqualTo(free - 1);
    try (OpenFile t = vfs.openat(null, b("/d"), EnumSet.of(OpenFlag.WRITE, OpenFlag.TMPFILE), 0600, ROOT)) {
      t.write(0, ByteBuffer.wrap(b("gone")));
    }
    assertThat(fs.statfs().freeInodes()).isEqualTo(free - 1);
  }

  @Test
  void renameOverAnOpenDirectoryLeavesItStatable() throws IOException {
    vfs.mkdirat(null, b("/a"), 0755, ROOT);
    vfs.mkdirat(null, b("/b"), 0755, ROOT);
    try (OpenFile d = vfs.openat(null, b("/b"), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0, ROOT)) {
      vfs.renameat(null, b("/a"), null, b("/b"), RenameMode.REPLACE, ROOT);
      assertThat(vfs.fstat(d).nlink()).isZero();
      assertErrno(Errno.ENOENT, () -> vfs.openat(d, b("x"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0644, ROOT));
    }
  }

  @Test
  void renameRules() throws IOException {
    vfs.mkdirat(null, b("/d"), 0755, ROOT);
    vfs.mkdirat(null, b("/e"), 0755, ROOT);
    write("/e/x", "x", ROOT);
    write("/f", "f", ROOT);
    assertErrno(Errno.ENOTEMPTY, () -> vfs.renameat(null, b("/d"), null, b("/e"), RenameMode.REPLACE, ROOT));
    assertErrno(Errno.EISDIR, () -> vfs.renameat(null, b("/f"), null, b("/d"), RenameMode.REPLACE, ROOT));
    assertErrno(Errno.ENOTDIR, () -> vfs.renameat(null, b("/d"), null, b("/f"), RenameMode.REPLACE, ROOT));
    assertErrno(Errno.EINVAL, () -> vfs.renameat(null, b("/d"), null, b("/d/sub"), RenameMode.REPLACE, ROOT));
    assertErrno(Errno.EEXIST, () -> vfs.renameat(null, b("/f"), null, b("/e/x"), RenameMode.NOREPLACE, ROOT));
    vfs.renameat(null, b("/f"), null, b("/e/x"), RenameMode.EXCHANGE, ROOT);
    assertThat(read("/f", ROOT)).isEqualTo("x");
    assertThat(read("/e/x", ROOT)).isEqualTo("f");
    vfs.renameat(null, b("/f"), null, b("/f"), RenameMode.REPLACE, ROOT); // same inode: nothing happens
    assertThat(read("/f", ROOT)).isEqualTo("x");
    vfs.renameat(null, b("/e/x"), null, b("/d/x"), RenameMode.WHITEOUT, ROOT);
    Attributes w = vfs.statat(null, b("/e/x"), false, ROOT);
    assertThat(w.fileType()).isEqualTo(RawInode.S_IFCHR);
    assertThat(w.rdev()).isZero();
  }

  // ---------------------------------------------------------------- permissions

  @Test
  void permissionBitsAreCheckedForUsers_andRootPassesThem() throws IOException {
    write("/secret", "s", ROOT);
    vfs.setattrat(null, b("/secret"), true, AttrChange.chmod(0600), ROOT);
    assertErrno(Errno.EACCES, () -> read("/secret", ALICE));
    vfs.mkdirat(null, b("/closed"), 0700, ROOT);
    assertErrno(Errno.EACCES, () -> vfs.statat(null, b("/closed/x"), true, ALICE));
    assertErrno(Errno.EACCES, () -> vfs.mkdirat(null, b("/closed/x"), 0755, ALICE));
    assertErrno(Errno.EACCES, () -> vfs.accessat(null, b("/secret"), Permissions.MAY_READ, true, ALICE));
    vfs.accessat(null, b("/secret"), Permissions.MAY_READ | Permissions.MAY_WRITE, true, ROOT);
    // root needs an execute bit somewhere to execute
    assertErrno(Errno.EACCES, () -> vfs.accessat(null, b("/secret"), Permissions.MAY_EXEC, true, ROOT));
    // without CAP_DAC_OVERRIDE root is an ordinary user
    vfs.setattrat(null, b("/secret"), true, AttrChange.chown(1000L, 1000L), ROOT);
    assertErrno(Errno.EACCES, () -> read("/secret", Credentials.user(0, 0).withCapabilities(Set.of())));
    assertThat(read("/secret", ALICE)).isEqualTo("s");
  }

  @Test
  void onlyTheOwnerChangesModesAndTimes_andChownIsRootsAlone() throws IOException {
    mkdirWide("/tmp", 01777);
    write("/tmp/a", "a", ALICE);
    assertErrno(Errno.EPERM, () -> vfs.setattrat(null, b("/tmp/a"), true, AttrChange.chmod(0777), BOB));
    assertErrno(Errno.EPERM, () -> vfs.setattrat(null, b("/tmp/a"), true, AttrChange.chown(1001L, null), ALICE));
    assertErrno(Errno.EPERM, () -> vfs.setattrat(null, b("/tmp/a"), true,
        AttrChange.times(new TimeSpec.At(Instant.EPOCH), new TimeSpec.At(Instant.EPOCH)), BOB));
    // "now" needs write permission only; bob has none
    assertErrno(Errno.EACCES, () -> vfs.setattrat(null, b("/tmp/a"), true, AttrChange.times(TimeSpec.NOW, TimeSpec.NOW), BOB));
    // a group the owner is not in: EPERM; one she is in: allowed
    Credentials aliceIn2000 = Credentials.user(1000, 1000, 2000);
    vfs.setattrat(null, b("/tmp/a"), true, AttrChange.chown(null, 2000L), aliceIn2000);
    assertErrno(Errno.EPERM, () -> vfs.setattrat(null, b("/tmp/a"), true, AttrChange.chown(null, 3000L), aliceIn2000));
    // the sticky directory: bob cannot delete or rename alice's file
    assertErrno(Errno.EPERM, () -> vfs.unlinkat(null, b("/tmp/a"), false, BOB));
    assertErrno(Errno.EPERM, () -> vfs.renameat(null, b("/tmp/a"), null, b("/tmp/b"), RenameMode.REPLACE, BOB));
    vfs.unlinkat(null, b("/tmp/a"), false, ALICE);
  }

  @Test
  void chmodByANonMemberDropsSetgid() throws IOException {
    write("/f", "x", ROOT);
    vfs.setattrat(null, b("/f"), true, AttrChange.chown(1000L, 2000L), ROOT);
    vfs.setattrat(null, b("/f"), true, AttrChange.chmod(02755), ALICE);
    assertThat(vfs.statat(null, b("/f"), true, ROOT).mode() & 07777).isEqualTo(0755);
    vfs.setattrat(null, b("/f"), true, AttrChange.chmod(02755), ROOT);
    assertThat(vfs.statat(null, b("/f"), true, ROOT).mode() & 07777).isEqualTo(02755);
  }

  @Test
  void writeTruncateAndFallocateClearSetuid_andGroupExecutableSetgid() throws IOException {
    mkdirWide("/d", 0777);
    for (String op : new String[] {"write", "truncate", "fallocate"}) {
      String p = "/d/" + op;
      write(p, "original", ALICE);
      vfs.setattrat(null, b(p), true, AttrChange.chmod(06775), ALICE);
      vfs.setxattrat(null, b(p), true, "security.capability", new byte[20], 0, ROOT);
      try (OpenFile f = vfs.openat(null, b(p), EnumSet.of(OpenFlag.WRITE), 0, BOB.withCapabilities(Set.of()))) {
        throw new AssertionError("bob may not open " + p + " for writing");
      } catch (Ext4Exception e) {
        assertThat(e.errno()).isEqualTo(Errno.EACCES);
      }
      vfs.setattrat(null, b(p), true, AttrChange.chmod(06777), ALICE);
      try (OpenFile f = vfs.openat(null, b(p), EnumSet.of(OpenFlag.WRITE), 0, BOB)) {
        switch (op) {
          case "write" -> f.write(0, ByteBuffer.wrap(b("new")));
          case "truncate" -> f.truncate(2, BOB);
          default -> f.fallocate(0, 0, 65536, BOB);
        }
      }
      Attributes a = vfs.statat(null, b(p), true, ROOT);
      assertThat(a.mode() & 07777).as(op).isEqualTo(0777);
      assertThat(vfs.listxattrat(null, b(p), true, ROOT)).as(op).doesNotContain("security.capability");
    }
    // setgid without group execute stays for a writer in the file's group, and goes for one outside it
    write("/d/lock", "x", ALICE);
    vfs.setattrat(null, b("/d/lock"), true, AttrChange.chmod(02666), ALICE);
    try (OpenFile f = vfs.openat(null, b("/d/lock"), EnumSet.of(OpenFlag.WRITE), 0, Credentials.user(1001, 1001, 1000))) {
      f.write(0, ByteBuffer.wrap(b("y")));
    }
    assertThat(vfs.statat(null, b("/d/lock"), true, ROOT).mode() & 07777).isEqualTo(02666);
    try (OpenFile f = vfs.openat(null, b("/d/lock"), EnumSet.of(OpenFlag.WRITE), 0, BOB)) {
      f.write(0, ByteBuffer.wrap(b("z")));
    }
    assertThat(vfs.statat(null, b("/d/lock"), true, ROOT).mode() & 07777).isEqualTo(0666);
    // root's write (CAP_FSETID) keeps them
    vfs.setattrat(null, b("/d/write"), true, AttrChange.chmod(06777), ROOT);
    try (OpenFile f = vfs.openat(null, b("/d/write"), EnumSet.of(OpenFlag.WRITE), 0, ROOT)) {
      f.write(0, ByteBuffer.wrap(b("root")));
    }
    assertThat(vfs.statat(null, b("/d/write"), true, ROOT).mode() & 07777).isEqualTo(06777);
  }

  @Test
  void chownClearsSetuidEvenForRoot() throws IOException {
    write("/f", "x", ROOT);
    vfs.setattrat(null, b("/f"), true, AttrChange.chmod(06755), ROOT);
    vfs.setattrat(null, b("/f"), true, AttrChange.chown(65534L, 65532L), ROOT);
    assertThat(vfs.statat(null, b("/f"), true, ROOT).mode() & 07777).isEqualTo(0755);
  }

  @Test
  void immutableAndAppendOnlyAreEnforcedForEveryone() throws IOException {
    write("/i", "x", ROOT);
    vfs.setattrat(null, b("/i"), true, AttrChange.chmod(0666), ROOT);
    try (OpenFile f = vfs.openat(null, b("/i"), EnumSet.of(OpenFlag.READ), 0, ROOT)) {
      int old = vfs.getflags(f);
      assertErrno(Errno.EPERM, () -> vfs.setflags(f, old | RawInode.FL_IMMUTABLE, ALICE));
      assertErrno(Errno.EPERM, () -> vfs.setflags(f, old | RawInode.FL_IMMUTABLE, ROOT.without(Capability.LINUX_IMMUTABLE)));
      assertThat(vfs.setflags(f, old | RawInode.FL_IMMUTABLE, ROOT) & RawInode.FL_IMMUTABLE).isNotZero();
      assertErrno(Errno.EPERM, () -> vfs.setflags(f, old | RawInode.FL_IMMUTABLE | RawInode.FL_NOATIME, ROOT));
    }
    assertErrno(Errno.EPERM, () -> vfs.openat(null, b("/i"), EnumSet.of(OpenFlag.WRITE), 0, ROOT));
    assertErrno(Errno.EPERM, () -> vfs.unlinkat(null, b("/i"), false, ROOT));
    assertErrno(Errno.EPERM, () -> vfs.setattrat(null, b("/i"), true, AttrChange.chmod(0600), ROOT));
    assertErrno(Errno.EPERM, () -> vfs.setattrat(null, b("/i"), true, AttrChange.times(TimeSpec.NOW, TimeSpec.NOW), ROOT));
    assertErrno(Errno.EPERM, () -> vfs.linkat(null, b("/i"), null, b("/i2"), false, ROOT));
    mkdirWide("/appendonly", 0777);
    write("/appendonly/log", "1", ROOT);
    try (OpenFile d = vfs.openat(null, b("/appendonly/log"), EnumSet.of(OpenFlag.READ), 0, ROOT)) {
      vfs.setflags(d, vfs.getflags(d) | RawInode.FL_APPEND, ROOT);
    }
    assertErrno(Errno.EPERM, () -> vfs.openat(null, b("/appendonly/log"), EnumSet.of(OpenFlag.WRITE), 0, ROOT));
    assertErrno(Errno.EPERM, () -> vfs.openat(null, b("/appendonly/log"), EnumSet.of(OpenFlag.WRITE, OpenFlag.APPEND, OpenFlag.TRUNCATE), 0, ROOT));
    try (OpenFile f = vfs.openat(null, b("/appendonly/log"), EnumSet.of(OpenFlag.WRITE, OpenFlag.APPEND), 0, ROOT)) {
      f.write(0, ByteBuffer.wrap(b("2")));
    }
    assertThat(read("/appendonly/log", ROOT)).isEqualTo("12");
    // utimes(NULL) of an append-only file works; given times do not
    vfs.setattrat(null, b("/appendonly/log"), true, AttrChange.times(TimeSpec.NOW, TimeSpec.NOW), ROOT);
    assertErrno(Errno.EPERM, () -> vfs.setattrat(null, b("/appendonly/log"), true,
        AttrChange.times(new TimeSpec.At(Instant.EPOCH), new TimeSpec.At(Instant.EPOCH)), ROOT));
  }

  /** New entries take their directory's inheritable flags as ext4_mask_flags says: DAX and noatime to files and directories, only noatime to a symlink. */
  @Test
  void inheritableFlagsPassToNewEntries_asExt4MasksThem() throws IOException {
    vfs.mkdirat(null, b("/dax"), 0755, ROOT);
    try (OpenFile d = vfs.openat(null, b("/dax"), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0, ROOT)) {
      vfs.setflags(d, vfs.getflags(d) | RawInode.FL_DAX | RawInode.FL_NOATIME, ROOT);
    }
    write("/dax/f", "x", ROOT);
    vfs.mkdirat(null, b("/dax/sub"), 0755, ROOT);
    vfs.symlinkat(b("f"), null, b("/dax/l"), ROOT);
    int both = RawInode.FL_DAX | RawInode.FL_NOATIME;
    assertThat(flagsOf("/dax/f", true) & both).isEqualTo(both);
    assertThat(flagsOf("/dax/sub", true) & both).isEqualTo(both);
    assertThat(flagsOf("/dax/l", false) & both).isEqualTo(RawInode.FL_NOATIME);
  }

  private int flagsOf(String path, boolean follow) throws IOException {
    return vfs.statat(null, b(path), follow, ROOT).flags();
  }

  @Test
  void xattrNamesAreCheckedAsLinuxDoes() throws IOException {
    write("/f", "x", ROOT);
    vfs.symlinkat(b("f"), null, b("/l"), ROOT);
    assertErrno(Errno.ERANGE, () -> vfs.setxattrat(null, b("/f"), true, "", b("v"), 0, ROOT)); // as import_xattr_name
    assertErrno(Errno.EINVAL, () -> vfs.setxattrat(null, b("/f"), true, "user.", b("v"), 0, ROOT));
    assertErrno(Errno.ERANGE, () -> vfs.setxattrat(null, b("/f"), true, "user." + "n".repeat(251), b("v"), 0, ROOT));
    assertErrno(Errno.EPERM, () -> vfs.setxattrat(null, b("/l"), false, "user.x", b("v"), 0, ROOT));
    assertErrno(Errno.EOPNOTSUPP, () -> vfs.setxattrat(null, b("/f"), true, "nosuch.x", b("v"), 0, ROOT));
    assertErrno(Errno.EPERM, () -> vfs.setxattrat(null, b("/f"), true, "trusted.x", b("v"), 0, ALICE));
    vfs.setxattrat(null, b("/f"), true, "user.x", b("v"), 0, ROOT);
    assertErrno(Errno.EEXIST, () -> vfs.setxattrat(null, b("/f"), true, "user.x", b("v"), 1, ROOT));
    assertErrno(Errno.ENODATA, () -> vfs.setxattrat(null, b("/f"), true, "user.y", b("v"), 2, ROOT));
    assertThat(vfs.getxattrat(null, b("/f"), true, "user.x", ALICE)).isEqualTo(b("v"));
    assertErrno(Errno.EACCES, () -> vfs.setxattrat(null, b("/f"), true, "user.x", b("w"), 0, ALICE));
  }

  // ---------------------------------------------------------------- the dentry cache

  @Test
  void walkingAPathAgainSearchesNoDirectory() throws IOException {
    StringBuilder p = new StringBuilder();
    for (int d = 0; d < 8; d++) {
      p.append("/d").append(d);
      vfs.mkdirat(null, b(p.toString()), 0755, ROOT);
    }
    write(p + "/leaf", "leaf", ROOT);
    byte[] path = b(p + "/leaf");
    vfs.statat(null, path, true, ROOT);
    long misses = vfs.dentryStats()[1];
    for (int i = 0; i < 100; i++) {
      assertThat(vfs.statat(null, path, true, ROOT).size()).isEqualTo(4);
    }
    assertThat(vfs.dentryStats()[1]).isEqualTo(misses);
    // negative entries too: a name looked up and missing is not searched again
    assertErrno(Errno.ENOENT, () -> vfs.statat(null, b(p + "/none"), true, ROOT));
    long misses2 = vfs.dentryStats()[1];
    assertErrno(Errno.ENOENT, () -> vfs.statat(null, b(p + "/none"), true, ROOT));
    assertThat(vfs.dentryStats()[1]).isEqualTo(misses2);
    // and the operations keep the cache exact
    write(p + "/none", "now", ROOT);
    assertThat(read(p + "/none", ROOT)).isEqualTo("now");
    vfs.renameat(null, b(p + "/none"), null, b("/moved"), RenameMode.REPLACE, ROOT);
    assertErrno(Errno.ENOENT, () -> vfs.statat(null, b(p + "/none"), true, ROOT));
    assertThat(read("/moved", ROOT)).isEqualTo("now");
    vfs.renameat(null, b("/d0/d1"), null, b("/top"), RenameMode.REPLACE, ROOT);
    assertThat(vfs.statat(null, b("/top/d2/.."), true, ROOT).ino()).isEqualTo(vfs.statat(null, b("/top"), true, ROOT).ino());
    assertThat(vfs.statat(null, b("/top/.."), true, ROOT).ino()).isEqualTo(Ext4FileSystem.ROOT);
  }

  /** copy_file_range is one engine call with Linux's checks, and its writes clear setuid as writes do. */
  @Test
  void copyRange_copiesToTheSourcesEnd_checksLikeLinux_andClearsSetuid() throws IOException {
    write("/src", "0123456789", ROOT);
    write("/dst", "", ROOT);
    vfs.setattrat(null, b("/dst"), true, AttrChange.none().withOwner(1000L, 1000L), ROOT);
    vfs.setattrat(null, b("/dst"), true, AttrChange.chmod(04755), ALICE);
    try (OpenFile in = vfs.openat(null, b("/src"), EnumSet.of(OpenFlag.READ), 0, ALICE);
        OpenFile out = vfs.openat(null, b("/dst"), EnumSet.of(OpenFlag.WRITE), 0, ALICE)) {
      assertThat(in.copyRange(2, out, 0, 100, ALICE)).isEqualTo(8);
      assertThat(in.copyRange(10, out, 0, 5, ALICE)).isZero();
      assertErrno(Errno.EBADF, () -> out.copyRange(0, in, 0, 1, ALICE));
    }
    try (OpenFile rw = vfs.openat(null, b("/src"), EnumSet.of(OpenFlag.READ, OpenFlag.WRITE), 0, ROOT)) {
      assertErrno(Errno.EINVAL, () -> rw.copyRange(0, rw, 5, 10, ROOT));
    }
    assertThat(read("/dst", ROOT)).isEqualTo("23456789");
    assertThat(vfs.statat(null, b("/dst"), true, ROOT).mode() & 07777).isEqualTo(0755);
    try (OpenFile in = vfs.openat(null, b("/src"), EnumSet.of(OpenFlag.READ), 0, ROOT);
        OpenFile app = vfs.openat(null, b("/dst"), EnumSet.of(OpenFlag.WRITE, OpenFlag.APPEND), 0, ROOT)) {
      assertErrno(Errno.EBADF, () -> in.copyRange(0, app, 0, 1, ROOT));
    }
  }
}
