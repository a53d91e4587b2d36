package io.ext4j.fs.kernel;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.testkit.FsManifest;
import io.ext4j.testkit.KernelFsFixtures;
import io.ext4j.testkit.Seeds;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kernel → ext4j → kernel: ext4j keeps writing to every kernel fixture (the power-cut ones after
 * its own recovery) with random operations over the kernel's tree, checked against a model; after
 * the close {@code e2fsck -fn} prints nothing, ext4j reopening the image sees what the model says,
 * and the kernel, mounting it, sees exactly what ext4j sees (every field, statfs included).
 */
@Tag("oracle")
@Tag("root")
class KernelFixtureKeepWritingTest {
  static Stream<String> fixtures() {
    return KernelFsFixtures.names().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void randomOperationsOverTheKernelsTree_leaveAnImageE2fsckAndTheKernelAgreeWith(String name) throws Exception {
    long seed = Seeds.seed();
    Path img = KernelFsFixtures.extract(name, KernelImages.dir("keep-writing-" + name));
    int bs = KernelFsFixtures.blockSize(name);
    TreeModel model = TreeModel.of(KernelFsFixtures.manifest(name));
    Phases t = new Phases(name);
    TreeWorkload w;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      t.done("open");
      w = new TreeWorkload(fs, model, seed);
      w.run(Integer.getInteger("ext4j.kernel.ops", 1500));
      t.done("workload");
      try {
        check(model, EngineManifest.of(fs, 500, false, seed), img, "after " + w.ops + " ops, seed " + seed);
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\nthe last operations:\n  " + w.recent(), e);
      }
      t.done("check");
    } catch (Throwable e) {
      throw new AssertionError(name + ", seed " + seed + ": " + e, e);
    }
    t.done("close");
    System.out.println(name + " ops: " + w.counts);
    KernelImages.assertE2fsckClean(img, "after ext4j wrote into " + name + " (seed " + seed + ")");
    t.done("e2fsck");
    FsManifest ours;
    try (Ext4FileSystem fs = KernelImages.openReadOnly(img, bs)) {
      ours = EngineManifest.of(fs, 1000, false, seed);
    }
    check(model, ours, img, "reopened, seed " + seed);
    t.done("reopen and check");
    FsManifest theirs;
    try (LoopMount m = LoopMount.readOnly(img)) {
      theirs = MountManifest.of(m.dir);
    }
    t.done("kernel mount and walk");
    KernelImages.assertSame(KernelImages.comparable(ours), KernelImages.comparable(theirs), img,
        "the kernel's view of " + name + " after ext4j wrote into it (seed " + seed + ")");
    t.done("compare");
    System.out.println(t);
  }

  private static void check(TreeModel model, FsManifest engine, Path img, String when) {
    KernelImages.assertSame(model.manifest(), TreeModel.comparable(engine), img, "ext4j against the model " + when);
  }
}
