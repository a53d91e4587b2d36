package io.ext4j.fs;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.BlockDevice;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.file.FileIo;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.namespace.InodeLife;
import io.ext4j.fs.orphan.Orphans;
import io.ext4j.jbd2.Journal;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One open filesystem's life after {@link Ext4Opener} built it: the mount (orphans loaded and
 * finished, needs_recovery and the mount count in a superblock written straight to the device), the
 * check every operation makes first (closed? shut down?), {@link Ext4FileSystem#shutdown} and the
 * close (inodes unlinked while open freed, the journal emptied, a clean superblock written).
 *
 * <p>Durability: when {@link #mount} returns, the mounted superblock (needs_recovery set) is on the
 * device and flushed; when {@link #close} returns, everything is: the journal checkpointed and
 * empty, the clean superblock flushed.
 */
final class Ext4Lifecycle {
  /** What a shutdown runs first to make everything durable. */
  interface Sync {
    void run() throws IOException;
  }

  private final Fs fs;
  private final BlockDevice device;
  private final boolean closeDevice;
  private final Journal journal; // null without one
  private final Orphans orphans;
  private final InodeLife life;
  private final FileIo io;
  @GuardedBy("this") private boolean closed;
  @GuardedBy("this") private Ext4Exception shutDown; // the shutdown's cause once the filesystem is shut down

  Ext4Lifecycle(Fs fs, BlockDevice device, boolean closeDevice, Journal journal, Orphans orphans, InodeLife life, FileIo io) {
    this.fs = fs;
    this.device = device;
    this.closeDevice = closeDevice;
    this.journal = journal;
    this.orphans = orphans;
    this.life = life;
    this.io = io;
  }

  /** Loads the orphans, finishes what a crash left of them and writes the mounted superblock; {@link Ext4Opener} calls it once. */
  void mount() throws IOException {
    try {
      orphans.load();
    } catch (Ext4Exception e) {
      if (fs.readOnly || !e.isFilesystemError()) {
        throw e;
      }
      fs.error(e); // as the kernel's orphan cleanup: the mount goes on, read-only
      return;
    }
    if (fs.readOnly) {
      return;
    }
    boolean journalError = journal != null && journal.recordedErrno() != 0;
    Ext4Superblock sb = fs.superblock.current();
    long now = fs.clock.now().getEpochSecond();
    fs.superblock.change(e -> {
      if (journalError) {
        e.state(e.state() | Ext4Superblock.STATE_ERRORS); // an abort recorded by the journal in an earlier session
      }
      if (journal != null) {
        e.featureIncompat(e.featureIncompat() | Ext4Superblock.INCOMPAT_RECOVER);
      } else {
        e.state(e.state() & ~Ext4Superblock.STATE_VALID);
      }
      if (fs.lay.orphanFile()) {
        e.featureRoCompat(e.featureRoCompat() | Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT);
      }
      e.mountCount(sb.mountCount() + 1);
      e.mountTime(now);
      e.writeTime(now);
    });
    writeSuperblock();
    if (journalError) {
      journal.clearRecordedErrno(); // now recorded in the filesystem's own superblock, as ext4 does
    }
    if ((sb.state() & Ext4Superblock.STATE_ERRORS) == 0 && !journalError) {
      try {
        recoverOrphans();
      } catch (Ext4Exception e) {
        if (!e.isFilesystemError()) {
          throw e;
        }
        fs.error(e);
      }
    }
  }

  /**
   * Writes the superblock straight to the device and flushes, as the kernel does at mount and
   * unmount: needs_recovery must be durable before the log holds any transaction (the kernel wipes
   * the log of a filesystem without it), and at unmount the log is already empty. A crash tearing
   * this write is handled at the next open ({@code Ext4Opener.checkTorn}).
   */
  private void writeSuperblock() throws IOException {
    fs.superblock.writeDirect(device, fs.meta);
    device.flush();
  }

  /** Finishes what a crash interrupted: unlinked orphans are freed, the others truncated to their size. */
  private void recoverOrphans() throws IOException {
    for (long ino : orphans.all()) {
      Inode inode = fs.inodes.get(ino);
      try {
        if (inode.links() == 0) {
          if (fs.inodes.claim(inode)) {
            life.delete(inode);
          }
        } else {
          inode.rw.writeLock().lock();
          try {
            io.freeFrom(inode, Math.ceilDiv(inode.size(), fs.lay.blockSize()));
            try (Tx tx = fs.meta.begin(8, 0)) {
              orphans.remove(tx, inode);
              fs.writeInode(tx, inode, false);
            }
          } finally {
            inode.rw.writeLock().unlock();
          }
        }
      } finally {
        fs.inodes.put(inode);
      }
    }
  }

  /**
   * Closes the filesystem: frees inodes that were unlinked while open, commits, checkpoints and
   * empties the journal, writes a clean superblock and flushes. Idempotent.
   */
  synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    shutdown(true);
  }

  /** Whether {@link #close} has run. */
  synchronized boolean isClosed() {
    return closed;
  }

  /** Releases the filesystem: with {@code clean}, as {@link #close} says; without, as a failed open leaves it. */
  void shutdown(boolean clean) throws IOException {
    IOException failure = null;
    try {
      if (clean && !fs.readOnly && fs.failure() == null) {
        List<Inode> gone = new ArrayList<>();
        fs.inodes.forEach(i -> {
          // unlinked and still pinned (files left open, lookups never forgotten): on the orphan
          // list since their last link went; a freed inode's stale copy is on no list
          if (orphans.contains(i.ino) && fs.inodes.claimAtClose(i)) {
            gone.add(i);
          }
        });
        for (Inode i : gone) {
          life.delete(i);
        }
      }
    } catch (IOException e) {
      failure = e;
    }
    orphans.close();
    boolean writable = clean && !fs.readOnly && failure == null && fs.failure() == null;
    if (writable) {
      boolean orphansLeft = !orphans.empty();
      long now = fs.clock.now().getEpochSecond();
      fs.superblock.change(e -> {
        e.featureIncompat(e.featureIncompat() & ~Ext4Superblock.INCOMPAT_RECOVER);
        if (!orphansLeft) {
          e.featureRoCompat(e.featureRoCompat() & ~Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT);
        }
        if (journal == null) {
          e.state(e.state() | Ext4Superblock.STATE_VALID);
        }
        e.writeTime(now);
      });
    }
    try {
      fs.meta.close();
    } catch (IOException e) {
      Ext4Exception down;
      synchronized (this) {
        down = shutDown;
      }
      if (down == null || fs.meta.abortCause() != down) {
        failure = add(failure, e); // after a shutdown the stopped journal refuses to close, as expected
      }
    }
    if (writable && failure == null) {
      try {
        writeSuperblock();
      } catch (IOException e) {
        failure = add(failure, e);
      }
    }
    if (closeDevice) {
      try {
        device.close();
      } catch (IOException e) {
        failure = add(failure, e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static IOException add(IOException first, IOException next) {
    if (first == null) {
      return next;
    }
    first.addSuppressed(next);
    return first;
  }

  /** EIO once the filesystem is closed or shut down. */
  synchronized void checkOpen() throws Ext4Exception {
    if (closed) {
      throw new Ext4Exception(Errno.EIO, 0, null, device.name() + " is closed");
    }
    if (shutDown != null) {
      throw new Ext4Exception(Errno.EIO, 0, null, device.name() + " is shut down");
    }
  }

  /** {@link Ext4FileSystem#shutdown}: {@code sync} makes everything durable (the filesystem's syncfs). */
  void shutdown(ShutdownMode mode, Sync sync) throws IOException {
    synchronized (this) {
      if (shutDown != null) {
        return;
      }
    }
    checkOpen();
    if (fs.failure() == null && mode != ShutdownMode.NO_LOG_FLUSH) {
      sync.run(); // the log forced (with its ordered data) and the device flushed: both modes' durability here
    }
    Ext4Exception cause = new Ext4Exception(Errno.EIO, 0, null, device.name() + " is shut down (" + mode + ")");
    synchronized (this) {
      if (shutDown != null) {
        return;
      }
      shutDown = cause;
    }
    fs.meta.shutdown(cause);
  }

  /** Whether the filesystem is shut down. */
  synchronized boolean isShutDown() {
    return shutDown != null;
  }
}
