package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.format.Extent;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Blocks a directory held (journaled metadata) become file data once the directory is gone: the data
 * must be what a read gives, while the journal still holds the directory's copies, after a clean
 * close (whose checkpoint must not write those copies home over the data), and after a crash at the
 * moment the data's fsync returned (whose recovery must not replay them: the free revoked them).
 * jbd2's forget and revoke exist for exactly this; the test makes the reuse happen and checks it.
 */
@Tag("fast")
class FreedMetadataReuseTest {
  static final int BS = 1024;
  static final int ROUNDS = 12;

  @Test
  void aRemovedDirectorysBlocks_reusedForFileData_holdTheData_live_afterCloseAndAfterACrash() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    MemoryBlockDevice dev = MemoryImages.format(8 << 20, BS, "", seed);
    Map<String, byte[]> files = new LinkedHashMap<>();
    List<MemoryBlockDevice> crashes = new ArrayList<>();
    int reused = 0;
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      for (int round = 0; round < ROUNDS; round++) {
        Set<Long> dirBlocks = fillAndRemoveDirectory(fs, "d" + round, 40 + r.nextInt(200));
        // New files until one lands on a block the directory held (the allocator reuses freed space).
        boolean landed = false;
        for (int i = 0; i < 64 && !landed; i++) {
          String name = "f" + round + "-" + i;
          byte[] data = new byte[BS * (1 + r.nextInt(6))];
          r.nextBytes(data);
          long ino = fs.create(Ext4FileSystem.ROOT, b(name), 0644, Caller.ROOT).ino();
          try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE))) {
            f.write(0, ByteBuffer.wrap(data));
          }
          fs.fsync(ino, false);
          files.put(name, data);
          landed = fs.extents(ino).stream().anyMatch(e -> overlaps(e, dirBlocks));
          assertThat(read(fs, ino, data.length)).as("seed %d, %s read back at once", seed, name).isEqualTo(data);
        }
        if (landed) {
          reused++;
          crashes.add(dev.snapshot("crash-" + round)); // every fsync above returned: all of it is durable
        }
      }
    }
    System.out.printf("FreedMetadataReuseTest: seed %d, %d of %d rounds put file data on a removed directory's blocks%n",
        seed, reused, ROUNDS);
    assertThat(reused).as("seed %d: rounds whose files reused a directory's blocks", seed).isGreaterThan(ROUNDS / 2);
    assertFiles(dev, files, "after a clean close", seed);
    for (MemoryBlockDevice crash : crashes) {
      Map<String, byte[]> upToHere = new LinkedHashMap<>();
      try (Ext4FileSystem fs = Ext4FileSystem.open(crash, Ext4Options.defaults(), false)) {
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
          if (present(fs, e.getKey())) {
            upToHere.put(e.getKey(), e.getValue());
          }
        }
      }
      assertFiles(crash, upToHere, "after recovering " + crash.name(), seed);
    }
  }

  /** Makes directory {@code name} with {@code entries} files (several blocks of entries), commits it, removes it all and commits again; the blocks it held. */
  private static Set<Long> fillAndRemoveDirectory(Ext4FileSystem fs, String name, int entries) throws IOException {
    long dir = fs.mkdir(Ext4FileSystem.ROOT, b(name), 0755, Caller.ROOT).ino();
    for (int i = 0; i < entries; i++) {
      fs.create(dir, b("entry-with-a-longish-name-" + i), 0644, Caller.ROOT);
    }
    fs.fsync(dir, false);
    Set<Long> blocks = new HashSet<>();
    for (Extent e : fs.extents(dir)) {
      for (long p = e.pblk(); p < e.pblk() + e.len(); p++) {
        blocks.add(p);
      }
    }
    for (int i = 0; i < entries; i++) {
      fs.unlink(dir, b("entry-with-a-longish-name-" + i));
    }
    fs.rmdir(Ext4FileSystem.ROOT, b(name));
    fs.fsync(Ext4FileSystem.ROOT, false); // commits the frees (so the blocks may be reused) without a checkpoint
    return blocks;
  }

  private static void assertFiles(MemoryBlockDevice dev, Map<String, byte[]> files, String when, long seed) throws IOException {
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      for (Map.Entry<String, byte[]> e : files.entrySet()) {
        long ino = fs.lookup(Ext4FileSystem.ROOT, b(e.getKey())).ino();
        assertThat(read(fs, ino, e.getValue().length)).as("seed %d, %s %s", seed, e.getKey(), when).isEqualTo(e.getValue());
      }
    }
  }

  private static boolean present(Ext4FileSystem fs, String name) throws IOException {
    try {
      fs.lookup(Ext4FileSystem.ROOT, b(name));
      return true;
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOENT) {
        return false;
      }
      throw e;
    }
  }

  private static boolean overlaps(Extent e, Set<Long> blocks) {
    for (long p = e.pblk(); p < e.pblk() + e.len(); p++) {
      if (blocks.contains(p)) {
        return true;
      }
    }
    return false;
  }

  private static byte[] read(Ext4FileSystem fs, long ino, int length) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(length);
    try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ))) {
      while (buf.hasRemaining()) {
        if (f.read(buf.position(), buf) <= 0) {
          break;
        }
      }
    }
    return buf.array();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
