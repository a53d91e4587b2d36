package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.JOURNAL;
import static io.ext4j.tools.check.Problem.NO_BLOCK;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.OverlayBlockDevice;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.JournalLocation;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.jbd2.JournalException;
import io.ext4j.jbd2.JournalFailedCommitException;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.RecoveryResult;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The internal journal: its inode maps at least 1024 blocks without holes and covers its size, and
 * its superblock decodes as jbd2 loads it ({@link JournalSuperblock#decode}: magic, type, block
 * size, length, first block, checksum, features); a journal holding a log while the filesystem says
 * it needs no recovery is a note (e2fsck -fn prints it and exits 0). Also the replay of
 * {@link CheckOptions#replayJournal()}: into an {@link OverlayBlockDevice}, as {@code journal recover}
 * would do in place.
 */
final class JournalCheck {
  private JournalCheck() {}

  /** After the journal inode's blocks were walked and collected into {@code c}. */
  static void check(Scan s, long ino, RawInode r, Claims c) throws IOException {
    for (int i = 0; i < c.count; i++) {
      if (c.lblk[i] != i) {
        s.out.error(JOURNAL, ino, NO_BLOCK, "the journal inode has a hole at journal block " + i);
        return;
      }
    }
    if (c.count < JournalSuperblock.MIN_JOURNAL_BLOCKS) {
      s.out.error(JOURNAL, ino, NO_BLOCK, "the journal has " + c.count + " blocks, fewer than the minimum "
          + JournalSuperblock.MIN_JOURNAL_BLOCKS);
      return;
    }
    if (Long.compareUnsigned(r.sizeBytes(), (long) c.count * s.bs) > 0) {
      s.out.error(JOURNAL, ino, NO_BLOCK, "the journal inode's size " + r.sizeBytes() + " exceeds the " + c.count
          + " blocks it maps");
    }
    List<JournalMap.Extent> runs = new ArrayList<>();
    long start = 0;
    for (int i = 1; i <= c.count; i++) {
      if (i == c.count || c.pblk[i] != c.pblk[i - 1] + 1) {
        runs.add(new JournalMap.Extent(start, c.pblk[(int) start], i - start));
        start = i;
      }
    }
    JournalSuperblock jsb;
    try {
      jsb = JournalRecovery.readSuperblock(s.dev, JournalMap.ofExtents(runs));
    } catch (JournalException e) {
      if (!s.sb.needsRecovery() && e instanceof io.ext4j.jbd2.JournalCorruptException jc && "superblock log start".equals(jc.what())) {
        // e2fsck -n: "needs_recovery flag is clear, but journal has data" — declined, exit 0
        s.out.note(JOURNAL, ino, c.pblk[0], "needs_recovery is clear but the journal superblock claims a log: " + e.getMessage());
        return;
      }
      s.out.error(JOURNAL, ino, c.pblk[0], "the journal superblock is invalid: " + e.getMessage());
      return;
    }
    if (!s.sb.needsRecovery() && jsb.start() != 0) {
      s.out.strictNote(JOURNAL, ino, c.pblk[0], "needs_recovery is clear but the journal holds a log (s_start "
          + jsb.start() + ")");
    }
    if (jsb.nrUsers() > 1) {
      s.out.error(JOURNAL, ino, c.pblk[0], "the journal superblock lists " + Integer.toUnsignedString(jsb.nrUsers())
          + " filesystems sharing it; an internal journal has one (e2fsck stops here)");
    }
    if (jsb.errno() != 0) {
      // e2fsck marks the filesystem as having errors and clears s_errno (-n: it fails to write it back)
      s.out.error(JOURNAL, ino, c.pblk[0], "the journal superblock records an abort (s_errno " + jsb.errno()
          + "): the filesystem has errors");
    }
    if (s.sb.needsRecovery() && !s.journalReplayed) {
      s.out.strictNote(JOURNAL, ino, NO_BLOCK, "the journal needs recovery; the image was checked without replaying it");
    }
  }

  /** The outcome of {@link #replay}: the device to check, and what to report about the replay. */
  record Replayed(BlockDevice device, String failure) {}

  /**
   * Replays the journal into an overlay of {@code dev} (e2fsck's order: replay, mark the journal
   * empty, flag errors for a failed commit or a recorded abort, clear needs_recovery). Returns the
   * overlay, or {@code dev} itself with the reason when the journal cannot be replayed.
   */
  static Replayed replay(BlockDevice dev) throws IOException {
    OverlayBlockDevice ov = new OverlayBlockDevice(dev);
    try {
      JournalLocation loc = Ext4JournalLocator.locate(ov);
      JournalMap map = loc.journalMap();
      JournalSuperblock jsb = JournalRecovery.readSuperblock(ov, map);
      RecoveryResult result;
      boolean failed = false;
      try {
        result = io.ext4j.fs.Ext4Recovery.recover(ov, map, jsb).journal();
      } catch (JournalFailedCommitException e) {
        result = e.replayed();
        failed = true;
      }
      JournalSuperblock now = jsb;
      if (!result.clean()) {
        now = JournalRecovery.markEmpty(ov, map, jsb, result);
      }
      if (failed) {
        Ext4JournalLocator.markErrorsDetected(ov);
      }
      if (now.errno() != 0) {
        Ext4JournalLocator.markErrorsDetected(ov);
        JournalRecovery.clearErrno(ov, map, now);
      }
      if (Ext4JournalLocator.readSuperblock(ov).needsRecovery()) {
        Ext4JournalLocator.setNeedsRecovery(ov, false);
      }
      return new Replayed(ov, null);
    } catch (IOException | RuntimeException e) {
      return new Replayed(dev, e.getMessage());
    }
  }

  static boolean wantsReplay(Ext4Superblock sb) {
    return sb.hasJournal() && sb.needsRecovery() && sb.journalInode() != 0;
  }
}
