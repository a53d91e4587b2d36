package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.format.Ext4Inode;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.FileBlockMap;
import io.ext4j.fs.format.MappedRange;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** FileBlockMap on extent trees deeper than the inode's root, checked against debugfs. */
@Tag("oracle")
class FileBlockMapTest {

  /** An image holding /sparse: every other block written, so 21 one-block extents need an index node. */
  private static Path imageWithSparseFile(int blockSize) throws Exception {
    Path img = Ext4Images.mkfs("sparse-" + blockSize, blockSize, 16);
    Path host = Ext4Images.DIR.resolve("sparse-host-" + blockSize);
    Files.deleteIfExists(host);
    byte[] block = new byte[blockSize];
    java.util.Arrays.fill(block, (byte) 'x');
    try (var ch = java.nio.channels.FileChannel.open(host, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      for (int i = 0; i <= 40; i += 2) {
        ch.write(ByteBuffer.wrap(block), (long) i * blockSize);
      }
    }
    Ext4Images.runOk("debugfs", "-w", "-R", "write " + host + " sparse", img.toString());
    return img;
  }

  private static long inodeOf(Path img, String path) throws Exception {
    String out = Ext4Images.runOk("debugfs", "-R", "stat " + path, img.toString());
    return Long.parseLong(out.replaceAll("(?s).*?Inode: (\\d+).*", "$1"));
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void map_withIndexNode_matchesDebugfs(int blockSize) throws Exception {
    Path img = imageWithSparseFile(blockSize);
    MemoryBlockDevice dev = Ext4Images.load(img, blockSize);
    Ext4Superblock sb = Ext4JournalLocator.readSuperblock(dev);
    long ino = inodeOf(img, "/sparse");
    Ext4Inode inode = Ext4JournalLocator.readInode(dev, sb, ino);

    List<MappedRange> ranges = FileBlockMap.map(dev.name(), sb, inode, b -> Ext4JournalLocator.readFsBlock(dev, sb, b));

    assertThat(ranges).hasSize(21).isEqualTo(Ext4Images.debugfsRanges(img, ino));
    assertThat(ranges).extracting(MappedRange::logical).startsWith(0L, 2L, 4L);
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void map_whenIndexNodeIsCorrupt_reportsItsChecksumWithTheBlock(int blockSize) throws Exception {
    Path img = imageWithSparseFile(blockSize);
    MemoryBlockDevice dev = Ext4Images.load(img, blockSize);
    Ext4Superblock sb = Ext4JournalLocator.readSuperblock(dev);
    long ino = inodeOf(img, "/sparse");
    Ext4Inode inode = Ext4JournalLocator.readInode(dev, sb, ino);
    String stat = Ext4Images.runOk("debugfs", "-R", "stat <" + ino + ">", img.toString());
    long leafBlock = Long.parseLong(stat.replaceAll("(?s).*\\(ETB0\\):(\\d+).*", "$1"));
    byte[] leaf = dev.block(leafBlock);
    leaf[20] ^= 0x01; // inside the first leaf entry
    dev.write(leafBlock, ByteBuffer.wrap(leaf));

    assertThatThrownBy(() -> FileBlockMap.map(dev.name(), sb, inode, b -> Ext4JournalLocator.readFsBlock(dev, sb, b)))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageContaining("extent block " + leafBlock + " of inode " + ino)
        .hasMessageContaining("checksum mismatch");
  }
}
