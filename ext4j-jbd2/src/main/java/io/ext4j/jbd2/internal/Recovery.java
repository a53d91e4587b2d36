package io.ext4j.jbd2.internal;

import io.ext4j.block.BlockDevice;
import io.ext4j.jbd2.JournalCorruptException;
import io.ext4j.jbd2.JournalFailedCommitException;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.RecoveryResult;
import io.ext4j.jbd2.format.BlockTag;
import io.ext4j.jbd2.format.CommitBlock;
import io.ext4j.jbd2.format.Crc32Be;
import io.ext4j.jbd2.format.DescriptorBlock;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalHeader;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.jbd2.format.LogFormat;
import io.ext4j.jbd2.format.RevokeBlock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Journal recovery: replays the committed transactions of a dirty journal into their home blocks, in
 * the three passes of jbd2's {@code recovery.c}. The engine calls {@link #run} at open; the CLI's
 * {@code journal recover} calls it on an image. Afterwards the caller marks the journal empty with
 * {@link #markEmpty} (recovery itself never writes the log or the journal superblock).
 *
 * <h2>The walk</h2>
 * Every pass starts at {@code s_start} expecting tid {@code s_sequence} and reads log blocks in order,
 * wrapping from {@code s_maxlen - 1} to {@code s_first}. A block without the jbd2 magic, or whose
 * header carries another tid, or has an unknown type, ends the walk. Descriptor and revoke blocks
 * belong to the expected tid; a commit block completes it and the walk expects the next tid. A
 * descriptor's tags each consume the following log block (its data block).
 *
 * <h2>SCAN: where the log ends</h2>
 * <ul>
 *   <li>A descriptor or revoke block whose tail checksum fails is not yet an error: it may be garbage
 *       from an earlier journal lifetime (lazy journal init). The next commit block decides: if its
 *       {@code h_commit_sec} is older than the last good commit, the block is stale and the log ends
 *       successfully before this tid; otherwise the journal is corrupt ({@link JournalCorruptException}).
 *   <li>A commit block is valid if its whole-block checksum matches, or if only the checksum of its
 *       60-byte header followed by zeros matches: a torn commit block whose first sector landed
 *       (everything before it was flushed first, so the transaction is whole).
 *   <li>A commit block that fails both: older than the last good commit ⇒ stale, the log ends here,
 *       success. Otherwise the log ends before this tid, and without ASYNC_COMMIT this is a failed
 *       commit: a commit block written after a flush cannot be bad, so the journal is corrupt. The
 *       earlier transactions are still replayed (as jbd2 does), then {@link #run} throws.
 *   <li><b>Deviation from jbd2 (async commit).</b> With ASYNC_COMMIT the commit block is written
 *       together with the data blocks, without a flush between them, so a commit block may land
 *       while a data block does not. Such a transaction was never acknowledged (the flush that
 *       acknowledges it did not complete). jbd2 only notices the bad data block during REPLAY and
 *       fails recovery with {@code -EFSBADCRC} after replaying the rest. ext4j instead verifies, in
 *       SCAN, the tag checksum of every data block of an async-commit journal with v2/v3 checksums,
 *       and a transaction with a mismatching data block ends the log (like a bad async commit
 *       block): it and everything after it are not replayed, and recovery succeeds.
 *   <li>Legacy v1 checksums ({@code COMPAT_CHECKSUM}, what the kernel writes for {@code
 *       journal_checksum} on a file system without metadata_csum): a CRC ({@link Crc32Be}) chained
 *       from {@code ~0} over every descriptor and logged data block of a transaction must match its
 *       commit block, or the commit block must carry no v1 checksum at all. A mismatch older than
 *       the last good commit is stale (the log ends, success); otherwise, without ASYNC_COMMIT, a
 *       failed commit; with it, the log ends before that transaction — unless a later commit block
 *       follows, which makes it a failed commit after all (as jbd2 walks on to find out).
 *   <li>Otherwise walking stops once the end is fixed.
 * </ul>
 * A failed commit replays the transactions before it and then throws
 * {@link JournalFailedCommitException} carrying what was replayed.
 *
 * <h2>REVOKE</h2>
 * Every revoke record of transactions {@code [s_sequence, end)} maps its home block to the newest tid
 * that revoked it.
 *
 * <h2>REPLAY</h2>
 * For each tag of transactions {@code [s_sequence, end)}: skip it if a revoke record for its block has
 * {@code record.tid >= tag's tid} (wraparound-safe); skip it and remember the error if its tag checksum
 * mismatches; otherwise copy the logged block to its home block (a filesystem block number, which is
 * the device block number), restoring the magic in the first word when the tag has ESCAPE. A
 * descriptor whose tail checksum fails is fatal here. Several copies of one home block are written in
 * log order, so the newest wins.
 *
 * <h2>Durability and idempotence</h2>
 * When {@link #run} returns, every replayed home block has been flushed. Recovery only reads the log
 * and writes home blocks with contents taken from the log, so a crash during replay followed by
 * another recovery yields the same home blocks. If a tag checksum failed (possible only without async
 * commit, see above) or the commit was a failed sync commit, {@code run} flushes what it replayed and
 * then throws {@link JournalCorruptException}; the journal must then not be marked empty.
 */
public final class Recovery {
  private final String device;
  private final BlockDevice dev;
  private final LogBlocks log;
  private final LogFormat format;
  private final JournalSuperblock sb;
  private final boolean asyncCommit;
  private LongConsumer homeWritten = b -> {}; // set before the walk; called by the recovering thread

  private Recovery(BlockDevice device, JournalMap map, JournalSuperblock sb) {
    this.dev = device;
    this.device = device.name();
    this.log = new LogBlocks(device, map, sb);
    this.format = sb.logFormat();
    this.sb = sb;
    this.asyncCommit = sb.has(JournalFeature.ASYNC_COMMIT);
  }

  /**
   * Recovers the journal described by {@code sb} (already decoded and validated): SCAN, REVOKE and
   * REPLAY, then a flush of {@code device}. A clean journal ({@code s_start == 0}) is left alone.
   *
   * @param device the device holding the home blocks and, through {@code map}, the journal; its
   *     block size must be the journal's
   * @param map journal block → device block
   * @param sb the journal superblock as read from journal block 0
   * @return what was replayed; {@link RecoveryResult#nextTid()} is the tid to continue with
   * @throws JournalCorruptException when the log is corrupt (the message names the journal block and
   *     the check); earlier transactions may have been replayed and flushed
   * @throws IOException when the device fails
   */
  public static RecoveryResult run(BlockDevice device, JournalMap map, JournalSuperblock sb) throws IOException {
    return run(device, map, sb, b -> {});
  }

  /**
   * {@link #run(BlockDevice, JournalMap, JournalSuperblock)}, telling {@code homeWritten} each home
   * block right after it is written (the journal invalidates it in a block cache that may hold an
   * older copy), in the recovering thread.
   */
  public static RecoveryResult run(BlockDevice device, JournalMap map, JournalSuperblock sb, LongConsumer homeWritten)
      throws IOException {
    return run(device, map, sb, homeWritten, endTid -> {});
  }

  /**
   * {@link #run(BlockDevice, JournalMap, JournalSuperblock, LongConsumer)}, telling {@code scanned}
   * where the log ends once SCAN has read it and before anything is written — unless SCAN found a
   * failed sync commit (then recovery replays what comes before it and throws, as without the
   * listener). An exception from {@code scanned} ends the recovery with nothing written. One scan
   * of the log serves both.
   */
  public static RecoveryResult run(BlockDevice device, JournalMap map, JournalSuperblock sb, LongConsumer homeWritten,
      io.ext4j.jbd2.JournalRecovery.Scanned scanned) throws IOException {
    if (!sb.needsRecovery()) {
      return new RecoveryResult(true, sb.sequence(), sb.sequence(), sb.head(), 0, 0, List.of());
    }
    Recovery r = new Recovery(device, map, sb);
    r.homeWritten = homeWritten;
    return r.recover(scanned);
  }

  /**
   * Scans the log without writing anything: where the log ends and which transactions recovery
   * would replay (counts of replayed blocks and revoke hits are 0). Fails like {@link #run} on a
   * corrupt log, including a failed sync commit.
   */
  public static RecoveryResult scan(BlockDevice device, JournalMap map, JournalSuperblock sb) throws IOException {
    if (!sb.needsRecovery()) {
      return new RecoveryResult(true, sb.sequence(), sb.sequence(), sb.head(), 0, 0, List.of());
    }
    Recovery r = new Recovery(device, map, sb);
    Scan scan = r.scanPass();
    List<RecoveryResult.Transaction> txs = new ArrayList<>();
    for (TxBounds t : scan.transactions) {
      txs.add(new RecoveryResult.Transaction(t.tid, t.firstBlock, t.commitBlock, 0, 0, 0));
    }
    RecoveryResult result = new RecoveryResult(false, sb.sequence(), scan.endTid, scan.headBlock, 0, 0, txs);
    if (scan.failedCommit != null) {
      throw scan.failedCommit.exception(device.name(), result);
    }
    return result;
  }

  /**
   * Marks the journal empty after a successful recovery: writes the superblock with
   * {@code s_start = 0} and {@code s_sequence = nextTid} into journal block 0 (keeping the rest of
   * that block), then flushes. Leaves every other field, {@code s_head} included, as it was — what
   * {@code e2fsck} writes after replaying.
   *
   * <p>Durability: on return the clean superblock is on stable storage.
   *
   * @return the superblock as written
   */
  public static JournalSuperblock markEmpty(BlockDevice device, JournalMap map, JournalSuperblock sb, int nextTid)
      throws IOException {
    JournalSuperblock clean = sb.withTail(nextTid, 0);
    LogBlocks.writeSuperblock(device, map, clean);
    device.flush();
    return clean;
  }

  // ---- SCAN --------------------------------------------------------------------------------------

  /** Log blocks of one transaction accepted by SCAN. */
  private record TxBounds(int tid, long firstBlock, long commitBlock) {}

  /** A failed commit found by SCAN: the evidence for {@link JournalFailedCommitException}. */
  private record FailedCommit(long block, String what, String evidence, int tid) {
    JournalFailedCommitException exception(String device, RecoveryResult replayed) {
      return new JournalFailedCommitException(device, block, what, evidence, tid, replayed);
    }
  }

  /** SCAN's findings. {@code failedCommit} is set for a bad sync commit block or a v1 failure followed by a commit. */
  private record Scan(int endTid, long headBlock, List<TxBounds> transactions, FailedCommit failedCommit) {}

  private Scan scanPass() throws IOException {
    int next = sb.sequence();
    long block = sb.start();
    long head = block;
    long lastCommitTime = 0;
    boolean needCheckCommitTime = false;
    boolean dataBad = false; // async deviation: a data block of the current tid failed its tag checksum
    boolean v1 = sb.has(JournalFeature.CHECKSUM);
    int v1Crc = ~0; // v1: crc32_be over the current tid's descriptor and data blocks
    int v1End = 0; // v1 with async commit: the tid whose checksum failed (the log ends there), if v1Failed
    boolean v1Failed = false;
    long v1Block = -1;
    long txFirst = -1;
    long walked = 0;
    List<TxBounds> txs = new ArrayList<>();
    while (true) {
      if (walked++ > log.logBlocks()) {
        throw new JournalCorruptException(device, block, "log walk",
            "the log from block " + sb.start() + " is longer than the journal's " + log.logBlocks() + " log blocks");
      }
      long at = block;
      ByteBuffer b = log.read(at);
      block = log.next(at);
      JournalHeader h = JournalHeader.peek(b);
      if (!h.hasMagic() || h.sequence() != next) {
        break;
      }
      if (txFirst < 0) {
        txFirst = at;
      }
      switch (h.type()) {
        case JournalHeader.TYPE_DESCRIPTOR -> {
          boolean tailOk = DescriptorBlock.tailMatches(format, b);
          if (!tailOk) {
            needCheckCommitTime = true;
          }
          List<BlockTag> tags = DescriptorBlock.decodeTags(format, b);
          if (v1) {
            v1Crc = Crc32Be.update(v1Crc, b);
            long data = block;
            for (int i = 0; i < tags.size(); i++) {
              v1Crc = Crc32Be.update(v1Crc, log.read(data));
              data = log.next(data);
            }
          }
          if (tailOk && asyncCommit && format.checksummed() && !dataBad) {
            long data = block;
            for (BlockTag tag : tags) {
              if (!DescriptorBlock.tagChecksumMatches(format, tag, next, log.read(data))) {
                dataBad = true;
                break;
              }
              data = log.next(data);
            }
          }
          block = log.advance(block, tags.size());
        }
        case JournalHeader.TYPE_REVOKE -> {
          if (!DescriptorBlock.tailMatches(format, b)) {
            needCheckCommitTime = true;
          }
        }
        case JournalHeader.TYPE_COMMIT -> {
          CommitBlock.Commit c = CommitBlock.decode(format, b);
          long commitTime = c.commitSeconds();
          boolean older = Long.compareUnsigned(commitTime, lastCommitTime) < 0;
          if (v1Failed) {
            // v1, async commit: a transaction committed after one whose checksum failed. Commits
            // are written one after another, so the failed one was complete: corruption.
            return new Scan(v1End, head, txs, new FailedCommit(v1Block, "v1 checksum of transaction "
                + Integer.toUnsignedString(v1End), "its blocks do not match its commit block, and transaction "
                + Integer.toUnsignedString(next) + " after it committed", v1End));
          }
          if (v1 && !CommitBlock.v1Matches(b, v1Crc)) {
            if (older) {
              return new Scan(next, head, txs, null); // stale
            }
            if (!asyncCommit) {
              return new Scan(next, head, txs, new FailedCommit(at, "v1 checksum of transaction "
                  + Integer.toUnsignedString(next), "its blocks do not match the crc32 in its commit block, which was"
                  + " written after they were flushed", next));
            }
            v1Failed = true; // interrupted async commit: the log ends here unless a later commit follows
            v1End = next;
            v1Block = at;
            v1Crc = ~0;
            lastCommitTime = commitTime;
            txFirst = -1;
            next++;
            continue;
          }
          v1Crc = ~0;
          if (needCheckCommitTime) {
            if (!older) {
              throw new JournalCorruptException(device, at, "descriptor or revoke block checksum in transaction "
                  + Integer.toUnsignedString(next), "a block before this commit block failed its checksum and the commit is not older than the previous one");
            }
            return new Scan(next, head, txs, null); // stale blocks of an earlier journal lifetime
          }
          if (c.check() == CommitBlock.Check.BAD) {
            if (older) {
              return new Scan(next, head, txs, null); // stale
            }
            if (!asyncCommit) {
              return new Scan(next, head, txs, new FailedCommit(at,
                  "commit block checksum of transaction " + Integer.toUnsignedString(next),
                  "sync commit failed: the commit block is corrupt although everything before it was flushed", next));
            }
            return new Scan(next, head, txs, null); // interrupted async commit
          }
          if (dataBad) {
            return new Scan(next, head, txs, null); // async deviation: never acknowledged
          }
          lastCommitTime = commitTime;
          head = block;
          txs.add(new TxBounds(next, txFirst, at));
          txFirst = -1;
          next++;
        }
        default -> {
          return new Scan(v1Failed ? v1End : next, head, txs, null);
        }
      }
    }
    return new Scan(v1Failed ? v1End : next, head, txs, null);
  }

  // ---- REVOKE and REPLAY ---------------------------------------------------------------------------

  private RecoveryResult recover(io.ext4j.jbd2.JournalRecovery.Scanned scanned) throws IOException {
    Scan scan = scanPass();
    if (scan.failedCommit == null) {
      scanned.scanned(scan.endTid);
    }
    Map<Long, Integer> revoked = revokePass(scan);
    RecoveryResult result = replayPass(scan, revoked);
    dev.flush();
    if (scan.failedCommit != null) {
      throw scan.failedCommit.exception(device, result);
    }
    return result;
  }

  private Map<Long, Integer> revokePass(Scan scan) throws IOException {
    Map<Long, Integer> revoked = new HashMap<>();
    int next = sb.sequence();
    long block = sb.start();
    while (next - scan.endTid < 0) {
      long at = block;
      ByteBuffer b = log.read(at);
      block = log.next(at);
      JournalHeader h = JournalHeader.peek(b);
      if (!h.hasMagic() || h.sequence() != next) {
        throw new JournalCorruptException(device, at, "log changed between passes", "expected a block of transaction "
            + Integer.toUnsignedString(next));
      }
      switch (h.type()) {
        case JournalHeader.TYPE_DESCRIPTOR -> {
          DescriptorBlock.verifyTail(format, b, device, at, "descriptor");
          block = log.advance(block, DescriptorBlock.decodeTags(format, b).size());
        }
        case JournalHeader.TYPE_REVOKE -> {
          int tid = next;
          for (long home : RevokeBlock.decode(format, b, device, at)) {
            revoked.merge(home, tid, (old, neu) -> neu - old > 0 ? neu : old);
          }
        }
        case JournalHeader.TYPE_COMMIT -> next++;
        default -> throw new JournalCorruptException(device, at, "log changed between passes", "block type " + h.type());
      }
    }
    return revoked;
  }

  private RecoveryResult replayPass(Scan scan, Map<Long, Integer> revoked) throws IOException {
    int next = sb.sequence();
    long block = sb.start();
    long blocksReplayed = 0;
    long revokeHits = 0;
    int txBlocks = 0;
    int txHits = 0;
    int txRevokes = 0;
    int txIndex = 0;
    int badTags = 0;
    String firstBad = null;
    List<RecoveryResult.Transaction> done = new ArrayList<>();
    while (next - scan.endTid < 0) {
      long at = block;
      ByteBuffer b = log.read(at);
      block = log.next(at);
      JournalHeader h = JournalHeader.peek(b);
      switch (h.type()) {
        case JournalHeader.TYPE_DESCRIPTOR -> {
          DescriptorBlock.verifyTail(format, b, device, at, "descriptor");
          for (BlockTag tag : DescriptorBlock.decodeTags(format, b)) {
            long dataAt = block;
            block = log.next(block);
            Integer rev = revoked.get(tag.fsBlock());
            if (rev != null && rev - next >= 0) {
              revokeHits++;
              txHits++;
              continue;
            }
            ByteBuffer data = log.read(dataAt);
            if (!DescriptorBlock.tagChecksumMatches(format, tag, next, data)) {
              if (badTags++ == 0) {
                firstBad = "fs block " + tag.fsBlock() + " logged at journal block " + dataAt + " in transaction "
                    + Integer.toUnsignedString(next);
              }
              continue;
            }
            if (tag.fsBlock() >= dev.blockCount()) {
              throw new JournalCorruptException(device, at, "descriptor tag home block",
                  "fs block " + tag.fsBlock() + " beyond the device's " + dev.blockCount() + " blocks");
            }
            if (tag.escaped()) {
              data.putInt(0, JournalHeader.MAGIC);
            }
            dev.write(tag.fsBlock(), data);
            homeWritten.accept(tag.fsBlock());
            blocksReplayed++;
            txBlocks++;
          }
        }
        case JournalHeader.TYPE_REVOKE -> txRevokes += RevokeBlock.decode(format, b, device, at).length;
        case JournalHeader.TYPE_COMMIT -> {
          TxBounds t = scan.transactions.get(txIndex++);
          done.add(new RecoveryResult.Transaction(next, t.firstBlock, t.commitBlock, txBlocks, txHits, txRevokes));
          txBlocks = 0;
          txHits = 0;
          txRevokes = 0;
          next++;
        }
        default -> throw new JournalCorruptException(device, at, "log changed between passes", "block type " + h.type());
      }
    }
    if (badTags > 0) {
      dev.flush();
      throw new JournalCorruptException(device, -1, "data block checksum",
          badTags + " logged block(s) failed their tag checksum and were not replayed; first: " + firstBad);
    }
    return new RecoveryResult(false, sb.sequence(), scan.endTid, scan.headBlock, blocksReplayed, revokeHits, done);
  }
}
