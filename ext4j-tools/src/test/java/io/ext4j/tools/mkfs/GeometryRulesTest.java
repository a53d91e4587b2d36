package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One case per layout rule whose outcome was read back from mkfs.ext4 1.47.0 (each is also among the
 * oracle test's fixed cases).
 */
@Tag("fast")
class GeometryRulesTest {
  private static final long MIB = 1L << 20;

  private static MkfsParameters.Builder size(long bytes, int blockSize) {
    return MkfsParameters.builder().sizeBytes(bytes).blockSize(blockSize);
  }

  @Test
  void hasBackup_withSparseSuper_isGroups0And1AndPowersOf3And5And7() {
    Geometry g = Geometry.of(size(64L << 30, 1024).build());

    assertThat(LongStream.range(0, 700).filter(g::hasBackup).boxed().toList())
        .containsExactly(0L, 1L, 3L, 5L, 7L, 9L, 25L, 27L, 49L, 81L, 125L, 243L, 343L, 625L);
  }

  @Test
  void hasBackup_withoutSparseSuper_isEveryGroup() {
    Geometry g = Geometry.of(size(32 * MIB, 1024).withFeatureString("^sparse_super,^resize_inode").build());

    assertThat(g.groups()).allMatch(GroupLayout::hasSuperblockBackup);
  }

  @Test
  void reservedGdt_growsTo1024TimesTheSizeOrThe32BitLimit_atMostAQuarterBlock() {
    assertThat(GroupSizing.reservedGdt(32768, 1, 8192, 1024, 64, 1)).isEqualTo(255);
    assertThat(GroupSizing.reservedGdt(262144, 0, 32768, 4096, 64, 1)).isEqualTo(127);
    assertThat(GroupSizing.reservedGdt(2097152, 0, 32768, 4096, 64, 1)).isEqualTo(1023);
    assertThat(GroupSizing.reservedGdt(3670016, 0, 32768, 4096, 64, 2)).isEqualTo(1024);
    assertThat(GroupSizing.reservedGdt(32768, 1, 8192, 1024, 32, 1)).isEqualTo(127);
  }

  @Test
  void of_lastGroupShorterThanItsOverheadPlus50_isDropped_andIpgRecomputedFromTheSameInodeCount() {
    Geometry g = Geometry.of(size(32868 * 1024, 1024).build());

    assertThat(g.blocksCount()).isEqualTo(32769);
    assertThat(g.groupCount()).isEqualTo(4);
    assertThat(g.inodesPerGroup()).isEqualTo(2056); // ⌈8217 / 4⌉ filled to 4 per block
    assertThat(g.reservedBlocks()).isEqualTo(1638);
  }

  @Test
  void of_ipgAboveOneBitmapBlock_shrinksBlocksPerGroupBy8_keepingAnAbandonedPassesReservedBlocks() {
    Geometry g = Geometry.of(size(64 * MIB, 4096).inodeRatio(1024).build());

    assertThat(g.blocksPerGroup()).isEqualTo(14264);
    assertThat(g.blocksCount()).isEqualTo(16384);
    assertThat(g.inodesPerGroup()).isEqualTo(32768);
    assertThat(g.reservedBlocks()).isEqualTo(713); // 5 % of 14272 blocks, a pass that dropped its last group
  }

  @Test
  void of_fewInodes_roundsIpgUpTo8_andGroup1ThenLosesBlockUninitToLostFound() {
    Geometry g = Geometry.of(size(32 * MIB, 1024).inodesCount(16).build());

    assertThat(g.inodesPerGroup()).isEqualTo(8);
    assertThat(g.inodesCount()).isEqualTo(32);
    assertThat(g.inodeTableBlocks()).isEqualTo(2);
    assertThat(g.groups()).extracting(GroupLayout::usedInodes).containsExactly(8, 4, 0, 0);
    assertThat(g.group(1).flags()).isEqualTo(GroupLayout.ITABLE_ZEROED);
  }

  @Test
  void of_ratioLargerThanTheFilesystem_takesOneInodePerBlockOf4KiB() {
    Geometry g = Geometry.of(size(3296479, 4096).inodeRatio(4194304).withFeatureString("^metadata_csum,uninit_bg").build());

    assertThat(g.inodesCount()).isEqualTo(816); // 804 blocks, filled to 16 per table block
  }

  @Test
  void of_ratioGivingFewerThan12Inodes_isRefused() {
    assertThatThrownBy(() -> Geometry.of(size(2592768, 1024).withFeatureString("^64bit").inodeRatio(262144).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lost+found");
  }

  @Test
  void of_under2048Blocks_hasNoJournalAndNoOrphanFile() {
    Geometry g = Geometry.of(size(2 * MIB, 4096).journalBlocks(1024).build());

    assertThat(g.features().names()).doesNotContain("has_journal", "orphan_file");
    assertThat(g.files().journal()).isEqualTo(FileBlocks.NONE);
    assertThat(g.files().orphanFile()).isEqualTo(FileBlocks.NONE);
  }

  @Test
  void of_explicitJournalAboveHalfTheFreeBlocks_isRefused() {
    assertThatThrownBy(() -> Geometry.of(size(8 * MIB, 1024).journalBlocks(5120).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too big");
  }

  @Test
  void of_journalOfFivePieces_hasAnExtentLeafBeforeItsFirstBlock() {
    Geometry g = Geometry.of(size(16L << 30, 1024).build());

    assertThat(g.files().journal().leafBlocks()).containsExactly(8265728L);
    assertThat(g.files().journal().extents()).containsExactly(new BlockRun(8265729, 32768),
        new BlockRun(8298497, 32768), new BlockRun(8331265, 32768), new BlockRun(8364033, 24576),
        new BlockRun(8390689, 8192));
    assertThat(g.overheadClusters()).isEqualTo(403088); // the leaf is not overhead
  }

  @Test
  void of_journalStartingAfterMetadata_takesItsLeafAfterTheFifthPiece() {
    Geometry g = Geometry.of(size(14L << 30, 4096).journalBlocks(262144).build());

    assertThat(g.files().journal().leafBlocks()).containsExactly(1770499L);
    assertThat(g.files().journal().extents().get(4)).isEqualTo(new BlockRun(1737731, 32768));
    assertThat(g.files().journal().extents().get(5)).isEqualTo(new BlockRun(1770500, 32768));
  }

  @Test
  void of_flexSize1_keepsFlexBgButPlacesTablesInTheirOwnGroups() {
    Geometry g = Geometry.of(size(358889999, 1024).withFeatureString("^resize_inode").inodeRatio(4194304)
        .logGroupsPerFlex(0).build());

    assertThat(g.features().hasIncompat(FeatureSet.INCOMPAT_FLEX_BG)).isTrue();
    assertThat(g.logGroupsPerFlex()).isZero();
    assertThat(List.of(g.group(2).blockBitmap(), g.group(2).inodeBitmap(), g.group(2).inodeTable()))
        .containsExactly(16385L, 16386L, 16387L);
    assertThat(g.files().orphanFile().extents()).containsExactly(new BlockRun(10, 85));
  }

  @Test
  void of_unmodelledFeatures_areUnsupportedNamingTheFeature() {
    assertThatThrownBy(() -> Geometry.of(size(64 * MIB, 4096).withFeatureString("bigalloc").build()))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("bigalloc");
    assertThatThrownBy(() -> Geometry.of(size(64 * MIB, 4096).withFeatureString("quota").build()))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("quota");
  }
}
