package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * How the tests read e2fsck's output: {@link E2fsprogs#clockNote} (the accepted less-than-a-day
 * note, nothing else) and {@link E2fsprogs#e2fsckMessages} (what is left of a check's output once the
 * lines every clean check prints are gone).
 */
@Tag("fast")
class E2fsckOutputTest {
  @Test
  void matchesTheFudgedNote_notTheMessageOfATimeFarAhead() {
    assertThat(E2fsprogs.clockNote("Superblock last write time is in the future.")).isTrue();
    assertThat(E2fsprogs.clockNote("Superblock last mount time is in the future.")).isTrue();
    assertThat(E2fsprogs.clockNote("\t(by less than a day, probably due to the hardware clock being incorrectly set)")).isTrue();
    assertThat(E2fsprogs.clockNote("Superblock last write time (Thu Dec  3 10:40:00 2026,")).isFalse();
    assertThat(E2fsprogs.clockNote("\tnow = Wed Dec  2 10:40:00 2026) is in the future.")).isFalse();
    assertThat(E2fsprogs.clockNote("Inode 12 has a extra size (4) which is invalid")).isFalse();
  }

  @Test
  void messages_dropTheHeadersSummaryAndClockNote_keepEveryProblem() {
    String clean = """
        Pass 1: Checking inodes, blocks, and sizes
        Pass 2: Checking directory structure
        Superblock last write time is in the future.
        	(by less than a day, probably due to the hardware clock being incorrectly set)
        Pass 5: Checking group summary information

        img.img: 11/2048 files (0.0% non-contiguous), 1302/8192 blocks
        """;
    assertThat(E2fsprogs.e2fsckMessages(clean)).isEmpty();
    String dirty = clean + """
        Free blocks count wrong for group #0 (6000, counted=5999).
        Fix? no

        Inode 12, i_size is 0, should be 4096.  Fix? no
        """;
    assertThat(E2fsprogs.e2fsckMessages(dirty)).containsExactly("Free blocks count wrong for group #0 (6000, counted=5999).",
        "Fix? no", "Inode 12, i_size is 0, should be 4096.  Fix? no");
  }
}
