package io.ext4j.jbd2.internal;

import io.ext4j.block.BlockDevice;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.io.IOException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Every write of a running journal's superblock, and what the last one said: the tail
 * ({@code s_sequence}/{@code s_start}), whether the log is empty on disk ({@code s_start == 0}),
 * and the recorded errno. Owned by the checkpoint mutex: every method asserts the caller holds it
 * (the engine's constructor writes the first image before any other thread exists).
 *
 * <h2>Durability</h2>
 * Writes only; none flushes. The callers flush: the commit's flushes cover {@link #beginUse}, the
 * checkpointer flushes after {@link #writeTail} before reusing log space, and the engine flushes
 * after {@link #writeEmpty}, {@link #writeErrno} and the abort record before relying on them.
 */
final class SuperblockWriter {
  private final BlockDevice device;
  private final JournalMap map;
  private final ReentrantLock checkpointMutex;
  private JournalSuperblock current; // checkpointMutex: the image last written
  private boolean clean; // checkpointMutex: the image last written says s_start == 0
  private boolean abortRecorded; // checkpointMutex: s_errno written after an abort (or tried)

  SuperblockWriter(BlockDevice device, JournalMap map, ReentrantLock checkpointMutex, JournalSuperblock first)
      throws IOException {
    this.device = device;
    this.map = map;
    this.checkpointMutex = checkpointMutex;
    write(first);
  }

  private void write(JournalSuperblock sb) throws IOException {
    LogBlocks.writeSuperblock(device, map, sb);
    current = sb;
    clean = sb.start() == 0;
  }

  private void checkOwner() {
    assert checkpointMutex.isHeldByCurrentThread() : "journal superblock touched without the checkpoint mutex";
  }

  JournalSuperblock current() {
    checkOwner();
    return current;
  }

  boolean isClean() {
    checkOwner();
    return clean;
  }

  /**
   * A commit of {@code tid} starts at {@code logStart}: an empty superblock must name it before its
   * commit block can matter (jbd2 "erases the effects of a prior flush"). Does nothing otherwise.
   */
  void beginUse(int tid, long logStart) throws IOException {
    checkOwner();
    if (clean) {
      write(current.withTail(tid, logStart));
    }
  }

  /** The oldest transaction still needed is {@code tid}, at {@code block}. */
  void writeTail(int tid, long block) throws IOException {
    checkOwner();
    write(current.withTail(tid, block));
  }

  /** The log is empty: {@code s_start = 0}, the next tid {@code sequence}, the head at {@code head}. */
  void writeEmpty(int sequence, long head) throws IOException {
    checkOwner();
    write(current.withTail(sequence, 0).withHead(head));
  }

  void writeErrno(int errno) throws IOException {
    checkOwner();
    write(current.withErrno(errno));
  }

  /** Writes {@code errno} as the abort's record, once per engine; false if it was already (tried to be) written. */
  boolean recordAbort(int errno) throws IOException {
    checkOwner();
    if (abortRecorded) {
      return false;
    }
    abortRecorded = true;
    writeErrno(errno);
    return true;
  }
}
