package io.ext4j.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ext4j.bench.Json;
import io.ext4j.jbd2.JournalLog;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ext4j journal dump IMAGE [--json]}: every transaction in the log, as
 * {@code debugfs -R "logdump -a"} lists them ({@link JournalLog}). Opens the image read-only.
 */
@Command(name = "dump", mixinStandardHelpOptions = true,
    description = "List the transactions in the journal's log: descriptor and commit blocks, logged blocks, revoked blocks.")
public final class JournalDumpCommand implements Callable<Integer> {
  @CommandLine.Mixin
  JournalTarget target;

  @Option(names = "--json", description = "Print one JSON object: {\"transactions\":[{\"tid\":…,\"blocks\":[…],\"revoked\":[…]}]}.")
  boolean json;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    JournalLog log;
    String fastCommits = "";
    try (JournalTarget.Opened j = target.open(false)) {
      log = JournalLog.read(j.device(), j.map());
      if (!json && j.isExt4()) {
        fastCommits = fastCommits(j, log.superblock());
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(json ? toJson(log) : toText(log) + fastCommits);
    out.flush();
    return 0;
  }

  /**
   * The fast commits recovery would replay after the log (as debugfs's logdump lists the area), or
   * "" when the journal has no fast-commit area or needs no recovery.
   */
  static String fastCommits(JournalTarget.Opened j, io.ext4j.jbd2.format.JournalSuperblock sb) throws java.io.IOException {
    if (!sb.has(io.ext4j.jbd2.format.JournalFeature.FAST_COMMIT) || !sb.needsRecovery()) {
      return "";
    }
    StringBuilder s = new StringBuilder("Fast-commit area (journal blocks ").append(sb.fastCommitFirst()).append("..")
        .append(sb.maxLen() - 1).append("): ");
    try {
      int tid = io.ext4j.jbd2.JournalRecovery.scan(j.device(), j.map(), sb).endTid();
      int inodeSize = io.ext4j.fs.Ext4JournalLocator.readSuperblock(j.device()).inodeSize();
      io.ext4j.fs.fastcommit.FastCommitArea.Scan fc = io.ext4j.fs.Ext4Recovery.scanArea(j.device(), j.map(), sb, tid, inodeSize);
      s.append(fc.commits()).append(" fast commits of tid ").append(Integer.toUnsignedString(tid)).append(" to replay");
      s.append(fc.commits() == 0 ? " (" + fc.why() + ")" : "").append('\n');
      for (io.ext4j.fs.fastcommit.FastCommitTag t : fc.tags()) {
        s.append("  ").append(t).append('\n');
      }
    } catch (io.ext4j.jbd2.JournalCorruptException e) {
      s.append(e.getMessage()).append('\n');
    }
    return s.toString();
  }

  static String toJson(JournalLog log) {
    ObjectNode root = Json.object();
    ArrayNode transactions = root.putArray("transactions");
    for (JournalLog.Transaction t : log.transactions()) {
      ObjectNode o = transactions.addObject();
      o.put("tid", Integer.toUnsignedLong(t.tid()));
      o.put("committed", t.committed());
      t.descriptorBlocks().forEach(o.putArray("descriptorBlocks")::add);
      t.revokeBlocks().forEach(o.putArray("revokeBlocks")::add);
      o.put("commitBlock", t.committed() ? Long.valueOf(t.commitBlock()) : null);
      ArrayNode blocks = o.putArray("blocks");
      for (JournalLog.TaggedBlock b : t.blocks()) {
        blocks.addObject().put("fsBlock", b.fsBlock()).put("journalBlock", b.journalBlock()).put("flags", b.flags());
      }
      ArrayNode revoked = o.putArray("revoked");
      t.revoked().forEach(r -> revoked.add(r.fsBlock()));
    }
    return Json.write(root) + "\n";
  }

  static String toText(JournalLog log) {
    StringBuilder s = new StringBuilder();
    s.append("Journal starts at block ").append(log.superblock().start()).append(", transaction ")
        .append(Integer.toUnsignedString(log.superblock().sequence())).append('\n');
    for (JournalLog.Transaction t : log.transactions()) {
      s.append("Transaction ").append(Integer.toUnsignedString(t.tid()));
      if (!t.descriptorBlocks().isEmpty()) {
        s.append(", descriptor blocks ").append(t.descriptorBlocks());
      }
      if (!t.revokeBlocks().isEmpty()) {
        s.append(", revoke blocks ").append(t.revokeBlocks());
      }
      s.append(t.committed() ? ", commit block " + t.commitBlock() : ", no commit block").append('\n');
      for (JournalLog.TaggedBlock b : t.blocks()) {
        s.append("  FS block ").append(b.fsBlock()).append(" logged at journal block ").append(b.journalBlock())
            .append(" (flags 0x").append(Integer.toHexString(b.flags())).append(")\n");
      }
      for (JournalLog.RevokedBlock r : t.revoked()) {
        s.append("  Revoke FS block ").append(r.fsBlock()).append(" (revoke block ").append(r.journalBlock()).append(")\n");
      }
    }
    s.append("End of log: ").append(log.endReason()).append('\n');
    return s.toString();
  }
}
