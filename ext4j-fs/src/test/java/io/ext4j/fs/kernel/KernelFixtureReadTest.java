package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.testkit.FsManifest;
import io.ext4j.testkit.KernelFsFixtures;
import io.ext4j.testkit.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kernel → ext4j, reading: every kernel tree fixture opened by ext4j, read-only and read-write,
 * shows exactly what the kernel showed — every name, inode number, type, mode, owner, size, link
 * count, block count, nanosecond time, device number, symlink target, xattr and byte of content,
 * and the statfs numbers. Needs no tool: the manifests were recorded by the fixture script.
 */
@Tag("fast")
class KernelFixtureReadTest {
  static Stream<Arguments> fixtures() {
    return KernelFsFixtures.trees().stream().flatMap(n -> Stream.of(Arguments.of(n, true), Arguments.of(n, false)));
  }

  @ParameterizedTest(name = "{0}, read-only {1}")
  @MethodSource("fixtures")
  void everyNameAttributeXattrAndByte_isWhatTheKernelShowed(String name, boolean readOnly) throws Exception {
    long seed = Seeds.seed();
    Path img = KernelFsFixtures.extract(name, KernelImages.dir("read-" + name + (readOnly ? "-ro" : "-rw")));
    byte[] before = readOnly ? Files.readAllBytes(img) : null;
    FsManifest expected = KernelFsFixtures.manifest(name);
    FsManifest actual;
    int bs = KernelFsFixtures.blockSize(name);
    try (Ext4FileSystem fs = readOnly ? KernelImages.openReadOnly(img, bs) : Ext4FileSystem.open(img, KernelImages.READ_WRITE_NOATIME)) {
      assertThat(fs.isReadOnly()).isEqualTo(readOnly);
      actual = EngineManifest.of(fs, readOnly ? 4096 : 100, true, seed);
    }
    KernelImages.assertSame(KernelImages.comparable(expected), KernelImages.comparable(actual), img, "ext4j's view of kernel fixture " + name + " (seed " + seed + ")");
    if (readOnly) {
      assertThat(Files.readAllBytes(img)).as("a read-only open writes nothing").isEqualTo(before);
    }
  }
}
