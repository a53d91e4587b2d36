package io.ext4j.cli;

import io.ext4j.fs.Ext4JournalLocator;
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
    try (JournalTarget.Opened j = target.open(true)) {
      JournalSuperblock sb = JournalRecovery.readSuperblock(j.device(), j.map());
      RecoveryResult r = JournalRecovery.recover(j.device(), j.map(), sb);
      if (r.clean()) {
        out.println("Journal is clean (sequence " + Integer.toUnsignedString(sb.sequence()) + "); nothing to replay.");
      } else {
        for (RecoveryResult.Transaction t : r.transactions()) {
          out.println("Transaction " + Integer.toUnsignedString(t.tid()) + " (journal blocks " + t.firstBlock() + ".." + t.commitBlock()
              + "): " + t.blocksReplayed() + " blocks replayed, " + t.revokeHits() + " revoked, " + t.revokeRecords() + " revoke records");
        }
        JournalRecovery.markEmpty(j.device(), j.map(), sb, r);
        out.println("Replayed " + r.transactionsReplayed() + " transactions (" + Integer.toUnsignedString(r.firstTid()) + ".."
            + Integer.toUnsignedString(r.endTid() - 1) + "), " + r.blocksReplayed() + " blocks, " + r.revokeHits()
            + " revoke hits; journal marked empty at sequence " + Integer.toUnsignedString(r.nextTid()) + ".");
      }
      if (j.isExt4() && Ext4JournalLocator.readSuperblock(j.device()).needsRecovery()) {
        Ext4JournalLocator.setNeedsRecovery(j.device(), false);
        j.device().flush();
        out.println("Cleared the ext4 needs_recovery flag.");
      }
    }
    out.flush();
    return 0;
  }
}
