package io.ext4j.fs.extent;

import io.ext4j.fs.format.Extent;
import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.format.ExtentNode;
import io.ext4j.testkit.Seeds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The shape a rebuild writes: {@link ExtentTree#packedStats} (arithmetic) against the level counts
 * of the tree actually built from {@link ExtentTree#chunkEvenly} and {@link ExtentTree#chunkRows}
 * (the counting the tree runs after every structural change), and {@link ExtentTree#rebuildLeaves}
 * never choosing a shape e2fsck would call narrowable or collapsible, nor more blocks than allowed.
 */
@Tag("fast")
class RebuildShapeTest {
  /** Entries per tree block for 1 KiB and 4 KiB blocks: (block size - 12-byte header) / 12, tail not counted. */
  private static final int[] PER_BLOCK = {84, 340};

  @Test
  void packedStats_equalTheLevelCountsOfTheBuiltTree_andRebuildLeavesKeepsTheShapeRules() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 300; round++) {
      int perBlock = PER_BLOCK[r.nextInt(PER_BLOCK.length)];
      int n = ExtentNode.ROOT_MAX + 1 + (r.nextBoolean() ? r.nextInt(4 * perBlock) : r.nextInt(perBlock * perBlock * 3));
      int min = Math.ceilDiv(n, perBlock - 1);
      int blocks = min + r.nextInt(3) + (min > ExtentNode.ROOT_MAX ? Math.ceilDiv(min, perBlock - 1) : 0);
      String at = "seed " + seed + " round " + round + ": " + n + " extents, " + perBlock + " per block, " + blocks + " blocks";

      int leaves = ExtentTree.rebuildLeaves(n, blocks, perBlock);
      assertThat(leaves).as(at).isBetween(min, min + 1);
      long[][] stats = ExtentTree.packedStats(n, leaves, perBlock);
      assertThat(stats).as(at).isNotNull();
      if (leaves > min) {
        assertThat(ExtentTree.misshapen(stats, perBlock)).as(at).isFalse();
        assertThat(ExtentTree.treeBlocks(stats)).as(at).isLessThanOrEqualTo(blocks);
      }
      if (min <= 4 * perBlock) { // build the tree in memory and count it as the tree does after a change
        Built built = build(n, leaves, perBlock);
        assertThat(built.stats().length).as(at).isEqualTo(stats.length);
        for (int l = 0; l < stats.length; l++) {
          assertThat(stats[l]).as("%s, level %d", at, l).containsExactly(built.stats()[l]);
        }
        assertThat(ExtentTree.treeBlocks(stats)).as(at).isEqualTo(built.blocks());
        assertThat(ExtentTree.misshapen(built.stats(), perBlock)).as(at).isEqualTo(ExtentTree.misshapen(stats, perBlock));
      }
    }
  }

  @Test
  void theMinimumPackingSpreadsItsFreeEntriesOverEveryLeaf() {
    // 1,000 extents at 340 to a block: 3 leaves, 17 free entries between them, none full.
    List<ExtentNode> leaves = ExtentTree.chunkEvenly(extents(1000), ExtentTree.rebuildLeaves(1000, 3, 340));
    assertThat(leaves).extracting(ExtentNode::count).containsExactly(334, 333, 333);
  }

  private static List<Extent> extents(int n) {
    List<Extent> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new Extent(2L * i, 10_000 + i, 1, i % 3 == 0));
    }
    return out;
  }

  /** The rebuild's tree, built in memory: {@link ExtentTree#levelStats} of it and its tree blocks. */
  private record Built(long[][] stats, long blocks) {}

  /** Builds the rebuild's tree of {@code n} extents over {@code leafCount} leaves (blocks numbered from 1). */
  private static Built build(int n, int leafCount, int perBlock) throws Exception {
    Map<Long, ExtentNode> blocks = new HashMap<>();
    List<long[]> rows = new ArrayList<>();
    for (ExtentNode leaf : ExtentTree.chunkEvenly(extents(n), leafCount)) {
      long b = blocks.size() + 1L;
      blocks.put(b, leaf);
      rows.add(new long[] {leaf.keys()[0], b});
    }
    int depth = 1;
    while (rows.size() > ExtentNode.ROOT_MAX) {
      List<long[]> up = new ArrayList<>();
      for (ExtentNode node : ExtentTree.chunkRows(rows, perBlock - 1)) {
        long b = blocks.size() + 1L;
        blocks.put(b, new ExtentNode(depth, node.keys(), node.values(), node.lengths(), node.unwritten()));
        up.add(new long[] {node.keys()[0], b});
      }
      rows = up;
      depth++;
    }
    ExtentNode root = ExtentNode.index(depth, rows);
    long[][] stats = ExtentTree.levelStats(root, (block, expectedDepth) -> {
      ExtentNode node = blocks.get(block);
      assertThat(node.depth()).isEqualTo(expectedDepth);
      return node;
    }, perBlock);
    return new Built(stats, blocks.size());
  }
}
