package io.ext4j.tools.mkfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/** Every difference between a {@link Geometry} and what e2fsprogs reported for the same inputs. */
final class LayoutDiff {
  private final List<String> out = new ArrayList<>();

  private LayoutDiff() {}

  /** The differences, each "field: ext4j X, mke2fs Y". */
  static List<String> compare(Geometry g, Mke2fsReport r) {
    LayoutDiff d = new LayoutDiff();
    d.header(g, r);
    if (r.groups().size() != g.groupCount()) {
      d.add("group count", g.groupCount(), r.groups().size());
    }
    for (int i = 0; i < Math.min(r.groups().size(), g.groupCount()); i++) {
      d.group(g, g.group(i), r.groups().get(i));
    }
    d.files(g, r);
    return d.out;
  }

  /**
   * bg_flags and bg_itable_unused as stored in the image's primary descriptor table (dumpe2fs prints
   * neither without descriptor checksums), against {@code g}. Without meta_bg only: the table's
   * position (block first data block + 1) and the descriptor size are header values compared above.
   */
  static List<String> compareStoredDescriptors(Geometry g, Path img) throws IOException {
    LayoutDiff d = new LayoutDiff();
    if (g.features().hasIncompat(FeatureSet.INCOMPAT_META_BG)) {
      return d.out;
    }
    int ds = g.descriptorSize();
    ByteBuffer table = ByteBuffer.allocate(Math.toIntExact(g.groupCount() * ds)).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(img, StandardOpenOption.READ)) {
      long at = (g.firstDataBlock() + 1) * g.blockSize();
      while (table.hasRemaining() && ch.read(table, at + table.position()) > 0) {
        // read until full
      }
    }
    for (int i = 0; i < g.groupCount(); i++) {
      int flags = Short.toUnsignedInt(table.getShort(i * ds + 0x12));
      long unused = Short.toUnsignedInt(table.getShort(i * ds + 0x1C))
          | (ds >= 64 ? (long) Short.toUnsignedInt(table.getShort(i * ds + 0x32)) << 16 : 0);
      d.eq("group " + i + " stored bg_flags", g.group(i).flags(), flags);
      d.eq("group " + i + " stored bg_itable_unused", g.group(i).itableUnused(), unused);
    }
    return d.out;
  }

  private void header(Geometry g, Mke2fsReport r) {
    num(r, "Block count", g.blocksCount(), null);
    num(r, "Inode count", g.inodesCount(), null);
    num(r, "Reserved block count", g.reservedBlocks(), null);
    num(r, "Overhead clusters", g.overheadClusters(), null);
    num(r, "Free blocks", g.freeBlocksAfterMkfs(), null);
    num(r, "First block", g.firstDataBlock(), null);
    num(r, "Block size", g.blockSize(), null);
    num(r, "Reserved GDT blocks", g.reservedGdtBlocks(), 0L);
    num(r, "Blocks per group", g.blocksPerGroup(), null);
    num(r, "Inodes per group", g.inodesPerGroup(), null);
    num(r, "Inode blocks per group", g.inodeTableBlocks(), null);
    num(r, "Inode size", g.inodeSize(), null);
    num(r, "Flex block group size", g.logGroupsPerFlex() > 0 ? 1L << g.logGroupsPerFlex() : -1, -1L);
    if (g.features().hasIncompat(FeatureSet.INCOMPAT_64BIT)) {
      num(r, "Group descriptor size", g.descriptorSize(), null);
    }
    num(r, "Total journal blocks", g.journalBlocks(), 0L);
    num(r, "First meta block group", g.firstMetaBg(), 0L);
    String features = r.headerValue("Filesystem features");
    Set<String> theirs = features == null ? Set.of() : new HashSet<>(List.of(features.trim().split("\\s+")));
    Set<String> ours = new HashSet<>(g.features().names());
    if (!theirs.equals(ours)) {
      add("features", ours, theirs);
    }
  }

  private void group(Geometry geo, GroupLayout l, Mke2fsReport.Group r) {
    String p = "group " + l.group() + " ";
    eq(p + "first block", l.firstBlock(), r.first());
    eq(p + "last block", l.firstBlock() + l.blockCount() - 1, r.last());
    boolean sb = l.hasSuperblockBackup();
    eq(p + "superblock", sb ? l.firstBlock() : -1, r.superblock());
    eq(p + "descriptors", l.descriptorBlocks() > 0 ? range(l.descriptorStart(), l.descriptorBlocks()) : "none",
        r.descStart() < 0 ? "none" : r.descStart() + "-" + r.descEnd());
    eq(p + "reserved GDT", l.reservedGdtBlocks() > 0 ? range(l.reservedGdtStart(), l.reservedGdtBlocks()) : "none",
        r.rsvStart() < 0 ? "none" : r.rsvStart() + "-" + r.rsvEnd());
    eq(p + "block bitmap", l.blockBitmap(), r.blockBitmap());
    eq(p + "inode bitmap", l.inodeBitmap(), r.inodeBitmap());
    eq(p + "inode table", range(l.inodeTable(), geo.inodeTableBlocks()), r.inodeTableStart() + "-" + r.inodeTableEnd());
    eq(p + "free blocks", l.freeBlocksAfterMkfs(), r.freeBlocks());
    eq(p + "free inodes", geo.inodesPerGroup() - l.usedInodes(), r.freeInodes());
    if (r.unusedInodes() >= 0) {
      eq(p + "unused inodes", l.itableUnused(), r.unusedInodes());
    }
    if (r.flags() != null) {
      Set<String> ours = new HashSet<>();
      if (l.hasFlag(GroupLayout.INODE_UNINIT)) {
        ours.add("INODE_UNINIT");
      }
      if (l.hasFlag(GroupLayout.BLOCK_UNINIT)) {
        ours.add("BLOCK_UNINIT");
      }
      if (l.hasFlag(GroupLayout.ITABLE_ZEROED)) {
        ours.add("ITABLE_ZEROED");
      }
      eq(p + "flags", ours, new HashSet<>(r.flags()));
    }
  }

  private void files(Geometry g, Mke2fsReport r) {
    file("root directory <2>", g.files().rootDirectory(), r.files().get(2L));
    file("lost+found <11>", g.files().lostFound(), r.files().get(11L));
    file("journal <8>", g.files().journal(), r.files().get(8L));
    file("orphan file <12>", g.files().orphanFile(), r.files().get(12L));
    Mke2fsReport.Blocks resize = r.files().get(7L);
    Long dind = resize == null ? null : resize.tagged().get("DIND");
    eq("resize inode <7> DIND", g.files().resizeInodeBlock(), dind == null ? 0L : dind);
  }

  private void file(String what, FileBlocks ours, Mke2fsReport.Blocks theirs) {
    eq(what + " extents", ours.extents(), theirs == null ? List.of() : theirs.extents());
    eq(what + " extent leaves", ours.leafBlocks(), theirs == null ? List.of() : theirs.leaves());
  }

  private void num(Mke2fsReport r, String key, long ours, Long whenAbsent) {
    String v = r.headerValue(key);
    if (v == null && whenAbsent == null) {
      add(key, ours, "(absent)");
      return;
    }
    long theirs = v == null ? whenAbsent : Long.parseLong(v.split("\\s+", 2)[0]);
    eq(key, ours, theirs);
  }

  private static String range(long start, long count) {
    return start + "-" + (start + count - 1);
  }

  private void eq(String what, long ours, long theirs) {
    if (ours != theirs) {
      add(what, ours, theirs);
    }
  }

  private void eq(String what, Object ours, Object theirs) {
    if (!Objects.equals(ours, theirs)) {
      add(what, ours, theirs);
    }
  }

  private void add(String what, Object ours, Object theirs) {
    out.add(what + ": ext4j " + ours + ", mke2fs " + theirs);
  }
}
