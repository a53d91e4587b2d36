package io.ext4j.fs.kernel;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The kernel writing into a mounted image ext4j wrote ({@link Ext4jTree}): names removed from, added
 * to and renamed within its 20,000-name htree, a big new file, appends, a punched range, a write
 * filling punched holes and a truncate of its depth-2 extent tree, xattrs set and removed (on
 * shared-looking blocks too), symlinks, hard links, fifos, devices, chmod, chown, nanosecond times.
 * Names are ASCII, so java.nio reaches them; xattrs go through {@link Libc}, fallocate, mknod and
 * touch through their util-linux/coreutils tools.
 */
final class KernelWrites {
  private KernelWrites() {}

  static void into(Path root, long seed) throws IOException, InterruptedException {
    SplittableRandom r = new SplittableRandom(seed);
    Path k = root.resolve("kernel");
    Files.createDirectories(k.resolve("sub"));
    Path big = root.resolve("big");
    // The htree: remove some 2,000 names, add 3,000, rename 300 within and 100 out of it.
    List<Path> names;
    try (Stream<Path> s = Files.list(big)) {
      names = new ArrayList<>(s.filter(p -> !Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)).toList());
    }
    java.util.Collections.sort(names);
    for (int i = 0; i < 2000; i++) {
      Files.delete(names.remove(r.nextInt(names.size())));
    }
    Path target = root.resolve("links/hard-a");
    for (int i = 0; i < 3000; i++) {
      Path p = big.resolve("written-by-the-kernel-into-an-ext4j-htree-" + i);
      if (i % 2 == 0) {
        Files.createLink(p, target);
      } else {
        Files.write(p, ("kernel " + i + "\n").getBytes(StandardCharsets.US_ASCII));
      }
    }
    for (int i = 0; i < 400; i++) {
      Path from = names.remove(r.nextInt(names.size()));
      Files.move(from, i < 300 ? big.resolve("renamed-by-the-kernel-" + i) : k.resolve("moved-out-" + i));
    }
    // Files: a big new one, appends, a punched range, the deep tree's holes filled then truncated.
    byte[] data = new byte[5 << 20];
    r.nextBytes(data);
    Files.write(k.resolve("big-from-the-kernel.bin"), data);
    byte[] tail = new byte[100_000];
    r.nextBytes(tail);
    Files.write(root.resolve("files/sequential.bin"), tail, StandardOpenOption.APPEND);
    KernelImages.runOk("fallocate", "-p", "-o", "1000000", "-l", "300000", root.resolve("files/sequential.bin").toString());
    KernelImages.runOk("fallocate", "-n", "-o", "0", "-l", "200000", k.resolve("big-from-the-kernel.bin").toString());
    Path deep = root.resolve("deep/deep.bin");
    long size = Files.size(deep);
    try (FileChannel ch = FileChannel.open(deep, StandardOpenOption.WRITE)) {
      byte[] chunk = new byte[12_288];
      for (long at = size / 8; at < size / 4; at += 3L * chunk.length) {
        r.nextBytes(chunk);
        ch.write(ByteBuffer.wrap(chunk), at);
      }
      ch.truncate(size * 3 / 5);
    }
    Files.writeString(k.resolve("small.txt"), "written by the kernel\n");
    // Xattrs, links, special files, modes, owners, times.
    Libc.setxattr(path(k.resolve("small.txt")), "user.kernel", "set by the kernel".getBytes(StandardCharsets.US_ASCII));
    Libc.setxattr(path(k.resolve("small.txt")), "trusted.big", new byte[700]);
    Libc.setxattr(path(root.resolve("xattr/same-1")), "user.shared", "changed by the kernel".getBytes(StandardCharsets.US_ASCII));
    Libc.removexattr(path(root.resolve("xattr/in-inode")), "user.a");
    Files.createSymbolicLink(k.resolve("fast-link"), Path.of("small.txt"));
    Files.createSymbolicLink(k.resolve("slow-link"), Path.of("s".repeat(300)));
    Files.createLink(k.resolve("hard-d"), target);
    KernelImages.runOk("mkfifo", k.resolve("fifo").toString());
    KernelImages.runOk("mknod", k.resolve("tty").toString(), "c", "4", "64");
    Files.delete(root.resolve("special/disk"));
    Files.setPosixFilePermissions(k.resolve("small.txt"), PosixFilePermissions.fromString("rwxr-x---"));
    Files.setAttribute(k.resolve("small.txt"), "unix:uid", 1234);
    Files.setAttribute(k.resolve("small.txt"), "unix:gid", 5678);
    KernelImages.runOk("touch", "-d", "@1600000000.123456789", k.resolve("small.txt").toString());
    KernelImages.runOk("touch", "-h", "-d", "@4400000000.000000001", k.resolve("fast-link").toString());
    Path bottom = root.resolve("dirs");
    for (int i = 0; i < 12; i++) {
      bottom = bottom.resolve(String.format("level%02d", i));
    }
    Files.delete(bottom.resolve("bottom"));
    Files.delete(bottom);
    Files.move(root.resolve("dirs/empty"), k.resolve("sub/was-empty"));
  }

  private static byte[] path(Path p) {
    return p.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8);
  }
}
