package io.ext4j.jbd2.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class Crc32BeTest {
  /** Bit at a time, straight from the definition: MSB first, polynomial 0x04C11DB7. */
  private static int reference(int crc, byte[] data) {
    int c = crc;
    for (byte d : data) {
      c ^= (d & 0xFF) << 24;
      for (int k = 0; k < 8; k++) {
        c = c < 0 ? (c << 1) ^ 0x04C11DB7 : c << 1;
      }
    }
    return c;
  }

  @Test
  void checkValue_isCrc32Mpeg2s() {
    byte[] nine = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertThat(Crc32Be.update(~0, nine, 0, nine.length)).isEqualTo(0x0376E6E7);
    assertThat(Crc32Be.update(~0, ByteBuffer.wrap(nine))).isEqualTo(0x0376E6E7);
  }

  @Test
  void update_matchesTheBitwiseDefinition_andChains() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int i = 0; i < 2_000; i++) {
      byte[] data = new byte[rnd.nextInt(300)];
      rnd.nextBytes(data);
      int start = rnd.nextInt();
      int whole = Crc32Be.update(start, data, 0, data.length);
      assertThat(whole).as("seed %d case %d", seed, i).isEqualTo(reference(start, data));
      int cut = data.length == 0 ? 0 : rnd.nextInt(data.length);
      int chained = Crc32Be.update(Crc32Be.update(start, data, 0, cut), data, cut, data.length - cut);
      assertThat(chained).as("seed %d case %d", seed, i).isEqualTo(whole);
      ByteBuffer b = ByteBuffer.wrap(data, cut, data.length - cut);
      assertThat(Crc32Be.update(Crc32Be.update(start, data, 0, cut), b)).isEqualTo(whole);
      assertThat(b.position()).isEqualTo(cut);
    }
  }

  @Test
  void differsFromTheJdksReflectedCrc32() {
    byte[] nine = "123456789".getBytes(StandardCharsets.US_ASCII);
    java.util.zip.CRC32 jdk = new java.util.zip.CRC32();
    jdk.update(nine);
    assertThat((long) Crc32Be.update(~0, nine, 0, nine.length) & 0xFFFFFFFFL).isNotEqualTo(jdk.getValue());
  }

  @Test
  void v1Matches_acceptsTheCrcWithTypeAndSize_orNoChecksumAtAll() {
    byte[] block = new byte[1024];
    ByteBuffer b = ByteBuffer.wrap(block);
    b.put(0x0C, (byte) 1).put(0x0D, (byte) 4).putInt(0x10, 0x12345678);
    assertThat(CommitBlock.v1Matches(b, 0x12345678)).isTrue();
    assertThat(CommitBlock.v1Matches(b, 0x12345679)).isFalse();
    b.put(0x0D, (byte) 2);
    assertThat(CommitBlock.v1Matches(b, 0x12345678)).as("wrong size").isFalse();
    b.put(0x0C, (byte) 0).put(0x0D, (byte) 0).putInt(0x10, 0);
    assertThat(CommitBlock.v1Matches(b, 0x12345678)).as("no v1 checksum at all").isTrue();
    b.putInt(0x10, 7);
    assertThat(CommitBlock.v1Matches(b, 0x12345678)).as("type 0 but a value").isFalse();
  }
}
