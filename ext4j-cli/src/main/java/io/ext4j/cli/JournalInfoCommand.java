package io.ext4j.cli;

import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code ext4j journal info IMAGE}: the journal superblock, in the words of the journal part of
 * {@code dumpe2fs -h}, plus whether it needs recovery. Opens the image read-only.
 */
@Command(name = "info", mixinStandardHelpOptions = true,
    description = "Show the journal superblock (like the journal part of dumpe2fs -h) and whether it needs recovery.")
public final class JournalInfoCommand implements Callable<Integer> {
  @CommandLine.Mixin
  JournalTarget target;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    try (JournalTarget.Opened j = target.open(false)) {
      JournalSuperblock sb = JournalRecovery.readSuperblock(j.device(), j.map());
      if (j.isExt4() && j.location().superblock().journalInode() != 0) {
        out.println("Journal inode:            " + j.location().superblock().journalInode());
      } else if (j.isExt4()) {
        out.println("Journal device:           " + target.journalDevice + " (UUID " + j.location().superblock().journalUuid() + ")");
      }
      out.print(format(sb, j.device().blockSize()));
      out.println("Journal state:            " + (sb.needsRecovery() ? "needs recovery" : "clean"));
      if (j.isExt4()) {
        out.println("Filesystem needs_recovery: " + (j.location().superblock().needsRecovery() ? "yes" : "no"));
      }
    }
    out.flush();
    return 0;
  }

  /** The lines dumpe2fs prints for a journal superblock (e2p's journal listing), in its order. */
  static String format(JournalSuperblock sb, int fsBlockSize) {
    StringBuilder s = new StringBuilder("Journal features:        ");
    if (sb.features().isEmpty()) {
      s.append(" (none)");
    }
    for (JournalFeature f : sb.features()) {
      s.append(' ').append(f.displayName());
    }
    s.append('\n');
    long bytes = sb.maxLen() * sb.blockSize();
    s.append("Total journal size:       ").append(bytes < 8192L * 1024 ? (bytes >> 10) + "k" : (bytes >> 20) + "M").append('\n');
    if (sb.blockSize() != fsBlockSize) {
      s.append("Journal block size:       ").append(sb.blockSize()).append('\n');
    }
    long fc = sb.has(JournalFeature.FAST_COMMIT) ? (sb.numFastCommitBlocks() == 0 ? 256 : sb.numFastCommitBlocks()) : 0;
    s.append("Total journal blocks:     ").append(sb.maxLen()).append('\n');
    s.append("Max transaction length:   ").append(sb.maxLen() - fc).append('\n');
    s.append("Fast commit length:       ").append(fc).append('\n');
    if (sb.first() != 1) {
      s.append("Journal first block:      ").append(sb.first()).append('\n');
    }
    s.append(String.format("Journal sequence:         0x%08x%n", sb.sequence()));
    s.append("Journal start:            ").append(sb.start()).append('\n');
    if (sb.nrUsers() != 1) {
      s.append("Journal number of users:  ").append(Integer.toUnsignedString(sb.nrUsers())).append('\n');
    }
    if (sb.has(JournalFeature.CHECKSUM)) {
      s.append("Journal checksum type:    crc32\n");
    }
    if (sb.has(JournalFeature.CSUM_V2) || sb.has(JournalFeature.CSUM_V3)) {
      s.append("Journal checksum type:    ").append(sb.checksumType() == JournalSuperblock.CRC32C_CHECKSUM_TYPE ? "crc32c" : "unknown")
          .append('\n');
      s.append(String.format("Journal checksum:         0x%08x%n", sb.storedChecksum()));
    }
    if (sb.errno() != 0) {
      s.append("Journal errno:            ").append(sb.errno()).append('\n');
    }
    return s.toString();
  }
}
