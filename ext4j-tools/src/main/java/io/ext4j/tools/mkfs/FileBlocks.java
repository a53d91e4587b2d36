package io.ext4j.tools.mkfs;

import java.util.List;

/**
 * Where one of mke2fs's own files lies: its data as extents in logical order (each at most 32768
 * blocks, an initialized extent's limit) and, when the extents do not fit the inode's four slots, the
 * extent-tree leaf blocks holding them, in logical order (a tree of depth 1; empty otherwise).
 */
public record FileBlocks(List<BlockRun> extents, List<Long> leafBlocks) {
  /** A file with no blocks. */
  public static final FileBlocks NONE = new FileBlocks(List.of(), List.of());

  public FileBlocks {
    extents = List.copyOf(extents);
    leafBlocks = List.copyOf(leafBlocks);
  }

  /** Data blocks (the file's size in blocks). */
  public long dataBlocks() {
    return extents.stream().mapToLong(BlockRun::count).sum();
  }

  /** Data blocks plus the leaf blocks. */
  public long allBlocks() {
    return dataBlocks() + leafBlocks.size();
  }

  /** The first data block, or 0 for an empty file. */
  public long firstBlock() {
    return extents.isEmpty() ? 0 : extents.getFirst().start();
  }

  @Override
  public String toString() {
    return (leafBlocks.isEmpty() ? "" : "[leaves " + leafBlocks + "] ") + extents;
  }
}
