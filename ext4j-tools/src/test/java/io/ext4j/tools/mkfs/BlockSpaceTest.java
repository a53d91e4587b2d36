package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class BlockSpaceTest {
  /** 4 groups of 100 blocks from block 1 (blocks 1..400). */
  private static BlockSpace space() {
    return new BlockSpace(1, 401, 100, 4);
  }

  @Test
  void markUsed_chargesEachGroupForItsBlocks_andRefusesUsedBlocks() {
    BlockSpace s = space();
    s.markUsed(95, 10);

    assertThat(s.freeInGroup(0)).isEqualTo(94);
    assertThat(s.freeInGroup(1)).isEqualTo(96);
    assertThatThrownBy(() -> s.markUsed(104, 2)).isInstanceOf(IllegalStateException.class).hasMessageContaining("104");
  }

  @Test
  void findFree_finishBoundsWhereARunStarts_notWhereItEnds() {
    BlockSpace s = space();
    s.markUsed(1, 10);

    assertThat(s.findFree(5, 12, 50)).isEqualTo(11);
    assertThat(s.findFree(5, 11, 50)).isEqualTo(-1);
  }

  @Test
  void findFree_startZero_meansTheFirstDataBlock_andRunsMustEndInsideTheFilesystem() {
    BlockSpace s = space();

    assertThat(s.findFree(0, 50, 3)).isEqualTo(1);
    assertThat(s.findFree(390, 400, 20)).isEqualTo(-1);
  }

  @Test
  void findFree_finishNotAfterStart_wrapsToTheFirstDataBlock() {
    BlockSpace s = space();
    s.markUsed(300, 101);

    assertThat(s.findFree(300, 50, 5)).isEqualTo(1);
    assertThat(s.findFree(300, 0, 5)).isEqualTo(1);
  }

  @Test
  void newBlock_takesTheFirstFreeAtOrAfterTheGoal_wrappingOnce() {
    BlockSpace s = space();
    s.markUsed(200, 201);

    assertThat(s.newBlock(150)).isEqualTo(150);
    assertThat(s.newBlock(250)).isEqualTo(1);
    assertThat(s.newBlock(5000)).isEqualTo(1);
  }

  @Test
  void newRange_extendsOverFreeBlocksUpToTheNextUsedOne_andTheMaximum() {
    BlockSpace s = space();
    s.markUsed(1, 20);
    s.markUsed(60, 1);

    assertThat(s.newRange(5, 1000)).isEqualTo(new BlockRun(21, 39));
    assertThat(s.newRange(61, 7)).isEqualTo(new BlockRun(61, 7));
    assertThat(s.isFree(21, 39)).isTrue();
  }
}
