package io.ext4j.fs;

import io.ext4j.block.BlockDevice;
import io.ext4j.fs.fastcommit.FastCommitArea;
import io.ext4j.fs.fastcommit.FastCommitReplay;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.jbd2.JournalFailedCommitException;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.RecoveryResult;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * Recovery of an ext4 journal as the kernel does it at mount and e2fsck with {@code -E
 * journal_only}: the full commits of the log ({@link JournalRecovery}), then, on a filesystem with
 * {@code fast_commit} whose journal has {@code journal_fast_commit}, the fast commits written after
 * the last of them ({@link FastCommitArea}, {@link FastCommitReplay}). The engine runs it at open,
 * {@code ext4j journal recover} and {@code ext4j fsck} on an image.
 *
 * <p>The fast-commit area is scanned before anything is written (as jbd2 scans it in its first
 * pass), so a corrupt area fails the recovery with nothing replayed. A failed full commit ({@link
 * JournalFailedCommitException}) replays the transactions before it and no fast commits: they
 * build on the transaction that failed.
 *
 * <h2>Durability</h2>
 * When {@link #recover} returns, every replayed block and every change of the fast-commit replay
 * is on the device (flushed). The journal is left as it was — still needing recovery — for the
 * caller to mark empty ({@link JournalRecovery#markEmpty}); a crash before that repeats the whole
 * recovery, which gives the same result.
 */
public final class Ext4Recovery {
  private Ext4Recovery() {}

  /**
   * What {@link #recover} did.
   *
   * @param journal the full commits replayed
   * @param fastCommits what the fast-commit area held (no commits when there is no area or it holds
   *     nothing for this log)
   * @param replayed what applying them changed
   */
  public record Result(RecoveryResult journal, FastCommitArea.Scan fastCommits, FastCommitReplay.Stats replayed) {}

  private static final FastCommitArea.Scan NONE = new FastCommitArea.Scan(java.util.List.of(), 0, 0, "no fast-commit area");

  /**
   * Recovers the journal ({@code map} over {@code device}; {@code device} also holds the
   * filesystem, its block numbers the filesystem's) as the class doc describes.
   *
   * @throws io.ext4j.jbd2.JournalCorruptException on a corrupt log or fast-commit area
   * @throws JournalFailedCommitException as {@link JournalRecovery#recover}, after replaying the
   *     transactions before the failed one
   * @throws Ext4Exception when a fast commit cannot be applied
   */
  public static Result recover(BlockDevice device, JournalMap map, JournalSuperblock jsb) throws IOException {
    FastCommitArea.Scan[] fc = {NONE}; // set by the recovering thread before the log's replay
    Ext4Superblock sb = jsb.needsRecovery() && jsb.has(JournalFeature.FAST_COMMIT)
        ? Ext4JournalLocator.readSuperblock(device) : null;
    boolean withArea = sb != null && sb.hasCompat(Ext4Superblock.COMPAT_FAST_COMMIT);
    // The area is read once the log's scan knows the tid its fast commits must carry, before the
    // replay writes anything; after a failed commit it is not read (recovery throws, the fast
    // commits do not apply).
    RecoveryResult r = JournalRecovery.recover(device, map, jsb, endTid -> {
      if (withArea) {
        fc[0] = scanArea(device, map, jsb, endTid, sb.inodeSize());
      }
    });
    FastCommitReplay.Stats s = FastCommitReplay.run(device, fc[0]);
    return new Result(r, fc[0], s);
  }

  /**
   * Before ext4j writes a journal with {@code journal_fast_commit} (it writes full commits only, in
   * the log before the area), makes the area say "no fast commits": block 0 of the area is zeroed
   * when it starts with a HEAD record, and flushed. The kernel ignores an area whose HEAD is of
   * another tid, but e2fsck 1.47 fails such a recovery (EINVAL) and drops the log, so a crash of
   * ext4j must not leave the kernel's old fast commits in place. Returns whether it wrote.
   */
  public static boolean retireFastCommitArea(BlockDevice device, JournalMap map, JournalSuperblock jsb) throws IOException {
    if (!jsb.has(JournalFeature.FAST_COMMIT) || jsb.needsRecovery() || jsb.fastCommitFirst() >= jsb.maxLen()) {
      return false;
    }
    long home = map.deviceBlock(jsb.fastCommitFirst());
    ByteBuffer b = ByteBuffer.allocate(device.blockSize());
    device.read(home, b);
    byte[] a = b.array();
    if (io.ext4j.fs.format.LittleEndian.le16(a, 0) != io.ext4j.fs.fastcommit.FastCommitTag.HEAD) {
      return false;
    }
    device.write(home, ByteBuffer.allocate(device.blockSize()));
    device.flush();
    return true;
  }

  /** Scans the fast-commit area of {@code jsb}'s journal for commits of {@code expectedTid}; see {@link FastCommitArea#scan}. */
  public static FastCommitArea.Scan scanArea(BlockDevice device, JournalMap map, JournalSuperblock jsb, int expectedTid, int inodeSize)
      throws IOException {
    long first = jsb.fastCommitFirst();
    int count = (int) Math.max(0, jsb.maxLen() - first);
    int bs = device.blockSize();
    try {
      return FastCommitArea.scan(device.name(), first, i -> {
        ByteBuffer b = ByteBuffer.allocate(bs);
        try {
          device.read(map.deviceBlock(first + i), b);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
        return b.array();
      }, count, bs, expectedTid, inodeSize);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
