package io.ext4j.tools.check;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.Ext4Superblock;
import java.io.IOException;

/**
 * ext4j's filesystem checker: everything {@code e2fsck -f} checks, structure by structure and across
 * structures, in one process and one read of each block, reporting instead of repairing.
 *
 * <h2>Passes (e2fsck's numbering)</h2>
 * <ol start="0">
 *   <li>Superblock ({@link SuperblockCheck}) and group descriptors ({@link GroupCheck}); all
 *       filesystem metadata is claimed.
 *   <li>Every inode slot below the groups' watermarks ({@link InodeScan}, {@link InodeCheck},
 *       {@link SpecialInodes}): fields, block maps ({@link ExtentWalk}, {@link IndirectWalk}), every
 *       block claimed, i_blocks recounted, extended attributes ({@link XattrCheck}), the journal
 *       ({@link JournalCheck}); blocks claimed twice are attributed afterwards ({@link SharedBlocks}).
 *   <li>Every directory block ({@link DirCheck}, {@link HtreeCheck}).
 *   <li>The directory tree and, 4, link counts ({@link TreeCheck}).
 *   <li>Bitmaps and counts against the usage computed ({@link BitmapCheck}).
 * </ol>
 *
 * <h2>What the result means</h2>
 * {@link CheckReport#exitCode()} is e2fsck -fn's for the same image: 0 when e2fsck would find
 * nothing to fix or only what it accepts with "no" (free totals, extent trees that could be
 * smaller: those are {@linkplain CheckReport#notes() notes}), 4 when it would leave errors, 8 when
 * the image cannot be checked (not ext4, unreadable, a feature this checker does not know). Under
 * {@link CheckOptions#strict()} also the notes about states a clean unmount does not leave are
 * problems. The list of rules and the known differences from e2fsck are in the package
 * documentation.
 *
 * <h2>Bounds</h2>
 * The device is only read. Every walk is bounded: tree and indirect blocks already claimed are not
 * descended into again, directory trees are walked with explicit stacks, nothing is allocated from an
 * on-disk count that has not been checked against the device's size. A corrupt structure becomes a
 * problem, never an exception; an {@code IOException} of the device ends the check with exit code 8.
 *
 * <p>Thread-safe: each call works on its own state.
 */
public final class Checker {
  private Checker() {}

  /**
   * Checks the filesystem on {@code device}, whose block size must be the filesystem's (else the
   * report says so, with exit code 8). The device is never written: a journal replay goes to an
   * in-memory overlay.
   */
  public static CheckReport check(BlockDevice device, CheckOptions options) {
    Findings out = new Findings(options.maxProblems(), options.strict());
    String name = device.name();
    try {
      Ext4Superblock sb = SuperblockCheck.read(device);
      BlockDevice dev = device;
      boolean replayed = false;
      if (options.replayJournal() && JournalCheck.wantsReplay(sb)) {
        JournalCheck.Replayed r = JournalCheck.replay(device);
        if (r.failure() != null) {
          out.error(Problem.JOURNAL, sb.journalInode(), Problem.NO_BLOCK, "the journal needs recovery but cannot be"
              + " replayed: " + r.failure());
        } else {
          dev = r.device();
          replayed = true;
          sb = SuperblockCheck.read(dev);
        }
      }
      SuperblockCheck.checkCheckable(dev, sb);
      Scan s = new Scan(dev, sb, FsLayout.of(name, sb), options, out);
      s.journalReplayed = replayed;
      run(s);
      return report(s, out);
    } catch (CannotCheck e) {
      out.error(e.structure(), Problem.NO_INODE, Problem.NO_BLOCK, e.getMessage());
      return unchecked(name, out);
    } catch (IOException e) {
      out.error(Problem.DEVICE, Problem.NO_INODE, Problem.NO_BLOCK, "reading the device failed: " + e);
      return unchecked(name, out);
    } catch (RuntimeException e) {
      out.error(Problem.DEVICE, Problem.NO_INODE, Problem.NO_BLOCK, "internal checker error (a bug; please report it"
          + " with the image): " + e);
      return unchecked(name, out);
    }
  }

  private static void run(Scan s) throws IOException, CannotCheck {
    SuperblockCheck.check(s);
    GroupCheck.load(s);
    InodeCheck check = new InodeCheck(s);
    SpecialInodes special = new SpecialInodes(s, check);
    InodeScan.run(s, check, special);
    special.finish();
    XattrCheck.refcounts(s);
    SharedBlocks.report(s);
    DirCheck.run(s);
    TreeCheck.run(s);
    s.bitmaps = BitmapCheck.run(s);
  }

  private static CheckReport report(Scan s, Findings out) {
    BitmapCheck b = s.bitmaps;
    long inodesUsed = s.inodesCount - b.freeInodes;
    long blocksUsed = s.blocks - b.freeBlocks;
    CheckReport.Counts counts = new CheckReport.Counts(s.inodesCount, inodesUsed, b.dirs, s.regularFiles, s.symlinks,
        s.specialFiles, s.blocks, blocksUsed, s.fragmented, s.xattrBlocks.size());
    return new CheckReport(s.name, true, out.problems(), out.notes(), out.omittedProblems(), out.omittedNotes(), counts,
        s.journalReplayed);
  }

  private static CheckReport unchecked(String name, Findings out) {
    return new CheckReport(name, false, out.problems(), out.notes(), out.omittedProblems(), out.omittedNotes(),
        CheckReport.Counts.NONE, false);
  }
}
