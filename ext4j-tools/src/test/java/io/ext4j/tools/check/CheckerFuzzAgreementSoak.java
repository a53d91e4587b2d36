package io.ext4j.tools.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.testkit.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A soak, not part of the default run (its name does not end in {@code Test}): random metadata
 * damage as {@link CheckerRobustnessOracleTest} makes it, written to image files, each judged by the
 * checker and by {@code e2fsck -fn}; every disagreement on clean or silent is kept as
 * {@code target/test-images/checker/fuzz-disagree-N.img} and fails the soak. Run it with
 * {@code -Dtest=CheckerFuzzAgreementSoak -Dext4j.checker.soak=ROUNDS}.
 */
@Tag("soak")
@Tag("oracle")
class CheckerFuzzAgreementSoak {
  @Test
  void randomDamage_isJudgedAsE2fsckJudgesIt() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    int rounds = Integer.getInteger("ext4j.checker.soak", 300);
    List<String> disagreements = new ArrayList<>();
    int[] exits = new int[16];
    for (String[] cfg : new String[][] {{"-b", "1024", "-O", "metadata_csum_seed,orphan_file"},
        {"-b", "4096", "-O", "^metadata_csum,uninit_bg"}}) {
      Path img = Fixture.mkfs("soak-base-" + cfg[1], 16, cfg);
      Fixture.populate(img, seed, true);
      long[] targets = CheckerRobustnessOracleTest.metadataBlocks(img);
      Path copy = Fixture.DIR.resolve("soak-" + cfg[1] + ".img");
      for (int i = 0; i < rounds; i++) {
        Files.copy(img, copy, StandardCopyOption.REPLACE_EXISTING);
        String damage;
        try (FileBlockDevice d = FileBlockDevice.open(copy, CheckImage.blockSize(img))) {
          damage = CheckerRobustnessOracleTest.damage(d, targets, r);
          d.flush();
        }
        CheckReport rep = CheckImage.check(copy);
        E2fsprogs.Result e = E2fsprogs.e2fsck(copy);
        exits[Math.max(0, Math.min(15, e.exit()))]++;
        if (rep.clean() != (e.exit() == 0) || rep.silent() != e.silent()) {
          Path keep = Fixture.DIR.resolve("fuzz-disagree-" + disagreements.size() + ".img");
          Files.copy(copy, keep, StandardCopyOption.REPLACE_EXISTING);
          disagreements.add(keep + " (" + damage + "):\n" + rep.toText() + "e2fsck exit " + e.exit() + ":\n"
              + String.join("\n", e.messages()));
        }
      }
    }
    System.out.println("soak: " + 2 * rounds + " images, e2fsck exits " + java.util.Arrays.toString(exits) + ", "
        + disagreements.size() + " disagreements");
    assertThat(disagreements).as("seed %d", seed).isEmpty();
  }
}
