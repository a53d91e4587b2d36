package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Fills a small filesystem until writes and creates fail with ENOSPC, checks that what each write
 * reported is exactly what reads back and that the image is e2fsck-clean, then frees everything and
 * checks the space comes back and the image is clean again.
 */
@Tag("oracle")
class FillToEnospcOracleTest {
  static final Path DIR = Path.of("target", "test-images", "enospc");

  record Written(long ino, String name, byte[] data) {}

  @ParameterizedTest(name = "{0}-byte blocks, -O {1}")
  @CsvSource({"4096, 'metadata_csum_seed,orphan_file'", "1024, 'metadata_csum_seed,orphan_file'",
      "1024, '^metadata_csum,uninit_bg'"})
  void fillingToEnospc_keepsReportedDataExact_andFreeingRestoresTheSpace(int blockSize, String features) throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    Files.createDirectories(DIR);
    Path img = DIR.resolve("fill-" + blockSize + "-" + Integer.toUnsignedString(features.hashCode()) + ".img");
    Oracle.mkfs(img, 8 << 20, blockSize, "-O", features);
    long freeAtStart;
    List<Written> files = new ArrayList<>();
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      freeAtStart = fs.statfs().freeBlocks();
      long dir = fs.mkdir(Ext4FileSystem.ROOT, "d".getBytes(StandardCharsets.UTF_8), 0755, Caller.ROOT).ino();
      boolean full = false;
      int n = 0;
      while (!full && n < 100_000) {
        String name = "f" + n++;
        long ino;
        try {
          ino = fs.create(dir, name.getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
        } catch (Ext4Exception e) {
          assertThat(e.errno()).isEqualTo(Errno.ENOSPC);
          break;
        }
        byte[] data = new byte[r.nextInt(4) == 0 ? 200_000 : 1 + r.nextInt(20_000)];
        r.nextBytes(data);
        long wrote;
        try (OpenFile of = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
          wrote = of.write(r.nextInt(3) == 0 ? 5000 : 0, ByteBuffer.wrap(data));
        } catch (Ext4Exception e) {
          assertThat(e.errno()).as("seed %d", seed).isEqualTo(Errno.ENOSPC);
          wrote = 0;
          full = true;
        }
        if (wrote < data.length) {
          full = true;
        }
        files.add(new Written(ino, name, Arrays.copyOf(data, (int) wrote)));
      }
      assertThat(full).as("the filesystem filled up (seed %d)", seed).isTrue();
    }
    Oracle.assertClean(img);
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      long dir = fs.lookup(Ext4FileSystem.ROOT, "d".getBytes(StandardCharsets.UTF_8)).ino();
      for (Written w : files) {
        long size = fs.getattr(w.ino()).size();
        try (OpenFile of = fs.open(w.ino(), EnumSet.of(OpenFlag.READ))) {
          byte[] all = new byte[(int) size];
          of.read(0, ByteBuffer.wrap(all));
          int start = size > w.data().length ? (int) (size - w.data().length) : 0;
          assertThat(Arrays.copyOfRange(all, start, all.length)).as("%s (seed %d)", w.name(), seed).isEqualTo(w.data());
        }
        fs.unlink(dir, w.name().getBytes(StandardCharsets.UTF_8));
      }
      fs.rmdir(Ext4FileSystem.ROOT, "d".getBytes(StandardCharsets.UTF_8));
    }
    Oracle.assertClean(img);
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      assertThat(fs.statfs().freeBlocks()).as("free blocks after freeing everything (seed %d)", seed).isEqualTo(freeAtStart);
    }
  }
}
