package io.ext4j.fs.engine;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.testkit.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Randomized workloads of every engine operation on images made by mkfs.ext4, checked against the
 * model as they run, then after a close and reopen, and finally by {@code e2fsck -fn}, which must
 * print nothing.
 */
@Tag("oracle")
class RandomWorkloadOracleTest {
  static final Path DIR = Path.of("target", "test-images", "random");

  @ParameterizedTest(name = "{0}-byte blocks, -O {1}")
  @CsvSource({
    "4096, 'metadata_csum_seed,orphan_file'",
    "1024, 'metadata_csum_seed,orphan_file'",
    "4096, '^metadata_csum,uninit_bg'",
    "1024, '^64bit,^flex_bg,^metadata_csum,uninit_bg'",
    "4096, '^orphan_file,^metadata_csum_seed'",
  })
  void randomOperations_matchTheModel_andLeaveACleanImage(int blockSize, String features) throws Exception {
    long seed = Seeds.seed();
    Files.createDirectories(DIR);
    Path img = DIR.resolve("random-" + blockSize + "-" + features.hashCode() + ".img");
    Oracle.mkfs(img, 48 << 20, blockSize, "-O", features);
    FsModel model = new FsModel(Ext4FileSystem.ROOT);
    RandomWorkload w;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      for (String name : new String[] {"lost+found"}) {
        var a = fs.lookup(Ext4FileSystem.ROOT, RandomWorkload.b(name));
        FsModel.Node lf = new FsModel.Node(FsModel.Kind.DIR);
        lf.ino = a.ino();
        lf.links = 2;
        lf.parent = model.root;
        model.root.entries.put(name, lf);
        model.root.links++;
      }
      w = new RandomWorkload(fs, model, seed, 200_000);
      try {
        w.run(Integer.getInteger("ext4j.random.ops", 2500));
        w.checkAll();
        w.closeAll();
      } catch (Throwable t) {
        throw new AssertionError("seed " + seed + ", after " + w.ops + " ops " + w.counts + ": " + t, t);
      }
    }
    Oracle.assertClean(img);
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      RandomWorkload again = new RandomWorkload(fs, model, seed + 1, 200_000);
      again.checkAll();
    }
    Oracle.assertClean(img);
    System.out.println("ops: " + w.counts);
  }
}
