package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.format.MappedRange;
import io.ext4j.testkit.KernelFixtures;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The locator on images the kernel left needing recovery (power-cut fixtures). */
@Tag("oracle")
class KernelFixtureLocatorTest {

  static java.util.List<String> fixtures() {
    return KernelFixtures.names();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixtures")
  void locate_onKernelPowerCutImage_findsJournalAndSeesNeedsRecovery(String name) throws Exception {
    Path img = KernelFixtures.extract(name, Ext4Images.DIR.resolve("fixtures"));
    JournalLocation loc = Ext4JournalLocator.locate(Ext4Images.load(img, KernelFixtures.blockSize(name)));

    assertThat(loc.superblock().needsRecovery()).isTrue();
    assertThat(loc.blockSize()).isEqualTo(KernelFixtures.blockSize(name));
    assertThat(loc.length()).isEqualTo(1024);
    assertThat(loc.extents().stream().map(e -> new MappedRange(e.logical(), e.physical(), e.length(), false)).toList())
        .isEqualTo(Ext4Images.debugfsRanges(img, 8));
  }
}
