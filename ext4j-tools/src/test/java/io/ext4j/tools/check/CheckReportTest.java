package io.ext4j.tools.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class CheckReportTest {
  private static final CheckReport.Counts COUNTS = new CheckReport.Counts(4096, 18, 4, 10, 2, 2, 16384, 2657, 1, 1);

  @Test
  void exitCodes_areE2fscks_notesDoNotMakeItUnclean() {
    Problem p = new Problem(Problem.INODE, 15, Problem.NO_BLOCK, "checksum does not match");
    Problem n = new Problem(Problem.FREE_TOTALS, Problem.NO_INODE, Problem.NO_BLOCK, "free blocks count wrong");
    CheckReport clean = new CheckReport("img", true, List.of(), List.of(), 0, 0, COUNTS, false);
    CheckReport noted = new CheckReport("img", true, List.of(), List.of(n), 0, 0, COUNTS, false);
    CheckReport bad = new CheckReport("img", true, List.of(p), List.of(n), 0, 0, COUNTS, false);
    CheckReport unchecked = new CheckReport("img", false, List.of(p), List.of(), 0, 0, CheckReport.Counts.NONE, false);
    assertThat(List.of(clean.exitCode(), noted.exitCode(), bad.exitCode(), unchecked.exitCode())).containsExactly(0, 0, 4, 8);
    assertThat(List.of(clean.silent(), noted.silent(), noted.clean(), bad.clean(), unchecked.clean()))
        .containsExactly(true, false, true, false, false);
  }

  @Test
  void toText_hasOneLinePerFinding_andE2fscksSummaryLine() {
    Problem p = new Problem(Problem.EXTENT_TREE, 12, 1638, "extent block checksum does not match");
    CheckReport bad = new CheckReport("disk.img", true, List.of(p), List.of(), 3, 0, COUNTS, false);
    assertThat(bad.toText()).isEqualTo("""
        [extent tree] inode 12, block 1638: extent block checksum does not match
        … and 3 more problems and 0 more notes not listed

        disk.img: ********** WARNING: Filesystem still has errors **********

        disk.img: 18/4096 files (5.6% non-contiguous), 2657/16384 blocks
        """);
    assertThat(new Problem(Problem.GROUP_COUNTS, Problem.NO_INODE, Problem.NO_BLOCK, "x").toString())
        .isEqualTo("[group counts]: x");
  }

  @Test
  void options_rejectANonPositiveProblemLimit() {
    assertThatThrownBy(() -> CheckOptions.defaults().withMaxProblems(0)).isInstanceOf(IllegalArgumentException.class);
    assertThat(CheckOptions.defaults().replayJournal()).isTrue();
    assertThat(CheckOptions.defaults().strict()).isFalse();
  }
}
