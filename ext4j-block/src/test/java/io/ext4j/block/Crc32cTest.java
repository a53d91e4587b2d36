package io.ext4j.block;


import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class Crc32cTest {
  static final long SEED = seed();

  /**
   * -Dext4j.seed when set, else random; printed for replay. (ext4j-testkit's Seeds does the same, but
   * this module cannot depend on the test kit, which depends on it.)
   */
  private static long seed() {
    String fixed = System.getProperty("ext4j.seed");
    long seed = fixed == null || fixed.isBlank() ? new java.security.SecureRandom().nextLong() : Long.parseLong(fixed.strip());
    System.out.println("ext4j.seed=" + seed + " (replay with -Dext4j.seed=" + seed + ")");
    return seed;
  }

  @Test
  void checkValue_matchesTheStandardOneInverted() {
    assertThat(Crc32c.update(0xFFFFFFFF, "123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0x1CF96D7C);
  }

  @Test
  void fromAllOnes_isTheComplementOfJavaUtilZipCrc32c() {
    Random r = new Random(SEED);
    for (int i = 0; i < 300; i++) {
      byte[] data = new byte[r.nextInt(5000)];
      r.nextBytes(data);
      java.util.zip.CRC32C jdk = new java.util.zip.CRC32C();
      jdk.update(data);
      assertThat(Crc32c.update(0xFFFFFFFF, data)).as("seed %d, case %d", SEED, i).isEqualTo(~(int) jdk.getValue());
    }
  }

  @Test
  void updateInPieces_equalsUpdateAtOnce_forArraysAndBuffers() {
    Random r = new Random(SEED);
    for (int i = 0; i < 300; i++) {
      byte[] data = new byte[r.nextInt(3000)];
      r.nextBytes(data);
      int seed = r.nextInt();
      int at = data.length == 0 ? 0 : r.nextInt(data.length);
      int pieces = Crc32c.update(Crc32c.update(seed, data, 0, at), data, at, data.length - at);
      assertThat(pieces).as("seed %d", SEED).isEqualTo(Crc32c.update(seed, data));
      assertThat(Crc32c.update(seed, ByteBuffer.wrap(data))).isEqualTo(pieces);
      assertThat(Crc32c.update(seed, ByteBuffer.allocateDirect(data.length).put(data).flip())).isEqualTo(pieces);
    }
  }

  @Test
  void bigEndianInt_equalsItsFourBytes() {
    Random r = new Random(SEED);
    for (int i = 0; i < 1000; i++) {
      int seed = r.nextInt();
      int v = r.nextInt();
      assertThat(Crc32c.updateBigEndianInt(seed, v)).isEqualTo(Crc32c.update(seed, ByteBuffer.allocate(4).putInt(v).array()));
    }
  }

  @Test
  void seededUpdateOfLongInputs_throughTheJdkAfterASeedPrefix_equalsTheTableLoop() {
    Random r = new Random(SEED);
    for (int i = 0; i < 400; i++) {
      int len = Crc32c.INTRINSIC_MIN_LENGTH + r.nextInt(i < 200 ? 9000 : 70_000);
      byte[] data = new byte[len + 16];
      r.nextBytes(data);
      int seed = i % 7 == 0 ? 0xFFFFFFFF : i % 11 == 0 ? 0 : r.nextInt();
      int off = r.nextInt(16);
      assertThat(Crc32c.update(seed, data, off, len)).as("seed %d, case %d, length %d", SEED, i, len)
          .isEqualTo(Crc32c.updateTables(seed, data, off, len));
    }
  }

  @Test
  void seedPrefix_takesTheRegisterFromAllOnesToTheTarget() {
    Random r = new Random(SEED);
    for (int i = 0; i < 2000; i++) {
      int target = i < 32 ? 1 << i : i == 32 ? 0 : i == 33 ? 0xFFFFFFFF : r.nextInt();
      int w = Crc32c.SeedPrefix.bytesFor(target);
      byte[] le = {(byte) w, (byte) (w >>> 8), (byte) (w >>> 16), (byte) (w >>> 24)};
      assertThat(Crc32c.updateTables(0xFFFFFFFF, le, 0, 4)).as("seed %d, target 0x%08X", SEED, target).isEqualTo(target);
    }
  }
}
