package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

@Tag("fast")
class DirHashTest {
  /** s_hash_seed of UUID 2921e291-7721-41db-8c01-ff6b097f068a (the reference's seed S). */
  static final int[] SEED_S = {0x91E22129, 0xDB412177, 0x6BFF018C, 0x8A067F09};
  static final byte[] LOST_FOUND = "lost+found".getBytes(StandardCharsets.US_ASCII);
  static final byte[] HIGH_BYTES = HexFormat.of().parseHex("636166E95FFF80");
  static final byte[] LONG_NAME = "file_with_a_longish_name_for_two_md4_blocks_0123456789".getBytes(StandardCharsets.US_ASCII);

  /** Every vector of the reference's §6.5 table: name, version, seed, major, minor. */
  static Stream<Arguments> referenceVectors() {
    return Stream.of(
        v(LOST_FOUND, DirHash.LEGACY, null, 0x5e2aba24, 0),
        v(LOST_FOUND, DirHash.LEGACY, SEED_S, 0x5e2aba24, 0),
        v(LOST_FOUND, DirHash.HALF_MD4, null, 0x591de422, 0x6ffc56e0),
        v(LOST_FOUND, DirHash.HALF_MD4, SEED_S, 0x12da5992, 0x80a66f96),
        v(LOST_FOUND, DirHash.TEA, null, 0x2dbf9e80, 0xbfebee4f),
        v(LOST_FOUND, DirHash.TEA, SEED_S, 0xb33410ee, 0x65599aec),
        v(HIGH_BYTES, DirHash.LEGACY, null, 0xf64d8578, 0),
        v(HIGH_BYTES, DirHash.LEGACY_UNSIGNED, null, 0x4da65778, 0),
        v(HIGH_BYTES, DirHash.LEGACY, SEED_S, 0xf64d8578, 0),
        v(HIGH_BYTES, DirHash.LEGACY_UNSIGNED, SEED_S, 0x4da65778, 0),
        v(HIGH_BYTES, DirHash.HALF_MD4, null, 0x5a5fc230, 0x7f142577),
        v(HIGH_BYTES, DirHash.HALF_MD4, SEED_S, 0x40082776, 0x921e907b),
        v(HIGH_BYTES, DirHash.HALF_MD4_UNSIGNED, null, 0xf2d160ce, 0xa3c079bd),
        v(HIGH_BYTES, DirHash.HALF_MD4_UNSIGNED, SEED_S, 0x8d290176, 0xa224fb22),
        v(HIGH_BYTES, DirHash.TEA, null, 0x9b7f8600, 0x2d17574b),
        v(HIGH_BYTES, DirHash.TEA, SEED_S, 0x9f552b80, 0x7885dde2),
        v(HIGH_BYTES, DirHash.TEA_UNSIGNED, null, 0x2c80130e, 0xdc0bb184),
        v(HIGH_BYTES, DirHash.TEA_UNSIGNED, SEED_S, 0x256a5a1e, 0x2c62ec1b),
        v(LONG_NAME, DirHash.LEGACY, null, 0x1b090188, 0),
        v(LONG_NAME, DirHash.LEGACY, SEED_S, 0x1b090188, 0),
        v(LONG_NAME, DirHash.HALF_MD4, null, 0x62c88a7a, 0x01a317c7),
        v(LONG_NAME, DirHash.HALF_MD4, SEED_S, 0x63948c7e, 0xacfbe355),
        v(LONG_NAME, DirHash.TEA, null, 0x3a8b04b2, 0x23541d08),
        v(LONG_NAME, DirHash.TEA, SEED_S, 0xf10e51e6, 0x20a70688));
  }

  private static Arguments v(byte[] name, int version, int[] seed, int major, int minor) {
    return Arguments.of(HexFormat.of().formatHex(name), version, seed == null ? "zero" : "S", name, seed, major, minor);
  }

  @ParameterizedTest(name = "{0} version {1} seed {2}")
  @MethodSource("referenceVectors")
  void hash_matchesTheReferenceVector(String hex, int version, String seedName, byte[] name, int[] seed, int major, int minor) {
    long h = DirHash.hash(version, name, 0, name.length, seed);

    assertThat(Integer.toHexString(DirHash.major(h))).isEqualTo(Integer.toHexString(major));
    assertThat(Integer.toHexString(DirHash.minor(h))).isEqualTo(Integer.toHexString(minor));
    assertThat(h).isEqualTo((major & 0xFFFFFFFFL) << 32 | (minor & 0xFFFFFFFFL));
  }

  @Test
  void hash_ofNameInsideALargerArray_usesOnlyThatSlice() {
    byte[] framed = new byte[LOST_FOUND.length + 7];
    framed[0] = (byte) 0xEE;
    System.arraycopy(LOST_FOUND, 0, framed, 3, LOST_FOUND.length);
    framed[framed.length - 1] = (byte) 0x99;

    for (int version = DirHash.LEGACY; version <= DirHash.TEA_UNSIGNED; version++) {
      assertThat(DirHash.hash(version, framed, 3, LOST_FOUND.length, SEED_S))
          .as("version %d", version)
          .isEqualTo(DirHash.hash(version, LOST_FOUND, SEED_S));
    }
  }

  @Test
  void hash_withAllZeroSeed_equalsTheDefaultInitialState() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int i = 0; i < 200; i++) {
      byte[] name = randomName(rnd);
      for (int version = DirHash.LEGACY; version <= DirHash.TEA_UNSIGNED; version++) {
        assertThat(DirHash.hash(version, name, new int[4])).as("seed %d name %s", seed, HexFormat.of().formatHex(name))
            .isEqualTo(DirHash.hash(version, name, null))
            .isEqualTo(DirHash.hash(version, name, new int[] {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476}));
      }
    }
  }

  @Test
  void hash_ofRandomNames_hasBitZeroClear_andSignednessMattersOnlyForHighBytes() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    int highDiffer = 0;
    for (int i = 0; i < 2000; i++) {
      byte[] name = randomName(rnd);
      int[] hashSeed = rnd.nextBoolean() ? null : new int[] {rnd.nextInt(), rnd.nextInt(), rnd.nextInt(), rnd.nextInt()};
      boolean high = false;
      for (byte b : name) {
        high |= b < 0;
      }
      for (int version = DirHash.LEGACY; version <= DirHash.TEA; version++) {
        long signed = DirHash.hash(version, name, hashSeed);
        long unsigned = DirHash.hash(version + 3, name, hashSeed);
        assertThat(DirHash.major(signed) & 1).as("seed %d", seed).isZero();
        assertThat(DirHash.major(unsigned) & 1).as("seed %d", seed).isZero();
        if (!high) {
          assertThat(unsigned).as("seed %d: ASCII name, version %d", seed, version).isEqualTo(signed);
        } else if (unsigned != signed) {
          highDiffer++;
        }
      }
    }
    assertThat(highDiffer).as("seed %d: names with high bytes hash differently when signed", seed).isPositive();
  }

  @Test
  void hash_ofEmptyName_isTheInitialStatesWord() {
    assertThat(DirHash.major(DirHash.hash(DirHash.HALF_MD4, new byte[0], null))).isEqualTo(0xEFCDAB88);
    assertThat(DirHash.minor(DirHash.hash(DirHash.HALF_MD4, new byte[0], null))).isEqualTo(0x98BADCFE);
    assertThat(DirHash.major(DirHash.hash(DirHash.TEA, new byte[0], null))).isEqualTo(0x67452300);
    assertThat(DirHash.major(DirHash.hash(DirHash.LEGACY, new byte[0], null))).isEqualTo(0x12A3FE2D << 1);
  }

  @Test
  void kernelMajor_remapsOnlyTheEndOfDirectoryCookie() {
    assertThat(DirHash.kernelMajor(0xFFFFFFFEL << 32 | 7)).isEqualTo(0xFFFFFFFC);
    assertThat(DirHash.kernelMajor(0xFFFFFFFCL << 32)).isEqualTo(0xFFFFFFFC);
    assertThat(DirHash.kernelMajor(0x12345678L << 32)).isEqualTo(0x12345678);
  }

  @Test
  void versionFor_addsThreeForUnsignedOnlyToTheOnDiskVersions() {
    assertThat(DirHash.versionFor(DirHash.LEGACY, true)).isEqualTo(DirHash.LEGACY_UNSIGNED);
    assertThat(DirHash.versionFor(DirHash.HALF_MD4, true)).isEqualTo(DirHash.HALF_MD4_UNSIGNED);
    assertThat(DirHash.versionFor(DirHash.TEA, true)).isEqualTo(DirHash.TEA_UNSIGNED);
    assertThat(DirHash.versionFor(DirHash.TEA, false)).isEqualTo(DirHash.TEA);
    assertThat(DirHash.versionFor(DirHash.HALF_MD4_UNSIGNED, true)).isEqualTo(DirHash.HALF_MD4_UNSIGNED);
    assertThat(DirHash.versionFor(6, true)).isEqualTo(6);
  }

  @Test
  void hash_rejectsUnknownVersionsAndShortSeeds() {
    assertThatThrownBy(() -> DirHash.hash(6, LOST_FOUND, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version 6");
    assertThatThrownBy(() -> DirHash.hash(DirHash.TEA, LOST_FOUND, new int[3]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4 words");
  }

  @Test
  void seedWords_readsTheSuperblockFieldLittleEndian() {
    byte[] uuid = HexFormat.of().parseHex("2921e291772141db8c01ff6b097f068a");
    assertThat(DirHash.seedWords(uuid, 0)).containsExactly(SEED_S);
  }

  static byte[] randomName(Random rnd) {
    byte[] name = new byte[1 + rnd.nextInt(rnd.nextBoolean() ? 20 : 255)];
    boolean ascii = rnd.nextInt(3) == 0;
    for (int i = 0; i < name.length; i++) {
      name[i] = (byte) (ascii ? 0x21 + rnd.nextInt(0x5E) : rnd.nextInt(256));
    }
    return name;
  }
}
