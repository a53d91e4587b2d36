package io.ext4j.fuse;

import io.ext4j.block.os.Libc;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.ShutdownMode;
import io.ext4j.fs.vfs.AttrChange;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.Lookups;
import io.ext4j.fs.vfs.TimeSpec;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * FUSE requests → calls of the engine's VFS ({@link Vfs}'s node calls): each opcode's arguments
 * decoded, the caller's credentials built ({@link FuseCallers}), the one call it means made, its
 * result encoded as the reply. No filesystem rule lives here: with {@code default_permissions} the
 * kernel checks permissions (without it the engine does, from the same credentials), and the engine
 * does everything else — O_CREAT's atomicity, clearing
 * setuid, setgid and security.capability in the transaction before a write, truncate or chown,
 * timestamps from its own clock, the umask (FUSE_DONT_MASK: the kernel leaves it to the engine, which
 * skips it under a default ACL) and inode lifetime. A node id is the ext4 inode number (the root's
 * is 1 to the kernel, 2 on disk); every entry a reply hands the kernel is a lookup reference
 * ({@link Lookups}) that keeps the inode, unlinked or not, until the kernel's FORGET, so a node id
 * never reaches an inode that reused its number. An open file's handle ({@code fh}) names an
 * {@link OpenFile}, which keeps its inode alive after the last name goes, as on ext4.
 *
 * <p>Thread-safe: every session thread calls {@link #handle} at once; the handle table is a
 * concurrent map and the engine is thread-safe.
 *
 * <h2>Durability</h2>
 * As the engine's: FSYNC, FSYNCDIR and writes to files opened O_SYNC/O_DSYNC reply only once what
 * they cover is committed to the journal; FLUSH (every close) does not sync, as on ext4.
 */
final class Ext4FuseOps {
  /** {@link #handle}'s answer for a request that gets no reply (FORGET, BATCH_FORGET, INTERRUPT). */
  static final int NO_REPLY = -1;
  private static final int GETATTR_FH = 1;
  private static final int XATTR_LIST_MAX = 65536;
  /** The access ACL's xattr: setting it changes the mode, which the kernel (no FUSE_POSIX_ACL asked) does not know. */
  private static final String ACCESS_ACL = "system.posix_acl_access";

  private final Ext4FileSystem fs;
  private final Vfs vfs;
  private final Lookups lookups;
  private final FuseCallers callers;
  private final FuseOptions options;
  /**
   * How long the kernel may keep a name: the option's, or none without default_permissions — the
   * kernel walks a cached name without asking, so only a LOOKUP per walk lets the engine check the
   * caller's search permission on every directory of the path.
   */
  private final long entryTimeoutNs;
  private final ConcurrentHashMap<Long, OpenFile> files = new ConcurrentHashMap<>();
  /** Node ids of files opened here for buffered I/O: the kernel may hold pages of them (grows only). */
  private final java.util.Set<Long> pageCached = ConcurrentHashMap.newKeySet();
  private final AtomicLong nextFh = new AtomicLong(1);

  Ext4FuseOps(Ext4FileSystem fs, FuseOptions options) {
    this.fs = fs;
    this.vfs = fs.vfs();
    this.lookups = vfs.newLookups();
    this.options = options;
    this.entryTimeoutNs = options.defaultPermissions() ? options.entryTimeoutNs() : 0;
    this.callers = new FuseCallers(options.defaultPermissions());
  }

  static long ino(long nodeid) {
    return nodeid == FuseProto.ROOT_ID ? Ext4FileSystem.ROOT : nodeid;
  }

  /**
   * Serves one request: writes the reply's payload into {@code out} from its position (just past
   * the out header) and returns 0, or returns the errno to reply with (the payload is then not
   * sent), or {@link #NO_REPLY}. {@code out} may share bytes with the request: every argument is
   * read before the first byte of the reply is written.
   */
  int handle(FuseRequest r, ByteBuffer out) {
    try {
      return dispatch(r, out);
    } catch (Ext4Exception e) {
      return e.errno().number();
    } catch (IOException e) {
      return Errno.EIO.number();
    } catch (IllegalArgumentException e) {
      return Errno.EINVAL.number();
    } catch (UnsupportedOperationException e) {
      return Errno.EOPNOTSUPP.number();
    }
  }

  private int dispatch(FuseRequest r, ByteBuffer out) throws IOException {
    long ino = ino(r.nodeid);
    switch (r.opcode) {
      case FuseProto.FORGET -> {
        lookups.forget(ino, r.u64(0));
        return NO_REPLY;
      }
      case FuseProto.BATCH_FORGET -> {
        int count = r.u32(0);
        for (int k = 0; k < count; k++) {
          lookups.forget(ino(r.u64(8 + 16 * k)), r.u64(16 + 16 * k));
        }
        return NO_REPLY;
      }
      case FuseProto.INTERRUPT -> {
        return NO_REPLY;
      }
      case FuseProto.LOOKUP -> {
        byte[] name = r.name(0);
        // "." of any node id: the kernel decoding a file handle (open_by_handle_at, NFS export)
        // whose inode it no longer caches; it compares the generation itself (ESTALE).
        boolean self = name.length == 1 && name[0] == '.';
        entry(out, self ? vfs.getattr(ino) : vfs.lookup(ino, name, callers.of(r, 0)));
      }
      case FuseProto.GETATTR -> FuseReplies.attrOut(out, getattr(r, ino), options.attrTimeoutNs());
      case FuseProto.STATX -> FuseReplies.statxOut(out, getattr(r, ino), options.attrTimeoutNs());
      case FuseProto.SETATTR -> FuseReplies.attrOut(out, setattr(r, ino), options.attrTimeoutNs());
      case FuseProto.READLINK -> out.put(vfs.readlink(ino, callers.of(r, 0)));
      case FuseProto.SYMLINK -> {
        byte[] name = r.name(0);
        entry(out, vfs.symlink(ino, name, r.name(r.after(0)), callers.of(r, 0)));
      }
      case FuseProto.MKNOD -> {
        int mode = r.u32(0);
        byte[] name = r.name(16);
        entry(out, vfs.mknod(ino, name, mode, Integer.toUnsignedLong(r.u32(4)), callers.of(r, r.u32(8))));
      }
      case FuseProto.MKDIR -> entry(out, vfs.mkdir(ino, r.name(8), r.u32(0) & 07777, callers.of(r, r.u32(4))));
      case FuseProto.UNLINK -> vfs.unlink(ino, r.name(0), callers.of(r, 0));
      case FuseProto.RMDIR -> vfs.rmdir(ino, r.name(0), callers.of(r, 0));
      case FuseProto.RENAME -> {
        byte[] from = r.name(8);
        vfs.rename(ino, from, ino(r.u64(0)), r.name(r.after(8)), RenameMode.REPLACE, callers.of(r, 0));
      }
      case FuseProto.RENAME2 -> {
        byte[] from = r.name(16);
        vfs.rename(ino, from, ino(r.u64(0)), r.name(r.after(16)), renameMode(r.u32(8)), callers.of(r, 0));
      }
      case FuseProto.LINK -> entry(out, vfs.link(ino(r.u64(0)), ino, r.name(8), callers.of(r, 0)));
      case FuseProto.OPEN -> {
        int flags = r.u32(0);
        opened(out, vfs.open(ino, openFlags(flags), callers.of(r, 0)), flags);
      }
      case FuseProto.CREATE -> {
        int flags = r.u32(0);
        Set<OpenFlag> set = openFlags(flags);
        set.add(OpenFlag.CREATE);
        if ((flags & FuseProto.O_EXCL) != 0) {
          set.add(OpenFlag.EXCLUSIVE);
        }
        OpenFile f = vfs.create(ino, r.name(16), set, r.u32(4) & 07777, callers.of(r, r.u32(8)));
        createdAndOpened(out, f, flags);
      }
      case FuseProto.TMPFILE -> { // O_TMPFILE: fuse_create_in, the name is the kernel's placeholder
        int flags = r.u32(0);
        Set<OpenFlag> set = openFlags(flags);
        if ((flags & FuseProto.O_EXCL) != 0) {
          set.add(OpenFlag.EXCLUSIVE); // never to be linked
        }
        OpenFile f = vfs.tmpfile(ino, set, r.u32(4) & 07777, callers.of(r, r.u32(8)));
        createdAndOpened(out, f, flags);
      }
      case FuseProto.READ -> read(r, out);
      case FuseProto.WRITE -> {
        OpenFile f = file(r.u64(0));
        boolean kill = (r.u32(20) & FuseProto.WRITE_KILL_SUIDGID) != 0;
        boolean privileged = kill && (f.attributes().mode() & 06000) != 0;
        long n = f.write(r.u64(8), r.bytes(40, r.u32(16)), callers.writer(r, kill));
        if (privileged) {
          r.invalidateBeforeReply = r.nodeid; // the engine cleared setuid/setgid: the kernel must ask for the mode again
        }
        boolean writeback = (r.u32(20) & FuseProto.WRITE_CACHE) != 0;
        if (n > 0 && !writeback && f.flags().contains(OpenFlag.DIRECT) && pageCached.contains(r.nodeid)) {
          // A direct write bypasses the pages a buffered opener's reads keep; the kernel drops them
          // only before it sends the write, so a read in between would cache the old bytes again
          // (xfstests generic/451). Dropped again now that the engine has the new ones. Never for the
          // kernel's writeback of its own pages (an mmap of an O_DIRECT file, msync): those pages are
          // the new bytes, and dropping them waits for the very writeback this write completes.
          r.invalidateBeforeReply = r.nodeid;
          r.invalidatePagesFrom = r.u64(8);
          r.invalidatePagesLength = n;
        }
        FuseReplies.sizeOut(out, n);
      }
      case FuseProto.STATFS -> FuseReplies.statfs(out, fs.statfs());
      case FuseProto.RELEASE, FuseProto.RELEASEDIR -> {
        OpenFile f = files.remove(r.u64(0));
        if (f != null) {
          f.close();
        }
      }
      case FuseProto.FLUSH -> {
        // every close(2), not a sync
      }
      case FuseProto.ACCESS -> {
        if (!options.defaultPermissions()) { // else the kernel checked, and does not send it
          vfs.access(ino, r.u32(0) & 7, callers.of(r, 0));
        }
      }
      case FuseProto.FSYNC, FuseProto.FSYNCDIR -> {
        boolean datasync = (r.u32(8) & FuseProto.FSYNC_FDATASYNC) != 0;
        OpenFile f = files.get(r.u64(0));
        if (f != null) {
          f.fsync(datasync);
        } else {
          fs.fsync(ino, datasync);
        }
      }
      case FuseProto.OPENDIR -> {
        OpenFile d = vfs.open(ino, EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), callers.of(r, 0));
        long fh = nextFh.getAndIncrement();
        files.put(fh, d);
        FuseReplies.open(out, fh, 0);
      }
      case FuseProto.READDIR -> readdir(r, out, false);
      case FuseProto.READDIRPLUS -> readdir(r, out, true);
      case FuseProto.SETXATTR -> {
        int size = r.u32(0);
        int flags = r.u32(4);
        byte[] name = r.name(8);
        String n = xattrName(name);
        // an access ACL updates the mode, and whether setgid stays depends on the caller's groups
        Credentials c = n.equals(ACCESS_ACL) ? callers.withGroups(r, 0) : callers.of(r, 0);
        vfs.setxattr(ino, n, r.copy(r.after(8), size), flags, c);
        if (n.equals(ACCESS_ACL)) {
          r.invalidateBeforeReply = r.nodeid; // the ACL set the mode (posix_acl_update_mode); the kernel caches the old one
        }
      }
      case FuseProto.GETXATTR -> sized(out, r.u32(0), vfs.getxattr(ino, xattrName(r.name(8)), callers.of(r, 0)));
      case FuseProto.LISTXATTR -> sized(out, r.u32(0), listxattr(ino, callers.of(r, 0)));
      case FuseProto.REMOVEXATTR -> {
        String n = xattrName(r.name(0));
        vfs.removexattr(ino, n, callers.of(r, 0));
        if (n.equals(ACCESS_ACL)) {
          r.invalidateBeforeReply = r.nodeid; // as SETXATTR: the mode's group bits follow the ACL's mask no more
        }
      }
      case FuseProto.FALLOCATE -> {
        Credentials c = r.uid == 0 ? callers.of(r, 0) : callers.withGroups(r, 0);
        OpenFile f = file(r.u64(0));
        boolean privileged = r.uid != 0 && (f.attributes().mode() & 06000) != 0;
        f.fallocate(r.u32(24), r.u64(8), r.u64(16), c);
        if (privileged) {
          r.invalidateBeforeReply = r.nodeid; // the engine may have cleared setuid/setgid: the kernel must ask again
        }
      }
      case FuseProto.LSEEK -> lseek(r, out);
      case FuseProto.IOCTL -> {
        return ioctl(r, out);
      }
      case FuseProto.COPY_FILE_RANGE -> FuseReplies.sizeOut(out, copyRange(r));
      case FuseProto.DESTROY -> {
        // the session ends after replying; closeAll drops what the kernel still held
      }
      default -> {
        return FuseProto.ENOSYS; // never for FSYNC/FSYNCDIR: the kernel would stop sending them
      }
    }
    return 0;
  }

  /** The reply to CREATE or TMPFILE: an entry and an open handle; {@code f} closed if the reply fails. */
  private void createdAndOpened(ByteBuffer out, OpenFile f, int flags) throws IOException {
    try {
      entry(out, f.attributes());
    } catch (IOException | RuntimeException e) {
      f.close();
      throw e;
    }
    opened(out, f, flags);
  }

  /** An entry reply: the kernel now holds a lookup reference on {@code a}'s inode. */
  private void entry(ByteBuffer out, Attributes a) throws IOException {
    lookups.rememberOrEnoent(a);
    FuseReplies.entry(out, a, entryTimeoutNs, options.attrTimeoutNs());
  }

  private OpenFile file(long fh) throws Ext4Exception {
    OpenFile f = files.get(fh);
    if (f == null) {
      throw new Ext4Exception(Errno.EBADF, 0, null, "no open file with handle " + fh);
    }
    return f;
  }

  /** open(2)'s flags as the engine's (O_TRUNC too: with ATOMIC_O_TRUNC unset the kernel truncates first and clears it). */
  private Set<OpenFlag> openFlags(int flags) {
    Set<OpenFlag> set = EnumSet.noneOf(OpenFlag.class);
    int acc = flags & FuseProto.O_ACCMODE;
    if (acc != FuseProto.O_WRONLY) {
      set.add(OpenFlag.READ);
    }
    if (acc == FuseProto.O_WRONLY || acc == FuseProto.O_RDWR) {
      set.add(OpenFlag.WRITE);
    }
    if ((flags & FuseProto.O_APPEND) != 0 && !options.writebackCache()) {
      set.add(OpenFlag.APPEND); // with the writeback cache the kernel places appends itself
    }
    if (options.writebackCache()) {
      set.add(OpenFlag.READ); // it may read pages of a write-only file to fill them
    }
    if ((flags & FuseProto.O_SYNC) == FuseProto.O_SYNC) {
      set.add(OpenFlag.SYNC);
    } else if ((flags & FuseProto.O_DSYNC) != 0) {
      set.add(OpenFlag.DSYNC);
    }
    if ((flags & FuseProto.O_DIRECT) != 0 || options.directIo()) {
      set.add(OpenFlag.DIRECT);
    }
    if ((flags & FuseProto.O_TRUNC) != 0) {
      set.add(OpenFlag.TRUNCATE);
    }
    return set;
  }

  /**
   * The attributes GETATTR and STATX ask for (their arguments start alike: flags, padding, fh):
   * through the open file when the kernel names one (GETATTR_FH), else of the node.
   */
  private Attributes getattr(FuseRequest r, long ino) throws IOException {
    OpenFile f = (r.u32(0) & GETATTR_FH) != 0 ? files.get(r.u64(8)) : null;
    return f != null ? f.attributes() : vfs.getattr(ino);
  }

  /** Registers {@code f} under a new handle and writes the open reply. */
  private void opened(ByteBuffer out, OpenFile f, int flags) {
    long fh = nextFh.getAndIncrement();
    files.put(fh, f);
    boolean direct = (flags & FuseProto.O_DIRECT) != 0 || options.directIo();
    // Only the kernel reaches the image while it is mounted, through this mount: cached pages stay
    // valid. But the kernel serves cached reads without asking, so where the next read is due to
    // update the access time (relatime after a change, strictatime always) the open drops them
    // and that read comes here.
    boolean keep = f.isDirectory() || !f.readUpdatesAtime();
    if (!direct && !f.isDirectory()) {
      pageCached.add(FuseReplies.nodeId(f.ino()));
    }
    FuseReplies.open(out, fh, direct ? FuseProto.FOPEN_DIRECT_IO : keep ? FuseProto.FOPEN_KEEP_CACHE : 0);
  }

  private Attributes setattr(FuseRequest r, long ino) throws IOException {
    int valid = r.u32(0);
    AttrChange c = AttrChange.none();
    if ((valid & FuseProto.FATTR_MODE) != 0) {
      c = c.withMode(r.u32(68) & 07777);
    }
    if ((valid & (FuseProto.FATTR_UID | FuseProto.FATTR_GID)) != 0) {
      c = c.withOwner((valid & FuseProto.FATTR_UID) != 0 ? Integer.toUnsignedLong(r.u32(76)) : null,
          (valid & FuseProto.FATTR_GID) != 0 ? Integer.toUnsignedLong(r.u32(80)) : null);
    }
    TimeSpec atime = null;
    TimeSpec mtime = null;
    if ((valid & FuseProto.FATTR_ATIME_NOW) != 0) {
      atime = TimeSpec.NOW;
    } else if ((valid & FuseProto.FATTR_ATIME) != 0) {
      atime = TimeSpec.at(FuseReplies.time(r.u64(32), r.u32(56)));
    }
    if ((valid & FuseProto.FATTR_MTIME_NOW) != 0) {
      mtime = TimeSpec.NOW;
    } else if ((valid & FuseProto.FATTR_MTIME) != 0) {
      mtime = TimeSpec.at(FuseReplies.time(r.u64(40), r.u32(60)));
    }
    if (atime != null || mtime != null) {
      c = c.withTimes(atime, mtime);
    }
    // FATTR_CTIME is not passed on: the engine sets ctime to now on every change, as ext4 does.
    Credentials who = callers.of(r, 0);
    if ((valid & FuseProto.FATTR_SIZE) != 0) {
      c = c.withSize(r.u64(16));
      who = callers.writer(r, (valid & FuseProto.FATTR_KILL_SUIDGID) != 0);
    }
    OpenFile f = (valid & FuseProto.FATTR_FH) != 0 ? files.get(r.u64(8)) : null;
    Attributes a = f != null ? vfs.setattr(f, c, who) : vfs.setattr(ino, c, who, false);
    if ((valid & (FuseProto.FATTR_SIZE | FuseProto.FATTR_UID | FuseProto.FATTR_GID)) != 0) {
      r.invalidateBeforeReply = r.nodeid; // setuid/setgid may have gone with it
    }
    return a;
  }

  private static RenameMode renameMode(int flags) throws Ext4Exception {
    RenameMode m = RenameMode.ofFlags(flags);
    if (m == null) {
      throw new Ext4Exception(Errno.EINVAL, 0, null, "rename flags 0x" + Integer.toHexString(flags));
    }
    return m;
  }


  private void read(FuseRequest r, ByteBuffer out) throws IOException {
    OpenFile f = file(r.u64(0));
    long pos = r.u64(8);
    int size = Math.min(r.u32(16), out.remaining());
    ByteBuffer dst = out.slice(out.position(), size);
    while (dst.hasRemaining()) {
      int n = f.read(pos + dst.position(), dst);
      if (n <= 0) {
        break;
      }
    }
    out.position(out.position() + dst.position());
  }

  private void readdir(FuseRequest r, ByteBuffer out, boolean plus) throws IOException {
    OpenFile d = file(r.u64(0));
    long dir = d.ino();
    long cookie = r.u64(8);
    int size = Math.min(r.u32(16), out.remaining());
    ByteBuffer b = out.slice(out.position(), size).order(out.order());
    int max = Math.max(1, size / (plus ? FuseReplies.ENTRY_OUT + FuseReplies.DIRENT_HEADER + 8 : FuseReplies.DIRENT_HEADER + 8));
    List<DirEntry> entries = vfs.readdir(d, cookie, max);
    for (DirEntry e : entries) {
      int type = FuseReplies.direntType(e.type());
      boolean fits;
      if (plus) {
        Attributes a = e.isDot() ? null : lookupQuietly(r, dir, e.name());
        int mark = b.position();
        fits = FuseReplies.direntPlus(b, a, e.ino(), e.cookie(), type, e.name(), entryTimeoutNs,
            options.attrTimeoutNs());
        if (fits && a != null && !remembered(a)) {
          b.position(mark); // gone since the lookup: leave it to the next READDIRPLUS, which will not see it
          break;
        }
      } else {
        fits = FuseReplies.dirent(b, e.ino(), e.cookie(), type, e.name());
      }
      if (!fits) {
        break;
      }
    }
    out.position(out.position() + b.position());
  }

  /** A READDIRPLUS entry's lookup reference; false when its inode went meanwhile. */
  private boolean remembered(Attributes a) throws IOException {
    try {
      lookups.rememberOrEnoent(a);
      return true;
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOENT) {
        return false;
      }
      throw e;
    }
  }

  /** The entry's attributes for READDIRPLUS; null (the kernel looks it up itself) if it vanished meanwhile. */
  private Attributes lookupQuietly(FuseRequest r, long dir, byte[] name) throws IOException {
    try {
      return vfs.lookup(dir, name, callers.of(r, 0));
    } catch (Ext4Exception e) {
      if (e.errno() == Errno.ENOENT) {
        return null;
      }
      throw e;
    }
  }

  private static String xattrName(byte[] name) {
    return new String(name, StandardCharsets.UTF_8);
  }

  private byte[] listxattr(long ino, Credentials c) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(XATTR_LIST_MAX);
    for (String n : vfs.listxattr(ino, c)) {
      byte[] s = n.getBytes(StandardCharsets.UTF_8);
      if (b.remaining() < s.length + 1) {
        throw new Ext4Exception(Errno.ERANGE, ino, null, "attribute names exceed " + XATTR_LIST_MAX + " bytes");
      }
      b.put(s).put((byte) 0);
    }
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  /** GETXATTR and LISTXATTR: size 0 asks for the length, else the value if it fits (ERANGE if not). */
  private static void sized(ByteBuffer out, int size, byte[] value) throws Ext4Exception {
    if (size == 0) {
      FuseReplies.sizeOut(out, value.length);
    } else if (value.length > size || value.length > out.remaining()) {
      throw new Ext4Exception(Errno.ERANGE, 0, null, "value of " + value.length + " bytes, buffer of " + size);
    } else {
      out.put(value);
    }
  }

  /** ext4's EXT4_FL_USER_VISIBLE: the inode flags FS_IOC_GETFLAGS shows (DAX among them). */
  private static final int FLAGS_VISIBLE = 0x725BDFFF;
  /** FS_XFLAG_* ↔ inode flags, as ext4 maps them: sync, immutable, append, nodump, noatime, DAX. */
  private static final int[][] XFLAGS = {{0x20, 0x8}, {0x8, 0x10}, {0x10, 0x20}, {0x80, 0x40}, {0x40, 0x80}, {0x8000, 0x02000000}};

  /**
   * FUSE_IOCTL for the inode-flag calls the kernel's fileattr code sends (lsattr and chattr's
   * FS_IOC_GETFLAGS/SETFLAGS, xfs_io's FS_IOC_FSGETXATTR/FSSETXATTR): the flags are the engine's
   * (getflags, setflags, which owns the rules); FS_IOC_SHUTDOWN (godown, {@code xfs_io -c
   * shutdown}); any other command is ENOTTY, as ext4 answers it. FS_IOC_FIEMAP never comes here:
   * the kernel answers it itself from an inode operation FUSE does not have (EOPNOTSUPP).
   */
  private int ioctl(FuseRequest r, ByteBuffer out) throws IOException {
    OpenFile f = file(r.u64(0));
    int cmd = r.u32(12);
    int outSize = r.u32(28);
    int result;
    switch (cmd) {
      case FuseProto.FS_IOC_GETFLAGS, FuseProto.FS_IOC32_GETFLAGS -> {
        ioctlOut(out);
        out.putInt(vfs.getflags(f) & FLAGS_VISIBLE);
        if (outSize >= 8) {
          out.putInt(0);
        }
        return 0;
      }
      case FuseProto.FS_IOC_SETFLAGS, FuseProto.FS_IOC32_SETFLAGS -> {
        vfs.setflags(f, r.u32(32), callers.of(r, 0));
        r.invalidateBeforeReply = r.nodeid; // the change moved ctime: the kernel's cached attributes are stale
        ioctlOut(out);
        return 0;
      }
      case FuseProto.FS_IOC_FSGETXATTR -> {
        int flags = vfs.getflags(f);
        int x = 0;
        for (int[] m : XFLAGS) {
          x |= (flags & m[1]) != 0 ? m[0] : 0;
        }
        ioctlOut(out);
        out.putInt(x).putInt(0).putInt(0).putInt(0).putInt(0).putLong(0); // xflags, extsize, nextents, projid, cowextsize, pad
        return 0;
      }
      case FuseProto.FS_IOC_FSSETXATTR -> {
        int x = r.u32(32);
        int flags = vfs.getflags(f);
        for (int[] m : XFLAGS) {
          flags = (x & m[0]) != 0 ? flags | m[1] : flags & ~m[1];
        }
        vfs.setflags(f, flags, callers.of(r, 0));
        r.invalidateBeforeReply = r.nodeid; // as FS_IOC_SETFLAGS
        ioctlOut(out);
        return 0;
      }
      case FuseProto.FS_IOC_SHUTDOWN -> {
        long word = Libc.readWordOf(r.pid, r.u64(16));
        if (word < 0) {
          throw new Ext4Exception(Errno.EFAULT, f.ino(), null, "cannot read the shutdown flags of process " + r.pid + ": "
              + ErrnoText.describe((int) -word));
        }
        ShutdownMode mode = ShutdownMode.ofFlags((int) word);
        // The kernel never passes syncfs(2) to a /dev/fuse server (FUSE_SYNCFS is for virtiofs), so
        // what a caller's syncfs was to make durable may still be in the running transaction:
        // NO_LOG_FLUSH here commits it first, as LOG_FLUSH does, rather than lose it.
        vfs.shutdown(mode == ShutdownMode.NO_LOG_FLUSH ? ShutdownMode.LOG_FLUSH : mode, callers.of(r, 0));
        ioctlOut(out);
        out.putInt((int) word);
        return 0;
      }
      default -> result = FuseProto.ENOTTY;
    }
    return result;
  }

  private static void ioctlOut(ByteBuffer out) {
    out.putInt(0).putInt(0).putInt(0).putInt(0); // result 0, no retry, no iovecs
  }

  private void lseek(FuseRequest r, ByteBuffer out) throws IOException {
    OpenFile f = file(r.u64(0));
    long offset = r.u64(8);
    if (offset < 0) {
      throw new Ext4Exception(Errno.ENXIO, f.ino(), null, "SEEK_DATA/SEEK_HOLE at a negative offset");
    }
    long at = switch (r.u32(16)) {
      case FuseProto.SEEK_DATA -> f.seekData(offset);
      case FuseProto.SEEK_HOLE -> f.seekHole(offset);
      default -> throw new Ext4Exception(Errno.EINVAL, f.ino(), null, "lseek whence " + r.u32(16));
    };
    out.putLong(at);
  }

  /** copy_file_range between two files of this mount: one engine call. */
  private long copyRange(FuseRequest r) throws IOException {
    OpenFile in = file(r.u64(0));
    long inPos = r.u64(8);
    OpenFile dst = file(r.u64(24));
    long outPos = r.u64(32);
    long len = r.u64(40);
    if (r.u64(48) != 0) {
      throw new Ext4Exception(Errno.EINVAL, in.ino(), null, "copy_file_range flags must be 0");
    }
    // The caller's own capabilities decide what the writes clear (no kernel mark comes with this request).
    long done = in.copyRange(inPos, dst, outPos, len, callers.of(r, 0));
    return Math.min(done, Integer.MAX_VALUE);
  }

  /**
   * Closes every file the kernel left open (an unmount that aborted the connection). The first
   * failure is thrown once all are closed, the others suppressed in it.
   */
  void closeAll() throws IOException {
    IOException first = null;
    try {
      lookups.forgetAll();
    } catch (IOException e) {
      first = e;
    }
    for (Long fh : List.copyOf(files.keySet())) {
      OpenFile f = files.remove(fh);
      if (f == null) {
        continue;
      }
      try {
        f.close();
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
