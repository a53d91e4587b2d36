package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.Ext4FormatException;
import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class XattrCodecTest {
  private static final int FS_SEED = 0x1234ABCD;

  /** Random distinct entries of random namespaces, names and values (some empty, some ea_inode). */
  static List<XattrEntry> randomEntries(Random rnd, int count, int maxValue, boolean eaInodes) {
    int[] indexes = {1, 2, 3, 4, 6, 7, 8};
    Set<XattrName> seen = new HashSet<>();
    List<XattrEntry> out = new ArrayList<>();
    while (out.size() < count) {
      byte[] suffix = new byte[rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(rnd.nextBoolean() ? 12 : 255)];
      rnd.nextBytes(suffix);
      XattrName n = new XattrName(indexes[rnd.nextInt(indexes.length)], suffix);
      if (!seen.add(n)) {
        continue;
      }
      if (eaInodes && rnd.nextInt(8) == 0) {
        out.add(XattrEntry.inEaInode(n, 1 + rnd.nextInt(1 << 20), rnd.nextInt(1 << 16), rnd.nextInt()));
      } else {
        byte[] v = new byte[rnd.nextInt(5) == 0 ? 0 : rnd.nextInt(maxValue + 1)];
        rnd.nextBytes(v);
        out.add(XattrEntry.of(n, v));
      }
    }
    return out;
  }

  /** What a block decode returns for entries the encoder wrote: sorted, with computed hashes. */
  private static List<XattrEntry> asBlockStoresThem(List<XattrEntry> entries) {
    List<XattrEntry> out = new ArrayList<>();
    for (XattrEntry e : entries) {
      out.add(e.inEaInode() ? e : e.withHash(XattrCodec.entryHash(e.name(), e.value())));
    }
    out.sort(Comparator.comparing(XattrEntry::name, XattrName.BLOCK_ORDER));
    return out;
  }

  @Test
  void inodeArea_roundTripsRandomEntries_inOrderWithHashZero() throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int round = 0; round < 500; round++) {
      int isize = rnd.nextBoolean() ? 256 : 1024;
      int areaOff = 128 + 4 * rnd.nextInt(9);
      List<XattrEntry> entries = randomEntries(rnd, rnd.nextInt(6), 40, true);
      List<XattrEntry> expected = entries.stream().map(e -> e.inEaInode() ? e : e.withHash(0)).toList();
      byte[] inode = new byte[isize];
      rnd.nextBytes(inode);
      byte[] before = inode.clone();
      if (XattrCodec.inodeAreaSize(entries) > isize - areaOff) {
        assertThatThrownBy(() -> XattrCodec.encodeInodeArea(entries, inode, areaOff, isize))
            .isInstanceOf(XattrSpaceException.class);
        assertThat(inode).as("seed %d: nothing written when it does not fit", seed).isEqualTo(before);
        continue;
      }

      XattrCodec.encodeInodeArea(entries, inode, areaOff, isize);

      assertThat(XattrCodec.decodeInodeArea(inode, areaOff, isize, "test inode")).as("seed %d", seed).isEqualTo(expected);
      assertThat(java.util.Arrays.copyOf(inode, areaOff)).as("seed %d: bytes before the area", seed)
          .isEqualTo(java.util.Arrays.copyOf(before, areaOff));
    }
  }

  @Test
  void block_roundTripsRandomEntries_sortedWithComputedHashes_andAValidChecksum() throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int round = 0; round < 300; round++) {
      int bs = 1024 << rnd.nextInt(3);
      long blockNr = rnd.nextLong() >>> 16;
      List<XattrEntry> entries = randomEntries(rnd, rnd.nextInt(12), 300, true);
      int refcount = 1 + rnd.nextInt(1024);
      if (XattrCodec.blockSpaceNeeded(entries) > bs) {
        assertThatThrownBy(() -> XattrCodec.encodeBlock(refcount, entries, bs, blockNr, FS_SEED, true))
            .isInstanceOf(XattrSpaceException.class);
        continue;
      }

      byte[] block = XattrCodec.encodeBlock(refcount, entries, bs, blockNr, FS_SEED, true);
      XattrBlock decoded = XattrCodec.decodeBlock(block, blockNr, FS_SEED, true, "test block");

      List<XattrEntry> expected = asBlockStoresThem(entries);
      assertThat(decoded.entries()).as("seed %d", seed).isEqualTo(expected);
      assertThat(decoded.refcount()).isEqualTo(refcount);
      assertThat(decoded.blocks()).isEqualTo(1);
      assertThat(decoded.storedHash()).as("seed %d", seed)
          .isEqualTo(XattrCodec.blockHash(expected.stream().map(XattrEntry::hash).toList()));
      assertThat(decoded.storedChecksum()).isEqualTo(XattrCodec.blockChecksum(block, blockNr, FS_SEED));
      assertThat(XattrCodec.encodeBlock(refcount, decoded.entries(), bs, blockNr, FS_SEED, true))
          .as("seed %d: re-encoding the decoded block", seed).isEqualTo(block);
    }
  }

  @Test
  void sizes_areExact_oneByteLessDoesNotFit() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int round = 0; round < 200; round++) {
      List<XattrEntry> entries = randomEntries(rnd, 1 + rnd.nextInt(5), 60, false);
      int need = XattrCodec.inodeAreaSize(entries);
      byte[] inode = new byte[128 + need + 4];

      XattrCodec.encodeInodeArea(entries, inode, 128, 128 + need); // fits exactly
      assertThatThrownBy(() -> XattrCodec.encodeInodeArea(entries, inode, 128, 128 + need - 1))
          .isInstanceOfSatisfying(XattrSpaceException.class, e -> {
            assertThat(e.needed()).isEqualTo(need);
            assertThat(e.available()).isEqualTo(need - 1);
          })
          .hasMessage("xattrs need " + need + " bytes but the in-inode xattr area has " + (need - 1));
      assertThat(XattrCodec.blockSpaceNeeded(entries)).isEqualTo(need - 4 + XattrCodec.BLOCK_HEADER);
    }
  }

  @Test
  void encodeBlock_whenEntriesDoNotFit_throwsXattrSpaceException() {
    List<XattrEntry> entries = List.of(XattrEntry.of("user.a", new byte[1000]), XattrEntry.of("user.b", new byte[100]));

    assertThatThrownBy(() -> XattrCodec.encodeBlock(1, entries, 1024, 5, FS_SEED, true))
        .isInstanceOfSatisfying(XattrSpaceException.class, e -> {
          assertThat(e.needed()).isEqualTo(32 + 20 + 20 + 4 + 1000 + 100);
          assertThat(e.available()).isEqualTo(1024);
        });
  }

  @Test
  void encode_rejectsDuplicateNames() {
    List<XattrEntry> twice = List.of(XattrEntry.of("user.a", new byte[1]), XattrEntry.of("user.a", new byte[2]));

    assertThatThrownBy(() -> XattrCodec.encodeBlock(1, twice, 1024, 5, FS_SEED, true)).hasMessage("xattr user.a occurs twice");
    assertThatThrownBy(() -> XattrCodec.encodeInodeArea(twice, new byte[256], 160, 256)).hasMessage("xattr user.a occurs twice");
  }

  @Test
  void encodeInodeArea_ofNoEntries_zeroesTheArea_andDecodesEmpty() throws Exception {
    byte[] inode = new byte[256];
    java.util.Arrays.fill(inode, (byte) 0x5A);

    XattrCodec.encodeInodeArea(List.of(), inode, 160, 256);

    assertThat(java.util.Arrays.copyOfRange(inode, 160, 256)).containsOnly(0);
    assertThat(XattrCodec.decodeInodeArea(inode, 160, 256, "t")).isEmpty();
    assertThat(XattrCodec.decodeInodeArea(new byte[128], 128, 128, "t")).isEmpty();
    assertThat(XattrCodec.inodeAreaSize(List.of())).isZero();
  }

  @Test
  void encodeInodeArea_layout_isMagicTableTerminatorAndValuesFromTheEnd() throws Exception {
    byte[] inode = new byte[256];
    List<XattrEntry> entries = List.of(XattrEntry.of("user.small", "hello".getBytes(StandardCharsets.US_ASCII)),
        XattrEntry.of("trusted.t", "xyz".getBytes(StandardCharsets.US_ASCII)));

    XattrCodec.encodeInodeArea(entries, inode, 160, 256);

    // Bytes e2fsprogs 1.47.0 wrote for the same two attributes (debugfs ea_set on a 256-byte inode).
    assertThat(LittleEndian.le32(inode, 160)).isEqualTo(0xEA020000);
    assertThat(inode[164]).isEqualTo((byte) 5);
    assertThat(inode[165]).isEqualTo((byte) 1);
    assertThat(LittleEndian.le16(inode, 166)).isEqualTo(84);
    assertThat(LittleEndian.le32(inode, 172)).isEqualTo(5);
    assertThat(LittleEndian.le32(inode, 176)).isZero();
    assertThat(new String(inode, 180, 5, StandardCharsets.US_ASCII)).isEqualTo("small");
    assertThat(LittleEndian.le16(inode, 188 + 2)).isEqualTo(80);
    assertThat(LittleEndian.le32(inode, 208)).as("terminator").isZero();
    assertThat(new String(inode, 248, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
    assertThat(new String(inode, 244, 3, StandardCharsets.US_ASCII)).isEqualTo("xyz");
  }

  @Test
  void entryHash_matchesAHashE2fsprogsWrote_andTheSignedVariantIsAccepted() {
    // debugfs ea_set <f> security.selinux ctx stored e_hash 0x36bc7896.
    assertThat(XattrCodec.entryHash(XattrName.parse("security.selinux"), "ctx".getBytes(StandardCharsets.US_ASCII)))
        .isEqualTo(0x36bc7896);

    XattrName high = new XattrName(1, new byte[] {'a', (byte) 0xE9, 'b'});
    byte[] value = {1, 2, 3, 4, 5};
    int unsigned = XattrCodec.entryHash(high, value);
    int signed = Integer.rotateLeft(Integer.rotateLeft(Integer.rotateLeft('a', 5) ^ (byte) 0xE9, 5) ^ 'b', 16) ^ 0x04030201;
    signed = Integer.rotateLeft(signed, 16) ^ 5;
    assertThat(signed).isNotEqualTo(unsigned);
    assertThat(XattrCodec.hashAccepted(unsigned, high, value)).isTrue();
    assertThat(XattrCodec.hashAccepted(signed, high, value)).isTrue();
    assertThat(XattrCodec.hashAccepted(0, high, value)).isTrue();
    assertThat(XattrCodec.hashAccepted(unsigned ^ 1, high, value)).isFalse();
  }

  @Test
  void blockHash_foldsInOrder_andIsZeroWhenAnyEntryHashIsZero() {
    assertThat(XattrCodec.blockHash(List.of())).isZero();
    assertThat(XattrCodec.blockHash(List.of(0x11112222, 0x33334444)))
        .isEqualTo(Integer.rotateLeft(0x11112222, 16) ^ 0x33334444);
    assertThat(XattrCodec.blockHash(List.of(0x11112222, 0, 0x33334444))).isZero();
  }

  @Test
  void eaInodeEntryHash_foldsTheValueHashAsOneWord() {
    XattrName n = XattrName.parse("user.big");
    byte[] word = {0x78, 0x56, 0x34, 0x12};

    assertThat(XattrCodec.eaInodeEntryHash(n, 0x12345678)).isEqualTo(XattrCodec.entryHash(n, word));
  }

  @Test
  void encodeBlock_withoutMetadataCsum_leavesTheChecksumZero() throws Exception {
    byte[] block = XattrCodec.encodeBlock(1, List.of(XattrEntry.of("user.a", new byte[] {1})), 1024, 9, FS_SEED, false);

    assertThat(LittleEndian.le32(block, 0x10)).isZero();
    assertThat(XattrCodec.decodeBlock(block, 9, FS_SEED, false, "t").entries()).hasSize(1);
  }

  // ---- decode failures: one message per check ---------------------------------------------------

  private static byte[] sampleBlock() {
    return XattrCodec.encodeBlock(2, List.of(XattrEntry.of("user.one", new byte[] {1, 2, 3}),
        XattrEntry.of("user.two", new byte[] {4, 5, 6, 7, 8})), 1024, 77, FS_SEED, true);
  }

  private static void assertBlockRejected(byte[] block, boolean verify, long byteOffset, String message) {
    assertThatThrownBy(() -> XattrCodec.decodeBlock(block, 77, FS_SEED, verify, "img xattr block 77"))
        .isInstanceOfSatisfying(Ext4FormatException.class, e -> assertThat(e.byteOffset()).isEqualTo(byteOffset))
        .hasMessage("img xattr block 77: " + message);
  }

  @Test
  void decodeBlock_withBadMagic_saysMagic() {
    byte[] b = sampleBlock();
    b[0] = 1;
    assertBlockRejected(b, true, 77 * 1024, "bad xattr block magic 0xEA020001, expected 0xEA020000");
  }

  @Test
  void decodeBlock_withTwoBlocks_saysHBlocks() {
    byte[] b = sampleBlock();
    b[8] = 2;
    assertBlockRejected(b, false, 77 * 1024 + 8, "xattr block h_blocks is 2, expected 1");
  }

  @Test
  void decodeBlock_withAFlippedValueByte_saysChecksum() {
    byte[] b = sampleBlock();
    b[1023] ^= 1;
    assertThatThrownBy(() -> XattrCodec.decodeBlock(b, 77, FS_SEED, true, "img xattr block 77"))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageStartingWith("img xattr block 77: xattr block checksum mismatch: stored 0x");
    assertThatThrownBy(() -> XattrCodec.decodeBlock(sampleBlock(), 78, FS_SEED, true, "img"))
        .as("the block number is part of the checksum")
        .hasMessageContaining("checksum mismatch");
  }

  @Test
  void decodeBlock_withNameIndexZero_saysSo() {
    byte[] b = sampleBlock();
    b[33] = 0;
    assertBlockRejected(b, false, 77 * 1024 + 32, "xattr entry at block byte 32 has name index 0");
  }

  @Test
  void decodeBlock_withValueOutsideTheBlock_saysWhere() {
    byte[] b = sampleBlock();
    b[32 + 8] = (byte) 0xF0; // e_value_size of the first entry: 0xF0
    b[32 + 9] = 0;
    int offs = LittleEndian.le16(b, 34);
    assertBlockRejected(b, false, 77 * 1024 + 32, "xattr entry user.one at block byte 32: value at block bytes ["
        + offs + ", " + (offs + 0xF0) + ") is outside [76, 1024), after the entry table and inside the area");
  }

  @Test
  void decodeBlock_withValueOverTheEntryTable_saysWhere() {
    byte[] b = sampleBlock();
    b[34] = 60; // e_value_offs of the first entry: inside the second entry (52..72)
    b[35] = 0;
    assertBlockRejected(b, false, 77 * 1024 + 32, "xattr entry user.one at block byte 32: value at block bytes [60, 63)"
        + " is outside [76, 1024), after the entry table and inside the area");
  }

  @Test
  void decodeBlock_withOverlappingValues_saysWhich() {
    byte[] b = sampleBlock();
    int second = LittleEndian.le16(b, 52 + 2); // entries of 20 bytes at 32 and 52
    b[34] = (byte) (second + 2); // first value now starts inside the second's
    b[35] = (byte) ((second + 2) >>> 8);
    b[32 + 12] = 0; // e_hash 0 is accepted, so the overlap is what fails
    b[32 + 13] = 0;
    b[32 + 14] = 0;
    b[32 + 15] = 0;
    assertThatThrownBy(() -> XattrCodec.decodeBlock(b, 77, FS_SEED, false, "img"))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageContaining("xattr values overlap: block bytes [" + second + ", " + (second + 5) + ") of the entry at block byte 52 and ["
            + (second + 2) + ", " + (second + 5) + ") of the entry at block byte 32");
  }

  @Test
  void decodeBlock_withWrongEntryHash_saysHash() {
    byte[] b = sampleBlock();
    b[32 + 12] ^= 1;
    assertThatThrownBy(() -> XattrCodec.decodeBlock(b, 77, FS_SEED, false, "img"))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageContaining("xattr entry user.one at block byte 32: e_hash 0x")
        .hasMessageContaining("is neither 0 nor the hash of its name and value");
  }

  @Test
  void decodeInodeArea_withBadMagic_orNoTerminator_saysWhich() {
    byte[] inode = new byte[256];
    XattrCodec.encodeInodeArea(List.of(XattrEntry.of("user.x", new byte[] {9})), inode, 160, 256);
    byte[] badMagic = inode.clone();
    badMagic[163] = 0x12;
    assertThatThrownBy(() -> XattrCodec.decodeInodeArea(badMagic, 160, 256, "img inode 12"))
        .isInstanceOfSatisfying(Ext4FormatException.class, e -> assertThat(e.byteOffset()).isEqualTo(-1))
        .hasMessage("img inode 12: bad in-inode xattr magic 0x12020000 at inode byte 160, expected 0xEA020000");

    byte[] endless = new byte[256];
    LittleEndian.putLe32(endless, 160, XattrCodec.MAGIC);
    for (int p = 164; p + 20 <= 256; p += 20) {
      endless[p] = 1; // name length 1
      endless[p + 1] = 1; // user.
    }
    endless[244] = 1;
    endless[245] = 1;
    assertThatThrownBy(() -> XattrCodec.decodeInodeArea(endless, 160, 256, "img inode 12"))
        .hasMessage("img inode 12: xattr entry at inode byte 244: its 16-byte header runs past the area end (inode byte 256)");
    endless[244] = 0;
    endless[245] = 0;
    endless[252] = 1;
    assertThatThrownBy(() -> XattrCodec.decodeInodeArea(java.util.Arrays.copyOf(endless, 256), 160, 244, "img inode 12"))
        .hasMessage("img inode 12: xattr entry table runs past the area end (inode byte 244) without its 4-byte"
            + " terminator at inode byte 244");
  }

  @Test
  void entry_rejectsInconsistentEaInodeFields() {
    XattrName n = XattrName.parse("user.a");
    assertThatThrownBy(() -> new XattrEntry(n, new byte[1], 5, 0)).hasMessageContaining("EA inode 5");
    assertThatThrownBy(() -> new XattrEntry(n, new byte[1], 0, 0, 2)).hasMessageContaining("valueSize 2");
    assertThatThrownBy(() -> XattrEntry.inEaInode(n, 0, 5, 0)).hasMessageContaining("nonzero inode");
    assertThat(XattrEntry.of(n, new byte[] {1, 2})).isEqualTo(XattrEntry.of("user.a", new byte[] {1, 2}));
  }
}
