package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link DirHash} against {@code debugfs dx_hash} (e2fsprogs 1.47.0) on random names and seeds. */
@Tag("oracle")
class DirHashOracleTest {
  private static final Pattern HASH_LINE = Pattern.compile(
      "^Hash of .* is 0x([0-9a-f]+) \\(minor 0x([0-9a-f]+)\\)$", Pattern.DOTALL); // names may hold U+0085

  @Test
  void hash_ofRandomNames_equalsDebugfsDxHash_forEveryVersionAndSeed() throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    Path img = Tools.mkfs("dirhash", 8);
    List<String> commands = new ArrayList<>();
    List<long[]> expected = new ArrayList<>(); // {version, hash}
    List<String> described = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      byte[] name = debugfsSafeName(rnd);
      int[] hashSeed = switch (i % 3) {
        case 0 -> new int[4];
        case 1 -> DirHashTest.SEED_S;
        default -> new int[] {rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), rnd.nextInt()};
      };
      for (int version = DirHash.LEGACY; version <= DirHash.TEA_UNSIGNED; version++) {
        commands.add("dx_hash -h " + version + " -s " + uuidOf(hashSeed) + " " + new String(name, StandardCharsets.ISO_8859_1));
        expected.add(new long[] {version, DirHash.hash(version, name, hashSeed)});
        described.add("version " + version + " seed " + uuidOf(hashSeed) + " name " + HexFormat.of().formatHex(name));
      }
    }

    Tools.Result r = Tools.debugfs(img, false, commands);

    List<String> hashLines = r.stdout().lines().filter(l -> l.startsWith("Hash of ")).toList();
    assertThat(hashLines).as("one hash line per command; %s", r.describe()).hasSize(commands.size());
    for (int i = 0; i < hashLines.size(); i++) {
      Matcher m = HASH_LINE.matcher(hashLines.get(i));
      assertThat(m.matches()).as("hash line format: %s", hashLines.get(i)).isTrue();
      long h = expected.get(i)[1];
      assertThat(Integer.toHexString(DirHash.major(h)) + "/" + Integer.toHexString(DirHash.minor(h)))
          .as("seed %d: %s", seed, described.get(i))
          .isEqualTo(m.group(1) + "/" + m.group(2));
    }
  }

  /** A random name debugfs's command parser passes through unchanged: no whitespace, quotes or
   * backslash, and no leading '-' (getopt would take it for an option). */
  private static byte[] debugfsSafeName(Random rnd) {
    byte[] name = new byte[1 + rnd.nextInt(rnd.nextBoolean() ? 16 : 200)];
    for (int i = 0; i < name.length; i++) {
      int c;
      do {
        c = rnd.nextInt(3) == 0 ? 0x21 + rnd.nextInt(0x5E) : 1 + rnd.nextInt(255);
      } while (c <= 0x20 || c == '"' || c == '\'' || c == '\\' || c == 0x7F || (i == 0 && c == '-'));
      name[i] = (byte) c;
    }
    return name;
  }

  /** The UUID string whose 16 bytes are the four seed words, little-endian (as s_hash_seed is stored). */
  static String uuidOf(int[] words) {
    byte[] b = new byte[16];
    for (int i = 0; i < 4; i++) {
      for (int k = 0; k < 4; k++) {
        b[4 * i + k] = (byte) (words[i] >>> (8 * k));
      }
    }
    String hex = HexFormat.of().formatHex(b);
    return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
        + hex.substring(16, 20) + "-" + hex.substring(20);
  }
}
