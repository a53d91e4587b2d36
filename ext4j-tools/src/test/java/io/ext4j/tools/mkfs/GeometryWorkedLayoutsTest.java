package io.ext4j.tools.mkfs;

import static io.ext4j.tools.mkfs.GroupLayout.BLOCK_UNINIT;
import static io.ext4j.tools.mkfs.GroupLayout.INODE_UNINIT;
import static io.ext4j.tools.mkfs.GroupLayout.ITABLE_ZEROED;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The layouts of §2 of the format brief ("Verified images", read back from mkfs.ext4 1.47.0 with the
 * upstream mke2fs.conf), and the 32 MiB image's per-group counts and file blocks as dumpe2fs and
 * debugfs show them.
 */
@Tag("fast")
class GeometryWorkedLayoutsTest {
  private static final long MIB = 1L << 20;

  private static Geometry of(long bytes, int blockSize) {
    return Geometry.of(MkfsParameters.builder().sizeBytes(bytes).blockSize(blockSize).build());
  }

  @Test
  void of_32MiBWith1KiBBlocks_isTheVerifiedLayout() {
    Geometry g = of(32 * MIB, 1024);

    assertThat(g.blocksCount()).isEqualTo(32768);
    assertThat(g.firstDataBlock()).isEqualTo(1);
    assertThat(g.groupCount()).isEqualTo(4);
    assertThat(g.inodesPerGroup()).isEqualTo(2048);
    assertThat(g.inodeTableBlocks()).isEqualTo(512);
    assertThat(g.inodesCount()).isEqualTo(8192);
    assertThat(g.reservedGdtBlocks()).isEqualTo(255);
    assertThat(g.reservedBlocks()).isEqualTo(1638);
    GroupLayout g0 = g.group(0);
    assertThat(g0.firstBlock()).isEqualTo(1);
    assertThat(g0.hasSuperblockBackup()).isTrue();
    assertThat(g0.descriptorStart()).isEqualTo(2);
    assertThat(g0.descriptorBlocks()).isEqualTo(1);
    assertThat(g0.reservedGdtStart()).isEqualTo(3);
    assertThat(g0.reservedGdtBlocks()).isEqualTo(255);
    assertThat(List.of(g.group(0).blockBitmap(), g.group(3).blockBitmap())).containsExactly(258L, 261L);
    assertThat(List.of(g.group(0).inodeBitmap(), g.group(3).inodeBitmap())).containsExactly(262L, 265L);
    assertThat(g0.inodeTable()).isEqualTo(266);
    assertThat(g.group(3).inodeTable() + g.inodeTableBlocks() - 1).isEqualTo(2313);
    assertThat(g.files().journal().extents()).containsExactly(new BlockRun(16385, 4096));
    assertThat(g.groupOf(g.files().journal().firstBlock())).isEqualTo(2);
    assertThat(g.orphanFileBlocks()).isEqualTo(32);
    assertThat(g.lostFoundBlocks()).isEqualTo(12);
  }

  @Test
  void of_32MiBWith1KiBBlocks_hasMkfsExt4sCountsFlagsAndFiles() {
    Geometry g = of(32 * MIB, 1024);

    assertThat(g.groups()).extracting(GroupLayout::freeBlocksAfterMkfs).containsExactly(5833, 7935, 4096, 7934);
    assertThat(g.groups()).extracting(GroupLayout::flags).containsExactly(
        ITABLE_ZEROED, INODE_UNINIT | BLOCK_UNINIT | ITABLE_ZEROED, INODE_UNINIT | ITABLE_ZEROED,
        INODE_UNINIT | ITABLE_ZEROED);
    assertThat(g.groups()).extracting(GroupLayout::itableUnused).containsExactly(2036, 2048, 2048, 2048);
    assertThat(g.overheadClusters()).isEqualTo(6924);
    assertThat(g.freeBlocksAfterMkfs()).isEqualTo(25798);
    assertThat(g.files().rootDirectory().extents()).containsExactly(new BlockRun(2314, 1));
    assertThat(g.files().lostFound().extents()).containsExactly(new BlockRun(2315, 12));
    assertThat(g.files().resizeInodeBlock()).isEqualTo(2327);
    assertThat(g.files().orphanFile().extents()).containsExactly(new BlockRun(2328, 32));
  }

  @Test
  void of_1GiBWith4KiBBlocks_isTheVerifiedLayout() {
    Geometry g = of(1L << 30, 4096);

    assertThat(List.of(g.groupCount(), (long) g.inodesPerGroup(), (long) g.inodeTableBlocks())).containsExactly(8L, 8192L, 512L);
    assertThat(List.of(g.inodesCount(), (long) g.reservedGdtBlocks(), g.reservedBlocks())).containsExactly(65536L, 127L, 13107L);
    GroupLayout g0 = g.group(0);
    assertThat(g0.firstBlock()).isZero();
    assertThat(g0.descriptorStart()).isEqualTo(1);
    assertThat(g0.reservedGdtStart()).isEqualTo(2);
    assertThat(g0.reservedGdtStart() + g0.reservedGdtBlocks() - 1).isEqualTo(128);
    assertThat(g.groups()).extracting(GroupLayout::blockBitmap).containsExactly(129L, 130L, 131L, 132L, 133L, 134L, 135L, 136L);
    assertThat(g.group(0).inodeBitmap()).isEqualTo(137);
    assertThat(g.group(7).inodeBitmap()).isEqualTo(144);
    assertThat(g0.inodeTable()).isEqualTo(145);
    assertThat(g.group(7).inodeTable() + g.inodeTableBlocks() - 1).isEqualTo(4240);
    assertThat(g.files().journal().extents()).containsExactly(new BlockRun(131072, 8192));
    assertThat(g.groupOf(131072)).isEqualTo(4);
    assertThat(g.orphanFileBlocks()).isEqualTo(64);
    assertThat(g.lostFoundBlocks()).isEqualTo(4);
  }

  @Test
  void of_8GiBWith4KiBBlocks_isTheVerifiedLayout() {
    Geometry g = of(8L << 30, 4096);

    assertThat(List.of(g.groupCount(), (long) g.inodesPerGroup(), (long) g.inodeTableBlocks())).containsExactly(64L, 8192L, 512L);
    assertThat(List.of(g.inodesCount(), (long) g.reservedGdtBlocks(), g.reservedBlocks())).containsExactly(524288L, 1023L, 104857L);
    assertThat(g.group(0).descriptorStart()).isEqualTo(1);
    assertThat(g.group(0).reservedGdtStart() + 1022).isEqualTo(1024);
    assertThat(List.of(g.group(0).blockBitmap(), g.group(15).blockBitmap())).containsExactly(1025L, 1040L);
    assertThat(List.of(g.group(0).inodeBitmap(), g.group(15).inodeBitmap())).containsExactly(1041L, 1056L);
    assertThat(g.group(0).inodeTable()).isEqualTo(1057);
    assertThat(g.group(15).inodeTable() + 511).isEqualTo(9248);
    assertThat(g.files().journal().extents()).containsExactly(new BlockRun(1081344, 16384));
    assertThat(g.groupOf(1081344)).isEqualTo(33);
    assertThat(g.orphanFileBlocks()).isEqualTo(512);
    assertThat(g.lostFoundBlocks()).isEqualTo(4);
  }

  @Test
  void of_8GiB_group16HostsTheTablesOfGroups16To31_andKeepsItsBlockBitmap() {
    Geometry g = of(8L << 30, 4096);

    assertThat(g.group(16).blockBitmap()).isEqualTo(524288);
    assertThat(g.group(31).inodeTable() + g.inodeTableBlocks() - 1).isEqualTo(532511);
    for (int i = 16; i < 32; i++) {
      assertThat(g.groupOf(g.group(i).inodeTable())).as("group %d's table", i).isEqualTo(16);
    }
    assertThat(g.group(16).hasFlag(BLOCK_UNINIT)).isFalse();
    assertThat(g.group(17).hasFlag(BLOCK_UNINIT)).isTrue();
  }

  @Test
  void of_8GiB_aBlockUninitGroupsFreeCount_isItsBlocksLessItsOwnBackup() {
    Geometry g = of(8L << 30, 4096);

    for (GroupLayout l : g.groups()) {
      if (l.hasFlag(BLOCK_UNINIT)) {
        long backup = g.hasBackup(l.group()) ? 1 + g.descriptorBlocks() + g.reservedGdtBlocks() : 0;
        assertThat(l.freeBlocksAfterMkfs()).as("group %d", l.group()).isEqualTo(g.blocksPerGroup() - backup);
      }
    }
    assertThat(g.groups()).filteredOn(l -> l.hasFlag(BLOCK_UNINIT)).hasSizeGreaterThan(40);
  }
}
