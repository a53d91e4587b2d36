package io.ext4j.fs.extent;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.format.ExtentNode;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The decoded-node memo answers only for the same block, seed and bytes. */
@Tag("fast")
class DecodedNodesTest {
  static final long SEED = System.nanoTime();

  static {
    System.out.println("DecodedNodesTest seed " + SEED);
  }

  private static final ExtentNode NODE = new ExtentNode(0, new long[] {0}, new long[] {500}, new int[] {3}, new boolean[1]);

  @Test
  void aRememberedBlock_isAnsweredWhileItsBytesAreTheSame_andNotOnceOneByteDiffers() {
    SplittableRandom r = new SplittableRandom(SEED);
    DecodedNodes memo = new DecodedNodes(4096);
    byte[] bytes = new byte[4096];
    r.nextBytes(bytes);
    memo.put(77, 5, bytes, NODE);
    assertThat(memo.get(77, 5, bytes.clone())).isSameAs(NODE);
    int at = r.nextInt(4096);
    bytes[at] ^= 1;
    assertThat(memo.get(77, 5, bytes)).as("seed %d, byte %d changed", SEED, at).isNull();
    bytes[at] ^= 1;
    assertThat(memo.get(77, 6, bytes)).as("another inode's seed").isNull();
    assertThat(memo.get(78, 5, bytes)).as("another block").isNull();
    assertThat(memo.get(77, 5, bytes)).isSameAs(NODE);
  }

  @Test
  void theMemoKeepsACopy_soChangingTheCallersArrayAfterPutIsSeen() {
    DecodedNodes memo = new DecodedNodes(1024);
    byte[] bytes = new byte[1024];
    memo.put(3, 1, bytes, NODE);
    bytes[1000] = 9;
    assertThat(memo.get(3, 1, bytes)).isNull();
  }

  @Test
  void blocksSharingASlot_replaceEachOther_andNeitherAnswersForTheOther() {
    DecodedNodes memo = new DecodedNodes(4096); // 128 slots
    byte[] bytes = new byte[4096];
    ExtentNode other = new ExtentNode(0, new long[] {9}, new long[] {900}, new int[] {1}, new boolean[1]);
    long a = 10;
    long b = -1;
    for (long x = 11; x < 100_000 && b < 0; x++) {
      memo.put(a, 1, bytes, NODE);
      memo.put(x, 1, bytes, other);
      if (memo.get(a, 1, bytes) == null) {
        b = x;
      }
    }
    assertThat(b).as("some block shares block 10's slot").isPositive();
    assertThat(memo.get(b, 1, bytes)).isSameAs(other);
    memo.put(a, 1, bytes, NODE);
    assertThat(memo.get(a, 1, bytes)).isSameAs(NODE);
    assertThat(memo.get(b, 1, bytes)).isNull();
  }
}
