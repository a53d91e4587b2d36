package io.ext4j.jbd2;

import io.ext4j.block.BlockDevice;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.jbd2.internal.Recovery;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Offline access to a journal for tools (the CLI's {@code journal info|recover}): read and validate
 * the superblock, replay the log, mark the journal empty. The running engine recovers at open by
 * itself; this is the same code ({@link io.ext4j.jbd2.internal.Recovery}) without an engine.
 *
 * <p>A {@code journal_fast_commit} journal's fast-commit area is the filesystem's: this replays the
 * full commits only (ext4 replays the fast commits after them, {@code io.ext4j.fs.Ext4Recovery}).
 *
 * <p>Durability: {@link #recover} returns after flushing every replayed home block;
 * {@link #markEmpty} after flushing the clean superblock.
 */
public final class JournalRecovery {
  private JournalRecovery() {}

  /**
   * Reads journal block 0 and decodes the superblock as jbd2 does on load.
   *
   * @throws JournalCorruptException on bad magic, type, geometry or checksum
   * @throws UnsupportedJournalFeatureException on a feature ext4j cannot replay
   */
  public static JournalSuperblock readSuperblock(BlockDevice device, JournalMap map) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(device.blockSize());
    device.read(map.deviceBlock(0), b);
    return JournalSuperblock.decode(device.name(), b.array(), device.blockSize(), map.length());
  }

  /** Replays the log into the home blocks and flushes; see {@link Recovery#run}. */
  public static RecoveryResult recover(BlockDevice device, JournalMap map, JournalSuperblock sb) throws IOException {
    return Recovery.run(device, map, sb);
  }

  /** Told where the log's scan found its end, before the replay writes anything. */
  @FunctionalInterface
  public interface Scanned {
    /** {@code endTid}: the first tid the scan did not accept (the tid a fast commit after the log carries). */
    void scanned(int endTid) throws IOException;
  }

  /**
   * {@link #recover(BlockDevice, JournalMap, JournalSuperblock)}, telling {@code scanned} the tid
   * after the log's last transaction once the log has been scanned and before anything is written
   * (not when the scan found a failed commit); an exception from it ends the recovery with nothing
   * written. One scan of the log serves both.
   */
  public static RecoveryResult recover(BlockDevice device, JournalMap map, JournalSuperblock sb, Scanned scanned)
      throws IOException {
    return Recovery.run(device, map, sb, b -> {}, scanned);
  }

  /** What {@link #recover} would replay, without writing; see {@link Recovery#scan}. */
  public static RecoveryResult scan(BlockDevice device, JournalMap map, JournalSuperblock sb) throws IOException {
    return Recovery.scan(device, map, sb);
  }

  /**
   * Marks the journal empty after {@code result}'s recovery ({@code s_start = 0},
   * {@code s_sequence = result.nextTid()}), flushes, and returns the superblock written.
   */
  public static JournalSuperblock markEmpty(BlockDevice device, JournalMap map, JournalSuperblock sb, RecoveryResult result)
      throws IOException {
    return Recovery.markEmpty(device, map, sb, result.nextTid());
  }

  /**
   * Writes {@code sb} with {@code s_errno = 0}, flushes, and returns the superblock written. For a
   * tool that has recorded an aborted journal's error elsewhere (e2fsck marks the file system).
   */
  public static JournalSuperblock clearErrno(BlockDevice device, JournalMap map, JournalSuperblock sb) throws IOException {
    JournalSuperblock cleared = sb.withErrno(0);
    io.ext4j.jbd2.internal.LogBlocks.writeSuperblock(device, map, cleared);
    device.flush();
    return cleared;
  }
}
