package io.ext4j.nio;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The file locks of one file system, held in this JVM: per inode, the ranges locked through its
 * channels. A lock that overlaps one already held fails with {@link OverlappingFileLockException},
 * as the JDK answers overlapping locks within one JVM (there is no other process to wait for).
 * Thread-safe: every method is synchronized on the table.
 */
final class FileLocks {
  @GuardedBy("this") private final Map<Long, List<Lock>> held = new HashMap<>();

  private final class Lock extends FileLock {
    private final long ino;
    @GuardedBy("FileLocks.this") private boolean valid = true;

    Lock(FileChannel channel, long ino, long at, long size, boolean shared) {
      super(channel, at, size, shared);
      this.ino = ino;
    }

    @Override
    public boolean isValid() {
      synchronized (FileLocks.this) {
        return valid && channel().isOpen();
      }
    }

    @Override
    public void release() {
      synchronized (FileLocks.this) {
        if (!valid) {
          return;
        }
        valid = false;
        List<Lock> l = held.get(ino);
        if (l != null) {
          l.remove(this);
          if (l.isEmpty()) {
            held.remove(ino);
          }
        }
      }
    }
  }

  synchronized FileLock acquire(FileChannel channel, long ino, long at, long size, boolean shared) {
    if (at < 0 || size < 0) {
      throw new IllegalArgumentException("lock range " + at + "+" + size);
    }
    List<Lock> l = held.computeIfAbsent(ino, k -> new ArrayList<>());
    for (Lock o : l) {
      if (o.overlaps(at, size)) {
        throw new OverlappingFileLockException();
      }
    }
    Lock lock = new Lock(channel, ino, at, size, shared);
    l.add(lock);
    return lock;
  }

  /** Releases every lock {@code channel} holds (its close). */
  synchronized void releaseAll(FileChannel channel) {
    for (List<Lock> l : new ArrayList<>(held.values())) {
      for (Lock lock : new ArrayList<>(l)) {
        if (lock.channel() == channel) {
          lock.release();
        }
      }
    }
  }
}
