package io.ext4j.cli;

import io.ext4j.fs.Attributes;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Device numbers between ext4's encoding and glibc's dev_t, as get and ls use them. */
@Tag("fast")
class DeviceNumbersTest {
  @Test
  void deviceNumbers_convertBetweenExt4AndGlibc() {
    long glibc = ImageToHost.glibcDev(259, 70000);
    // major 0x103 in bits 8..19; minor 0x11170: 0x70 in bits 0..7, 0x111 in bits 20..31
    assertThat(glibc).isEqualTo(0x11110370L);
    assertThat(ImageToHost.glibcDev(1, 3)).isEqualTo(0x103L);
    assertThat(Attributes.major(glibc)).isEqualTo(259);
    assertThat(Attributes.minor(glibc)).isEqualTo(70000);
  }
}
