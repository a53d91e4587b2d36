package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.tools.mkfs.MkfsParameters.SizeType;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("fast")
class MkfsParametersTest {
  private static final long MIB = 1L << 20;

  private static MkfsParameters.Builder size(long bytes) {
    return MkfsParameters.builder().sizeBytes(bytes);
  }

  @Test
  void builder_defaults_areMke2fsDefaults() {
    MkfsParameters p = size(64 * MIB).build();

    assertThat(p.inodeSize()).isEqualTo(256);
    assertThat(p.reservedPercent()).isEqualTo(5.0);
    assertThat(p.logGroupsPerFlex()).isEqualTo(4);
    assertThat(p.journalBlocks()).isEqualTo(-1);
    assertThat(p.orphanFileBlocks()).isEqualTo(-1);
    assertThat(p.lazyItableInit()).isTrue();
    assertThat(p.targetReadsZeros()).isTrue();
    assertThat(p.features()).isEqualTo(FeatureSet.MKE2FS_EXT4_DEFAULTS);
  }

  @ParameterizedTest(name = "{0} bytes: {1}, {2}-byte blocks, ratio {3}")
  @CsvSource({
    "2097152, FLOPPY, 1024, 8192",
    "3145727, FLOPPY, 1024, 8192",
    "3145728, SMALL, 1024, 4096",
    "536870911, SMALL, 1024, 4096",
    "536870912, DEFAULT, 4096, 16384",
    "4398046511104, BIG, 4096, 32768",
    "17592186044416, HUGE, 4096, 65536"
  })
  void sizeType_choosesBlockSizeAndInodeRatio(long bytes, SizeType type, int blockSize, int ratio) {
    MkfsParameters p = size(bytes).build();

    assertThat(p.sizeType()).isEqualTo(type);
    assertThat(p.resolvedBlockSize()).isEqualTo(blockSize);
    assertThat(p.resolvedInodeRatio()).isEqualTo(ratio);
  }

  @Test
  void inodeRatio_ofTheSizeType_isRaisedToTheBlockSize_butAnExplicitOneIsNot() {
    assertThat(size(2 * MIB).blockSize(16384).inodeSize(256).build().resolvedInodeRatio()).isEqualTo(16384);
    assertThat(size(64 * MIB).blockSize(4096).inodeRatio(1024).build().resolvedInodeRatio()).isEqualTo(1024);
  }

  @ParameterizedTest(name = "{0} bytes of {1}-byte blocks: {2} blocks")
  @CsvSource({
    "2100224, 1024, 2048",  // 2051 KiB: down to the 4 KiB page
    "2101248, 1024, 2052",
    "2101248, 2048, 1026",
    "2101248, 4096, 513",
    "2105343, 8192, 256"    // larger blocks: whole blocks
  })
  void requestedBlocks_ofASize_roundsDownToThePage(long bytes, int blockSize, long blocks) {
    assertThat(size(bytes).blockSize(blockSize).build().requestedBlocks()).isEqualTo(blocks);
  }

  @Test
  void requestedBlocks_ofAnExplicitCount_isNotRounded() {
    assertThat(MkfsParameters.builder().blocksCount(2051).blockSize(1024).build().requestedBlocks()).isEqualTo(2051);
  }

  @Test
  void build_withoutJournal_dropsOrphanFile() {
    assertThat(size(64 * MIB).withFeatureString("^has_journal").build().features().hasCompat(FeatureSet.COMPAT_ORPHAN_FILE))
        .isFalse();
    assertThat(size(64 * MIB).journalBlocks(0).build().features().names()).doesNotContain("has_journal", "orphan_file");
  }

  @Test
  void build_journalSizeWithHasJournalCleared_turnsTheJournalOnButLeavesOrphanFileOff() {
    FeatureSet f = size(64 * MIB).withFeatureString("^has_journal").journalBlocks(4096).build().features();

    assertThat(f.hasCompat(FeatureSet.COMPAT_HAS_JOURNAL)).isTrue();
    assertThat(f.hasCompat(FeatureSet.COMPAT_ORPHAN_FILE)).isFalse();
  }

  @Test
  void build_withoutMetadataCsum_dropsCsumSeed_andWithIt_dropsUninitBg() {
    assertThat(size(64 * MIB).withFeatureString("^metadata_csum").build().features().names())
        .doesNotContain("metadata_csum_seed", "metadata_csum");
    assertThat(size(64 * MIB).withFeatureString("uninit_bg").build().features().names())
        .contains("metadata_csum").doesNotContain("uninit_bg");
  }

  @Test
  void build_withMetaBg_clearsResizeInode() {
    assertThat(size(64 * MIB).withFeatureString("meta_bg").build().features().names())
        .contains("meta_bg").doesNotContain("resize_inode");
  }

  @Test
  void build_withMoreThan32BitBlocks_turnsOn64bitAndClearsResizeInode() {
    MkfsParameters p = MkfsParameters.builder().blocksCount(1L << 32).blockSize(1024)
        .features(FeatureSet.MKE2FS_EXT4_DEFAULTS.edit("^64bit")).build();

    assertThat(p.features().hasIncompat(FeatureSet.INCOMPAT_64BIT)).isTrue();
    assertThat(p.features().hasCompat(FeatureSet.COMPAT_RESIZE_INODE)).isFalse();
  }

  @Test
  void build_withMoreThan32BitBlocksAndExplicitNo64bit_isRefused() {
    assertThatThrownBy(() -> MkfsParameters.builder().blocksCount(1L << 32).blockSize(1024)
        .withFeatureString("^64bit").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("^64bit");
  }

  @Test
  void build_refusesWhatMke2fsRefuses() {
    assertThatThrownBy(() -> size(64 * MIB).withFeatureString("^sparse_super").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-sparse");
    assertThatThrownBy(() -> size(64 * MIB).withFeatureString("^extent").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64-bit");
    assertThatThrownBy(() -> size(64 * MIB).withFeatureString("^flex_bg").logGroupsPerFlex(3).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("flex_bg");
  }

  @Test
  void build_refusesValuesOutOfRange_namingThem() {
    assertThatThrownBy(() -> MkfsParameters.builder().build()).hasMessageContaining("sizeBytes");
    assertThatThrownBy(() -> size(64 * MIB).blockSize(3000).build()).hasMessageContaining("3000");
    assertThatThrownBy(() -> size(64 * MIB).blockSize(1024).inodeSize(2048).build()).hasMessageContaining("2048");
    assertThatThrownBy(() -> size(64 * MIB).inodeRatio(512).build()).hasMessageContaining("512");
    assertThatThrownBy(() -> size(64 * MIB).reservedPercent(50.5).build()).hasMessageContaining("50.5");
    assertThatThrownBy(() -> size(64 * MIB).journalBlocks(-2).build()).hasMessageContaining("-2");
    assertThatThrownBy(() -> size(64 * MIB).orphanFileBlocks(0).build()).hasMessageContaining("orphan");
    assertThatThrownBy(() -> MkfsParameters.builder().blocksCount(4096).build()).hasMessageContaining("block size");
    assertThatThrownBy(() -> size(100).blockSize(1024).build()).hasMessageContaining("no whole");
  }
}
