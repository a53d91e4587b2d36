package io.ext4j.cli;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.block.OverlayBlockDevice;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.Ext4Options;
import io.ext4j.tools.check.CheckOptions;
import io.ext4j.tools.check.CheckReport;
import io.ext4j.tools.check.Checker;
import io.ext4j.fs.format.Ext4Superblock;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j fsck [-n] [--strict] IMAGE}: ext4j's own full check ({@link Checker}): every
 * structure, checksum and count, and the cross-checks (block ownership, link counts, the directory
 * tree, orphans), one line per problem naming its inode or block, then e2fsck's summary line.
 * An image a mount would first recover (a journal to replay, orphans to finish) is recovered first as
 * ext4j's mount does — in place, or with {@code -n} in an in-memory overlay, so that nothing is
 * written and the image is checked as a recovery would leave it. An image the engine will not mount
 * gets a journal replay only (in place, as {@code ext4j journal recover}, or in memory). Repairs
 * nothing.
 *
 * <p>Exit codes as e2fsck's: 0 clean, 4 errors left, 8 the check could not be done (no such file,
 * not ext4, an unsupported feature, an I/O error), with one line on stderr saying why.
 */
@Command(name = "fsck", mixinStandardHelpOptions = true,
    description = "Check an ext4 image fully (exit 0 clean, 4 errors, 8 could not check); repairs nothing.")
public final class FsckCommand implements Callable<Integer> {
  /** e2fsck's exit code for "file system errors left uncorrected". */
  static final int EXIT_ERRORS = 4;
  /** e2fsck's exit code for "operational error". */
  static final int EXIT_CANNOT_CHECK = 8;

  @Parameters(index = "0", paramLabel = "IMAGE", description = "An ext4 image file or block device.")
  Path image;

  @Option(names = "-n", description = "Write nothing: check the image as a journal replay would leave it, in memory.")
  boolean noChanges;

  @Option(names = "--strict", description = "Also count as errors what a clean unmount never leaves: wrong free totals,"
      + " a descriptor checksum mismatch, orphans, a journal needing recovery, recorded errors.")
  boolean strict;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** Whether a mount would first recover something: the journal, or orphans. */
  static boolean needsRecovery(Ext4Superblock sb) {
    return (sb.hasJournal() && sb.needsRecovery()) || sb.lastOrphan() != 0 || sb.hasRoCompat(Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT);
  }

  /**
   * Recovers {@code dev} as ext4j's mount does — replays the journal, finishes the orphans, and a clean
   * close leaves the flags and free totals exact — writing to the image, or with {@code -n} to the
   * in-memory overlay. Returns false when the engine would not open the image (its reason is printed);
   * the check then replays the journal itself, and without {@code -n} the journal is replayed in place
   * first, as {@code journal recover} does.
   */
  private boolean recover(BlockDevice dev, PrintWriter out) throws IOException {
    out.println(image + ": recovering the journal and orphans, as a mount would" + (noChanges ? " (in memory)" : ""));
    try {
      Ext4FileSystem.open(dev, Ext4Options.defaults(), false).close();
      return true;
    } catch (IOException | RuntimeException e) {
      out.println(image + ": ext4j would not mount it (" + Main.message(e) + "); checking what a journal replay leaves");
      if (!noChanges) {
        JournalTarget t = new JournalTarget();
        t.image = image;
        try (JournalTarget.Opened j = t.open(true)) {
          JournalRecoverCommand.recover(j, out);
        }
      }
      return false;
    }
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      if (!Files.exists(image)) {
        throw new CliException(image + ": no such file or directory");
      }
      if (Files.isDirectory(image)) {
        throw new CliException(image + ": is a directory, not an ext4 image");
      }
      Ext4Superblock sb;
      try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
        sb = Ext4JournalLocator.readSuperblock(probe);
      }
      CheckReport report;
      try (FileBlockDevice file = FileBlockDevice.open(image, sb.blockSize(), FileBlockDevice.Options.defaults().withReadOnly(noChanges))) {
        BlockDevice dev = noChanges ? new OverlayBlockDevice(file) : file;
        boolean replay = false;
        if (needsRecovery(sb)) {
          replay = !recover(dev, out);
        }
        report = Checker.check(dev, CheckOptions.defaults().withReplayJournal(replay).withStrict(strict));
      }
      out.print(report.toText());
      out.flush();
      return report.exitCode();
    } catch (IOException | RuntimeException e) {
      out.flush();
      err.println("ext4j: " + Main.message(e instanceof java.io.UncheckedIOException u && u.getCause() != null ? u.getCause() : e));
      err.flush();
      return EXIT_CANNOT_CHECK;
    }
  }
}
