package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link OrphanBlock} against the orphan files mke2fs 1.47.0 lays down (every block pristine) and
 * against the kernel's (open unlinked files on a loop mount, read while the filesystem is frozen).
 */
@Tag("oracle")
class OrphanBlockOracleTest {

  @ParameterizedTest(name = "mkfs.ext4 {0}")
  @ValueSource(strings = {"-b 1024 -O orphan_file", "-b 4096 -O orphan_file", "-b 4096 -O orphan_file,metadata_csum_seed",
      "-b 1024 -O orphan_file,^metadata_csum"})
  void freshOrphanFile_decodesAsPristine_withExt4jsChecksum(String options) throws Exception {
    Path img = Tools.mkfs("orphan", 64, options.split(" "));
    TestImage image = TestImage.open(img);
    int orphanIno = LittleEndian.le32(image.sb.toBytes(), 0x280); // s_orphan_file_inum
    assertThat(orphanIno).isEqualTo(12);
    byte[] raw = image.inode(orphanIno);
    Ext4Inode inode = Ext4Inode.decode(img.toString(), image.inodeOffset(orphanIno), image.sb, orphanIno, raw, 0);
    int inoSeed = OrphanBlock.inodeSeed(image.sb.checksumSeed(), orphanIno, inode.generation());
    List<MappedRange> ranges = FileBlockMap.map(img.toString(), image.sb, inode, image::block);
    int bs = image.blockSize();
    boolean csum = image.sb.hasMetadataCsum();

    long blocks = 0;
    for (MappedRange r : ranges) {
      for (long i = 0; i < r.length(); i++) {
        long physical = r.physical() + i;
        byte[] block = image.block(physical);
        String where = img + " orphan file block " + (r.logical() + i) + " (block " + physical + ")";

        assertThat(OrphanBlock.decode(block, bs, inoSeed, physical, csum, where)).as(where).containsOnly(0);
        assertThat(OrphanBlock.isPristine(block, bs, inoSeed, physical, csum)).as(where).isTrue();
        assertThat(OrphanBlock.pristine(bs, inoSeed, physical, csum)).as(where).isEqualTo(block);
        blocks++;
      }
    }
    assertThat(blocks * bs).as("the orphan file's size").isEqualTo(inode.size()).isPositive();
  }

  @Tag("root")
  @Test
  void orphanFileTheKernelWrote_holdsTheOpenUnlinkedInodes_underExt4jsChecksum() throws Exception {
    Path img = Tools.mkfs("orphan-kernel", 64, "-b", "4096", "-O", "orphan_file");
    Set<Integer> unlinked = new TreeSet<>();
    List<FileChannel> open = new ArrayList<>();
    try (LoopMount m = LoopMount.mount(img)) {
      try {
        for (int i = 0; i < 5; i++) {
          Path p = Files.write(m.dir.resolve("x" + i), new byte[] {1, 2, 3});
          unlinked.add(((Long) Files.getAttribute(p, "unix:ino")).intValue());
          open.add(FileChannel.open(p, StandardOpenOption.READ));
          Files.delete(p);
        }
        m.freeze();

        TestImage image = TestImage.open(img);
        assertThat(image.sb.featureNames()).contains("orphan_present");
        Set<Integer> slots = new TreeSet<>();
        forEachBlock(image, (physical, block, inoSeed) -> {
          int[] decoded = OrphanBlock.decode(block, image.blockSize(), inoSeed, physical, true, img + " block " + physical);
          for (int s : decoded) {
            if (s != 0) {
              assertThat(slots.add(s)).as("inode %d in one slot", s).isTrue();
            }
          }
          byte[] mine = new byte[image.blockSize()];
          OrphanBlock.encode(decoded, mine, image.blockSize(), inoSeed, physical, true);
          assertThat(mine).as("block %d re-encoded", physical).isEqualTo(block);
        });
        assertThat(slots).isEqualTo(unlinked);
      } finally {
        for (FileChannel ch : open) {
          ch.close();
        }
      }
    }
    TestImage after = TestImage.open(img);
    forEachBlock(after, (physical, block, inoSeed) ->
        assertThat(OrphanBlock.isPristine(block, after.blockSize(), inoSeed, physical, true)).as("block %d after umount", physical).isTrue());
    Tools.assertE2fsckClean(img);
  }

  private interface BlockCheck {
    void check(long physical, byte[] block, int inoSeed) throws Exception;
  }

  /** Runs {@code check} on every block of the orphan file (s_orphan_file_inum). */
  private static void forEachBlock(TestImage image, BlockCheck check) throws Exception {
    int ino = LittleEndian.le32(image.sb.toBytes(), 0x280);
    Ext4Inode inode = image.decodedInode(ino);
    int inoSeed = OrphanBlock.inodeSeed(image.sb.checksumSeed(), ino, inode.generation());
    for (MappedRange r : FileBlockMap.map(image.path.toString(), image.sb, inode, image::block)) {
      for (long i = 0; i < r.length(); i++) {
        check.check(r.physical() + i, image.block(r.physical() + i), inoSeed);
      }
    }
  }
}
