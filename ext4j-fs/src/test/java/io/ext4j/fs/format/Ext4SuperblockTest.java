package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.Ext4FormatException;
import io.ext4j.fs.Ext4Images;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("oracle")
class Ext4SuperblockTest {

  private static Path image(int blockSize, String... options) throws Exception {
    return Ext4Images.mkfs("sb-" + blockSize + (options.length > 0 ? "-opts" : ""), blockSize, blockSize == 1024 ? 16 : 64, options);
  }

  private static byte[] superblockBytes(Path img) throws Exception {
    return Arrays.copyOfRange(Files.readAllBytes(img), 1024, 2048);
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void decode_ofMkfsImage_matchesDumpe2fs(int blockSize) throws Exception {
    Path img = image(blockSize, "-L", "vol" + blockSize);
    Ext4Superblock sb = Ext4Superblock.decode(img.toString(), superblockBytes(img));
    String h = Ext4Images.dumpe2fsHeader(img);

    assertThat(sb.blockSize()).isEqualTo(Integer.parseInt(Ext4Images.field(h, "Block size")));
    assertThat(sb.blocksCount()).isEqualTo(Long.parseLong(Ext4Images.field(h, "Block count")));
    assertThat(sb.inodesCount()).isEqualTo(Long.parseLong(Ext4Images.field(h, "Inode count")));
    assertThat(sb.firstDataBlock()).isEqualTo(Long.parseLong(Ext4Images.field(h, "First block")));
    assertThat(sb.blocksPerGroup()).isEqualTo(Long.parseLong(Ext4Images.field(h, "Blocks per group")));
    assertThat(sb.inodesPerGroup()).isEqualTo(Long.parseLong(Ext4Images.field(h, "Inodes per group")));
    assertThat(sb.inodeSize()).isEqualTo(Integer.parseInt(Ext4Images.field(h, "Inode size")));
    assertThat(sb.descriptorSize()).isEqualTo(Integer.parseInt(Ext4Images.field(h, "Group descriptor size")));
    assertThat(sb.journalInode()).isEqualTo(Long.parseLong(Ext4Images.field(h, "Journal inode")));
    assertThat(sb.uuid()).isEqualTo(UUID.fromString(Ext4Images.field(h, "Filesystem UUID")));
    assertThat(sb.volumeName()).isEqualTo("vol" + blockSize);
    assertThat(String.format("0x%08x", sb.checksum())).isEqualTo(Ext4Images.field(h, "Checksum"));
    assertThat(sb.featureNames()).containsExactlyInAnyOrder(Ext4Images.field(h, "Filesystem features").split("\\s+"));
    assertThat(sb.hasJournal()).isTrue();
    assertThat(sb.hasMetadataCsum()).isTrue();
    assertThat(sb.needsRecovery()).isFalse();
    assertThat(sb.unknownIncompatFeatures()).isZero();
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void checksum_isCrc32cFromAllOnesWithoutFinalInversion(int blockSize) throws Exception {
    byte[] bytes = superblockBytes(image(blockSize));
    java.util.zip.CRC32C jdk = new java.util.zip.CRC32C();
    jdk.update(bytes, 0, 0x3FC);
    Ext4Superblock sb = Ext4Superblock.decode("img", bytes);

    assertThat(sb.checksum()).isEqualTo(~(int) jdk.getValue());
    assertThat(sb.checksum()).isEqualTo(Crc32c.update(~0, bytes, 0, 0x3FC));
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void decode_whenMagicIsWrong_namesDeviceAndByteOffset(int blockSize) throws Exception {
    byte[] bytes = superblockBytes(image(blockSize));
    bytes[0x38] = 0x34;
    bytes[0x39] = 0x12;

    assertThatThrownBy(() -> Ext4Superblock.decode("disk.img", bytes))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessage("disk.img: not an ext4 filesystem (bad superblock magic 0x1234 at byte 1080, expected 0xEF53)")
        .satisfies(e -> assertThat(((Ext4FormatException) e).byteOffset()).isEqualTo(1080));
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void decode_whenAByteIsFlipped_reportsChecksumMismatchNotMagic(int blockSize) throws Exception {
    byte[] bytes = superblockBytes(image(blockSize));
    bytes[0x78] ^= 0x01; // volume name

    assertThatThrownBy(() -> Ext4Superblock.decode("disk.img", bytes))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageStartingWith("disk.img: superblock checksum mismatch: stored 0x")
        .satisfies(e -> assertThat(((Ext4FormatException) e).byteOffset()).isEqualTo(1024 + 0x3FC));
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void withNeedsRecovery_togglesOnlyTheFlagAndChecksum(int blockSize) throws Exception {
    byte[] original = superblockBytes(image(blockSize));
    Ext4Superblock sb = Ext4Superblock.decode("img", original);

    byte[] set = sb.withNeedsRecovery(true);
    Ext4Superblock withFlag = Ext4Superblock.decode("img", set);
    assertThat(withFlag.needsRecovery()).isTrue();
    assertThat(withFlag.featureNames()).contains("needs_recovery");
    assertThat(differingOffsets(original, set)).allMatch(i -> (i >= 0x60 && i < 0x64) || i >= 0x3FC);

    byte[] cleared = withFlag.withNeedsRecovery(false);
    assertThat(cleared).isEqualTo(original);
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void withErrorsDetected_setsOnlyTheStateBitAndChecksum_andE2fsckSeesIt(int blockSize) throws Exception {
    Path img = image(blockSize);
    byte[] original = superblockBytes(img);
    Ext4Superblock sb = Ext4Superblock.decode("img", original);
    assertThat(sb.state() & Ext4Superblock.STATE_ERRORS).isZero();

    byte[] marked = sb.withErrorsDetected();
    Ext4Superblock withErrors = Ext4Superblock.decode("img", marked); // checks the checksum
    assertThat(withErrors.state()).isEqualTo(sb.state() | Ext4Superblock.STATE_ERRORS);
    assertThat(differingOffsets(original, marked)).allMatch(i -> (i >= 0x3A && i < 0x3C) || i >= 0x3FC);

    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(img,
        java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(marked), Ext4Superblock.OFFSET);
    }
    assertThat(Ext4Images.runOk("dumpe2fs", "-h", img.toString())).containsPattern("Filesystem state:\\s+clean with errors");
  }

  @ParameterizedTest(name = "{0}-byte blocks")
  @ValueSource(ints = {1024, 4096})
  void checksumSeed_withCsumSeedFeature_isTheStoredSeed(int blockSize) throws Exception {
    Path plain = image(blockSize);
    Ext4Superblock p = Ext4Superblock.decode("img", superblockBytes(plain));
    assertThat(p.checksumSeed()).isEqualTo(Crc32c.update(~0, p.toBytes(), 0x68, 16));

    // tune2fs -U on a metadata_csum_seed filesystem changes the UUID but keeps the seed.
    Path seeded = image(blockSize, "-O", "metadata_csum_seed");
    Ext4Images.runOk("tune2fs", "-U", "random", seeded.toString());
    Ext4Superblock s = Ext4Superblock.decode("img", superblockBytes(seeded));
    assertThat(s.featureNames()).contains("metadata_csum_seed");
    assertThat(s.checksumSeed()).isEqualTo(s.storedChecksumSeed())
        .isNotEqualTo(Crc32c.update(~0, s.toBytes(), 0x68, 16));
  }

  private static java.util.List<Integer> differingOffsets(byte[] a, byte[] b) {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        out.add(i);
      }
    }
    return out;
  }
}
