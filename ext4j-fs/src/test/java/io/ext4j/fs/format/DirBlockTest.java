package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The allocation-free paths of {@link DirBlock} — {@code find}, {@code insert}, {@code hasRoom}, {@code remove} —
 * against what {@link DirBlock#parse} says of the same block, on blocks grown and thinned by random
 * inserts and removes (1 KiB and 4 KiB, with and without a checksum tail).
 */
@Tag("fast")
class DirBlockTest {
  @Test
  void findInsertAndHasRoom_agreeWithParse_onRandomBlocks() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 400; round++) {
      int bs = r.nextBoolean() ? 1024 : 4096;
      boolean tail = r.nextBoolean();
      int usable = tail ? bs - DirBlock.TAIL_SIZE : bs;
      byte[] b = new byte[bs];
      DirBlock.initEmpty(b, bs, tail ? 7 : null);
      List<byte[]> live = new ArrayList<>();
      for (int op = 0; op < 200; op++) {
        String at = "seed " + seed + " round " + round + " op " + op;
        if (!live.isEmpty() && r.nextInt(3) == 0) {
          byte[] gone = live.remove(r.nextInt(live.size()));
          int off = DirBlock.find(b, bs, usable, gone);
          byte[] expected = removeByParse(b.clone(), bs, usable, off);
          DirBlock.remove(b, bs, usable, off);
          assertThat(b).as("%s: remove changes what a removal by parse's entries changes", at).isEqualTo(expected);
          assertThat(DirBlock.find(b, bs, usable, gone)).as(at).isEqualTo(-1);
          continue;
        }
        byte[] name = name(r, op);
        boolean roomBefore = roomByParse(b, bs, usable, name.length);
        assertThat(DirBlock.hasRoom(b, bs, usable, name.length)).as(at).isEqualTo(roomBefore);
        long ino = 11L + op;
        int off = DirBlock.insert(b, bs, usable, name, ino, 1);
        assertThat(off >= 0).as("%s: insert succeeds exactly when parse sees room", at).isEqualTo(roomBefore);
        if (off >= 0) {
          live.add(name);
          assertThat(DirBlock.find(b, bs, usable, name)).as(at).isEqualTo(off);
          assertThat(DirBlock.inodeAt(b, off)).isEqualTo(ino);
          assertThat(DirBlock.typeAt(b, off)).isEqualTo(1);
        }
        for (byte[] n : live) {
          assertThat(DirBlock.find(b, bs, usable, n)).as(at).isEqualTo(findByParse(b, bs, usable, n));
          // Near misses of the same length: the last byte differs, or only an earlier one does.
          for (int i : new int[] {n.length - 1, 0}) {
            byte[] near = n.clone();
            near[i]++;
            assertThat(DirBlock.find(b, bs, usable, near)).as("%s: %s", at, new String(near, StandardCharsets.UTF_8)).isEqualTo(findByParse(b, bs, usable, near));
          }
        }
        assertThat(DirBlock.find(b, bs, usable, ("absent-" + op).getBytes(StandardCharsets.UTF_8))).as(at).isEqualTo(-1);
      }
      assertThat(DirBlock.parse(b, bs, usable).stream().filter(e -> !e.isFree()).count()).isEqualTo(live.size());
    }
  }

  @Test
  void find_refusesABlockWhoseFirstRecordIsTooShort() {
    byte[] b = new byte[1024];
    DirBlock.initEmpty(b, 1024, null);
    DirBlock.putRecLen(b, 0, 4, 1024);
    assertThatThrownBy(() -> DirBlock.find(b, 1024, 1024, "x".getBytes(StandardCharsets.UTF_8))).isInstanceOf(DirBlock.Malformed.class)
        .hasMessageContaining("rec_len 4");
    assertThatThrownBy(() -> DirBlock.hasRoom(b, 1024, 1024, 1)).isInstanceOf(DirBlock.Malformed.class);
  }

  /** Removal spelled out over parse's entries: the record joins the one before it, or the first entry's inode becomes 0. */
  private static byte[] removeByParse(byte[] b, int bs, int usable, int off) throws DirBlock.Malformed {
    List<DirBlock.Entry> entries = DirBlock.parse(b, bs, usable);
    for (int i = 0; i < entries.size(); i++) {
      if (entries.get(i).offset() == off) {
        if (i == 0) {
          Arrays.fill(b, off, off + 4, (byte) 0);
        } else {
          DirBlock.putRecLen(b, entries.get(i - 1).offset(), entries.get(i - 1).recLen() + entries.get(i).recLen(), bs);
        }
        return b;
      }
    }
    throw new AssertionError("no entry at " + off);
  }

  @Test
  void remove_refusesAnOffsetNoEntryStartsAt() {
    byte[] b = new byte[1024];
    DirBlock.initDots(b, 1024, 2, 2, true, null);
    assertThatThrownBy(() -> DirBlock.remove(b, 1024, 1024, 16)).isInstanceOf(DirBlock.Malformed.class)
        .hasMessageContaining("no directory entry at offset 16");
  }

  static byte[] name(SplittableRandom r, int op) {
    int len = r.nextInt(4) == 0 ? 1 + r.nextInt(255) : 1 + r.nextInt(20);
    byte[] n = new byte[len];
    for (int i = 0; i < len; i++) {
      n[i] = (byte) ('a' + r.nextInt(26));
    }
    byte[] id = Integer.toString(op).getBytes(StandardCharsets.UTF_8);
    System.arraycopy(id, 0, n, 0, Math.min(id.length, len)); // unique within a round (ops differ)
    return len >= id.length ? n : id;
  }

  static boolean roomByParse(byte[] b, int bs, int usable, int nameLen) throws DirBlock.Malformed {
    int need = DirBlock.minRecLen(nameLen);
    for (DirBlock.Entry e : DirBlock.parse(b, bs, usable)) {
      int used = e.isFree() ? 0 : DirBlock.minRecLen(e.name().length);
      if (e.recLen() - used >= need) {
        return true;
      }
    }
    return false;
  }

  static int findByParse(byte[] b, int bs, int usable, byte[] name) throws DirBlock.Malformed {
    for (DirBlock.Entry e : DirBlock.parse(b, bs, usable)) {
      if (!e.isFree() && Arrays.equals(e.name(), name)) {
        return e.offset();
      }
    }
    return -1;
  }
}
