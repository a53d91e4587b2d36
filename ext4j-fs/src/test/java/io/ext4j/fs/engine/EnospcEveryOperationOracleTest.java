package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.StatFs;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Out of space for each kind of allocation, and out of inodes: with the blocks used up, every
 * operation that needs one more block — a directory's first block, a directory growing by a
 * block, a slow symlink, an xattr block, a file growing — fails with ENOSPC and leaves nothing of
 * itself (no inode, no entry, no block: the free counts do not move); with the inodes used up,
 * every create fails with ENOSPC. The image stays {@code e2fsck -fn} clean, and freeing space or
 * inodes makes every one of those operations work again.
 */
@Tag("oracle")
class EnospcEveryOperationOracleTest {
  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void withNoBlockLeft_eachAllocatingOperationFailsWholly_andWorksOnceSpaceIsFreed(int bs) throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "enospc-ops"));
    Path img = dir.resolve("blocks-" + bs + ".img");
    Oracle.mkfs(img, 8L << 20, bs);
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long full = fs.mkdir(Ext4FileSystem.ROOT, bytes("full"), 0755, Caller.ROOT).ino();
      int names = 0;
      while (fs.readdir(full, 0, 10_000).size() < 2 + bs / 40) { // fill the directory's first block
        fs.create(full, bytes("n" + names++), 0644, Caller.ROOT);
      }
      long filler = fs.create(Ext4FileSystem.ROOT, bytes("filler"), 0644, Caller.ROOT).ino();
      long small = fs.create(Ext4FileSystem.ROOT, bytes("small"), 0644, Caller.ROOT).ino();
      try (OpenFile f = fs.open(filler, EnumSet.of(OpenFlag.WRITE))) {
        long pos = 0;
        while (true) {
          long n;
          try {
            n = f.write(pos, ByteBuffer.allocate(256 << 10));
          } catch (Ext4Exception e) {
            assertThat(e.errno()).isEqualTo(Errno.ENOSPC);
            break;
          }
          pos += n;
          if (n < 256 << 10) {
            break;
          }
        }
        f.fsync(false);
      }
      fs.syncfs();
      StatFs before = fs.statfs();
      assertThat(before.freeBlocks()).as("the filler took every block").isZero();

      int[] spilled = {0};
      List<String> failed = attemptAll(fs, full, small, bs, spilled);
      assertThat(failed).as("operations that needed a block").containsExactly("mkdir", "grow directory", "slow symlink",
          "xattr block", "grow file");
      StatFs after = fs.statfs();
      // names that still fitted the directory's last block took their inodes; nothing else did
      assertThat(after.freeInodes()).as("no inode kept by a failed operation").isEqualTo(before.freeInodes() - spilled[0]);
      assertThat(after.freeBlocks()).isEqualTo(before.freeBlocks());
      assertThat(fs.readdir(full, 0, 10_000)).hasSize(2 + names + spilled[0]);
    }
    Oracle.assertClean(img);

    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      fs.unlink(Ext4FileSystem.ROOT, bytes("filler"));
      fs.syncfs();
      long full = fs.lookup(Ext4FileSystem.ROOT, bytes("full")).ino();
      long small = fs.lookup(Ext4FileSystem.ROOT, bytes("small")).ino();
      assertThat(attemptAll(fs, full, small, bs, new int[2])).as("the same operations after freeing space").isEmpty();
    }
    Oracle.assertClean(img);
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void withNoInodeLeft_createsFailWithEnospc_andWorkOnceOneIsFreed(int bs) throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "enospc-ops"));
    Path img = dir.resolve("inodes-" + bs + ".img");
    Oracle.mkfs(img, 8L << 20, bs, "-N", "64");
    List<String> made = new ArrayList<>();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long d = fs.mkdir(Ext4FileSystem.ROOT, bytes("d"), 0755, Caller.ROOT).ino();
      Ext4Exception last = null;
      for (int i = 0; i < 100_000 && last == null; i++) {
        try {
          if (i % 3 == 0) {
            fs.mkdir(d, bytes("dir" + i), 0755, Caller.ROOT);
          } else if (i % 3 == 1) {
            fs.symlink(d, bytes("link" + i), bytes("target"), Caller.ROOT);
          } else {
            fs.create(d, bytes("file" + i), 0644, Caller.ROOT);
          }
          made.add((i % 3 == 0 ? "dir" : i % 3 == 1 ? "link" : "file") + i);
        } catch (Ext4Exception e) {
          last = e;
        }
      }
      assertThat(last).as("creating until the inodes ran out").isNotNull();
      assertThat(last.errno()).isEqualTo(Errno.ENOSPC);
      StatFs s = fs.statfs();
      assertThat(s.freeInodes()).isZero();
      for (String op : List.of("create", "mkdir", "symlink", "mknod")) {
        Ext4Exception e = null;
        try {
          switch (op) {
            case "create" -> fs.create(d, bytes("x"), 0644, Caller.ROOT);
            case "mkdir" -> fs.mkdir(d, bytes("x"), 0755, Caller.ROOT);
            case "symlink" -> fs.symlink(d, bytes("x"), bytes("t"), Caller.ROOT);
            default -> fs.mknod(d, bytes("x"), 0010644, 0, Caller.ROOT);
          }
        } catch (Ext4Exception x) {
          e = x;
        }
        assertThat(e).as(op + " with no inode left").isNotNull();
        assertThat(e.errno()).isEqualTo(Errno.ENOSPC);
      }
      assertThat(fs.readdir(d, 0, 10_000)).as("no entry left behind").hasSize(2 + made.size());
    }
    Oracle.assertClean(img);
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long d = fs.lookup(Ext4FileSystem.ROOT, bytes("d")).ino();
      String victim = made.stream().filter(n -> n.startsWith("file")).findFirst().orElseThrow();
      fs.unlink(d, bytes(victim));
      fs.create(d, bytes("again"), 0644, Caller.ROOT);
    }
    Oracle.assertClean(img);
  }

  /**
   * Tries each operation that needs one new block; returns the names of those that failed with
   * ENOSPC. {@code spilled[0]} counts the names that still fitted the directory; the array's length
   * keeps the names of one call apart from another's.
   */
  private static List<String> attemptAll(Ext4FileSystem fs, long full, long small, int bs, int[] spilled) throws Exception {
    List<String> failed = new ArrayList<>();
    attempt(failed, "mkdir", () -> fs.mkdir(Ext4FileSystem.ROOT, bytes("newdir"), 0755, Caller.ROOT));
    attempt(failed, "grow directory", () -> {
      for (int i = 0; i < bs / 8; i++) {
        fs.create(full, bytes("more-names-to-spill-into-a-second-block-" + spilled.length + "-" + i), 0644, Caller.ROOT);
        spilled[0]++;
      }
    });
    attempt(failed, "slow symlink", () -> fs.symlink(Ext4FileSystem.ROOT, bytes("slowlink"), bytes("/" + "t".repeat(200)),
        Caller.ROOT));
    attempt(failed, "xattr block", () -> fs.setxattr(small, "user.big", new byte[bs / 2], 0));
    attempt(failed, "grow file", () -> {
      try (OpenFile f = fs.open(small, EnumSet.of(OpenFlag.WRITE))) {
        long n = f.write(0, ByteBuffer.allocate(bs));
        if (n < bs) {
          throw new Ext4Exception(Errno.ENOSPC, small, null, "short write of " + n);
        }
      }
    });
    return failed;
  }

  @FunctionalInterface
  private interface Attempt {
    void run() throws Exception;
  }

  private static void attempt(List<String> failed, String what, Attempt a) throws Exception {
    try {
      a.run();
    } catch (Ext4Exception e) {
      assertThat(e.errno()).as(what + ": " + e.getMessage()).isEqualTo(Errno.ENOSPC);
      failed.add(what);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
