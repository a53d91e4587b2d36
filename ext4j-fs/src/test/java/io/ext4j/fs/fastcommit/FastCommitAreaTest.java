package io.ext4j.fs.fastcommit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.Crc32c;
import io.ext4j.jbd2.JournalCorruptException;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link FastCommitArea#scan} against areas written the kernel's way by {@link Writer}: every
 * complete fast commit is found, damage ends the area after the last good commit (or is corruption
 * when it hits the first one), and a HEAD of another tid means no fast commits.
 */
@Tag("fast")
class FastCommitAreaTest {
  private static final int INODE_SIZE = 256;

  /** Writes fast commits as the kernel lays them out: HEAD first, PAD before a record that does not fit, TAIL to the block end. */
  static final class Writer {
    final int bs;
    final List<byte[]> blocks = new ArrayList<>();
    final List<Integer> commitEnds = new ArrayList<>(); // area blocks used after each commit
    final List<List<int[]>> records = new ArrayList<>(); // per commit: {block, offset, tag}
    int off;
    int crc;
    List<int[]> current = new ArrayList<>();

    Writer(int bs) {
      this.bs = bs;
      blocks.add(new byte[bs]);
    }

    private byte[] block() {
      return blocks.get(blocks.size() - 1);
    }

    private void fit(int bytes) {
      if (off + bytes <= bs) {
        return;
      }
      if (bs - off >= 4) {
        put(FastCommitTag.PAD, new byte[bs - off - 4], true);
      }
      blocks.add(new byte[bs]);
      off = 0;
    }

    private void put(int tag, byte[] value, boolean record) {
      byte[] b = block();
      ByteBuffer.wrap(b, off, 4).order(ByteOrder.LITTLE_ENDIAN).putShort((short) tag).putShort((short) value.length);
      System.arraycopy(value, 0, b, off + 4, value.length);
      crc = Crc32c.update(crc, b, off, 4 + value.length);
      if (record) {
        current.add(new int[] {blocks.size() - 1, off, tag});
      }
      off += 4 + value.length;
    }

    void record(int tag, byte[] value) {
      fit(4 + value.length);
      put(tag, value, true);
    }

    void head(int tid) {
      record(FastCommitTag.HEAD, le(0, tid));
    }

    void tail(int tid) {
      fit(12);
      byte[] b = block();
      int len = bs - off - 4;
      ByteBuffer bb = ByteBuffer.wrap(b, off, bs - off).order(ByteOrder.LITTLE_ENDIAN);
      bb.putShort((short) FastCommitTag.TAIL).putShort((short) len).putInt(tid);
      int c = Crc32c.update(crc, b, off, 8);
      ByteBuffer.wrap(b, off + 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(c);
      current.add(new int[] {blocks.size() - 1, off, FastCommitTag.TAIL});
      records.add(current);
      current = new ArrayList<>();
      crc = 0;
      commitEnds.add(blocks.size());
      blocks.add(new byte[bs]);
      off = 0;
    }
  }

  static byte[] le(int... words) {
    ByteBuffer b = ByteBuffer.allocate(4 * words.length).order(ByteOrder.LITTLE_ENDIAN);
    for (int w : words) {
      b.putInt(w);
    }
    return b.array();
  }

  /** One random record that is not HEAD or TAIL. */
  static void randomRecord(Writer w, SplittableRandom r) {
    switch (r.nextInt(6)) {
      case 0 -> {
        ByteBuffer v = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        v.putInt(12 + r.nextInt(50)).putInt(r.nextInt(1000)).putShort((short) (1 + r.nextInt(100))).putShort((short) 0).putInt(2000 + r.nextInt(5000));
        w.record(FastCommitTag.ADD_RANGE, v.array());
      }
      case 1 -> w.record(FastCommitTag.DEL_RANGE, le(12 + r.nextInt(50), r.nextInt(1000), 1 + r.nextInt(100)));
      case 2, 3 -> {
        byte[] name = new byte[1 + r.nextInt(255)];
        for (int i = 0; i < name.length; i++) {
          name[i] = (byte) ('a' + r.nextInt(26));
        }
        ByteBuffer v = ByteBuffer.allocate(8 + name.length).order(ByteOrder.LITTLE_ENDIAN);
        v.putInt(2).putInt(12 + r.nextInt(50)).put(name);
        w.record(r.nextBoolean() ? FastCommitTag.CREAT : FastCommitTag.UNLINK, v.array());
      }
      default -> {
        byte[] v = new byte[4 + 160];
        r.nextBytes(v);
        ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 12 + r.nextInt(50));
        w.record(FastCommitTag.INODE, v);
      }
    }
  }

  static Writer area(SplittableRandom r, int bs, int tid, int commits) {
    Writer w = new Writer(bs);
    for (int c = 0; c < commits; c++) {
      if (c == 0) {
        w.head(tid);
      }
      int n = 1 + r.nextInt(12);
      for (int i = 0; i < n; i++) {
        randomRecord(w, r);
      }
      w.tail(tid);
    }
    return w;
  }

  static FastCommitArea.Scan scan(Writer w, int tid) throws JournalCorruptException {
    return FastCommitArea.scan("test", 1000, i -> w.blocks.get(i).clone(), w.blocks.size(), w.bs, tid, INODE_SIZE);
  }

  @Test
  void everyCompleteFastCommitIsFound_withItsRecordsInOrder() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    for (int round = 0; round < 300; round++) {
      int bs = r.nextBoolean() ? 1024 : 4096;
      int tid = r.nextInt();
      int commits = 1 + r.nextInt(8);
      Writer w = area(r, bs, tid, commits);
      FastCommitArea.Scan s = scan(w, tid);
      assertThat(s.commits()).as("seed %d round %d", seed, round).isEqualTo(commits);
      List<int[]> expected = w.records.stream().flatMap(List::stream).toList();
      assertThat(s.tags()).as("seed %d round %d", seed, round).hasSameSizeAs(expected);
      for (int i = 0; i < expected.size(); i++) {
        FastCommitTag t = s.tags().get(i);
        assertThat(new int[] {t.block(), t.offset(), t.tag()}).as("seed %d round %d record %d", seed, round, i).isEqualTo(expected.get(i));
      }
      assertThat(s.blocksUsed()).isEqualTo(w.commitEnds.get(commits - 1));
    }
  }

  @Test
  void damageEndsTheAreaAfterTheLastGoodCommit_andInTheFirstCommitIsCorruption() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    int corrupt = 0;
    int shortened = 0;
    for (int round = 0; round < 400; round++) {
      int bs = 1024;
      int tid = r.nextInt();
      int commits = 1 + r.nextInt(6);
      Writer w = area(r, bs, tid, commits);
      int victim = r.nextInt(commits);
      List<int[]> recs = w.records.get(victim).stream().filter(x -> x[2] != FastCommitTag.PAD).toList();
      int[] rec = recs.get(r.nextInt(recs.size()));
      byte[] b = w.blocks.get(rec[0]);
      int at = rec[1] + 4 + r.nextInt(rec[2] == FastCommitTag.TAIL ? 8 : Math.max(1, Math.min(8, bs - rec[1] - 4)));
      b[at] ^= (byte) (1 << r.nextInt(8));
      if (victim == 0) {
        try {
          FastCommitArea.Scan s = scan(w, tid);
          // a flipped HEAD tid reads as an area of another transaction: nothing, and no error
          assertThat(rec[2]).as("seed %d round %d: only a HEAD flip may pass, got %s", seed, round, s).isEqualTo(FastCommitTag.HEAD);
          assertThat(s.commits()).isZero();
        } catch (JournalCorruptException e) {
          assertThat(e.getMessage()).contains("journal block");
          corrupt++;
        }
      } else {
        FastCommitArea.Scan s = scan(w, tid);
        assertThat(s.commits()).as("seed %d round %d: damage in commit %d", seed, round, victim).isEqualTo(victim);
        shortened++;
      }
    }
    System.out.println("fast-commit area damage (seed " + seed + "): " + corrupt + " refused as corrupt, " + shortened + " ended early");
    assertThat(corrupt).isPositive();
    assertThat(shortened).isPositive();
  }

  @Test
  void anAreaOfAnotherTid_orWithoutHead_holdsNoFastCommits() throws Exception {
    SplittableRandom r = new SplittableRandom(Seeds.seed());
    Writer w = area(r, 4096, 7, 3);
    FastCommitArea.Scan stale = scan(w, 8);
    assertThat(stale.commits()).isZero();
    assertThat(stale.why()).contains("left over");
    Writer zeros = new Writer(1024);
    assertThat(scan(zeros, 1).commits()).isZero();
    assertThat(FastCommitArea.scan("test", 0, i -> new byte[1024], 0, 1024, 1, INODE_SIZE).commits()).isZero();
  }

  @Test
  void aHeadWithUnknownFeatures_isRefused() {
    Writer w = new Writer(1024);
    w.record(FastCommitTag.HEAD, le(1, 5));
    w.tail(5);
    assertThatThrownBy(() -> scan(w, 5)).isInstanceOf(JournalCorruptException.class).hasMessageContaining("features");
  }

  @Test
  void recordsOfAWrongLength_areNamed() throws Exception {
    Writer w = new Writer(1024);
    w.head(3);
    w.record(FastCommitTag.ADD_RANGE, new byte[12]);
    w.tail(3);
    assertThatThrownBy(() -> scan(w, 3)).isInstanceOf(JournalCorruptException.class)
        .hasMessageContaining("ADD_RANGE record at offset 12").hasMessageContaining("expected 16");
  }
}
