package io.ext4j.tools.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.util.BitSet;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class BitsTest {
  @Test
  void setRangeCountAndWords_matchJavaUtilBitSet_onRandomRanges() {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    int size = 5000;
    Bits bits = new Bits(size);
    BitSet ref = new BitSet(size);
    for (int i = 0; i < 500; i++) {
      int from = r.nextInt(size);
      int n = 1 + r.nextInt(Math.min(300, size - from));
      int already = ref.get(from, from + n).cardinality();
      assertThat(bits.setRange(from, n)).as("seed %d: already set in [%d, +%d)", seed, from, n).isEqualTo(already);
      ref.set(from, from + n);
      int a = r.nextInt(size);
      int b = a + r.nextInt(size - a + 1);
      assertThat(bits.count(a, b)).as("seed %d: count [%d, %d)", seed, a, b).isEqualTo(ref.get(a, b).cardinality());
      int w = r.nextInt(size);
      long want = 0;
      for (int k = 0; k < 64 && w + k < size; k++) {
        want |= ref.get(w + k) ? 1L << k : 0;
      }
      assertThat(bits.word64(w)).as("seed %d: 64 bits from %d", seed, w).isEqualTo(want);
      int f = r.nextInt(size);
      int next = ref.nextSetBit(f);
      int to = f + r.nextInt(size - f + 1);
      assertThat(bits.firstSetIn(f, to)).isEqualTo(next >= 0 && next < to ? next : -1);
    }
  }

  @Test
  void aSetTooLargeForAnArray_isRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Bits(1L << 40))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
