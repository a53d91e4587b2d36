package io.ext4j.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.testkit.Seeds;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class ByteSizeTest {
  @Test
  void unitsArePowersOfTwo_inEitherCase_andABareNumberIsBytes() {
    assertThat(ByteSize.parse("4096")).isEqualTo(4096);
    assertThat(ByteSize.parse("8k")).isEqualTo(8192);
    assertThat(ByteSize.parse(" 64M ")).isEqualTo(64L << 20);
    assertThat(ByteSize.parse("2g")).isEqualTo(2L << 30);
    assertThat(ByteSize.parse("16T")).isEqualTo(16L << 40);
    assertThat(ByteSize.hasUnit("64m")).isTrue();
    assertThat(ByteSize.hasUnit("64")).isFalse();
    assertThat(ByteSize.hasUnit("")).isFalse();
  }

  @Test
  void everyNumberWithEveryUnit_parsesToItsProduct_orIsRefusedAsTooLarge() {
    long seed = Seeds.seed();
    Random r = new Random(seed);
    String[] units = {"", "k", "m", "g", "t", "K", "M", "G", "T"};
    int[] shifts = {0, 10, 20, 30, 40, 10, 20, 30, 40};
    for (int i = 0; i < 20_000; i++) {
      long n = 1 + (r.nextLong() >>> (1 + r.nextInt(63)));
      int u = r.nextInt(units.length);
      String text = n + units[u];
      if (n > (Long.MAX_VALUE >> shifts[u])) {
        assertThatThrownBy(() -> ByteSize.parse(text)).as("seed %d: %s", seed, text)
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too large").hasMessageContaining(text);
      } else {
        assertThat(ByteSize.parse(text)).as("seed %d: %s", seed, text).isEqualTo(n << shifts[u]);
      }
    }
  }

  @Test
  void whatIsNotAPositiveWholeNumber_isRefusedNamingIt() {
    for (String bad : new String[] {"", "m", "0", "-4k", "1.5g", "12q", "0x10", "9223372036854775808"}) {
      assertThatThrownBy(() -> ByteSize.parse(bad)).as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + bad + "'");
    }
  }
}
