package io.ext4j.fs.vfs;

import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.XattrName;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Tx;
import io.ext4j.fs.xattr.Xattrs;
import java.io.IOException;

/**
 * file_remove_privs: what a change of a regular file's data (write, truncate, fallocate) clears
 * first — setuid, setgid as {@link Permissions#killOnWrite} decides from the writer's credentials,
 * and security.capability whoever writes.
 *
 * <h2>Durability</h2>
 * The clearing is one Tx, committed before {@link #clear} returns (a synchronous handle), and the
 * data change comes after it under the same exclusive inode lock: a crash leaves the old data with
 * the privileges, or the privileges cleared (with the old or the new data), never the new data
 * with setuid still set. Writes to a file with nothing to clear cost one check of cached state.
 */
// Public for the engine's own packages (Ext4FileSystem and the file code construct and call it); the
// engine types its methods take are unexported, so no other module can call them.
@SuppressWarnings("exports")
public final class Privileges {
  private static final XattrName CAPABILITY = XattrName.of(XattrName.SECURITY, "capability");

  private final Fs fs;
  private final Xattrs xattrs;

  public Privileges(Fs fs, Xattrs xattrs) {
    this.fs = fs;
    this.xattrs = xattrs;
  }

  /**
   * Whether a data change of {@code i} by {@code c} has something to clear: false is final while
   * the caller's change runs (a concurrent chmod is ordered after it); true means take the inode
   * lock exclusively and {@link #clear}.
   */
  public boolean pending(Inode i, Credentials c) throws IOException {
    if (i.fileType() != RawInode.S_IFREG) {
      return false;
    }
    return kill(i, c) != 0 || hasCapability(i);
  }

  /** Clears what {@link #pending} found, in one synchronous Tx. Caller holds {@code i}'s rw lock exclusively. */
  public void clear(Inode i, Credentials c) throws IOException {
    assert i.rw.isWriteLockedByCurrentThread();
    int kill = kill(i, c);
    boolean cap = hasCapability(i);
    if (kill == 0 && !cap) {
      return;
    }
    fs.checkWritable();
    try (Tx tx = fs.meta.begin(12, 2)) {
      i.fields.lock();
      try {
        RawInode r = i.raw();
        r.mode(r.mode() & ~kill);
        r.time(RawInode.Time.CTIME, fs.clock.now());
      } finally {
        i.fields.unlock();
      }
      fs.writeInode(tx, i, false);
      if (cap) {
        xattrs.remove(tx, i, CAPABILITY);
      }
      tx.setSync(); // durable before the data changes
    }
    i.capabilityKnown(Inode.CAPABILITY_ABSENT);
  }

  private static int kill(Inode i, Credentials c) {
    if ((i.mode() & (Permissions.S_ISUID | Permissions.S_ISGID)) == 0) {
      return 0; // the common case, without copying the inode
    }
    RawInode r = i.snapshot();
    return Permissions.killOnWrite(new Permissions.Subject(r.mode(), r.uid(), r.gid(), r.flags(), null), c);
  }

  /** Whether {@code i} has security.capability, looked up once until a security attribute changes. */
  private boolean hasCapability(Inode i) throws IOException {
    int known = i.capabilityKnown();
    if (known != Inode.CAPABILITY_UNKNOWN) {
      return known == Inode.CAPABILITY_PRESENT;
    }
    i.rw.readLock().lock();
    try {
      boolean present = xattrs.get(i, CAPABILITY) != null;
      i.capabilityKnown(present ? Inode.CAPABILITY_PRESENT : Inode.CAPABILITY_ABSENT); // under the lock every change takes
      return present;
    } finally {
      i.rw.readLock().unlock();
    }
  }
}
