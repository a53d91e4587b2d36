package io.ext4j.bench.suite;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("fast")
class DiskFlushCounterTest {
  @TempDir
  Path dir;

  /** glibc's makedev, written from its documented bit layout. */
  private static long makedev(long major, long minor) {
    return ((major & 0xfffL) << 8) | ((major & 0xfffff000L) << 32) | (minor & 0xffL) | ((minor & 0xffffff00L) << 12);
  }

  @Test
  void majorAndMinor_invertMakedev() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int i = 0; i < 10_000; i++) {
      long major = rnd.nextLong() & 0xffffffffL;
      long minor = rnd.nextLong() & 0xffffffffL;
      long dev = makedev(major, minor);
      assertThat(DiskFlushCounter.major(dev)).as("seed %d, dev %x", seed, dev).isEqualTo(major);
      assertThat(DiskFlushCounter.minor(dev)).as("seed %d, dev %x", seed, dev).isEqualTo(minor);
    }
    assertThat(DiskFlushCounter.major(0xfd01)).isEqualTo(253);
    assertThat(DiskFlushCounter.minor(0xfd01)).isEqualTo(1);
  }

  @Test
  void parse_takesTheSixteenthField_andNothingFromOlderKernels() {
    String line = "  141142    28200  4881434    59148  9614457    36708 165363720  2680380        0   814748  3294924"
        + "    26136      108 35207360    10544  2762704   544851\n";
    assertThat(DiskFlushCounter.parse(line)).hasValue(2762704);
    String before55 = "  141142    28200  4881434    59148  9614457    36708 165363720  2680380        0   814748  3294924";
    assertThat(DiskFlushCounter.parse(before55)).isEmpty();
    assertThat(DiskFlushCounter.parse("a b c d e f g h i j k l m n o p q")).isEmpty();
  }

  @Test
  void between_isTheDifference_orNaN() {
    assertThat(DiskFlushCounter.between(OptionalLong.of(100), OptionalLong.of(400))).isEqualTo(300.0);
    assertThat(DiskFlushCounter.between(OptionalLong.empty(), OptionalLong.of(400))).isNaN();
    assertThat(DiskFlushCounter.between(OptionalLong.of(500), OptionalLong.of(400))).isNaN();
  }

  @Test
  void of_aDirectory_readsACounterThatNeverGoesBack_whenTheKernelHasOne() {
    Optional<DiskFlushCounter> counter = DiskFlushCounter.of(dir);
    System.out.println("disk flush counter for " + dir + ": " + (counter.isPresent() ? "present" : "absent"));
    counter.ifPresent(c -> {
      OptionalLong a = c.read();
      OptionalLong b = c.read();
      assertThat(a).isPresent();
      assertThat(b).isPresent();
      assertThat(b.getAsLong()).isGreaterThanOrEqualTo(a.getAsLong());
    });
    assertThat(DiskFlushCounter.of(dir.resolve("missing"))).isEmpty();
  }
}
