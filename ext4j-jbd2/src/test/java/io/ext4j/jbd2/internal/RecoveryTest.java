package io.ext4j.jbd2.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.JournalCorruptException;
import io.ext4j.jbd2.JournalLog;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.RecoveryResult;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Recovery's three passes on hand-built logs ({@link TestLog}). */
@Tag("fast")
class RecoveryTest {
  static final int V3_64 = JournalFeature.CSUM_V3.mask() | JournalFeature.BIT64.mask() | JournalFeature.REVOKE.mask();
  static final int ASYNC = JournalFeature.ASYNC_COMMIT.mask();

  static Stream<Arguments> formats() {
    Stream.Builder<Arguments> s = Stream.builder();
    for (int bs : new int[] {1024, 4096}) {
      for (int bits : new int[] {0, JournalFeature.BIT64.mask()}) {
        for (int csum : new int[] {0, JournalFeature.CSUM_V2.mask(), JournalFeature.CSUM_V3.mask()}) {
          s.add(Arguments.of(bs, bits | csum | JournalFeature.REVOKE.mask()));
        }
      }
    }
    return s.build();
  }

  private static RecoveryResult recover(TestLog log) throws Exception {
    return Recovery.run(log.device, log.map, log.superblock());
  }

  @ParameterizedTest(name = "bs={0} incompat=0x{1}")
  @MethodSource("formats")
  void recover_replaysCommittedTransactions_inEveryFormat(int bs, int incompat) throws Exception {
    TestLog log = new TestLog(bs, incompat, 1, 7);
    log.tx(7).log(10, log.content(1)).log(11, log.magicContent(2)).commit(100);
    log.tx(8).log(10, log.content(3)).log(12, log.content(4)).commit(101);
    // many tags: more than one descriptor
    TestLog.Tx big = log.tx(9);
    for (int i = 0; i < log.format.tagsPerDescriptor() + 3; i++) {
      big.log(100 + i, log.content(1000 + i));
    }
    big.commit(102);

    RecoveryResult r = recover(log);

    assertThat(log.home(10)).isEqualTo(log.content(3));
    assertThat(log.home(11)).as("escaped block gets its magic back").isEqualTo(log.magicContent(2));
    assertThat(log.home(12)).isEqualTo(log.content(4));
    assertThat(log.home(100 + log.format.tagsPerDescriptor() + 2)).isEqualTo(log.content(1000 + log.format.tagsPerDescriptor() + 2));
    assertThat(r.firstTid()).isEqualTo(7);
    assertThat(r.endTid()).isEqualTo(10);
    assertThat(r.nextTid()).isEqualTo(11);
    assertThat(r.transactionsReplayed()).isEqualTo(3);
    assertThat(r.blocksReplayed()).isEqualTo(4 + log.format.tagsPerDescriptor() + 3);
    assertThat(r.headBlock()).isEqualTo(log.cursor);
    assertThat(r.transactions()).extracting(RecoveryResult.Transaction::tid).containsExactly(7, 8, 9);
  }

  @Test
  void recover_whenJournalClean_readsAndWritesNothing() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 5);
    log.tx(5).log(10, log.content(1)).commit(1);
    JournalSuperblock clean = log.superblock().withTail(5, 0);

    RecoveryResult r = Recovery.run(log.device, log.map, clean);

    assertThat(r.clean()).isTrue();
    assertThat(r.nextTid()).isEqualTo(6);
    assertThat(log.home(10)).isEqualTo(new byte[1024]);
  }

  @Test
  void theScanListener_isToldTheEndTidBeforeAnythingIsWritten_andAFailureThereWritesNothing() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 7);
    log.tx(7).log(10, log.content(1)).commit(100);
    log.tx(8).log(11, log.content(2)).commit(101);
    List<Integer> told = new ArrayList<>();
    RecoveryResult r = Recovery.run(log.device, log.map, log.superblock(), b -> {}, endTid -> {
      assertThat(log.home(10)).as("nothing replayed yet when the listener runs").isEqualTo(new byte[1024]);
      told.add(endTid);
    });
    assertThat(told).containsExactly(9);
    assertThat(r.endTid()).isEqualTo(9);
    assertThat(log.home(11)).isEqualTo(log.content(2));

    TestLog again = new TestLog(1024, V3_64, 1, 7);
    again.tx(7).log(10, again.content(1)).commit(100);
    assertThatThrownBy(() -> Recovery.run(again.device, again.map, again.superblock(), b -> {}, endTid -> {
      throw new java.io.IOException("the fast-commit area is corrupt");
    })).hasMessage("the fast-commit area is corrupt");
    assertThat(again.home(10)).as("a failing listener ends the recovery before the replay").isEqualTo(new byte[1024]);
  }

  @Test
  void recover_whenBlockRevokedThenReused_replaysOnlyTheCopyAfterTheRevoke() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 1);
    log.tx(1).log(100, log.content(1)).log(101, log.content(2)).commit(10);
    log.tx(2).revoke(100, 101).log(50, log.content(3)).commit(11);
    log.tx(3).log(100, log.content(4)).commit(12);

    RecoveryResult r = recover(log);

    assertThat(log.home(100)).isEqualTo(log.content(4));
    assertThat(log.home(101)).as("revoked, never relogged").isEqualTo(new byte[1024]);
    assertThat(r.revokeHits()).isEqualTo(2);
    assertThat(r.transactions().get(1).revokeRecords()).isEqualTo(2);
  }

  @Test
  void recover_whenRevokeIsInTheSameTransaction_skipsThatTransactionsCopy() throws Exception {
    // record.seq >= tid: a revoke in tid T cancels T's own earlier copy too
    TestLog log = new TestLog(1024, V3_64, 1, 1);
    log.tx(1).revoke(100).log(100, log.content(1)).commit(10);

    RecoveryResult r = recover(log);

    assertThat(log.home(100)).isEqualTo(new byte[1024]);
    assertThat(r.revokeHits()).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(ints = {1020, 1021, 1022, 1023})
  void recover_whenLogWrapsAroundTheEnd_followsTheWrap(long start) throws Exception {
    TestLog log = new TestLog(1024, V3_64, start, 40);
    log.tx(40).log(10, log.content(1)).log(11, log.content(2)).log(12, log.content(3)).commit(5);
    log.tx(41).log(13, log.content(4)).revoke(10).commit(6);

    RecoveryResult r = recover(log);

    assertThat(log.cursor).isLessThan(start);
    assertThat(r.endTid()).isEqualTo(42);
    assertThat(log.home(10)).isEqualTo(new byte[1024]);
    assertThat(log.home(12)).isEqualTo(log.content(3));
    assertThat(log.home(13)).isEqualTo(log.content(4));
    assertThat(r.headBlock()).isEqualTo(log.cursor);
  }

  @Test
  void recover_whenTidsWrapPast2To32_comparesTidsModulo() throws Exception {
    TestLog log = new TestLog(4096, V3_64, 1, 0xFFFFFFFE);
    log.tx(0xFFFFFFFE).log(10, log.content(1)).log(11, log.content(2)).commit(1);
    log.tx(0xFFFFFFFF).revoke(10, 11).commit(2);
    log.tx(0).log(11, log.content(3)).commit(3);

    RecoveryResult r = recover(log);

    assertThat(r.endTid()).isEqualTo(1);
    assertThat(r.nextTid()).isEqualTo(2);
    assertThat(r.transactionsReplayed()).isEqualTo(3);
    assertThat(log.home(10)).as("revoked by a later tid across the wrap").isEqualTo(new byte[4096]);
    assertThat(log.home(11)).as("relogged after the revoke").isEqualTo(log.content(3));
  }

  @Test
  void recover_whenCommitBlockMissing_endsBeforeThatTransaction() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 1);
    log.tx(1).log(10, log.content(1)).commit(10);
    log.tx(2).log(10, log.content(2)).writeBody();

    RecoveryResult r = recover(log);

    assertThat(r.endTid()).isEqualTo(2);
    assertThat(log.home(10)).isEqualTo(log.content(1));
  }

  @Test
  void recover_whenCommitBlockTornAfterItsFirstSector_acceptsTheTransaction() throws Exception {
    TestLog log = new TestLog(4096, V3_64, 1, 1);
    TestLog.Tx tx = log.tx(1).log(10, log.content(1)).commit(10);
    ByteBuffer commit = log.readJournal(tx.commitBlock);
    for (int i = 512; i < 4096; i++) {
      commit.put(i, (byte) 0x5A); // the stale tail sectors of a torn write
    }
    log.writeJournal(tx.commitBlock, commit);

    RecoveryResult r = recover(log);

    assertThat(r.endTid()).isEqualTo(2);
    assertThat(log.home(10)).isEqualTo(log.content(1));
  }

  @Test
  void recover_whenSyncCommitChecksumBad_replaysTheEarlierTransactionsThenFails() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 1);
    log.tx(1).log(10, log.content(1)).commit(10);
    TestLog.Tx bad = log.tx(2).log(11, log.content(2)).commit(11);
    corruptHeader(log, bad.commitBlock);
    List<Integer> told = new ArrayList<>();

    assertThatThrownBy(() -> Recovery.run(log.device, log.map, log.superblock(), b -> {}, told::add))
        .isInstanceOf(JournalCorruptException.class)
        .hasMessageContaining("commit block checksum of transaction 2")
        .hasMessageContaining("block " + bad.commitBlock);
    assertThat(told).as("the scan listener is not told the end of a log with a failed commit").isEmpty();
    assertThat(log.home(10)).isEqualTo(log.content(1));
    assertThat(log.home(11)).isEqualTo(new byte[1024]);
  }

  @Test
  void recover_whenAsyncCommitChecksumBad_endsBeforeThatTransaction() throws Exception {
    TestLog log = new TestLog(1024, V3_64 | ASYNC, 1, 1);
    log.tx(1).log(10, log.content(1)).commit(10);
    TestLog.Tx bad = log.tx(2).log(11, log.content(2)).commit(11);
    corruptHeader(log, bad.commitBlock);

    RecoveryResult r = recover(log);

    assertThat(r.endTid()).isEqualTo(2);
    assertThat(log.home(11)).isEqualTo(new byte[1024]);
  }

  @Test
  void recover_whenBadCommitIsOlderThanThePrevious_treatsItAsStaleEnd() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 1);
    log.tx(1).log(10, log.content(1)).commit(100);
    TestLog.Tx stale = log.tx(2).log(11, log.content(2)).commit(50);
    corruptHeader(log, stale.commitBlock);

    RecoveryResult r = recover(log);

    assertThat(r.endTid()).isEqualTo(2);
    assertThat(log.home(11)).isEqualTo(new byte[1024]);
  }

  @Test
  void recover_whenAsyncDataBlockFailsItsChecksum_treatsTheTransactionAsTheEndOfTheLog() throws Exception {
    TestLog log = new TestLog(1024, V3_64 | ASYNC, 1, 1);
    log.tx(1).log(10, log.content(1)).commit(10);
    TestLog.Tx torn = log.tx(2).log(10, log.content(2)).log(11, log.content(3)).commit(11);
    log.tx(3).log(12, log.content(4)).commit(12);
    ByteBuffer data = log.readJournal(torn.dataBlocks.get(1));
    data.put(700, (byte) (data.get(700) ^ 1));
    log.writeJournal(torn.dataBlocks.get(1), data);

    RecoveryResult r = recover(log);

    assertThat(r.endTid()).isEqualTo(2);
    assertThat(log.home(10)).as("no block of the unacknowledged transaction").isEqualTo(log.content(1));
    assertThat(log.home(12)).isEqualTo(new byte[1024]);
  }

  @Test
  void recover_whenSyncDataBlockFailsItsChecksum_replaysTheRestThenFails() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 1);
    TestLog.Tx tx = log.tx(1).log(10, log.content(1)).log(11, log.content(2)).commit(10);
    ByteBuffer data = log.readJournal(tx.dataBlocks.get(0));
    data.put(5, (byte) (data.get(5) ^ 1));
    log.writeJournal(tx.dataBlocks.get(0), data);

    assertThatThrownBy(() -> recover(log)).isInstanceOf(JournalCorruptException.class)
        .hasMessageContaining("data block checksum").hasMessageContaining("fs block 10");
    assertThat(log.home(10)).isEqualTo(new byte[1024]);
    assertThat(log.home(11)).isEqualTo(log.content(2));
  }

  @Test
  void recover_whenStaleBlocksFollowTheEnd_stopsAtTheEnd() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 20);
    log.tx(20).log(10, log.content(1)).commit(10);
    long end = log.cursor;
    // an older lifetime's transaction 7 sits right after the end
    log.tx(7).log(11, log.content(2)).commit(3);

    RecoveryResult r = recover(log);

    assertThat(r.endTid()).isEqualTo(21);
    assertThat(r.headBlock()).isEqualTo(end);
    assertThat(log.home(11)).isEqualTo(new byte[1024]);
  }

  @Test
  void recover_whenDescriptorChecksumBadAndCommitOlder_endsSuccessfully_elseFails() throws Exception {
    for (long commitTime : new long[] {5, 500}) {
      TestLog log = new TestLog(1024, V3_64, 1, 1);
      log.tx(1).log(10, log.content(1)).commit(100);
      TestLog.Tx garbage = log.tx(2).log(11, log.content(2)).commit(commitTime);
      ByteBuffer d = log.readJournal(garbage.descriptorBlock);
      d.put(1000, (byte) 0x77);
      log.writeJournal(garbage.descriptorBlock, d);

      if (commitTime < 100) {
        assertThat(recover(log).endTid()).as("stale from lazy init").isEqualTo(2);
        assertThat(log.home(11)).isEqualTo(new byte[1024]);
      } else {
        assertThatThrownBy(() -> recover(log)).isInstanceOf(JournalCorruptException.class)
            .hasMessageContaining("transaction 2");
      }
    }
  }

  @Test
  void recover_isIdempotent_evenAfterACrashThatLostSomeReplayWrites() throws Exception {
    long seed = Long.getLong("ext4j.seed", System.nanoTime());
    System.out.println("recover_isIdempotent seed=" + seed + " (replay with -Dext4j.seed=" + seed + ")");
    Random rnd = new Random(seed);
    TestLog log = new TestLog(1024, V3_64, 1, 1);
    for (int t = 1; t <= 6; t++) {
      TestLog.Tx tx = log.tx(t);
      for (int i = 0; i < 5; i++) {
        tx.log(10 + rnd.nextInt(20), log.content(rnd.nextInt()));
      }
      if (rnd.nextBoolean()) {
        tx.revoke(10 + rnd.nextInt(20));
      }
      tx.commit(t);
    }
    MemoryBlockDevice before = log.device.snapshot("before");
    recover(log);
    byte[] once = log.device.toByteArray();
    recover(log);
    assertThat(log.device.toByteArray()).as("recovering twice").isEqualTo(once);

    // a crash during replay: any subset of home writes was lost
    MemoryBlockDevice crashed = before.snapshot("crashed");
    for (long b = 10; b < 30; b++) {
      crashed.write(b, ByteBuffer.wrap(rnd.nextBoolean() ? log.home(b) : before.block(b)));
    }
    Recovery.run(crashed, log.map, log.superblock());
    assertThat(crashed.toByteArray()).isEqualTo(once);
  }

  @Test
  void markEmpty_writesStartZeroAndTheNextTid_keepingTheRestOfBlockZero() throws Exception {
    TestLog log = new TestLog(4096, V3_64, 1, 9).writeSuperblock();
    ByteBuffer block0 = log.readJournal(0);
    block0.put(3000, (byte) 42);
    log.writeJournal(0, block0);
    log.tx(9).log(10, log.content(1)).commit(1);
    JournalSuperblock sb = JournalRecovery.readSuperblock(log.device, log.map);
    RecoveryResult r = JournalRecovery.recover(log.device, log.map, sb);

    JournalRecovery.markEmpty(log.device, log.map, sb, r);

    JournalSuperblock after = JournalRecovery.readSuperblock(log.device, log.map);
    assertThat(after.start()).isZero();
    assertThat(after.sequence()).isEqualTo(11);
    assertThat(after.head()).isEqualTo(sb.head());
    assertThat(log.readJournal(0).get(3000)).isEqualTo((byte) 42);
    assertThat(JournalLog.read(log.device, log.map).transactions()).isEmpty();
  }

  @Test
  void journalLog_listsLikeLogdump_includingAnUncommittedTail() throws Exception {
    TestLog log = new TestLog(1024, V3_64, 1, 3).writeSuperblock();
    TestLog.Tx a = log.tx(3).revoke(77).log(10, log.magicContent(1)).commit(1);
    TestLog.Tx b = log.tx(4).log(11, log.content(2)).writeBody();

    JournalLog l = JournalLog.read(log.device, log.map);

    assertThat(l.transactions()).hasSize(2);
    JournalLog.Transaction t3 = l.transactions().get(0);
    assertThat(t3.tid()).isEqualTo(3);
    assertThat(t3.revokeBlocks()).containsExactly(1L);
    assertThat(t3.revoked()).containsExactly(new JournalLog.RevokedBlock(77, 1));
    assertThat(t3.descriptorBlocks()).containsExactly(a.descriptorBlock);
    assertThat(t3.blocks()).containsExactly(new JournalLog.TaggedBlock(10, a.dataBlocks.get(0), 1 | 8));
    assertThat(t3.commitBlock()).isEqualTo(a.commitBlock);
    assertThat(l.transactions().get(1).committed()).isFalse();
    assertThat(l.transactions().get(1).blocks()).containsExactly(new JournalLog.TaggedBlock(11, b.dataBlocks.get(0), 8));
    assertThat(l.endReason()).contains("no magic number at block " + log.cursor);
  }

  private static void corruptHeader(TestLog log, long journalBlock) throws Exception {
    ByteBuffer c = log.readJournal(journalBlock);
    c.put(40, (byte) (c.get(40) ^ 0x10)); // inside the first sector: not a torn write
    log.writeJournal(journalBlock, c);
  }
}
