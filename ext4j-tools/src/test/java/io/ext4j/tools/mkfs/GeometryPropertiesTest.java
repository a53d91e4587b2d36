package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Invariants every computed layout keeps, over seeded random parameters (block sizes 1 KiB–64 KiB,
 * sizes up to 4 TiB, every feature set the oracle test uses, odd ratios and counts). Each failure
 * names the parameters and the seed.
 */
@Tag("fast")
class GeometryPropertiesTest {
  private static final List<String> FEATURES = List.of(
      "", "^64bit", "^flex_bg", "^metadata_csum,uninit_bg", "^has_journal", "^resize_inode",
      "^sparse_super,^resize_inode", "^metadata_csum", "meta_bg");

  /** A named block range, for the overlap check. */
  private record Item(String what, long start, long count) {}

  @Test
  void everyLayout_keepsItsInvariants() {
    long seed = Seeds.seed();
    Random r = new Random(seed);
    int checked = 0;
    for (int i = 0; i < 300; i++) {
      MkfsParameters p = sample(r);
      Geometry g;
      try {
        g = Geometry.of(p);
      } catch (IllegalArgumentException refused) {
        continue; // a filesystem mke2fs would refuse too (the oracle test checks those agree)
      }
      String where = p + " (" + Seeds.replayLine(seed) + ")";
      checkCounts(g, p, where);
      checkNoOverlap(g, where);
      checkGroups(g, where);
      assertThat(Geometry.of(p)).as("deterministic: %s", where).isEqualTo(g);
      checked++;
    }
    assertThat(checked).as("layouts computed (%s)", Seeds.replayLine(seed)).isGreaterThan(200);
  }

  private static MkfsParameters sample(Random r) {
    int bs = 1024 << r.nextInt(7);
    long maxBlocks = Math.min((1L << 32) - 128, 8L * bs * 40_000); // 32-bit, at most ~40000 groups
    long blocks = 64 + (long) Math.exp(r.nextDouble() * Math.log((double) maxBlocks));
    MkfsParameters.Builder b = MkfsParameters.builder().blocksCount(blocks).blockSize(bs)
        .withFeatureString(FEATURES.get(r.nextInt(FEATURES.size())));
    if (r.nextInt(4) == 0) {
      b.inodeRatio(1024 << r.nextInt(13));
    }
    if (r.nextInt(8) == 0) {
      b.inodesCount(1 + r.nextInt(1 << 20));
    }
    if (r.nextInt(6) == 0) {
      b.inodeSize(Math.min(bs, 128 << r.nextInt(4)));
    }
    if (r.nextInt(8) == 0) {
      b.reservedPercent(r.nextInt(51));
    }
    return b.build();
  }

  private static void checkCounts(Geometry g, MkfsParameters p, String where) {
    int bs = g.blockSize();
    assertThat(g.inodesCount()).as("inodes = ipg × groups: %s", where).isEqualTo((long) g.inodesPerGroup() * g.groupCount());
    assertThat(g.inodesPerGroup() % 8).as("ipg a multiple of 8: %s", where).isZero();
    assertThat(g.inodesPerGroup()).as("ipg within a bitmap block: %s", where).isLessThanOrEqualTo(8 * bs);
    assertThat(g.inodeTableBlocks()).as("table blocks: %s", where)
        .isEqualTo(Math.ceilDiv(g.inodesPerGroup() * g.inodeSize(), bs));
    assertThat(g.descriptorBlocks()).as("descriptor blocks: %s", where)
        .isEqualTo(Math.ceilDiv(g.groupCount(), bs / g.descriptorSize()));
    assertThat(g.reservedGdtBlocks()).as("reserved GDT: %s", where).isBetween(0, bs / 4);
    assertThat(g.groupCount()).as("groups cover the blocks: %s", where)
        .isEqualTo(Math.ceilDiv(g.blocksCount() - g.firstDataBlock(), g.blocksPerGroup()));
    assertThat(g.blocksCount()).as("blocks: %s", where).isLessThanOrEqualTo(p.requestedBlocks());
    assertThat(g.reservedBlocks()).as("r_blocks: %s", where).isLessThanOrEqualTo(g.blocksCount() / 2);
    long last = g.groupBlocks(g.groupCount() - 1);
    if (last != g.blocksPerGroup()) {
      long overhead = 2 + g.inodeTableBlocks()
          + (g.hasBackup(g.groupCount() - 1) ? 1 + g.descriptorBlocks() + g.reservedGdtBlocks() : 0);
      assertThat(last).as("a short last group holds its overhead + 50: %s", where).isGreaterThanOrEqualTo(overhead + 50);
    }
    long metadata = g.groups().stream().mapToLong(l -> l.blockCount() - l.freeBlocks()).sum();
    assertThat(g.overheadClusters()).as("overhead: %s", where)
        .isEqualTo(g.firstDataBlock() + metadata + g.journalBlocks());
    boolean journal = g.features().hasCompat(FeatureSet.COMPAT_HAS_JOURNAL);
    assertThat(g.journalBlocks() > 0).as("journal iff has_journal: %s", where).isEqualTo(journal);
    if (journal && p.journalBlocks() < 0) {
      assertThat(g.journalBlocks()).as("default journal: %s", where).isEqualTo(LayoutPlanner.defaultJournalBlocks(g.blocksCount()));
    }
    if (g.features().hasCompat(FeatureSet.COMPAT_ORPHAN_FILE)) {
      assertThat(journal).as("orphan file needs a journal: %s", where).isTrue();
      assertThat(g.orphanFileBlocks()).as("default orphan file: %s", where)
          .isEqualTo(LayoutPlanner.defaultOrphanBlocks(g.blocksCount()));
    }
  }

  /** Copies, bitmaps, tables and file blocks are disjoint and inside the filesystem. */
  private static void checkNoOverlap(Geometry g, String where) {
    List<Item> items = new ArrayList<>();
    for (GroupLayout l : g.groups()) {
      int copies = (l.hasSuperblockBackup() ? 1 : 0) + l.descriptorBlocks() + l.reservedGdtBlocks();
      if (copies > 0) {
        items.add(new Item("group " + l.group() + " sb/gdt/rsv", l.firstBlock(), copies));
      }
      items.add(new Item("group " + l.group() + " block bitmap", l.blockBitmap(), 1));
      items.add(new Item("group " + l.group() + " inode bitmap", l.inodeBitmap(), 1));
      items.add(new Item("group " + l.group() + " inode table", l.inodeTable(), g.inodeTableBlocks()));
    }
    Geometry.Files f = g.files();
    addFile(items, "root", f.rootDirectory());
    addFile(items, "lost+found", f.lostFound());
    addFile(items, "journal", f.journal());
    addFile(items, "orphan file", f.orphanFile());
    if (f.resizeInodeBlock() != 0) {
      items.add(new Item("resize DIND", f.resizeInodeBlock(), 1));
    }
    items.sort(Comparator.comparingLong(Item::start));
    assertThat(items.getFirst().start()).as("inside the filesystem: %s", where).isGreaterThanOrEqualTo(g.firstDataBlock());
    assertThat(items.getLast().start() + items.getLast().count()).as("inside: %s", where).isLessThanOrEqualTo(g.blocksCount());
    for (int i = 1; i < items.size(); i++) {
      Item a = items.get(i - 1);
      Item b = items.get(i);
      assertThat(a.start() + a.count()).as("%s does not overlap %s: %s", a, b, where).isLessThanOrEqualTo(b.start());
    }
  }

  private static void addFile(List<Item> items, String name, FileBlocks f) {
    for (BlockRun e : f.extents()) {
      assertThat(e.count()).isLessThanOrEqualTo(FilePlacement.MAX_EXTENT);
      items.add(new Item(name, e.start(), e.count()));
    }
    for (long leaf : f.leafBlocks()) {
      items.add(new Item(name + " leaf", leaf, 1));
    }
  }

  private static void checkGroups(Geometry g, String where) {
    boolean flex = g.logGroupsPerFlex() > 0;
    long[] metadataIn = new long[Math.toIntExact(g.groupCount())];
    boolean[] foreign = new boolean[metadataIn.length];
    for (GroupLayout l : g.groups()) {
      metadataIn[(int) l.group()] += (l.hasSuperblockBackup() ? 1 : 0) + l.descriptorBlocks() + l.reservedGdtBlocks();
      long[][] owned = {{l.blockBitmap(), 1}, {l.inodeBitmap(), 1}, {l.inodeTable(), g.inodeTableBlocks()}};
      for (long[] item : owned) {
        for (long b = item[0]; b < item[0] + item[1]; b++) {
          int in = (int) g.groupOf(b);
          metadataIn[in]++;
          foreign[in] |= in != l.group();
        }
        if (!flex) {
          assertThat(g.groupOf(item[0])).as("group %d's tables in it without flex_bg: %s", l.group(), where).isEqualTo(l.group());
        }
      }
    }
    for (GroupLayout l : g.groups()) {
      int i = (int) l.group();
      assertThat(l.firstBlock()).as("group %d first block: %s", i, where).isEqualTo(g.groupFirstBlock(i));
      assertThat(l.blockCount()).as("group %d blocks: %s", i, where).isEqualTo(g.groupBlocks(i));
      assertThat(l.freeBlocks()).as("group %d free: %s", i, where).isEqualTo(l.blockCount() - metadataIn[i]);
      assertThat(l.freeBlocksAfterMkfs()).as("group %d free after files: %s", i, where).isNotNegative();
      if (l.hasFlag(GroupLayout.BLOCK_UNINIT)) {
        assertThat(i).as("BLOCK_UNINIT not on the last group: %s", where).isLessThan(metadataIn.length - 1);
        assertThat(foreign[i] || l.fileBlocks() > 0).as("BLOCK_UNINIT group %d hosts nothing: %s", i, where).isFalse();
      }
      assertThat(l.itableUnused() + l.usedInodes() == g.inodesPerGroup() || l.itableUnused() == 0)
          .as("group %d itable_unused: %s", i, where).isTrue();
    }
  }
}
