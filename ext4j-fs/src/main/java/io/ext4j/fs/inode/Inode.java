package io.ext4j.fs.inode;

import io.ext4j.fs.format.RawInode;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * An inode in memory: its on-disk bytes (the authoritative copy of every field, written into the
 * inode table in each Tx that changes it), its locks, and the transactions that last changed it.
 *
 * <h2>Locks, outermost first</h2>
 * <ul>
 *   <li>{@link #rw} — the kernel's {@code i_rwsem}: exclusive for anything that changes the file's
 *       contents or size through the buffered path, or a directory's entries; shared for direct I/O
 *       overwrites and for reads. Taken before a Tx begins.
 *   <li>{@link #map} — {@code i_data_sem}: the block map (extent tree or i_block); shared to look
 *       blocks up, exclusive to change the map. Taken inside a Tx.
 *   <li>{@link #fields} — the bytes of {@link #raw()}: every read or write of a field, held only
 *       for the moment of the access (never across I/O or a Tx start).
 * </ul>
 *
 * <h2>Other fields</h2>
 * {@code syncTid}/{@code datasyncTid} are volatile, written after the change's Tx is begun (the tid
 * of the transaction that last changed the inode, and the last one that changed what its data
 * needs: size, block map); fsync and fdatasync wait for them. {@code refs} is atomic (the inode
 * cache's count), and so is {@code pins} (the long-lived references that keep it alive, see
 * {@link InodeCache#pin}).
 * {@code timesSeen} is volatile: whether a caller may have read the timestamps since a write last
 * changed them (see {@code FileIo.touch}); a stale true only costs an inode update.
 * {@code generation} and {@code fileType} are final: copied from the bytes when the object is made.
 * Nothing changes them while it lives (the generation is set before {@code InodeCache.install}, a
 * reused inode number gets a new object, and a mode change keeps the type bits), so the reads on
 * every path walk and checksum seed take no lock: eight threads walking through one directory
 * queued on its fields lock.
 */
public final class Inode {
  public final long ino;
  public final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
  public final ReentrantReadWriteLock map = new ReentrantReadWriteLock();
  public final ReentrantLock fields = new ReentrantLock();
  private final RawInode raw; // fields
  private final int generation; // immutable: i_generation at construction
  private final int fileType; // immutable: i_mode & S_IFMT at construction
  private volatile int syncTid;
  private volatile int datasyncTid;
  private volatile boolean tidsKnown; // the tids are meaningful (set at load from the running tid, or by a change)
  final AtomicInteger refs = new AtomicInteger(); // the inode cache's references; -1 once evicted
  final java.util.concurrent.atomic.AtomicLong pins = new java.util.concurrent.atomic.AtomicLong(); // InodeCache's pins; DEAD once claimed for deletion
  private volatile boolean unlinked; // no link left (i_nlink 0): set with the change of the link count, read by pins without the fields lock
  private volatile int capability = CAPABILITY_UNKNOWN; // whether security.capability is set, as a write's privilege check last found it
  private volatile boolean linkable; // an O_TMPFILE inode that linkat may give a name (I_LINKABLE); under rw
  private volatile boolean timesSeen = true; // true at load: nobody knows who read them before
  private volatile java.util.List<io.ext4j.fs.format.PosixAcl.Entry> acl; // the access ACL for permission checks: null not read, empty none; published by the volatile write
  volatile long lastAllocated; // hint for the allocator's goal: the physical block after the last one given to this file

  Inode(long ino, RawInode raw, java.util.OptionalInt runningTid) {
    this.ino = ino;
    this.raw = raw;
    this.generation = raw.generation();
    this.fileType = raw.mode() & RawInode.S_IFMT;
    this.unlinked = raw.links() == 0;
    if (runningTid.isPresent()) {
      syncTid = datasyncTid = runningTid.getAsInt();
      tidsKnown = true;
    }
  }

  /** The on-disk bytes; read or change them only while holding {@link #fields}. */
  public RawInode raw() {
    assert fields.isHeldByCurrentThread();
    return raw;
  }

  /** A copy of the bytes, taken under {@link #fields}. */
  public RawInode snapshot() {
    fields.lock();
    try {
      return raw.copy();
    } finally {
      fields.unlock();
    }
  }

  /** Records that transaction {@code tid} changed the inode; {@code data} when the change matters to its data (size, block map). */
  public void changedIn(int tid, boolean data) {
    syncTid = tid;
    if (data) {
      datasyncTid = tid;
    }
    tidsKnown = true;
  }

  /**
   * Whether {@link #syncTid()} and {@link #datasyncTid()} are meaningful: false for an inode loaded
   * while no transaction ran (its last change may be in the committing one), until a Tx changes it.
   */
  public boolean tidsKnown() {
    return tidsKnown;
  }

  public int syncTid() {
    return syncTid;
  }

  public int datasyncTid() {
    return datasyncTid;
  }

  /**
   * Whether the inode has no link left: read without the fields lock by {@link InodeCache#pin},
   * set by whoever changes the link count to or from 0 (under the inode's rw lock, after the change).
   */
  public boolean unlinked() {
    return unlinked;
  }

  /** Records that the link count reached 0 ({@code true}) or left it (an O_TMPFILE inode linked). */
  public void unlinked(boolean v) {
    unlinked = v;
  }

  /** {@link #capabilityKnown()}: not looked up since the security attributes last changed. */
  public static final int CAPABILITY_UNKNOWN = 0;
  /** {@link #capabilityKnown()}: the inode has no security.capability. */
  public static final int CAPABILITY_ABSENT = 1;
  /** {@link #capabilityKnown()}: the inode has security.capability. */
  public static final int CAPABILITY_PRESENT = 2;

  /**
   * What the last privilege check found of security.capability (one of the CAPABILITY_ constants),
   * so that a write to a file without it need not look its attributes up each time (the kernel's
   * S_NOSEC). Xattrs resets it to unknown whenever a security.* attribute changes.
   */
  public int capabilityKnown() {
    return capability;
  }

  public void capabilityKnown(int v) {
    capability = v;
  }

  /** Whether linkat may give this nameless O_TMPFILE inode its first link. */
  public boolean linkable() {
    return linkable;
  }

  public void linkable(boolean v) {
    linkable = v;
  }

  /** Records that a caller was given the timestamps (a stat). */
  public void timesSeen() {
    timesSeen = true;
  }

  /** Whether a caller may have read the timestamps since {@link #timesRecorded()}. */
  public boolean wereTimesSeen() {
    return timesSeen;
  }

  /** Records that new timestamps were just set, and nobody has read them yet. */
  public void timesRecorded() {
    timesSeen = false;
  }

  /**
   * The access ACL as permission checks last read it: null when not read since it last changed,
   * an empty list when the inode has none. Xattrs clears it whenever system.posix_acl_access is
   * set or removed (under the inode's rw lock), so a check never sees an ACL older than the last
   * completed change.
   */
  public java.util.List<io.ext4j.fs.format.PosixAcl.Entry> cachedAcl() {
    return acl;
  }

  /** Records the access ACL read for a permission check (an empty list: none), or null to forget it. */
  public void cachedAcl(java.util.List<io.ext4j.fs.format.PosixAcl.Entry> entries) {
    acl = entries;
  }

  public long lastAllocated() {
    return lastAllocated;
  }

  public void lastAllocated(long block) {
    lastAllocated = block;
  }

  // ------------------------------------------------------------ convenience reads (each takes the fields lock)

  public int mode() {
    fields.lock();
    try {
      return raw.mode();
    } finally {
      fields.unlock();
    }
  }

  public int fileType() {
    return fileType;
  }

  public boolean isDirectory() {
    return fileType() == RawInode.S_IFDIR;
  }

  public long size() {
    fields.lock();
    try {
      return raw.sizeBytes();
    } finally {
      fields.unlock();
    }
  }

  public int links() {
    fields.lock();
    try {
      return raw.links();
    } finally {
      fields.unlock();
    }
  }

  public int flags() {
    fields.lock();
    try {
      return raw.flags();
    } finally {
      fields.unlock();
    }
  }

  public boolean usesExtents() {
    return (flags() & RawInode.FL_EXTENTS) != 0;
  }

  public int generation() {
    return generation;
  }

  @Override
  public String toString() {
    return "Inode[" + ino + "]";
  }
}
