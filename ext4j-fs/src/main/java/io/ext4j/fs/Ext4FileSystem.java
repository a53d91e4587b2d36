package io.ext4j.fs;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.ConcatBlockDevice;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.fs.alloc.BlockAllocator;
import io.ext4j.fs.namespace.DentryCache;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.Extent;
import io.ext4j.fs.namespace.InodeAttrs;
import io.ext4j.fs.namespace.InodeLife;
import io.ext4j.fs.namespace.Namespace;
import io.ext4j.fs.dir.Directory;
import io.ext4j.fs.file.FileIo;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.XattrName;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.orphan.Orphans;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Kernel;
import io.ext4j.fs.vfs.Privileges;
import io.ext4j.fs.vfs.Vfs;
import io.ext4j.fs.xattr.Xattrs;
import io.ext4j.jbd2.Journal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * An open ext4 filesystem: the engine every adapter (java.nio, FUSE, the CLI) calls. Operations
 * take inode numbers and name bytes, as a FUSE low-level filesystem does, and fail with
 * {@link Ext4Exception} carrying an {@link Errno}.
 *
 * <h2>Lifecycle</h2>
 * {@link #open} reads and checks the superblock and group descriptors, replays the journal if it
 * needs recovery (in memory only when opening read-only; with fast commits, the full commits and
 * then the fast commits after them, see {@link Ext4Recovery}), marks the filesystem mounted
 * (needs_recovery set, as the kernel does), then finishes what orphaned inodes left (frees the
 * unlinked ones, truncates the others to their size). {@link #close} frees inodes unlinked while
 * open, commits and checkpoints the journal, and writes a clean superblock with exact free
 * counts: the image then passes {@code e2fsck -fn} and mounts on Linux.
 *
 * <h2>Threads and locks</h2>
 * Every operation may be called from any thread. Operations on different inodes proceed in
 * parallel (per-inode locks, per-group allocation locks, one journal with group commit); the lock
 * order is written on {@link Namespace}. {@link OpenFile}s are thread-safe.
 *
 * <h2>Durability</h2>
 * Nothing an operation changes is durable when it returns, except: {@link OpenFile#fsync},
 * {@link #fsync}, {@link #syncfs}, writes through a file opened with SYNC or DSYNC, changes in a
 * DIRSYNC directory (in every directory with {@link Ext4Options#dirSync}), and {@link #close}. Crash consistency comes from the journal: after a crash
 * at any instant, the next open recovers a state in which every operation either happened or did
 * not, and everything made durable is there. File data is ordered: it reaches the device before the
 * metadata that points at it commits (data=ordered).
 */
public final class Ext4FileSystem implements AutoCloseable {
  /** The root directory's inode number. */
  public static final long ROOT = 2;

  private final Fs fs;
  private final BlockDevice device;
  private final Orphans orphans;
  private final FileIo io;
  private final Directory dirs;
  private final Xattrs xattrs;
  private final InodeLife life;
  private final Namespace names;
  private final InodeAttrs attrs;
  private final Privileges privileges;
  private final Vfs vfs;
  private final Ext4Options options;
  private final Journal journal; // null without one
  private final String readOnlyReason; // why it is read-only, or null
  final Ext4Lifecycle lifecycle; // mount, the open checks, shutdown and close

  Ext4FileSystem(Fs fs, BlockDevice device, boolean closeDevice, Ext4Options options, Journal journal, String readOnlyReason) {
    this.fs = fs;
    this.device = device;
    this.options = options;
    this.journal = journal;
    this.readOnlyReason = readOnlyReason;
    this.orphans = new Orphans(fs);
    this.io = new FileIo(fs, orphans);
    this.dirs = new Directory(fs, io);
    this.xattrs = new Xattrs(fs);
    this.life = new InodeLife(fs, io, orphans, xattrs, options.generations());
    this.attrs = new InodeAttrs(fs, io, xattrs, life);
    this.privileges = new Privileges(fs, xattrs);
    this.names = new Namespace(fs, dirs, io, life, orphans, xattrs, options.dirSync(), new DentryCache(options.dentryCacheSize()));
    this.vfs = new Vfs(new Bridge());
    this.lifecycle = new Ext4Lifecycle(fs, device, closeDevice, journal, orphans, life, io);
  }

  /**
   * The VFS over this filesystem: path operations with Linux's atomicity and permission rules,
   * handles, lookup references. What adapters call.
   */
  public Vfs vfs() {
    return vfs;
  }

  /** What the VFS needs of the engine (see {@link Kernel}); only this class makes one. */
  private final class Bridge implements Kernel {
    @Override
    public Fs fs() {
      return fs;
    }

    @Override
    public Namespace names() {
      return names;
    }

    @Override
    public InodeAttrs attrs() {
      return attrs;
    }

    @Override
    public InodeLife life() {
      return life;
    }

    @Override
    public FileIo io() {
      return io;
    }

    @Override
    public Directory dirs() {
      return dirs;
    }

    @Override
    public Xattrs xattrs() {
      return xattrs;
    }

    @Override
    public OpenFile open(Inode pinned, Set<OpenFlag> flags, Caller who, Credentials writer) {
      return new OpenFile(Ext4FileSystem.this, pinned, flags.isEmpty() ? EnumSet.of(OpenFlag.READ) : EnumSet.copyOf(flags), who,
          writer);
    }

    @Override
    public Inode inode(OpenFile f) {
      return f.inode();
    }

    @Override
    public List<DirEntry> list(Inode d, long cookie, int max, boolean accessed) throws IOException {
      return Ext4FileSystem.this.list(d, cookie, max, accessed);
    }

    @Override
    public void unpin(Inode i) throws IOException {
      Ext4FileSystem.this.unpin(i);
    }

    @Override
    public <T> T run(Caller who, boolean retryEnospc, Kernel.Op<T> op) throws IOException {
      lifecycle.checkOpen();
      Ext4FileSystem.Op<T> guarded = () -> guard(op::run);
      Ext4FileSystem.Op<T> retried = retryEnospc ? () -> retryingEnospc(guarded) : guarded;
      return as(who, retried);
    }

    @Override
    public void truncate(Inode i, long size, Credentials writer) throws IOException {
      Ext4FileSystem.this.truncate(i, size, writer);
    }

    @Override
    public void shutdown(ShutdownMode mode) throws IOException {
      Ext4FileSystem.this.shutdown(mode);
    }
  }

  // ============================================================ open and close

  /**
   * Opens the ext4 image or block device at {@code image}. A read-write open takes an exclusive
   * lock on the file: a second read-write open, in this JVM or another process that locks it the same
   * way, fails with an IOException naming the image; read-only opens take no lock (as debugfs reads a
   * mounted device). The lock is the JDK's (fcntl), which the process holds as a whole: in this JVM it
   * is always enforced, but once this JVM closes any other channel on the same file the operating
   * system may drop it for other processes.
   *
   * @throws java.nio.file.NoSuchFileException if it does not exist
   * @throws Ext4FormatException if it is not ext4, uses features ext4j cannot open, or a structure
   *     read at open fails its checks (naming the structure and where)
   */
  public static Ext4FileSystem open(Path image, Ext4Options options) throws IOException {
    FileBlockDevice dev = FileBlockDevice.open(image, Ext4Opener.blockSizeOf(image), FileBlockDevice.Options.defaults().withReadOnly(options.readOnly())
        .withDirect(options.directDevice()));
    try {
      if (!options.readOnly()) {
        dev.lockExclusive(); // one writer per image; read-only opens (like debugfs) are not refused
      }
      return open(dev, options, true);
    } catch (IOException | RuntimeException e) {
      try {
        dev.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Opens the filesystem on {@code device}, whose block size must be the filesystem's.
   *
   * <p>A primary superblock whose checksum fails — torn by a crash while its new version was being
   * checkpointed home — is still used to find the journal when the journal has transactions to
   * replay; the replay rewrites it, and only the replayed superblock is trusted.
   *
   * @param closeDevice whether {@link #close} closes the device
   */
  public static Ext4FileSystem open(BlockDevice device, Ext4Options options, boolean closeDevice) throws IOException {
    return Ext4Opener.open(device, options, closeDevice, null, -1);
  }

  /**
   * Opens the filesystem on {@code device} whose journal is the external journal device
   * {@code journalDevice} (mke2fs -O journal_dev; the filesystem made with -J device=), checking the
   * device's UUID against the filesystem's s_journal_uuid and the journal's list of users. Both
   * devices have the filesystem's block size; the journal's log and superblock live on the journal
   * device, the home blocks on {@code device}.
   *
   * @param closeDevices whether {@link #close} closes both devices
   */
  public static Ext4FileSystem open(BlockDevice device, BlockDevice journalDevice, Ext4Options options, boolean closeDevices)
      throws IOException {
    ConcatBlockDevice both = new ConcatBlockDevice(device, journalDevice);
    return Ext4Opener.open(both, options, closeDevices, journalDevice.name(), both.secondStart());
  }

  /**
   * Opens the image at {@code image} with its external journal at {@code journalDevice} (an image
   * file or block device); a read-write open locks both. Otherwise as {@link #open(Path, Ext4Options)}.
   */
  public static Ext4FileSystem open(Path image, Path journalDevice, Ext4Options options) throws IOException {
    ConcatBlockDevice both = ConcatBlockDevice.open(image, journalDevice, Ext4Opener.blockSizeOf(image),
        FileBlockDevice.Options.defaults().withReadOnly(options.readOnly()), !options.readOnly());
    try {
      return Ext4Opener.open(both, options, true, journalDevice.toString(), both.secondStart());
    } catch (IOException | RuntimeException e) {
      try {
        both.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * Closes the filesystem: frees inodes that were unlinked while open, commits, checkpoints and
   * empties the journal, writes a clean superblock and flushes. Idempotent.
   */
  @Override
  public void close() throws IOException {
    lifecycle.close();
  }

  /**
   * Shuts the filesystem down (ext4's FS_IOC_SHUTDOWN): {@code mode} says what is made durable
   * first (everything, the journal's running transaction, or nothing); then the journal stops
   * without recording an error and every later operation, on this object, its open files and its
   * VFS, fails with EIO. Nothing more is written: {@link #close} then releases the image as a power
   * cut would leave it (the journal needing recovery, orphans listed), and the next open recovers
   * it. Unlike the kernel, which records ESHUTDOWN in the journal superblock so that the next mount
   * marks the filesystem as having had an error, nothing is recorded: a shutdown is not damage, and
   * {@code e2fsck -fn} of the recovered image finds nothing. A second shutdown does nothing; a
   * read-only filesystem is only marked shut down.
   */
  public void shutdown(ShutdownMode mode) throws IOException {
    lifecycle.shutdown(mode, this::syncfs);
  }

  /** Whether {@link #shutdown} has shut this filesystem down. */
  public boolean isShutDown() {
    return lifecycle.isShutDown();
  }

  // ============================================================ inodes

  /** Runs {@code f} with inode {@code ino} referenced. */
  private <T> T with(long ino, InodeFn<T> f) throws IOException {
    lifecycle.checkOpen();
    if (!fs.itable.valid(ino)) {
      throw new Ext4Exception(Errno.EINVAL, ino, null, "no such inode number");
    }
    return guard(() -> {
      Inode i = fs.inodes.get(ino);
      try {
        if (!fs.inodes.pin(i)) { // pinned for the call: no unlink can free it under the operation
          throw new Ext4Exception(Errno.ENOENT, ino, null, "inode is not in use");
        }
        try {
          return f.apply(i);
        } finally {
          unpin(i);
        }
      } finally {
        fs.inodes.put(i);
      }
    });
  }

  /** Drops a pin of {@code i}; the last pin of an inode without links deletes it (iput's evict). */
  void unpin(Inode i) throws IOException {
    if (fs.inodes.unpin(i) && !fs.readOnly) {
      if (lifecycle.isClosed()) {
        return; // close deleted what was left
      }
      guard(() -> {
        life.delete(i);
        return null;
      });
    }
  }

  /**
   * Runs {@code op}; an error of the filesystem it throws (a corrupted structure, a failed metadata
   * read) turns the filesystem read-only and is recorded in the superblock ({@link Fs#error}) before
   * it reaches the caller, as ext4 does with errors=remount-ro.
   */
  private <T> T guard(Op<T> op) throws IOException {
    try {
      return op.run();
    } catch (Ext4Exception e) {
      if (e.isFilesystemError()) {
        fs.error(e);
      }
      throw e;
    }
  }

  @FunctionalInterface
  private interface InodeFn<T> {
    T apply(Inode i) throws IOException;
  }

  @FunctionalInterface
  private interface Op<T> {
    T run() throws IOException;
  }

  /** How many times an allocation that found no space is retried after a commit (ext4's allocation retry). */
  private static final int ENOSPC_RETRIES = 3;

  /**
   * Runs {@code op}; when it fails with ENOSPC while freed blocks wait for their freeing commit
   * (they count as free in statfs but may not be reused before that commit), commits — making them
   * reusable — and runs it again, as ext4 does. Only for operations that change nothing when they
   * fail with ENOSPC; called with no lock held, so the commit cannot wait on the caller.
   */
  private <T> T retryingEnospc(Op<T> op) throws IOException {
    for (int attempt = 0; ; attempt++) {
      try {
        return op.run();
      } catch (Ext4Exception e) {
        if (!worthRetrying(e, attempt)) {
          throw e;
        }
        fs.meta.sync();
      }
    }
  }

  private boolean worthRetrying(Ext4Exception e, int attempt) {
    return e.errno() == Errno.ENOSPC && attempt < ENOSPC_RETRIES && fs.meta.journaled() && fs.blocks.hasPendingFrees();
  }

  /** The inode's attributes. */
  public Attributes getattr(long ino) throws IOException {
    return with(ino, life::attributes);
  }

  /** The attributes of entry {@code name} in directory {@code dir}; ENOENT if none. */
  public Attributes lookup(long dir, byte[] name) throws IOException {
    return with(dir, d -> {
      if (!d.isDirectory()) {
        throw new Ext4Exception(Errno.ENOTDIR, d.ino, null, "not a directory");
      }
      if (name.length > 255) {
        throw new Ext4Exception(Errno.ENAMETOOLONG, d.ino, null, name.length + " bytes");
      }
      DentryCache.Dentry f = Namespace.isDot(name) ? null : names.lookup(d, name);
      long found = f != null ? f.ino() : name.length == 1 ? d.ino : dirs.parentOf(d);
      if (found == 0) {
        throw new Ext4Exception(Errno.ENOENT, d.ino, new String(name, java.nio.charset.StandardCharsets.UTF_8), "no such entry");
      }
      return getattr(found);
    });
  }

  /**
   * Creates a regular file with permission bits {@code perms}, used as given: a caller applies its
   * umask first, except under a directory with a default ACL, where (as on Linux) the umask does not
   * apply and the new inode's access ACL and bits come from the default ACL limited by {@code perms}.
   * The same holds for {@link #mknod} and {@link #mkdir} (a new directory also inherits the default
   * ACL itself).
   */
  public Attributes create(long dir, byte[] name, int perms, Caller who) throws IOException {
    return make(dir, name, RawInode.S_IFREG | (perms & 07777), 0, null, who);
  }

  /** Creates a fifo, socket, character or block device ({@code mode} includes the type; {@code rdev} as in {@link Attributes#rdev()}). */
  public Attributes mknod(long dir, byte[] name, int mode, long rdev, Caller who) throws IOException {
    int t = mode & RawInode.S_IFMT;
    if (t != RawInode.S_IFIFO && t != RawInode.S_IFSOCK && t != RawInode.S_IFCHR && t != RawInode.S_IFBLK && t != RawInode.S_IFREG) {
      throw new Ext4Exception(Errno.EINVAL, dir, null, "mknod of mode 0" + Integer.toOctalString(mode));
    }
    return make(dir, name, mode, rdev, null, who);
  }

  /** Creates a symbolic link to {@code target}. */
  public Attributes symlink(long dir, byte[] name, byte[] target, Caller who) throws IOException {
    return make(dir, name, RawInode.S_IFLNK | 0777, 0, target, who);
  }

  /**
   * Runs {@code op} as {@code who}: an unprivileged caller (not root, not s_def_resuid, not in
   * s_def_resgid) leaves free the root-reserved blocks (-m) and the reserve statfs also withholds,
   * so that it sees ENOSPC when statfs's available count reaches 0, as on Linux.
   */
  private <T> T as(Caller who, Op<T> op) throws IOException {
    Ext4Superblock sb = fs.superblock.current();
    boolean privileged = who.uid() == 0 || who.uid() == sb.defaultReservedUid()
        || (sb.defaultReservedGid() != 0 && who.gid() == sb.defaultReservedGid());
    if (privileged) {
      return op.run();
    }
    long keep = sb.reservedBlocksCount() + withheld();
    return ScopedValue.where(BlockAllocator.KEEP_FREE, keep).call(op::run);
  }

  /** What the kernel holds back besides the root-reserved blocks: 2% up to 4096 clusters (s_resv_clusters), extent filesystems only. */
  private long withheld() {
    return fs.lay.extents() ? Math.min(fs.lay.blocksCount() / 50, 4096) : 0;
  }

  private Attributes make(long dir, byte[] name, int mode, long rdev, byte[] target, Caller who) throws IOException {
    return as(who, () -> retryingEnospc(() -> with(dir, d -> {
      Inode c = names.create(d, name, mode, rdev, target, who);
      try {
        return life.attributes(c);
      } finally {
        fs.inodes.put(c);
      }
    })));
  }

  /** Makes a directory. */
  public Attributes mkdir(long dir, byte[] name, int perms, Caller who) throws IOException {
    return as(who, () -> retryingEnospc(() -> with(dir, d -> {
      Inode c = names.mkdir(d, name, perms, who);
      try {
        return life.attributes(c);
      } finally {
        fs.inodes.put(c);
      }
    })));
  }

  /** Adds a hard link {@code name} in {@code newDir} to {@code ino}. */
  public Attributes link(long ino, long newDir, byte[] name) throws IOException {
    return retryingEnospc(() -> with(ino, t -> with(newDir, d -> {
      names.link(t, d, name);
      return life.attributes(t);
    })));
  }

  /** Removes a non-directory name. */
  public void unlink(long dir, byte[] name) throws IOException {
    with(dir, d -> {
      names.unlink(d, name, false);
      return null;
    });
  }

  /** Removes an empty directory. */
  public void rmdir(long dir, byte[] name) throws IOException {
    with(dir, d -> {
      names.unlink(d, name, true);
      return null;
    });
  }

  /** Renames (atomically across a crash). */
  public void rename(long oldDir, byte[] oldName, long newDir, byte[] newName, RenameMode mode) throws IOException {
    retryingEnospc(() -> with(oldDir, a -> with(newDir, b -> {
      names.rename(a, oldName, b, newName, mode);
      return null;
    })));
  }

  /** A symbolic link's target. */
  public byte[] readlink(long ino) throws IOException {
    return with(ino, i -> {
      i.rw.readLock().lock();
      try {
        return names.readlink(i);
      } finally {
        i.rw.readLock().unlock();
      }
    });
  }

  /** Changes attributes; a size change truncates or extends. Returns the new attributes. */
  public Attributes setattr(long ino, SetAttributes c) throws IOException {
    return with(ino, i -> attrs.setattr(i, c));
  }

  /** Up to {@code max} entries of directory {@code dir} from {@code cookie} (0: the start). */
  public List<DirEntry> readdir(long dir, long cookie, int max) throws IOException {
    return with(dir, d -> list(d, cookie, max, true));
  }

  List<DirEntry> list(Inode d, long cookie, int max, boolean accessed) throws IOException {
    if (!d.isDirectory()) {
      throw new Ext4Exception(Errno.ENOTDIR, d.ino, null, "not a directory");
    }
    d.rw.readLock().lock();
    try {
      List<DirEntry> out = new ArrayList<>();
      for (Directory.Listed l : dirs.list(d, cookie, max)) {
        out.add(new DirEntry(l.name(), l.inode(), l.type(), l.next()));
      }
      return out;
    } finally {
      d.rw.readLock().unlock();
      if (accessed && !options.noDirAtime()) {
        attrs.touchAtime(d, options.atime()); // as getdents(2) does, each call
      }
    }
  }

  // ============================================================ files

  /**
   * Opens inode {@code ino}: the returned file keeps it alive after its last name is removed, until
   * closed. TRUNCATE truncates to 0 now.
   */
  public OpenFile open(long ino, Set<OpenFlag> flags) throws IOException {
    return open(ino, flags, Caller.ROOT);
  }

  /**
   * Opens inode {@code ino} for {@code who}: its writes and fallocates allocate as that caller does
   * (an unprivileged one cannot take the root-reserved blocks). Otherwise as {@link #open(long, Set)}.
   */
  public OpenFile open(long ino, Set<OpenFlag> flags, Caller who) throws IOException {
    return with(ino, i -> {
      boolean write = flags.contains(OpenFlag.WRITE) || flags.contains(OpenFlag.APPEND) || flags.contains(OpenFlag.TRUNCATE);
      if (write) {
        fs.checkWritable();
        if (i.isDirectory()) {
          throw new Ext4Exception(Errno.EISDIR, ino, null, "cannot open a directory for writing");
        }
      }
      if (!fs.inodes.pin(i)) { // the open file's own pin; with() holds another meanwhile
        throw new Ext4Exception(Errno.ENOENT, ino, null, "inode is not in use");
      }
      OpenFile f = new OpenFile(this, i, flags.isEmpty() ? EnumSet.of(OpenFlag.READ) : EnumSet.copyOf(flags), who, null);
      if (flags.contains(OpenFlag.TRUNCATE) && i.fileType() == RawInode.S_IFREG) {
        try {
          io.truncate(i, 0);
        } catch (IOException | RuntimeException e) {
          f.close();
          throw e;
        }
      }
      return f;
    });
  }

  int read(Inode i, long pos, ByteBuffer dst, Set<OpenFlag> flags) throws IOException {
    return guard(() -> readFile(i, pos, dst, flags));
  }

  private int readFile(Inode i, long pos, ByteBuffer dst, Set<OpenFlag> flags) throws IOException {
    lifecycle.checkOpen();
    if (i.isDirectory()) {
      throw new Ext4Exception(Errno.EISDIR, i.ino, null, "is a directory");
    }
    int n = flags.contains(OpenFlag.DIRECT) ? io.directRead(i, pos, dst) : io.read(i, pos, dst, false);
    if (!flags.contains(OpenFlag.NOATIME)) {
      attrs.touchAtime(i, options.atime()); // as the kernel's file_accessed, after every read
    }
    return n;
  }

  /** Whether reading {@code i} now would update its access time (the atime options, the noatime flag, read-only). */
  boolean atimeDue(Inode i, Set<OpenFlag> flags) {
    return !flags.contains(OpenFlag.NOATIME) && attrs.atimeDue(i, options.atime());
  }

  long write(Inode i, long pos, ByteBuffer src, Set<OpenFlag> flags, Caller who, Credentials writer) throws IOException {
    return as(who, () -> guard(() -> dataChange(i, writer, () -> writeFile(i, pos, src, flags))));
  }

  /**
   * Runs a change of {@code i}'s data by {@code writer}: when it must first clear setuid, setgid or
   * security.capability ({@link Privileges}), under the inode's exclusive lock held across both,
   * so that nothing sets them again in between. A null writer (the raw engine API) clears nothing.
   */
  private <T> T dataChange(Inode i, Credentials writer, Op<T> change) throws IOException {
    if (writer == null || !privileges.pending(i, writer)) {
      return change.run();
    }
    i.rw.writeLock().lock();
    try {
      privileges.clear(i, writer);
      return change.run();
    } finally {
      i.rw.writeLock().unlock();
    }
  }

  private long writeFile(Inode i, long pos, ByteBuffer src, Set<OpenFlag> flags) throws IOException {
    lifecycle.checkOpen();
    if (i.fileType() != RawInode.S_IFREG) {
      throw new Ext4Exception(i.isDirectory() ? Errno.EISDIR : Errno.EINVAL, i.ino, null, "not a regular file");
    }
    boolean append = flags.contains(OpenFlag.APPEND);
    long n = 0;
    for (int attempt = 0; ; attempt++) {
      try {
        n += flags.contains(OpenFlag.DIRECT) ? io.directWrite(i, pos + n, src, append, options.dioLocking())
            : io.write(i, pos + n, src, append);
        if (!src.hasRemaining() || !fs.meta.journaled() || attempt >= ENOSPC_RETRIES || !fs.blocks.hasPendingFrees()) {
          break;
        }
      } catch (Ext4Exception e) {
        if (n > 0 && e.errno() == Errno.ENOSPC) {
          break; // a short write
        }
        if (!worthRetrying(e, attempt)) {
          throw e;
        }
      }
      fs.meta.sync(); // short of space only until the freeing commit: make the freed blocks reusable
    }
    if (flags.contains(OpenFlag.SYNC) || (i.flags() & RawInode.FL_SYNC) != 0) {
      io.fsync(i, false);
    } else if (flags.contains(OpenFlag.DSYNC)) {
      io.fsync(i, true);
    }
    return n;
  }

  /**
   * The data of copy_file_range: {@code src} read and {@code dst} written in chunks of at most
   * 1 MiB, stopping at the source's end or a short write (a full filesystem). Returns the bytes copied.
   */
  long copyRange(Inode src, long pos, Set<OpenFlag> srcFlags, Inode dst, long dstPos, Set<OpenFlag> dstFlags, long length,
      Caller who, Credentials writer) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(COPY_CHUNK, Math.max(length, 1)));
    long done = 0;
    while (done < length) {
      buf.clear().limit((int) Math.min(buf.capacity(), length - done));
      int n = read(src, pos + done, buf, srcFlags);
      if (n <= 0) {
        break;
      }
      buf.flip();
      long w = write(dst, dstPos + done, buf, dstFlags, who, writer);
      done += w;
      if (w < n) {
        break;
      }
    }
    return done;
  }

  private static final int COPY_CHUNK = 1 << 20;

  void fsync(Inode i, boolean datasync) throws IOException {
    guard(() -> {
      lifecycle.checkOpen();
      if (i.fileType() != RawInode.S_IFREG) {
        fs.meta.sync(); // directories and special files: a full commit, as ext4 does
        return null;
      }
      io.fsync(i, datasync);
      return null;
    });
  }

  void truncate(Inode i, long size, Credentials writer) throws IOException {
    guard(() -> {
      lifecycle.checkOpen();
      if (i.fileType() != RawInode.S_IFREG) {
        throw new Ext4Exception(Errno.EINVAL, i.ino, null, "not a regular file");
      }
      return dataChange(i, writer, () -> {
        io.truncate(i, size);
        return null;
      });
    });
  }

  long seek(Inode i, long pos, boolean data) throws IOException {
    return guard(() -> {
      lifecycle.checkOpen();
      if (i.fileType() != RawInode.S_IFREG) {
        throw new Ext4Exception(Errno.EINVAL, i.ino, null, "SEEK_DATA and SEEK_HOLE need a regular file");
      }
      return io.seek(i, pos, data);
    });
  }

  void fallocate(Inode i, int mode, long offset, long length, Caller who, Credentials writer) throws IOException {
    as(who, () -> guard(() -> {
      lifecycle.checkOpen();
      if (i.fileType() != RawInode.S_IFREG) {
        throw new Ext4Exception(Errno.ENODEV, i.ino, null, "fallocate needs a regular file");
      }
      if ((mode & (OpenFile.FALLOC_COLLAPSE_RANGE | OpenFile.FALLOC_INSERT_RANGE)) != 0) {
        return dataChange(i, writer, () -> {
          io.fallocate(i, mode, offset, length); // not retried: a shift stopped part-way must not run twice
          return null;
        });
      }
      return retryingEnospc(() -> dataChange(i, writer, () -> {
        io.fallocate(i, mode, offset, length);
        return null;
      }));
    }));
  }

  void release(Inode i) throws IOException {
    unpin(i);
  }

  /** fsync(2) of any inode: a regular file waits for its own transactions; anything else commits everything. */
  public void fsync(long ino, boolean datasync) throws IOException {
    with(ino, i -> {
      fsync(i, datasync);
      return null;
    });
  }

  /** syncfs(2): commits everything and flushes. */
  public void syncfs() throws IOException {
    lifecycle.checkOpen();
    if (!fs.readOnly) {
      guard(() -> {
        fs.meta.sync();
        return null;
      });
    }
  }

  // ============================================================ attributes, statfs

  /** The value of extended attribute {@code name} ("user.x", "system.posix_acl_access" …); ENODATA if absent. */
  public byte[] getxattr(long ino, String name) throws IOException {
    XattrName n = InodeAttrs.xattrName(ino, name);
    return with(ino, i -> attrs.getxattr(i, n));
  }

  /**
   * Sets an extended attribute; {@code flags} as setxattr's (1 CREATE, 2 REPLACE). POSIX ACLs behave as
   * on Linux (see {@link InodeAttrs#setxattr}); no permission is checked (the VFS checks them).
   */
  public void setxattr(long ino, String name, byte[] value, int flags) throws IOException {
    XattrName n = InodeAttrs.xattrName(ino, name);
    retryingEnospc(() -> with(ino, i -> {
      attrs.setxattr(i, n, value, flags);
      return null;
    }));
  }

  /** Whether the inode has extended attribute {@code name} (getxattr without the ENODATA). */
  public boolean hasXattr(long ino, String name) throws IOException {
    XattrName n = InodeAttrs.xattrName(ino, name);
    return with(ino, i -> attrs.hasXattr(i, n));
  }

  /** The names of the inode's extended attributes. */
  public List<String> listxattr(long ino) throws IOException {
    return with(ino, attrs::listxattr);
  }

  /** Removes an extended attribute; ENODATA if absent. */
  public void removexattr(long ino, String name) throws IOException {
    XattrName n = InodeAttrs.xattrName(ino, name);
    with(ino, i -> {
      attrs.removexattr(i, n);
      return null;
    });
  }

  /** Space and inode figures. */
  public StatFs statfs() throws IOException {
    lifecycle.checkOpen();
    Ext4Superblock sb = fs.superblock.current();
    long free = fs.groups.freeBlocks();
    long overhead = sb.overheadClusters();
    long blocks = fs.lay.blocksCount() - overhead;
    long resv = withheld(); // the kernel's s_resv_clusters, for allocations that must not fail
    long avail = Math.max(0, free - sb.reservedBlocksCount() - resv); // what an unprivileged caller may still take (as())
    java.util.UUID u = sb.uuid();
    long fsid = u.getMostSignificantBits() ^ u.getLeastSignificantBits();
    return new StatFs(fs.lay.blockSize(), blocks, free, avail, fs.lay.inodesCount(), fs.groups.freeInodes(), 255, fsid);
  }

  /** The superblock as it stands (mount state, counts updated at the last write). */
  public Ext4Superblock superblock() {
    return fs.superblock.current();
  }

  /**
   * Why the filesystem is read-only, or null when it is writable: how it was opened, or the error
   * that turned it read-only since (errors=remount-ro).
   */
  public String readOnlyReason() {
    Throwable f = fs.failure();
    if (readOnlyReason == null && f != null) {
      return "read-only after an error: " + f.getMessage();
    }
    return readOnlyReason;
  }

  /** Whether it refuses writes: opened read-only, or turned read-only by an error since. */
  public boolean isReadOnly() {
    return fs.readOnly || fs.failure() != null;
  }

  /** The journal's statistics, or null without a journal (or read-only). */
  public io.ext4j.jbd2.JournalStats journalStats() {
    return journal == null ? null : journal.stats();
  }

  /** The block cache's statistics. */
  public BlockCache.Stats cacheStats() {
    return fs.cache.stats();
  }

  /** The device's name (the image path). */
  public String name() {
    return device.name();
  }

  /** The file's extents in logical order (for tools and tests); none for a file without an extent tree. */
  public List<Extent> extents(long ino) throws IOException {
    return with(ino, i -> {
      i.map.readLock().lock();
      try {
        return i.usesExtents() ? List.copyOf(fs.extents.extents(i, 0, Long.MAX_VALUE)) : List.of();
      } finally {
        i.map.readLock().unlock();
      }
    });
  }
}
