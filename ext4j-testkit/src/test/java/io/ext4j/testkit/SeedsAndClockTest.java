package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class SeedsAndClockTest {
  @Test
  void seed_fromProperty_isUsedAndPrintedWithTheReplayHint() {
    String old = System.getProperty(Seeds.PROPERTY);
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      System.setProperty(Seeds.PROPERTY, "42");
      assertThat(Seeds.seed()).isEqualTo(42);
    } finally {
      System.setOut(out);
      if (old == null) {
        System.clearProperty(Seeds.PROPERTY);
      } else {
        System.setProperty(Seeds.PROPERTY, old);
      }
    }
    assertThat(captured.toString(StandardCharsets.UTF_8)).contains("ext4j.seed=42 (replay with -Dext4j.seed=42)");
  }

  @Test
  void derive_isDeterministic_andSeparatesPurposes() {
    assertThat(Seeds.derive(1, "threads")).isEqualTo(Seeds.derive(1, "threads"));
    assertThat(Seeds.derive(1, "threads")).isNotEqualTo(Seeds.derive(1, "crash"));
    assertThat(Seeds.derive(1, 0)).isNotEqualTo(Seeds.derive(1, 1)).isNotEqualTo(Seeds.derive(2, 0));
  }

  @Test
  void manualClock_movesOnlyWhenAdvanced_wallAndMonotonicTogether() {
    ManualClock clock = new ManualClock();
    assertThat(clock.nanoTime()).isZero();
    assertThat(clock.instant()).isEqualTo(ManualClock.DEFAULT_START);
    clock.advance(Duration.ofMillis(5));
    assertThat(clock.nanoTime()).isEqualTo(5_000_000);
    assertThat(clock.millis()).isEqualTo(ManualClock.DEFAULT_START.toEpochMilli() + 5);
    assertThatThrownBy(() -> clock.advance(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class);
  }
}
