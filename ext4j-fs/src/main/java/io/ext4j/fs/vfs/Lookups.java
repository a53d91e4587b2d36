package io.ext4j.fs.vfs;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.inode.Inode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lookup references one FUSE session holds, counted per inode as the kernel counts them: each
 * reply that gives the kernel an entry (LOOKUP, CREATE, MKNOD, MKDIR, SYMLINK, LINK, TMPFILE,
 * READDIRPLUS) adds one, FORGET and BATCH_FORGET take {@code nlookup} away. An inode with
 * references is pinned: an unlinked one stays (on the orphan list) until its last reference and
 * its last open file are gone, so a node id the kernel holds always names the inode it was given
 * for, and its number is reused only after FORGET. {@link #forgetAll} drops every reference
 * (unmount). Thread-safe.
 */
public final class Lookups {
  private final Vfs vfs;
  private final ConcurrentHashMap<Long, long[]> counts = new ConcurrentHashMap<>(); // ino → {count}; compute() makes each change atomic

  Lookups(Vfs vfs) {
    this.vfs = vfs;
  }

  /**
   * Adds one reference to the inode {@code a} describes, as the reply that carries it goes out.
   * ENOENT when that inode is already gone (a concurrent unlink freed it after {@code a} was
   * read): the caller answers so, as if the lookup came after the unlink.
   */
  public Attributes remember(Attributes a) throws IOException {
    Inode i = vfs.pinned(new FileHandle(a.ino(), a.generation())); // this call's pin becomes the reference's
    boolean kept = false;
    try {
      counts.compute(a.ino(), (ino, c) -> {
        if (c == null) {
          return new long[] {1};
        }
        c[0]++;
        return c;
      });
      kept = true;
      return a;
    } catch (RuntimeException e) {
      throw e;
    } finally {
      if (!kept) {
        vfs.kernel().unpin(i);
      }
    }
  }

  /** Adds a reference through {@link #remember}, answering ENOENT for an inode already gone. */
  public Attributes rememberOrEnoent(Attributes a) throws IOException {
    try {
      return remember(a);
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ESTALE) {
        throw new Ext4Exception(Errno.ENOENT, a.ino(), null, "removed meanwhile", e);
      }
      throw e;
    }
  }

  /** FORGET: drops {@code n} references of inode {@code ino} (more than it has: all of them). */
  public void forget(long ino, long n) throws IOException {
    long[] dropped = {0};
    counts.computeIfPresent(ino, (k, c) -> {
      dropped[0] = Math.min(n, c[0]);
      c[0] -= dropped[0];
      return c[0] == 0 ? null : c;
    });
    if (dropped[0] > 0) {
      unpin(ino, dropped[0]);
    }
  }

  private void unpin(long ino, long n) throws IOException {
    Inode i = vfs.kernel().fs().inodes.get(ino); // pinned, so the object in memory is the one pinned
    try {
      for (long left = n; left > 0; left--) {
        vfs.kernel().unpin(i);
      }
    } finally {
      vfs.kernel().fs().inodes.put(i);
    }
  }

  /** The references held on {@code ino}. */
  public long count(long ino) {
    long[] c = counts.get(ino);
    return c == null ? 0 : c[0];
  }

  /** Drops every reference (the session ended). The first failure is thrown after all are dropped. */
  public void forgetAll() throws IOException {
    IOException first = null;
    List<Long> inos = new ArrayList<>(counts.keySet());
    for (long ino : inos) {
      try {
        forget(ino, Long.MAX_VALUE);
      } catch (IOException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
