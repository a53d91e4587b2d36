package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The workload's judgement of shared file content, and how it describes a foreign block. */
@Tag("fast")
class NamespaceWorkloadCheckTest {
  private static final int B = NamespaceWorkload.BLOCK;

  /** {@code blocks} blocks each labelled as written to {@code name} at its own index. */
  private static byte[] labelled(String name, int blocks) {
    byte[] out = new byte[blocks * B];
    Arrays.fill(out, (byte) '.');
    for (int b = 0; b < blocks; b++) {
      byte[] label = ("<" + name + "|7|" + b + ">").getBytes(StandardCharsets.ISO_8859_1);
      System.arraycopy(label, 0, out, b * B, label.length);
    }
    return out;
  }

  @Test
  void foreignBlock_labelsAtTheirOwnIndex_areNotForeign_aZeroedOrShiftedBlockIs() {
    byte[] good = labelled("d0/s2", 3);
    assertThat(NamespaceWorkload.foreignBlock(good)).isEqualTo(-1);

    byte[] zeroed = good.clone();
    Arrays.fill(zeroed, B, 2 * B, (byte) 0);
    assertThat(NamespaceWorkload.foreignBlock(zeroed)).isEqualTo(1);

    byte[] shifted = labelled("s1", 3);
    System.arraycopy(shifted, 0, shifted, 2 * B, B); // block 2 holds block 0's label
    assertThat(NamespaceWorkload.foreignBlock(shifted)).isEqualTo(2);
  }

  @Test
  void show_givesTextHexAndHowMuchIsForeignOrZero() {
    byte[] got = labelled("s0", 4);
    Arrays.fill(got, 0, B, (byte) 0);
    Arrays.fill(got, 2 * B, 3 * B, (byte) 0);
    String shown = NamespaceWorkload.show(got, 0);
    assertThat(shown)
        .startsWith("'" + "?".repeat(B) + "' (hex " + "00".repeat(B) + ";")
        .contains("2 of 4 blocks foreign")
        .contains((2 * B) + " of " + (4 * B) + " bytes zero");
  }
}
