package io.ext4j.jbd2;

import java.util.List;

/**
 * What journal recovery found and replayed. Tids are jbd2's unsigned 32-bit sequence numbers held in
 * an {@code int}; compare them with wraparound ({@code (a - b) >= 0}), print them with
 * {@link Integer#toUnsignedString(int)}.
 *
 * @param clean the journal was clean ({@code s_start == 0}): nothing was read or written
 * @param firstTid the tid expected at the log start ({@code s_sequence})
 * @param endTid the first tid that is <em>not</em> part of the log: transactions
 *     {@code [firstTid, endTid)} were replayed. For a clean journal {@code firstTid}.
 * @param headBlock the journal block just after the last replayed commit block (where the next
 *     transaction would have been written); for a clean journal the superblock's {@code s_head}
 * @param blocksReplayed home blocks written
 * @param revokeHits logged blocks skipped because a revoke record of the same or a later
 *     transaction cancelled them
 * @param transactions the replayed transactions, oldest first
 */
public record RecoveryResult(boolean clean, int firstTid, int endTid, long headBlock, long blocksReplayed,
    long revokeHits, List<Transaction> transactions) {

  public RecoveryResult {
    transactions = List.copyOf(transactions);
  }

  /**
   * One replayed transaction.
   *
   * @param tid its tid
   * @param firstBlock the journal block of its first log block (descriptor or revoke block)
   * @param commitBlock the journal block of its commit block
   * @param blocksReplayed home blocks it wrote
   * @param revokeHits its logged blocks skipped because of revoke records
   * @param revokeRecords revoke records it carries
   */
  public record Transaction(int tid, long firstBlock, long commitBlock, int blocksReplayed, int revokeHits,
      int revokeRecords) {}

  /** How many transactions were replayed. */
  public int transactionsReplayed() {
    return endTid - firstTid; // wraparound-safe: both are mod 2^32
  }

  /**
   * The tid the journal must use next: {@code endTid + 1}. jbd2 skips {@code endTid} itself so a
   * stale, partly written block carrying it can never look valid; for a clean journal this is
   * {@code s_sequence + 1}, as jbd2 does.
   */
  public int nextTid() {
    return endTid + 1;
  }
}
