package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link E2fsprogs#clockNote}: e2fsck's accepted less-than-a-day note, and nothing else. */
@Tag("fast")
class E2fsprogsClockNoteTest {
  @Test
  void matchesTheFudgedNote_notTheMessageOfATimeFarAhead() {
    assertThat(E2fsprogs.clockNote("Superblock last write time is in the future.")).isTrue();
    assertThat(E2fsprogs.clockNote("Superblock last mount time is in the future.")).isTrue();
    assertThat(E2fsprogs.clockNote("\t(by less than a day, probably due to the hardware clock being incorrectly set)")).isTrue();
    assertThat(E2fsprogs.clockNote("Superblock last write time (Thu Dec  3 10:40:00 2026,")).isFalse();
    assertThat(E2fsprogs.clockNote("\tnow = Wed Dec  2 10:40:00 2026) is in the future.")).isFalse();
    assertThat(E2fsprogs.clockNote("Inode 12 has a extra size (4) which is invalid")).isFalse();
  }
}
