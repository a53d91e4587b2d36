package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Many threads at once on one image: N threads each working its own file (writes, direct writes,
 * truncates, fallocates, fsync, reads checked against the thread's own model) while N more create,
 * rename, link and unlink names in one shared directory (each thread its own names, grown into an
 * htree) and move files between two directories. Every thread checks its results as it goes and the
 * main thread rethrows the first failure; at the end the shared directory lists exactly the names
 * the threads left, the image passes {@code e2fsck -fn}, and after a reopen every file still reads
 * as its model.
 */
@Tag("oracle")
@Timeout(600)
class ConcurrentWorkloadOracleTest {
  static final Path DIR = Path.of("target", "test-images", "concurrent");
  static final int ROUNDS = Integer.getInteger("ext4j.concurrent.rounds", 4000);
  static final boolean DIRS = !Boolean.getBoolean("ext4j.concurrent.filesOnly"); // for narrowing a failure down

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "{0}-byte blocks, -O {1}, {2} threads each")
  @CsvSource({
    "4096, '', 4",
    "1024, '^metadata_csum,^64bit,uninit_bg', 3",
  })
  void filesAndOneDirectory_manyThreads_endConsistent(int blockSize, String features, int n) throws Exception {
    long seed = Seeds.seed();
    MemoryBlockDevice dev = MemoryImages.format(96 << 20, blockSize, features, seed);
    Map<Long, byte[]> files = new ConcurrentHashMap<>(); // ino -> final contents, per file thread
    Map<String, Long> names = new ConcurrentHashMap<>(); // "dir/name" -> ino, as the threads left them
    long shared;
    long other;
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      shared = fs.mkdir(Ext4FileSystem.ROOT, b("shared"), 0755, Caller.ROOT).ino();
      other = fs.mkdir(Ext4FileSystem.ROOT, b("other"), 0755, Caller.ROOT).ino();
      CyclicBarrier start = new CyclicBarrier(2 * n);
      ExecutorService pool = Executors.newFixedThreadPool(2 * n);
      try {
        List<Future<?>> fut = new ArrayList<>();
        for (int t = 0; t < n; t++) {
          long s = Seeds.derive(seed, t);
          int id = t;
          fut.add(pool.submit(() -> {
            start.await();
            fileWorker(fs, id, new Random(s), files);
            return null;
          }));
          fut.add(pool.submit(() -> {
            start.await();
            if (DIRS) dirWorker(fs, shared, other, id, new Random(~s), names);
            return null;
          }));
        }
        for (Future<?> f : fut) {
          try {
            f.get(500, TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("seed " + seed + ": a worker failed: " + e.getCause(), e.getCause());
          }
        }
      } finally {
        pool.shutdownNow();
      }
      checkDirectory(fs, shared, "shared/", names, seed);
      checkDirectory(fs, other, "other/", names, seed);
      checkFiles(fs, files, "before close", seed);
    }
    Path img = MemoryImages.save(dev, DIR.resolve("concurrent-" + blockSize + ".img"));
    E2fsprogs.Result fsck = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(fsck.exitCode()).as("e2fsck -fn after the concurrent workload (seed %d):%n%s", seed, fsck.output()).isZero();
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      checkDirectory(fs, shared, "shared/", names, seed);
      checkFiles(fs, files, "after reopen", seed);
    }
    System.out.printf("concurrent %d-byte blocks: %d files, %d names left (seed %d)%n", blockSize, files.size(), names.size(), seed);
  }

  /** One file of its own: random data operations checked against a private model. */
  static void fileWorker(Ext4FileSystem fs, int id, Random rnd, Map<Long, byte[]> out) throws Exception {
    int bs = fs.statfs().blockSize();
    long ino = fs.create(Ext4FileSystem.ROOT, b("file-" + id), 0644, Caller.ROOT).ino();
    byte[] m = new byte[0];
    int max = 512 << 10;
    try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE));
        OpenFile d = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE, OpenFlag.DIRECT))) {
      java.util.ArrayDeque<String> log = new java.util.ArrayDeque<>();
      for (int r = 0; r < ROUNDS; r++) {
        int op = rnd.nextInt(10);
        long sizeBefore = m.length;
        if (op < 4) {
          int len = 1 + rnd.nextInt(24 << 10);
          long pos = rnd.nextInt(max - len);
          byte[] data = FsxModelTest.pattern(r * 16 + id, pos, len);
          assertThat(f.write(pos, ByteBuffer.wrap(data))).as("file-%d round %d: bytes written at %d", id, r, pos).isEqualTo(len);
          m = pos + len > m.length ? Arrays.copyOf(m, (int) pos + len) : m;
          System.arraycopy(data, 0, m, (int) pos, len);
        } else if (op < 6 && m.length >= bs) {
          int blocks = 1 + rnd.nextInt(Math.min(8, m.length / bs));
          long pos = (long) rnd.nextInt(m.length / bs - blocks + 1) * bs;
          byte[] data = FsxModelTest.pattern(r * 16 + id, pos, blocks * bs);
          ByteBuffer src = ByteBuffer.allocateDirect(data.length).put(data).flip();
          assertThat(d.write(pos, src)).as("file-%d round %d: bytes written directly at %d", id, r, pos).isEqualTo(data.length);
          System.arraycopy(data, 0, m, (int) pos, data.length);
        } else if (op == 6) {
          int size = rnd.nextInt(max);
          f.truncate(size);
          m = Arrays.copyOf(m, size);
        } else if (op == 7) {
          long pos = rnd.nextInt(max);
          long len = 1L + rnd.nextInt(64 << 10);
          if (rnd.nextBoolean()) {
            f.fallocate(OpenFile.FALLOC_PUNCH_HOLE | OpenFile.FALLOC_KEEP_SIZE, pos, len);
            Arrays.fill(m, (int) Math.min(pos, m.length), (int) Math.min(pos + len, m.length), (byte) 0);
          } else {
            f.fallocate(OpenFile.FALLOC_KEEP_SIZE, pos, len);
          }
        } else if (op == 8) {
          f.fsync(rnd.nextBoolean());
        } else {
          FsxModelTest.check(rnd.nextBoolean() ? f : d, m, 0, m.length + 1, "file-" + id + " round " + r);
        }
        log.addLast("round " + r + " op " + op + " size " + sizeBefore + " -> " + m.length);
        if (log.size() > 12) {
          log.removeFirst();
        }
        assertThat(f.size()).as("file-%d (inode %d) size after round %d; last rounds:%n%s", id, ino, r, String.join("\n", log)).isEqualTo(m.length);
      }
      FsxModelTest.check(f, m, 0, m.length + 1, "file-" + id + " at the end");
    }
    out.put(ino, m);
  }

  /** Names of its own in the shared directory: creates, hard links, renames within and across directories, unlinks. */
  static void dirWorker(Ext4FileSystem fs, long shared, long other, int id, Random rnd, Map<String, Long> out) throws Exception {
    TreeMap<String, Long> mine = new TreeMap<>(); // "shared/name" or "other/name" -> ino
    int next = 0;
    for (int r = 0; r < ROUNDS * 2; r++) {
      int op = rnd.nextInt(10);
      if (mine.size() > 1500 && op < 5) {
        op += 5; // keep the image's inodes in bounds on long runs
      }
      if (op < 5 || mine.isEmpty()) {
        String name = "t" + id + "-" + next++ + "-" + "x".repeat(rnd.nextInt(40));
        long ino = fs.create(shared, b(name), 0644, Caller.ROOT).ino();
        mine.put("shared/" + name, ino);
      } else {
        String key = pick(mine, rnd);
        long dir = key.startsWith("shared/") ? shared : other;
        String name = key.substring(key.indexOf('/') + 1);
        if (op < 7) {
          fs.unlink(dir, b(name));
          mine.remove(key);
          try {
            fs.lookup(dir, b(name));
            throw new AssertionError(key + " still found after unlink");
          } catch (Ext4Exception e) {
            assertThat(e.errno()).as("lookup of %s after unlink", key).isEqualTo(Errno.ENOENT);
          }
        } else if (op < 9) {
          boolean across = rnd.nextBoolean();
          long to = across ? (dir == shared ? other : shared) : dir;
          String newName = "t" + id + "-" + next++ + "-r";
          fs.rename(dir, b(name), to, b(newName), RenameMode.NOREPLACE);
          long ino = mine.remove(key);
          String newKey = (to == shared ? "shared/" : "other/") + newName;
          mine.put(newKey, ino);
          assertThat(fs.lookup(to, b(newName)).ino()).as("%s renamed to %s", key, newKey).isEqualTo(ino);
        } else {
          String newName = "t" + id + "-" + next++ + "-l";
          long ino = mine.get(key);
          fs.link(ino, shared, b(newName));
          mine.put("shared/" + newName, ino);
        }
      }
    }
    for (var e : mine.entrySet()) {
      long dir = e.getKey().startsWith("shared/") ? shared : other;
      String name = e.getKey().substring(e.getKey().indexOf('/') + 1);
      assertThat(fs.lookup(dir, b(name)).ino()).as("worker %d's %s at the end", id, e.getKey()).isEqualTo(e.getValue());
    }
    out.putAll(mine);
  }

  static String pick(NavigableMap<String, Long> m, Random rnd) {
    String k = m.ceilingKey(m.firstKey() + rnd.nextInt(1 << 20)); // spread over the keys without indexing
    return k != null && rnd.nextInt(3) != 0 ? k : (rnd.nextBoolean() ? m.lastKey() : m.firstKey());
  }

  static void checkDirectory(Ext4FileSystem fs, long dir, String prefix, Map<String, Long> names, long seed) throws Exception {
    TreeSet<String> want = new TreeSet<>();
    for (String k : names.keySet()) {
      if (k.startsWith(prefix)) {
        want.add(k.substring(prefix.length()));
      }
    }
    TreeSet<String> have = new TreeSet<>();
    long cookie = 0;
    while (true) {
      List<DirEntry> batch = fs.readdir(dir, cookie, 500);
      if (batch.isEmpty()) {
        break;
      }
      for (DirEntry e : batch) {
        if (!e.isDot()) {
          assertThat(have.add(e.nameString())).as("%s listed twice (seed %d)", e.nameString(), seed).isTrue();
          assertThat(e.ino()).as("inode of %s%s", prefix, e.nameString()).isEqualTo(names.get(prefix + e.nameString()));
        }
        cookie = e.cookie();
      }
    }
    assertThat(have).as("names in %s (seed %d)", prefix, seed).isEqualTo(want);
  }

  static void checkFiles(Ext4FileSystem fs, Map<Long, byte[]> files, String when, long seed) throws Exception {
    for (var e : files.entrySet()) {
      try (OpenFile f = fs.open(e.getKey(), EnumSet.of(OpenFlag.READ))) {
        FsxModelTest.check(f, e.getValue(), 0, e.getValue().length + 1, "inode " + e.getKey() + " " + when + " (seed " + seed + ")");
      }
    }
  }
}
