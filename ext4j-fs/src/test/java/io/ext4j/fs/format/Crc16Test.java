package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class Crc16Test {

  @Test
  void update_ofTheCheckString_is0x4B37() {
    byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);

    assertThat(Integer.toHexString(Crc16.update(0xFFFF, check, 0, check.length))).isEqualTo("4b37");
  }

  @Test
  void update_inPieces_equalsUpdateAtOnce() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int i = 0; i < 500; i++) {
      byte[] data = new byte[rnd.nextInt(300)];
      rnd.nextBytes(data);
      int cut = data.length == 0 ? 0 : rnd.nextInt(data.length + 1);
      int start = rnd.nextInt(0x10000);

      int whole = Crc16.update(start, data, 0, data.length);
      int pieces = Crc16.update(Crc16.update(start, data, 0, cut), data, cut, data.length - cut);

      assertThat(pieces).as("seed %d", seed).isEqualTo(whole);
      assertThat(whole).as("seed %d", seed).isBetween(0, 0xFFFF);
    }
  }

  @Test
  void groupDescriptorChecksum_skipsTheChecksumField_andCoversEveryOtherByte() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int descSize : new int[] {32, 64}) {
      byte[] uuid = new byte[16];
      rnd.nextBytes(uuid);
      byte[] desc = new byte[descSize + 8];
      rnd.nextBytes(desc);
      int group = rnd.nextInt(1 << 20);
      int base = Crc16.groupDescriptorChecksum(uuid, group, desc, 4, descSize);

      for (int i = 0; i < descSize; i++) {
        byte[] changed = desc.clone();
        changed[4 + i] ^= (byte) (1 + rnd.nextInt(255));
        int c = Crc16.groupDescriptorChecksum(uuid, group, changed, 4, descSize);
        if (i == 0x1E || i == 0x1F) {
          assertThat(c).as("seed %d: byte %d is bg_checksum itself", seed, i).isEqualTo(base);
        } else {
          assertThat(c).as("seed %d: byte %d of a %d-byte descriptor", seed, i, descSize).isNotEqualTo(base);
        }
      }
      assertThat(Crc16.groupDescriptorChecksum(uuid, group + 1, desc, 4, descSize)).isNotEqualTo(base);
      byte[] otherUuid = uuid.clone();
      otherUuid[15] ^= 1;
      assertThat(Crc16.groupDescriptorChecksum(otherUuid, group, desc, 4, descSize)).isNotEqualTo(base);
    }
  }

  @Test
  void groupDescriptorChecksum_isTheCrcOfUuidGroupAndDescriptorWithoutItsChecksum() {
    byte[] uuid = new byte[16];
    byte[] desc = new byte[32];
    for (int i = 0; i < 16; i++) {
      uuid[i] = (byte) (i * 17);
    }
    for (int i = 0; i < 32; i++) {
      desc[i] = (byte) (0xA0 + i);
    }
    byte[] message = new byte[16 + 4 + 30];
    System.arraycopy(uuid, 0, message, 0, 16);
    message[16] = 0x34;
    message[17] = 0x12;
    System.arraycopy(desc, 0, message, 20, 30);

    assertThat(Crc16.groupDescriptorChecksum(uuid, 0x1234, desc, 0, 32))
        .isEqualTo(Crc16.update(0xFFFF, message, 0, message.length));
  }

  @Test
  void groupDescriptorChecksum_rejectsBadArguments() {
    assertThatThrownBy(() -> Crc16.groupDescriptorChecksum(new byte[15], 0, new byte[32], 0, 32))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16 bytes");
    assertThatThrownBy(() -> Crc16.groupDescriptorChecksum(new byte[16], 0, new byte[32], 0, 16))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("below 32");
    assertThatThrownBy(() -> Crc16.groupDescriptorChecksum(new byte[16], 0, new byte[32], 8, 32))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
