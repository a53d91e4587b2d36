package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.testkit.E2fsprogs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * errors=remount-ro: a corrupted structure met by an operation fails that operation with
 * EFSCORRUPTED naming it, records the error in the superblock as the kernel does (dumpe2fs reads
 * the fields back), turns the filesystem read-only with the cause attached, keeps serving reads of
 * what is intact, and loses nothing committed before it.
 */
@Tag("oracle")
class ErrorsRemountReadOnlyOracleTest {
  private static final byte[] GOOD = name("good");
  private static final byte[] BAD = name("bad");
  private static final byte[] LATE = name("late");
  private static final byte[] ODD = name("odd");

  @Test
  void aNameOfAnInodeNotInUse_isEfscorrupted_forOpenWithCreate_andTurnsReadOnly() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "remount-ro"));
    Path img = dir.resolve("ghost.img");
    Oracle.mkfs(img, 16L << 20, 4096);
    // a directory entry naming inode 40, which is free: debugfs's ln adds the name and nothing else
    E2fsprogs.Result ln = E2fsprogs.run(E2fsprogs.TIMEOUT, "debugfs", "-w", "-R", "ln <40> /ghost", img.toString());
    assertThat(ln.exitCode()).as(ln.output()).isZero();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> fs.vfs().openat(null, name("/ghost"),
          EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0644, io.ext4j.fs.vfs.Credentials.root()).close());
      assertThat(t).as("open(O_CREAT) of the name").isInstanceOf(Ext4Exception.class);
      assertThat(((Ext4Exception) t).errno()).isEqualTo(Errno.EFSCORRUPTED);
      assertThat(t.getMessage()).contains("ghost").contains("inode 40, which is not in use");
      assertThat(fs.isReadOnly()).isTrue();
    } catch (IOException closing) {
      assertThat(closing.getMessage()).contains("aborted"); // the journal aborted with the error
    }
  }

  @Test
  void aCorruptExtentHeader_failsItsRead_recordsTheError_andTurnsReadOnly_whileOtherReadsGoOn() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "remount-ro"));
    Path img = dir.resolve("remount-ro.img");
    Oracle.mkfs(img, 16L << 20, 4096);
    byte[] good = pattern(40_000, 7);
    byte[] bad = pattern(20_000, 11);
    long badIno;
    long oddIno;
    try (Ext4FileSystem first = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      write(first, GOOD, good);
      badIno = write(first, BAD, bad);
      oddIno = write(first, ODD, bad);
    }
    // an i_extra_isize that is not a multiple of 4: found when the inode is read, inside a lookup
    E2fsprogs.Result odd = E2fsprogs.run(E2fsprogs.TIMEOUT, "debugfs", "-w", "-R", "sif <" + oddIno + "> extra_isize 30",
        img.toString());
    assertThat(odd.exitCode()).as(odd.output()).isZero();
    // i_block[0] is the extent header's magic and entry count: a wrong magic, with the inode's
    // checksum recomputed by debugfs, so the extent header is the only thing wrong.
    E2fsprogs.Result sif = E2fsprogs.run(E2fsprogs.TIMEOUT, "debugfs", "-w", "-R", "sif <" + badIno + "> block[0] 0x0001dead",
        img.toString());
    assertThat(sif.exitCode()).as(sif.output()).isZero();

    byte[] lateData = pattern(9_000, 13);
    Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults());
    try {
      write(fs, LATE, lateData); // committed by its fsync before the error: must survive it
      assertThat(fs.isReadOnly()).isFalse();

      Ext4Exception e = catchThrowableOfType(Ext4Exception.class, () -> read(fs, BAD));
      assertThat(e).as("reading the file with the corrupt extent header").isNotNull();
      assertThat(e.errno()).isEqualTo(Errno.EFSCORRUPTED);
      assertThat(e.inode()).isEqualTo(badIno);
      assertThat(e.getMessage()).contains("extent").contains("inode " + badIno);

      assertThat(fs.isReadOnly()).isTrue();
      assertThat(fs.readOnlyReason()).contains("after an error").contains("extent");
      Ext4Exception refused = catchThrowableOfType(Ext4Exception.class,
          () -> fs.mkdir(Ext4FileSystem.ROOT, name("after"), 0755, Caller.ROOT));
      assertThat(refused.errno()).isEqualTo(Errno.EROFS);
      assertThat(refused.getMessage()).contains("extent");
      assertThat(refused.getCause()).isSameAs(e);

      assertThat(read(fs, GOOD)).as("a file the corruption does not touch still reads").isEqualTo(good);
      assertThat(read(fs, LATE)).isEqualTo(lateData);
      assertThat(fs.readdir(Ext4FileSystem.ROOT, 0, 100)).hasSizeGreaterThanOrEqualTo(5);
      Ext4Superblock sb = fs.superblock();
      assertThat(sb.state() & Ext4Superblock.STATE_ERRORS).isNotZero();
      assertThat(sb.errorCount()).isEqualTo(1);

      // a second error, met by a lookup inside which getattr reads the inode: recorded once, as the last
      Ext4Exception second = catchThrowableOfType(Ext4Exception.class, () -> fs.lookup(Ext4FileSystem.ROOT, ODD));
      assertThat(second.errno()).isEqualTo(Errno.EFSCORRUPTED);
      assertThat(second.getMessage()).contains("i_extra_isize 30");
      assertThat(fs.superblock().errorCount()).as("one error, one count, however deep it was found").isEqualTo(2);
    } finally {
      // The journal aborted: closing says so (what no commit covered is gone) and still releases the image.
      IOException closing = catchThrowableOfType(IOException.class, fs::close);
      assertThat(closing).isNotNull();
      assertThat(closing.getMessage()).contains("aborted").contains("extent");
    }

    String header = E2fsprogs.run(E2fsprogs.TIMEOUT, "dumpe2fs", "-h", img.toString()).stdout();
    assertThat(header).as(header).containsPattern("Filesystem state:\\s+.*with errors")
        .containsPattern("FS Error count:\\s+2\\b")
        .containsPattern("First error inode #:\\s+" + badIno + "\\b")
        .containsPattern("First error function:\\s+ExtentTree")
        .containsPattern("First error err:\\s+EFSCORRUPTED")
        .containsPattern("Last error inode #:\\s+" + oddIno + "\\b");

    // The journal still holds the last transaction (the error aborted it before a checkpoint):
    // ext4j's recovery gives back everything committed, and the "errors" state stays.
    try (Ext4FileSystem again = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      assertThat(read(again, LATE)).isEqualTo(lateData);
      assertThat(read(again, GOOD)).isEqualTo(good);
      assertThat(again.superblock().state() & Ext4Superblock.STATE_ERRORS).isNotZero();
    }
    E2fsprogs.Result fsck = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(fsck.exitCode()).as(fsck.output()).isEqualTo(4);
    assertThat(fsck.stdout()).as(fsck.output()).contains("Inode " + badIno);
  }

  private static long write(Ext4FileSystem fs, byte[] name, byte[] data) throws Exception {
    Attributes a = fs.create(Ext4FileSystem.ROOT, name, 0644, Caller.ROOT);
    try (OpenFile f = fs.open(a.ino(), EnumSet.of(OpenFlag.WRITE))) {
      f.write(0, ByteBuffer.wrap(data));
      f.fsync(false);
    }
    return a.ino();
  }

  private static byte[] read(Ext4FileSystem fs, byte[] name) throws Exception {
    Attributes a = fs.lookup(Ext4FileSystem.ROOT, name);
    try (OpenFile f = fs.open(a.ino(), Set.of(OpenFlag.READ))) {
      ByteBuffer b = ByteBuffer.allocate((int) a.size());
      while (b.hasRemaining()) {
        if (f.read(b.position(), b) <= 0) {
          break;
        }
      }
      return Arrays.copyOf(b.array(), b.position());
    }
  }

  private static byte[] pattern(int n, int mul) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * mul + (i >> 9));
    }
    return b;
  }

  private static byte[] name(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
