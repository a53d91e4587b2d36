package io.ext4j.jbd2.format;

import io.ext4j.block.Crc32c;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.jbd2.JournalCorruptException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Round trips and checksum checks of the descriptor, revoke and commit codecs in every format
 * (32/64-bit × no/v2/v3 checksums × 1 KiB/4 KiB blocks), each over many seeded random cases; a
 * failure names its seed, replayed with {@code -Dext4j.seed=…}.
 */
@Tag("fast")
class BlockCodecsTest {
  static final long SEED = Long.getLong("ext4j.seed", System.nanoTime());
  static final byte[] UUID = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
  static final int CASES = 40;

  static Stream<LogFormat> formats() {
    Stream.Builder<LogFormat> out = Stream.builder();
    for (int bs : new int[] {1024, 4096}) {
      for (int bits : new int[] {0, JournalFeature.BIT64.mask()}) {
        for (int csum : new int[] {0, JournalFeature.CSUM_V2.mask(), JournalFeature.CSUM_V3.mask()}) {
          out.add(LogFormat.of(bs, bits | csum, UUID));
        }
      }
    }
    return out.build();
  }

  private static long homeBlock(LogFormat f, Random r) {
    return f.bit64() ? r.nextLong() >>> 16 : Integer.toUnsignedLong(r.nextInt());
  }

  private static String seed() {
    return "seed " + SEED + " (replay with -Dext4j.seed=" + SEED + ")";
  }

  @ParameterizedTest
  @MethodSource("formats")
  void descriptor_roundTripsTags(LogFormat f) {
    Random r = new Random(SEED);
    for (int c = 0; c < CASES; c++) {
      int count = 1 + r.nextInt(f.tagsPerDescriptor());
      List<BlockTag> tags = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int csum = switch (f.checksumVersion()) {
          case 3 -> r.nextInt();
          case 2 -> r.nextInt() & 0xFFFF;
          default -> 0;
        };
        tags.add(new BlockTag(homeBlock(f, r), r.nextBoolean() ? BlockTag.FLAG_ESCAPE : 0, csum));
      }
      int tid = r.nextInt();

      ByteBuffer b = DescriptorBlock.encode(f, tid, tags);
      List<BlockTag> back = DescriptorBlock.decodeTags(f, b);

      assertThat(JournalHeader.peek(b)).as(seed()).isEqualTo(new JournalHeader(JournalHeader.MAGIC, JournalHeader.TYPE_DESCRIPTOR, tid));
      assertThat(back).as(seed()).hasSize(count);
      for (int i = 0; i < count; i++) {
        BlockTag want = tags.get(i);
        BlockTag got = back.get(i);
        assertThat(got.fsBlock()).as(seed()).isEqualTo(want.fsBlock());
        assertThat(got.checksum()).isEqualTo(want.checksum());
        assertThat(got.escaped()).isEqualTo(want.escaped());
        assertThat(got.last()).isEqualTo(i == count - 1);
        assertThat((got.flags() & BlockTag.FLAG_SAME_UUID) != 0).isEqualTo(i > 0);
      }
      assertThat(DescriptorBlock.tailMatches(f, b)).isTrue();
    }
  }

  @ParameterizedTest
  @MethodSource("formats")
  void tailChecksum_detectsAnyFlippedBit(LogFormat f) {
    Random r = new Random(SEED);
    for (int c = 0; c < CASES; c++) {
      ByteBuffer b = DescriptorBlock.encode(f, 5, List.of(new BlockTag(1234, 0, 0)));
      int at = r.nextInt(f.blockSize() * 8);
      b.put(at / 8, (byte) (b.get(at / 8) ^ (1 << (at % 8))));

      assertThat(DescriptorBlock.tailMatches(f, b)).as(seed()).isEqualTo(!f.checksummed());
      if (f.checksummed()) {
        assertThatThrownBy(() -> DescriptorBlock.verifyTail(f, b, "dev", 7, "descriptor"))
            .isInstanceOf(JournalCorruptException.class).hasMessageContaining("block 7: descriptor block checksum");
      }
    }
  }

  @ParameterizedTest
  @MethodSource("formats")
  void revoke_roundTripsRecords(LogFormat f) throws Exception {
    Random r = new Random(SEED);
    for (int c = 0; c < CASES; c++) {
      long[] blocks = new long[1 + r.nextInt(f.revokeRecordsPerBlock())];
      for (int i = 0; i < blocks.length; i++) {
        blocks[i] = homeBlock(f, r);
      }

      ByteBuffer b = RevokeBlock.encode(f, 9, blocks, 0, blocks.length);

      assertThat(RevokeBlock.decode(f, b, "dev", 3)).as(seed()).containsExactly(blocks);
      assertThat(DescriptorBlock.tailMatches(f, b)).isTrue();
      assertThat(b.getInt(12)).isEqualTo(RevokeBlock.HEADER_BYTES + blocks.length * f.revokeRecordBytes());
    }
  }

  @ParameterizedTest
  @MethodSource("formats")
  void revoke_recordCountBeyondTheBlockIsCorrupt_belowTheHeaderMeansNoRecords(LogFormat f) throws Exception {
    ByteBuffer b = RevokeBlock.encode(f, 9, new long[] {1}, 0, 1);
    b.putInt(12, f.blockSize() - f.tailBytes() + 1);
    assertThatThrownBy(() -> RevokeBlock.decode(f, b, "dev", 3)).isInstanceOf(JournalCorruptException.class)
        .hasMessageContaining("r_count");
    b.putInt(12, 8);
    assertThat(RevokeBlock.decode(f, b, "dev", 3)).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("formats")
  void commit_roundTripsAndChecks(LogFormat f) {
    Random r = new Random(SEED);
    for (int c = 0; c < CASES; c++) {
      int tid = r.nextInt();
      long sec = r.nextLong();
      int nsec = r.nextInt();
      ByteBuffer b = CommitBlock.encode(f, tid, sec, nsec);

      CommitBlock.Commit got = CommitBlock.decode(f, b);

      assertThat(got).as(seed()).isEqualTo(new CommitBlock.Commit(tid, sec, nsec,
          f.checksummed() ? CommitBlock.Check.OK : CommitBlock.Check.UNCHECKED));
    }
  }

  @ParameterizedTest
  @MethodSource("formats")
  void commit_tornAfterTheFirstSector_isTornOk_butAFlipInTheHeaderIsBad(LogFormat f) {
    if (!f.checksummed()) {
      return;
    }
    Random r = new Random(SEED);
    for (int c = 0; c < CASES; c++) {
      byte junk = (byte) (1 + r.nextInt(255));
      byte[] tornBlock = new byte[f.blockSize()];
      ByteBuffer torn = CommitBlock.encode(f, 3, 100, 5, tornBlock);
      Arrays.fill(tornBlock, 512, f.blockSize(), junk);
      int headerByte = 12 + r.nextInt(CommitBlock.HEADER_BYTES - 12);
      ByteBuffer flipped = CommitBlock.encode(f, 3, 100, 5);
      flipped.put(headerByte, (byte) (flipped.get(headerByte) ^ 0x01));

      assertThat(CommitBlock.decode(f, torn).check()).as(seed()).isEqualTo(CommitBlock.Check.TORN_OK);
      assertThat(CommitBlock.decode(f, flipped).check()).as(seed() + " byte " + headerByte).isEqualTo(CommitBlock.Check.BAD);
    }
  }

  @ParameterizedTest
  @MethodSource("formats")
  void dataBlockChecksum_isCrcOfTheTidThenTheBlock_andTagsCheckIt(LogFormat f) {
    Random r = new Random(SEED);
    for (int c = 0; c < CASES; c++) {
      int tid = r.nextInt();
      byte[] data = new byte[f.blockSize()];
      r.nextBytes(data);
      int expected = Crc32c.update(Crc32c.update(f.checksumSeed(), ByteBuffer.allocate(4).putInt(tid).array()), data);
      int sum = f.dataBlockChecksum(tid, ByteBuffer.wrap(data));
      assertThat(sum).as(seed()).isEqualTo(expected);
      BlockTag tag = new BlockTag(1, 0, f.checksumVersion() == 2 ? sum & 0xFFFF : sum);
      assertThat(DescriptorBlock.tagChecksumMatches(f, tag, tid, ByteBuffer.wrap(data))).isTrue();
      data[r.nextInt(data.length)] ^= 1;
      assertThat(DescriptorBlock.tagChecksumMatches(f, tag, tid, ByteBuffer.wrap(data))).as(seed())
          .isEqualTo(f.checksumVersion() == 0);
    }
  }

  @Test
  void superblock_roundTrips_andItsChecksumCoversTheWholeKilobyte() throws Exception {
    Random r = new Random(SEED);
    int incompat = JournalFeature.CSUM_V3.mask() | JournalFeature.BIT64.mask();
    for (int c = 0; c < CASES; c++) {
      int seq = r.nextInt();
      long start = 1L + r.nextInt(1023);
      JournalSuperblock sb = JournalSuperblock.create(4096, 2048, UUID, 0, incompat).withTail(seq, start);

      JournalSuperblock back = JournalSuperblock.decode("dev", sb.encode(), 4096, 2048);

      assertThat(back.sequence()).as(seed()).isEqualTo(seq);
      assertThat(back.start()).isEqualTo(start);
      assertThat(back.logFormat().checksumVersion()).isEqualTo(3);
      byte[] bad = sb.encode();
      int at = r.nextInt(1024);
      if (at >= 0xFC && at < 0x100) {
        continue;
      }
      bad[at] ^= 4;
      assertThatThrownBy(() -> JournalSuperblock.decode("dev", bad, 4096, 2048)).as(seed() + " byte " + at)
          .isInstanceOf(JournalCorruptException.class);
    }
  }

  @Test
  void fastCommitArea_isCutFromTheLogsEnd_andMustLeaveAFullSizedLog() throws Exception {
    int fc = JournalFeature.FAST_COMMIT.mask();
    JournalSuperblock byDefault = JournalSuperblock.decode("dev", JournalSuperblock.create(4096, 2048, UUID, 0, fc).encode(), 4096, 2048);
    assertThat(byDefault.fastCommitAreaBlocks()).as("s_num_fc_blks 0 means 256").isEqualTo(256);
    assertThat(byDefault.logEnd()).isEqualTo(2048 - 256);
    assertThat(byDefault.fastCommitFirst()).as("the block after the log's end").isEqualTo(2048 - 256 + 1);
    JournalSuperblock plain = JournalSuperblock.decode("dev", JournalSuperblock.create(4096, 2048, UUID, 0, 0).encode(), 4096, 2048);
    assertThat(plain.logEnd()).as("without the feature the whole journal is log").isEqualTo(2048);

    byte[] sized = JournalSuperblock.create(4096, 2048, UUID, 0, fc).encode();
    java.nio.ByteBuffer.wrap(sized).putInt(0x54, 64); // no checksum feature: no checksum to redo
    assertThat(JournalSuperblock.decode("dev", sized, 4096, 2048).logEnd()).isEqualTo(2048 - 64);

    byte[] tooBig = JournalSuperblock.create(4096, 2048, UUID, 0, fc).encode();
    java.nio.ByteBuffer.wrap(tooBig).putInt(0x54, 1100);
    assertThatThrownBy(() -> JournalSuperblock.decode("dev", tooBig, 4096, 2048)).isInstanceOf(JournalCorruptException.class)
        .hasMessageContaining("fast-commit length");
    byte[] startInArea = JournalSuperblock.create(4096, 2048, UUID, 0, fc).withTail(5, 1900).encode();
    assertThatThrownBy(() -> JournalSuperblock.decode("dev", startInArea, 4096, 2048)).isInstanceOf(JournalCorruptException.class)
        .hasMessageContaining("fast-commit area");
  }
}
