package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.Crc32c;
import io.ext4j.fs.Ext4FormatException;
import io.ext4j.testkit.Seeds;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class OrphanBlockTest {

  @Test
  void slots_isBlockSizeMinusTheTailInWords() {
    assertThat(OrphanBlock.slots(1024)).isEqualTo(254);
    assertThat(OrphanBlock.slots(4096)).isEqualTo(1022);
    assertThat(OrphanBlock.slots(65536)).isEqualTo(16382);
    assertThatThrownBy(() -> OrphanBlock.slots(1000)).hasMessageContaining("1000");
  }

  @Test
  void encodeThenDecode_roundTripsRandomSlots_withAndWithoutChecksums() throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int round = 0; round < 200; round++) {
      int bs = 1024 << rnd.nextInt(3);
      int[] slots = new int[OrphanBlock.slots(bs)];
      for (int i = 0; i < slots.length; i++) {
        slots[i] = rnd.nextInt(4) == 0 ? rnd.nextInt() : 0;
      }
      int inoSeed = rnd.nextInt();
      long physical = rnd.nextLong() >>> 20;
      boolean csum = rnd.nextBoolean();
      byte[] block = new byte[bs];
      rnd.nextBytes(block);

      OrphanBlock.encode(slots, block, bs, inoSeed, physical, csum);

      assertThat(OrphanBlock.decode(block, bs, inoSeed, physical, csum, "t")).as("seed %d", seed).containsExactly(slots);
      assertThat(LittleEndian.le32(block, bs - 8)).isEqualTo(OrphanBlock.MAGIC);
      assertThat(LittleEndian.le32(block, bs - 4)).as("seed %d", seed)
          .isEqualTo(csum ? OrphanBlock.checksum(block, bs, inoSeed, physical) : 0);
    }
  }

  @Test
  void checksum_isCrc32cOfInodeSeedPhysicalBlockAndTheSlots() {
    byte[] block = new byte[1024];
    block[0] = 12;
    block[1019] = 7; // last slot byte; the tail is not covered
    byte[] message = new byte[8 + 1016];
    long physical = 0x1_0000_2345L;
    for (int i = 0; i < 8; i++) {
      message[i] = (byte) (physical >>> (8 * i));
    }
    System.arraycopy(block, 0, message, 8, 1016);

    assertThat(OrphanBlock.checksum(block, 1024, 0xCAFEF00D, physical))
        .isEqualTo(Crc32c.update(0xCAFEF00D, message));
    block[1020] = 1;
    block[1023] = 1;
    assertThat(OrphanBlock.checksum(block, 1024, 0xCAFEF00D, physical))
        .isEqualTo(Crc32c.update(0xCAFEF00D, message));
  }

  @Test
  void inodeSeed_isCrc32cOfFsSeedInodeNumberAndGeneration() {
    byte[] le = {12, 0, 0, 0, 0x78, 0x56, 0x34, 0x12};

    assertThat(OrphanBlock.inodeSeed(0x55AA55AA, 12, 0x12345678)).isEqualTo(Crc32c.update(0x55AA55AA, le));
  }

  @Test
  void decode_withBadMagic_saysMagic_andWithAMovedBlock_saysChecksum() throws Exception {
    byte[] block = OrphanBlock.pristine(1024, 99, 500, true);
    byte[] badMagic = block.clone();
    badMagic[1016] ^= 1;

    assertThatThrownBy(() -> OrphanBlock.decode(badMagic, 1024, 99, 500, true, "img orphan file block 0"))
        .isInstanceOfSatisfying(Ext4FormatException.class, e -> assertThat(e.byteOffset()).isEqualTo(500 * 1024 + 1016))
        .hasMessage("img orphan file block 0: bad orphan file block magic 0x0B10CA05, expected 0x0B10CA04");
    assertThatThrownBy(() -> OrphanBlock.decode(block, 1024, 99, 501, true, "img orphan file block 0"))
        .isInstanceOfSatisfying(Ext4FormatException.class, e -> assertThat(e.byteOffset()).isEqualTo(501 * 1024 + 1020))
        .hasMessageStartingWith("img orphan file block 0: orphan file block checksum mismatch: stored 0x");
    assertThatThrownBy(() -> OrphanBlock.decode(block, 1024, 98, 500, true, "img"))
        .as("another inode's seed").hasMessageContaining("checksum mismatch");
    assertThat(OrphanBlock.decode(block, 1024, 98, 501, false, "img")).as("unverified").containsOnly(0);
  }

  @Test
  void isPristine_onlyForFreeSlotsMagicAndTheRightChecksum() {
    byte[] clean = OrphanBlock.pristine(4096, 7, 42, true);
    assertThat(OrphanBlock.isPristine(clean, 4096, 7, 42, true)).isTrue();
    assertThat(OrphanBlock.isPristine(clean, 4096, 7, 43, true)).isFalse();
    assertThat(OrphanBlock.isPristine(clean, 4096, 7, 42, false)).as("csum where none is expected").isFalse();

    byte[] used = clean.clone();
    int[] slots = new int[OrphanBlock.slots(4096)];
    slots[100] = 13;
    OrphanBlock.encode(slots, used, 4096, 7, 42, true);
    assertThat(OrphanBlock.isPristine(used, 4096, 7, 42, true)).isFalse();

    byte[] noCsum = OrphanBlock.pristine(4096, 7, 42, false);
    assertThat(Arrays.copyOf(noCsum, 4088)).containsOnly(0);
    assertThat(OrphanBlock.isPristine(noCsum, 4096, 7, 42, false)).isTrue();
    assertThat(OrphanBlock.isPristine(new byte[4096], 4096, 7, 42, false)).as("no magic").isFalse();
  }

  @Test
  void encode_rejectsTheWrongSlotCount() {
    assertThatThrownBy(() -> OrphanBlock.encode(new int[10], new byte[1024], 1024, 0, 0, true))
        .hasMessage("a 1024-byte orphan file block has 254 slots, not 10");
  }
}
