package io.ext4j.fs.kernel;

import io.ext4j.testkit.FsManifest;
import io.ext4j.testkit.KernelFsFixtures;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The oracle's own check: {@link MountManifest}, the Java walker of a kernel mount the other tests
 * compare ext4j against, gives every fixture's committed manifest (which {@code
 * scripts/fs-manifest.py} wrote), field for field. The orphans fixtures are mounted read-write
 * first, as the script did, so the kernel replays the journal and finishes the orphans.
 */
@Tag("oracle")
@Tag("root")
class KernelMountManifestTest {
  static java.util.stream.Stream<String> fixtures() {
    return KernelFsFixtures.names().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void theJavaWalkerOfAKernelMount_givesTheScriptsManifest(String name) throws Exception {
    Path img = KernelFsFixtures.extract(name, KernelImages.dir("mount-manifest-" + name));
    FsManifest expected = KernelFsFixtures.manifest(name);
    FsManifest actual;
    if (KernelFsFixtures.orphans().contains(name)) {
      try (LoopMount m = LoopMount.readWrite(img)) {
        m.remountReadOnly();
        actual = KernelImages.withoutRecoveryTimes(MountManifest.of(m.dir));
      }
      expected = KernelImages.withoutRecoveryTimes(expected);
    } else {
      try (LoopMount m = LoopMount.readOnly(img)) {
        actual = MountManifest.of(m.dir);
      }
    }
    KernelImages.assertSame(expected, actual, img, "the kernel's view of fixture " + name + " through MountManifest");
  }
}
