package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The extent node codec: decode(encode(n)) is n for random leaves and index nodes, and what decode rejects. */
@Tag("fast")
class ExtentNodeTest {
  static final long SEED = System.nanoTime();

  static {
    System.out.println("ExtentNodeTest seed " + SEED);
  }

  @Test
  void decodeOfEncode_givesTheNodeBack_inTheRootAndInTreeBlocks() throws Exception {
    SplittableRandom r = new SplittableRandom(SEED);
    for (int i = 0; i < 500; i++) {
      boolean root = i % 4 == 0;
      int blockSize = 1024 << r.nextInt(3);
      int max = root ? ExtentNode.ROOT_MAX : ExtentNode.blockMax(blockSize);
      int len = root ? RawInode.I_BLOCK_SIZE : blockSize;
      ExtentNode n = random(r, r.nextInt(3), r.nextInt(max + 1));
      Integer seed = root ? null : r.nextInt();
      byte[] bytes = new byte[len + 8];
      r.nextBytes(bytes);
      n.encode(bytes, 4, len, max, seed);
      ExtentNode back = ExtentNode.decode(bytes, 4, len, max, seed);
      assertThat(back.depth()).as("seed %d, case %d", SEED, i).isEqualTo(n.depth());
      assertThat(back.keys()).isEqualTo(n.keys());
      assertThat(back.values()).isEqualTo(n.values());
      assertThat(back.lengths()).isEqualTo(n.lengths());
      assertThat(back.unwritten()).isEqualTo(n.unwritten());
      if (seed != null) {
        assertThat(ExtentNode.checksumMatches(bytes, 4, len, seed)).isTrue();
      }
    }
  }

  @Test
  void aChangedByteOfATreeBlock_failsItsChecksum() throws Exception {
    SplittableRandom r = new SplittableRandom(SEED);
    for (int i = 0; i < 200; i++) {
      int max = ExtentNode.blockMax(4096);
      ExtentNode n = random(r, 0, 1 + r.nextInt(max));
      byte[] bytes = new byte[4096];
      n.encode(bytes, 0, 4096, max, 77);
      // past the counts: the generation, the entries, the zeros after them, or the tail itself
      int at = r.nextBoolean() ? 8 + r.nextInt(4 + 12 * n.count()) : 8 + r.nextInt(12 * max + 8);
      bytes[at] ^= (byte) (1 << r.nextInt(8));
      assertThatThrownBy(() -> ExtentNode.decode(bytes, 0, 4096, max, 77)).as("seed %d, case %d", SEED, i)
          .isInstanceOf(ExtentNode.Malformed.class).hasMessageContaining("checksum");
    }
  }

  @Test
  void overlappingOrUnorderedLeafEntries_areRejected() {
    byte[] bytes = new byte[RawInode.I_BLOCK_SIZE];
    new ExtentNode(0, new long[] {0, 5}, new long[] {1000, 2000}, new int[] {8, 1}, new boolean[2])
        .encode(bytes, 0, bytes.length, ExtentNode.ROOT_MAX, null);
    assertThatThrownBy(() -> ExtentNode.decode(bytes, 0, bytes.length, ExtentNode.ROOT_MAX, null))
        .hasMessageContaining("overlaps");
    new ExtentNode(0, new long[] {9, 5}, new long[] {1000, 2000}, new int[] {1, 1}, new boolean[2])
        .encode(bytes, 0, bytes.length, ExtentNode.ROOT_MAX, null);
    assertThatThrownBy(() -> ExtentNode.decode(bytes, 0, bytes.length, ExtentNode.ROOT_MAX, null))
        .hasMessageContaining("out of order");
  }

  /** A valid node: sorted, non-overlapping leaf extents (initialized up to 32768 blocks, unwritten up to 32767), or index entries. */
  static ExtentNode random(SplittableRandom r, int depth, int count) {
    long[] keys = new long[count];
    long[] values = new long[count];
    int[] lengths = new int[depth == 0 ? count : 0];
    boolean[] unwritten = new boolean[depth == 0 ? count : 0];
    long next = r.nextLong(1000);
    for (int i = 0; i < count; i++) {
      keys[i] = next;
      values[i] = r.nextLong(1L << 48);
      long span = 1;
      if (depth == 0) {
        unwritten[i] = r.nextBoolean();
        lengths[i] = 1 + r.nextInt(unwritten[i] ? 32767 : 32768);
        span = lengths[i];
      }
      next += span + r.nextLong(100);
    }
    return new ExtentNode(depth, keys, values, lengths, unwritten);
  }
}
