package io.ext4j.fs.extent;

import io.ext4j.fs.format.ExtentNode;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A memo of decoded, validated extent tree blocks, so that the three lookups of one append (the
 * write goal, the segment lookup, the change) and the next append's do not each decode and
 * checksum the same rightmost leaf again.
 *
 * <p>An entry is the block number, the inode's checksum seed, a copy of the block's bytes and the
 * node those bytes decoded to. It answers only when the caller's current bytes of that block are
 * equal to the copy and the seed is the same, so it can never give a node the block no longer
 * holds: decoding is a pure function of the bytes and the seed, and the checks made at decode
 * (checksum, order, block numbers inside the filesystem and clear of its metadata) depend on
 * nothing else that changes while the filesystem is open. A hit costs one comparison of the block.
 *
 * <p>Direct-mapped by block number, with room for about 512 KiB of block copies (at least 16
 * entries); a collision replaces the older entry. Thread-safe: the slots are an atomic array and
 * each entry is immutable (its arrays are not changed after it is made, and {@link ExtentNode}'s
 * arrays are never changed in place by the tree).
 */
final class DecodedNodes {
  private static final long COPY_BUDGET = 512 * 1024;

  private record Entry(long block, int seed, byte[] bytes, ExtentNode node) {}

  private final AtomicReferenceArray<Entry> slots;
  private final int blockSize;

  DecodedNodes(int blockSize) {
    this.blockSize = blockSize;
    int n = Integer.highestOneBit((int) Math.max(16, COPY_BUDGET / blockSize));
    this.slots = new AtomicReferenceArray<>(n);
  }

  /** The node decoded from {@code bytes[0, blockSize)} of {@code block} under {@code seed}, or null. */
  ExtentNode get(long block, int seed, byte[] bytes) {
    Entry e = slots.get(slot(block));
    if (e == null || e.block != block || e.seed != seed || !Arrays.equals(e.bytes, 0, blockSize, bytes, 0, blockSize)) {
      return null;
    }
    return e.node;
  }

  /** Remembers that {@code bytes[0, blockSize)} of {@code block} decode, under {@code seed}, to the valid {@code node}. */
  void put(long block, int seed, byte[] bytes, ExtentNode node) {
    slots.set(slot(block), new Entry(block, seed, Arrays.copyOf(bytes, blockSize), node));
  }

  private int slot(long block) {
    return (int) ((block * 0x9E3779B97F4A7C15L) >>> 40) & (slots.length() - 1);
  }
}
