package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every block of the orphan file mke2fs 1.47.0 lays down is pristine by {@link OrphanBlock}'s checksum. */
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
}
