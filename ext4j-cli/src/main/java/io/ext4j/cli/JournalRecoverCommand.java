package io.ext4j.cli;

import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.JournalLocation;
import io.ext4j.jbd2.JournalFailedCommitException;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.RecoveryResult;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ext4j journal recover IMAGE}: replays the journal in place like
 * {@code e2fsck -E journal_only -y}, marks the journal empty and clears the ext4
 * {@code needs_recovery} flag, in that order (a crash between the two leaves a clean journal with
 * the flag set, which is harmless), flushing after each step.
 *
 * <p>A failed commit (a corrupt transaction that is not the last one written; see
 * {@link JournalFailedCommitException}) is also handled as e2fsck does: the transactions before it
 * are replayed, the journal is marked empty after them, the file system is marked as having errors,
 * and the command exits with status 1.
 *
 * <p>A journal whose superblock records an abort ({@code s_errno} ≠ 0) is handled as e2fsck does:
 * on an ext4 image the file system's state gets "errors detected" (so the next e2fsck checks it
 * fully) and then the journal's errno is cleared; a standalone journal keeps it and it is reported.
 */
@Command(name = "recover", mixinStandardHelpOptions = true,
    description = "Replay the journal into the image in place, mark it empty and clear needs_recovery.")
public final class JournalRecoverCommand implements Callable<Integer> {
  @CommandLine.Mixin
  JournalTarget target;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    int code;
    try (JournalTarget.Opened j = target.open(true)) {
      code = recover(j, out);
    }
    out.flush();
    return code;
  }

  /**
   * Replays {@code j} in place as the class doc describes, reporting on {@code out}; returns 0, or 1
   * when a corrupt transaction stopped the replay (the file system is then marked as having errors).
   */
  static int recover(JournalTarget.Opened j, PrintWriter out) throws java.io.IOException {
    JournalFailedCommitException failed = null;
    {
      JournalSuperblock sb = JournalRecovery.readSuperblock(j.device(), j.map());
      JournalSuperblock now = sb; // the superblock as last written
      RecoveryResult r;
      io.ext4j.fs.Ext4Recovery.Result fc = null;
      try {
        if (j.isExt4()) {
          fc = io.ext4j.fs.Ext4Recovery.recover(j.device(), j.map(), sb);
          r = fc.journal();
        } else {
          r = JournalRecovery.recover(j.device(), j.map(), sb);
        }
      } catch (JournalFailedCommitException e) {
        failed = e; // e2fsck's way: keep what was replayed, mark the journal empty after it, flag the fs
        r = e.replayed();
      }
      if (r.clean()) {
        out.println("Journal is clean (sequence " + Integer.toUnsignedString(sb.sequence()) + "); nothing to replay.");
      } else {
        for (RecoveryResult.Transaction t : r.transactions()) {
          out.println("Transaction " + Integer.toUnsignedString(t.tid()) + " (journal blocks " + t.firstBlock() + ".." + t.commitBlock()
              + "): " + t.blocksReplayed() + " blocks replayed, " + t.revokeHits() + " revoked, " + t.revokeRecords() + " revoke records");
        }
        if (fc != null && fc.fastCommits().commits() > 0) {
          io.ext4j.fs.fastcommit.FastCommitReplay.Stats st = fc.replayed();
          out.println("Fast commits of tid " + Integer.toUnsignedString(r.endTid()) + ": " + st.commits() + " replayed ("
              + st.records() + " records in " + fc.fastCommits().blocksUsed() + " blocks: " + st.inodes() + " inodes, "
              + st.entriesAdded() + " entries added, " + st.entriesRemoved() + " removed, " + st.leavesSplit() + " htree leaves split, " + st.blocksMapped() + " blocks mapped, "
              + st.blocksUnmapped() + " unmapped).");
        }
        now = JournalRecovery.markEmpty(j.device(), j.map(), sb, r);
        out.println("Replayed " + r.transactionsReplayed() + " transactions (" + Integer.toUnsignedString(r.firstTid()) + ".."
            + Integer.toUnsignedString(r.endTid() - 1) + "), " + r.blocksReplayed() + " blocks, " + r.revokeHits()
            + " revoke hits; journal marked empty at sequence " + Integer.toUnsignedString(r.nextTid()) + ".");
      }
      if (failed != null) {
        out.println("Journal transaction " + Integer.toUnsignedString(failed.failedTid()) + " is corrupt ("
            + failed.getMessage() + "); replay stopped before it.");
        if (j.isExt4()) {
          markErrorsDetected(j);
          out.println("Marked the file system as having errors; run e2fsck -f.");
        }
      }
      if (now.errno() != 0) {
        if (j.isExt4()) {
          markErrorsDetected(j);
          JournalRecovery.clearErrno(j.device(), j.map(), now);
          out.println("The journal recorded errno " + now.errno() + " (it was aborted): marked the file system as having"
              + " errors and cleared the journal's errno; run e2fsck -f.");
        } else {
          out.println("The journal records errno " + now.errno() + " (it was aborted); left in place.");
        }
      }
      if (j.isExt4() && j.location().damagedInode() != null) {
        // found through s_jnl_blocks: write the inode back, as e2fsck does, unless the replay already did
        JournalLocation again = Ext4JournalLocator.locate(j.device());
        if (again.damagedInode() != null) {
          Ext4JournalLocator.repairJournalInode(j.device(), Ext4JournalLocator.readSuperblock(j.device()), again);
          j.device().flush();
          out.println("The journal inode was damaged (" + again.damagedInode() + "); found the journal through the"
              + " superblock's backup (s_jnl_blocks) and wrote the inode back.");
        }
      }
      if (j.isExt4() && Ext4JournalLocator.readSuperblock(j.device()).needsRecovery()) {
        Ext4JournalLocator.setNeedsRecovery(j.device(), false);
        j.device().flush();
        out.println("Cleared the ext4 needs_recovery flag.");
      }
    }
    return failed == null ? 0 : 1;
  }

  /** Sets the ext4 superblock's "errors detected" state, as e2fsck does, and flushes it. */
  private static void markErrorsDetected(JournalTarget.Opened j) throws java.io.IOException {
    Ext4JournalLocator.markErrorsDetected(j.device());
    j.device().flush();
  }
}
