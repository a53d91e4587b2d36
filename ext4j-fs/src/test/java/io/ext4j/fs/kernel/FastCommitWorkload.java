package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Operations the kernel can log as fast commits — create, append, overwrite, sparse write,
 * truncate, unlink, hard link, rename of regular files in one directory — each followed by an
 * fsync, on a mounted kernel ext4, with a model of what every fsync made durable: the names of the
 * directory and each file's bytes. After a crash copy is recovered, {@link #assertRecovered} checks
 * the image against the model through ext4j.
 */
final class FastCommitWorkload {
  private static final class Node {
    byte[] data = new byte[0];
  }

  private final Path dir;
  private final SplittableRandom r;
  private final Map<String, Node> names = new TreeMap<>(); // name -> file, the durable state
  private final Map<String, Integer> counts = new TreeMap<>();
  private int serial;

  FastCommitWorkload(Path dir, SplittableRandom r) {
    this.dir = dir;
    this.r = r;
  }

  /** Creates {@code n} files and returns; the caller syncs them with a full commit. */
  void seed(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      create(1 + r.nextInt(12_000));
    }
  }

  /** Runs {@code ops} operations, each fsynced. */
  void run(int ops) throws IOException {
    for (int i = 0; i < ops; i++) {
      String op = names.isEmpty() ? "create" : pick("create", "append", "overwrite", "sparse", "truncate", "unlink", "link", "rename");
      counts.merge(op, 1, Integer::sum);
      switch (op) {
        case "create" -> create(r.nextInt(20_000));
        case "append" -> {
          String n = anyName();
          Node f = names.get(n);
          write(n, f, f.data.length, random(1 + r.nextInt(9_000)));
        }
        case "overwrite" -> {
          String n = anyName();
          Node f = names.get(n);
          write(n, f, r.nextInt(Math.max(1, f.data.length + 1)), random(1 + r.nextInt(3_000)));
        }
        case "sparse" -> {
          String n = anyName();
          write(n, names.get(n), r.nextInt(200_000), random(1 + r.nextInt(5_000)));
        }
        case "truncate" -> {
          String n = anyName();
          Node f = names.get(n);
          int to = r.nextInt(f.data.length + 1);
          try (FileChannel c = FileChannel.open(dir.resolve(n), StandardOpenOption.WRITE)) {
            c.truncate(to);
            c.force(true);
          }
          f.data = Arrays.copyOf(f.data, to);
        }
        case "unlink" -> {
          String n = anyName();
          Files.delete(dir.resolve(n));
          names.remove(n);
          fsyncDir();
        }
        case "link" -> {
          String n = anyName();
          String to = "l" + serial++;
          Files.createLink(dir.resolve(to), dir.resolve(n));
          names.put(to, names.get(n));
          fsync(to);
        }
        case "rename" -> {
          String n = anyName();
          String to = "r" + serial++;
          Files.move(dir.resolve(n), dir.resolve(to));
          names.put(to, names.remove(n));
          fsync(to);
        }
        default -> throw new IllegalStateException(op);
      }
    }
  }

  /**
   * Appends to {@code n} files, each fsynced: the kernel logs those as fast commits whatever came
   * before (an operation it cannot log makes the next fsync a full commit, and fast commits resume
   * after it), so the journal ends with fast commits to replay.
   */
  void endWithAppends(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      if (names.isEmpty()) {
        create(1 + r.nextInt(4_000));
      }
      String name = anyName();
      Node f = names.get(name);
      write(name, f, f.data.length, random(1 + r.nextInt(6_000)));
      counts.merge("append", 1, Integer::sum);
    }
  }

  /**
   * Creates {@code n} small files with 40-byte names, each fsynced: in a directory already indexed
   * this fills htree leaves until they split.
   */
  void createLongNames(int n) throws IOException {
    for (int i = 0; i < n; i++) {
      String name = String.format("long-name-to-fill-directory-blocks-%05d", serial++);
      Node f = new Node();
      names.put(name, f);
      write(name, f, 0, random(r.nextInt(3_000)));
      counts.merge("create", 1, Integer::sum);
    }
  }

  /**
   * Creates {@code n} small files, each fsynced, whose names (48 bytes) all hash into one narrow
   * range of the directory's index — {@code hashVersion} and {@code seed} are the filesystem's — so
   * that they fill one htree leaf and split it.
   */
  void createClustered(int n, int hashVersion, int[] seed) throws IOException {
    int made = 0;
    for (long c = 0; made < n; c++) {
      String name = String.format("clustered-name-in-one-htree-leaf-%015d", c);
      byte[] b = name.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      int major = io.ext4j.fs.format.DirHash.major(io.ext4j.fs.format.DirHash.hash(hashVersion, b, 0, b.length, seed));
      if ((major >>> 24) != 0x5A) {
        continue;
      }
      Node f = new Node();
      names.put(name, f);
      write(name, f, 0, random(r.nextInt(2_000)));
      counts.merge("create", 1, Integer::sum);
      made++;
    }
  }

  /** How many of each operation ran. */
  String counts() {
    return counts.toString();
  }

  private String pick(String... ops) {
    return ops[r.nextInt(ops.length)];
  }

  private String anyName() {
    List<String> all = new ArrayList<>(names.keySet());
    return all.get(r.nextInt(all.size()));
  }

  private byte[] random(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) r.nextInt();
    }
    return b;
  }

  private void create(int size) throws IOException {
    String n = "f" + serial++;
    Node f = new Node();
    names.put(n, f);
    write(n, f, 0, random(size));
  }

  private void write(String n, Node f, int at, byte[] bytes) throws IOException {
    try (FileChannel c = FileChannel.open(dir.resolve(n), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      c.write(ByteBuffer.wrap(bytes), at);
      c.force(true);
    }
    if (at + bytes.length > f.data.length) {
      f.data = Arrays.copyOf(f.data, at + bytes.length);
    }
    System.arraycopy(bytes, 0, f.data, at, bytes.length);
  }

  private void fsync(String n) throws IOException {
    try (FileChannel c = FileChannel.open(dir.resolve(n), StandardOpenOption.READ)) {
      c.force(true);
    }
  }

  private void fsyncDir() throws IOException {
    try (FileChannel c = FileChannel.open(dir, StandardOpenOption.READ)) {
      c.force(true);
    }
  }

  /**
   * Asserts the directory {@code name} under the root of {@code fs} holds exactly the model's names,
   * each with the model's bytes and link count.
   */
  void assertRecovered(Ext4FileSystem fs, String name, String what) throws IOException {
    long d = fs.lookup(2, name.getBytes(StandardCharsets.UTF_8)).ino();
    Map<String, Long> found = new TreeMap<>();
    long cookie = 0;
    while (true) {
      List<DirEntry> page = fs.readdir(d, cookie, 64);
      if (page.isEmpty()) {
        break;
      }
      for (DirEntry e : page) {
        if (!e.isDot()) {
          found.put(e.nameString(), e.ino());
        }
        cookie = e.cookie();
      }
    }
    assertThat(found.keySet()).as("%s: the names every fsync left", what).containsExactlyElementsOf(names.keySet());
    IdentityHashMap<Node, Integer> links = new IdentityHashMap<>();
    names.values().forEach(f -> links.merge(f, 1, Integer::sum));
    Map<Long, Node> byIno = new HashMap<>();
    for (var e : names.entrySet()) {
      long ino = found.get(e.getKey());
      Node f = e.getValue();
      Node before = byIno.putIfAbsent(ino, f);
      assertThat(before == null || before == f).as("%s: %s is a hard link of the right file", what, e.getKey()).isTrue();
      var a = fs.getattr(ino);
      assertThat(a.nlink()).as("%s: links of %s", what, e.getKey()).isEqualTo(links.get(f));
      assertThat(a.size()).as("%s: size of %s", what, e.getKey()).isEqualTo(f.data.length);
      byte[] got = new byte[f.data.length];
      try (OpenFile o = fs.open(ino, EnumSet.of(OpenFlag.READ))) {
        ByteBuffer b = ByteBuffer.wrap(got);
        while (b.hasRemaining()) {
          int n = o.read(b.position(), b);
          if (n <= 0) {
            break;
          }
        }
      }
      assertThat(Arrays.equals(got, f.data)).as("%s: the bytes of %s", what, e.getKey()).isTrue();
    }
  }
}
