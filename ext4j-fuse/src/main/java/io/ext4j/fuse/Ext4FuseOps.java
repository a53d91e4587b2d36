package io.ext4j.fuse;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.SetAttributes;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * FUSE requests → engine calls: each opcode's arguments decoded, the one {@link Ext4FileSystem}
 * operation it means called, its result encoded as the reply. No filesystem rule lives here: the
 * kernel checks permissions ({@code default_permissions}), the engine does everything else. A
 * node id is the ext4 inode number (the root's is 1 to the kernel, 2 on disk), so lookups need no
 * table and FORGET has nothing to do; an open file's handle ({@code fh}) names an {@link OpenFile},
 * which keeps its inode alive after the last name goes, as on ext4.
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
  private static final int COPY_CHUNK = 1 << 20;
  private static final String CAPABILITY = "security.capability";

  private final Ext4FileSystem fs;
  private final FuseOptions options;
  private final ConcurrentHashMap<Long, OpenFile> files = new ConcurrentHashMap<>();
  private final AtomicLong nextFh = new AtomicLong(1);

  Ext4FuseOps(Ext4FileSystem fs, FuseOptions options) {
    this.fs = fs;
    this.options = options;
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
    Caller who = new Caller(Integer.toUnsignedLong(r.uid), Integer.toUnsignedLong(r.gid));
    switch (r.opcode) {
      case FuseProto.FORGET, FuseProto.BATCH_FORGET, FuseProto.INTERRUPT -> {
        return NO_REPLY;
      }
      case FuseProto.LOOKUP -> entry(out, fs.lookup(ino, r.name(0)));
      case FuseProto.GETATTR -> {
        OpenFile f = (r.u32(0) & GETATTR_FH) != 0 ? files.get(r.u64(8)) : null;
        FuseReplies.attrOut(out, f != null ? f.attributes() : fs.getattr(ino), options.attrTimeoutNs());
      }
      case FuseProto.SETATTR -> FuseReplies.attrOut(out, setattr(r, ino), options.attrTimeoutNs());
      case FuseProto.READLINK -> out.put(fs.readlink(ino));
      case FuseProto.SYMLINK -> {
        byte[] name = r.name(0);
        entry(out, fs.symlink(ino, name, r.name(r.after(0)), who));
      }
      case FuseProto.MKNOD -> {
        int mode = r.u32(0);
        byte[] name = r.name(16);
        entry(out, (mode & Attributes.S_IFMT) == 0x8000 ? fs.create(ino, name, mode & 07777, who)
            : fs.mknod(ino, name, mode, Integer.toUnsignedLong(r.u32(4)), who));
      }
      case FuseProto.MKDIR -> entry(out, fs.mkdir(ino, r.name(8), r.u32(0) & 07777, who));
      case FuseProto.UNLINK -> fs.unlink(ino, r.name(0));
      case FuseProto.RMDIR -> fs.rmdir(ino, r.name(0));
      case FuseProto.RENAME -> {
        byte[] from = r.name(8);
        fs.rename(ino, from, ino(r.u64(0)), r.name(r.after(8)), RenameMode.REPLACE);
      }
      case FuseProto.RENAME2 -> {
        byte[] from = r.name(16);
        fs.rename(ino, from, ino(r.u64(0)), r.name(r.after(16)), renameMode(r.u32(8)));
      }
      case FuseProto.LINK -> entry(out, fs.link(ino(r.u64(0)), ino, r.name(8)));
      case FuseProto.OPEN -> open(out, ino, r.u32(0), who);
      case FuseProto.CREATE -> {
        int flags = r.u32(0);
        Attributes a = fs.create(ino, r.name(16), r.u32(4) & 07777, who);
        entry(out, a);
        open(out, a.ino(), flags & ~FuseProto.O_TRUNC, who);
      }
      case FuseProto.READ -> read(r, out);
      case FuseProto.WRITE -> {
        OpenFile f = file(r.u64(0));
        long n = f.write(r.u64(8), r.bytes(40, r.u32(16)));
        if (killPrivileges(f.ino(), (r.u32(20) & FuseProto.WRITE_KILL_SUIDGID) != 0 ? r : null)) {
          r.invalidateBeforeReply = r.nodeid; // the kernel keeps the mode it had: make it ask again
        }
        FuseReplies.sizeOut(out, n);
      }
      case FuseProto.STATFS -> FuseReplies.statfs(out, fs.statfs());
      case FuseProto.RELEASE -> {
        OpenFile f = files.remove(r.u64(0));
        if (f != null) {
          f.close();
        }
      }
      case FuseProto.FLUSH, FuseProto.RELEASEDIR, FuseProto.ACCESS -> {
        // FLUSH is every close(2), not a sync; ACCESS: default_permissions has the kernel check
      }
      case FuseProto.FSYNC -> {
        boolean datasync = (r.u32(8) & FuseProto.FSYNC_FDATASYNC) != 0;
        OpenFile f = files.get(r.u64(0));
        if (f != null) {
          f.fsync(datasync);
        } else {
          fs.fsync(ino, datasync);
        }
      }
      case FuseProto.FSYNCDIR -> fs.fsync(ino, (r.u32(8) & FuseProto.FSYNC_FDATASYNC) != 0);
      case FuseProto.OPENDIR -> {
        if (!fs.getattr(ino).isDirectory()) {
          throw new Ext4Exception(Errno.ENOTDIR, ino, null, "not a directory");
        }
        FuseReplies.open(out, 0, 0);
      }
      case FuseProto.READDIR -> readdir(r, ino, out, false);
      case FuseProto.READDIRPLUS -> readdir(r, ino, out, true);
      case FuseProto.SETXATTR -> {
        int size = r.u32(0);
        int flags = r.u32(4);
        byte[] name = r.name(8);
        fs.setxattr(ino, xattrName(name), r.copy(r.after(8), size), flags);
      }
      case FuseProto.GETXATTR -> sized(out, r.u32(0), fs.getxattr(ino, xattrName(r.name(8))));
      case FuseProto.LISTXATTR -> sized(out, r.u32(0), listxattr(ino));
      case FuseProto.REMOVEXATTR -> fs.removexattr(ino, xattrName(r.name(0)));
      case FuseProto.FALLOCATE -> file(r.u64(0)).fallocate(r.u32(24), r.u64(8), r.u64(16));
      case FuseProto.LSEEK -> lseek(r, out);
      case FuseProto.COPY_FILE_RANGE -> FuseReplies.sizeOut(out, copyRange(r));
      case FuseProto.DESTROY -> {
        // the session ends after replying
      }
      default -> {
        return FuseProto.ENOSYS; // never for FSYNC/FSYNCDIR: the kernel would stop sending them
      }
    }
    return 0;
  }

  private void entry(ByteBuffer out, Attributes a) {
    FuseReplies.entry(out, a, options.entryTimeoutNs(), options.attrTimeoutNs());
  }

  private OpenFile file(long fh) throws Ext4Exception {
    OpenFile f = files.get(fh);
    if (f == null) {
      throw new Ext4Exception(Errno.EBADF, 0, null, "no open file with handle " + fh);
    }
    return f;
  }

  private void open(ByteBuffer out, long ino, int flags, Caller who) throws IOException {
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
    boolean direct = (flags & FuseProto.O_DIRECT) != 0 || options.directIo();
    if (direct) {
      set.add(OpenFlag.DIRECT);
    }
    if ((flags & FuseProto.O_TRUNC) != 0) {
      set.add(OpenFlag.TRUNCATE);
    }
    OpenFile f = fs.open(ino, set, who);
    long fh = nextFh.getAndIncrement();
    files.put(fh, f);
    // Only the kernel reaches the image while it is mounted, through this mount: cached pages stay valid.
    FuseReplies.open(out, fh, direct ? FuseProto.FOPEN_DIRECT_IO : FuseProto.FOPEN_KEEP_CACHE);
  }

  private Attributes setattr(FuseRequest r, long ino) throws IOException {
    int valid = r.u32(0);
    SetAttributes c = SetAttributes.none();
    if ((valid & FuseProto.FATTR_MODE) != 0) {
      c = c.withMode(r.u32(68) & 07777);
    }
    if ((valid & (FuseProto.FATTR_UID | FuseProto.FATTR_GID)) != 0) {
      c = c.withOwner((valid & FuseProto.FATTR_UID) != 0 ? Integer.toUnsignedLong(r.u32(76)) : null,
          (valid & FuseProto.FATTR_GID) != 0 ? Integer.toUnsignedLong(r.u32(80)) : null);
    }
    Instant now = null;
    Instant atime = null;
    Instant mtime = null;
    if ((valid & FuseProto.FATTR_ATIME_NOW) != 0) {
      atime = now = Instant.now();
    } else if ((valid & FuseProto.FATTR_ATIME) != 0) {
      atime = FuseReplies.time(r.u64(32), r.u32(56));
    }
    if ((valid & FuseProto.FATTR_MTIME_NOW) != 0) {
      mtime = now != null ? now : Instant.now();
    } else if ((valid & FuseProto.FATTR_MTIME) != 0) {
      mtime = FuseReplies.time(r.u64(40), r.u32(60));
    }
    if (atime != null || mtime != null) {
      c = c.withTimes(atime, mtime);
    }
    // FATTR_CTIME is not passed on: the engine sets ctime to now on every change, as ext4 does.
    if ((valid & FuseProto.FATTR_SIZE) != 0) {
      long size = r.u64(16);
      OpenFile f = (valid & FuseProto.FATTR_FH) != 0 ? files.get(r.u64(8)) : null;
      if (f != null && c.equals(SetAttributes.none())) {
        f.truncate(size);
        killPrivileges(ino, (valid & FuseProto.FATTR_KILL_SUIDGID) != 0 ? r : null);
        return f.attributes(); // the reply carries the mode as it now is
      }
      c = c.withSize(size);
    }
    Attributes a = fs.setattr(ino, c);
    if ((valid & FuseProto.FATTR_SIZE) != 0 && killPrivileges(ino, (valid & FuseProto.FATTR_KILL_SUIDGID) != 0 ? r : null)) {
      a = fs.getattr(ino);
    }
    return a;
  }

  /**
   * What the kernel leaves to the file system under HANDLE_KILLPRIV_V2 after a write or truncate, as
   * its own file_remove_privs does on ext4: security.capability removed, and when the kernel marked
   * the request ({@code caller} non-null: a caller without CAP_FSETID) setuid cleared, and setgid
   * cleared if the group may execute or the caller is not in the file's group (its groups read
   * from /proc, as the request names only its primary group). Returns whether anything changed.
   */
  private boolean killPrivileges(long ino, FuseRequest caller) throws IOException {
    boolean changed = false;
    if (caller != null) {
      Attributes a = fs.getattr(ino);
      int mode = a.mode();
      int kill = mode & 04000;
      if ((mode & 02000) != 0 && ((mode & 010) != 0 || !inGroup(caller, a.gid()))) {
        kill |= 02000;
      }
      if (kill != 0) {
        fs.setattr(ino, SetAttributes.none().withMode(mode & 07777 & ~kill));
        changed = true;
      }
    }
    if (fs.hasXattr(ino, CAPABILITY)) {
      fs.removexattr(ino, CAPABILITY);
      changed = true;
    }
    return changed;
  }

  /** Whether the requesting process is in group {@code gid}: its primary group, or one of /proc/PID/status's Groups. */
  private static boolean inGroup(FuseRequest r, long gid) {
    if (Integer.toUnsignedLong(r.gid) == gid) {
      return true;
    }
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc", Integer.toString(r.pid), "status"))) {
        if (line.startsWith("Groups:")) {
          for (String g : line.substring(7).trim().split("\\s+")) {
            if (!g.isEmpty() && Long.parseLong(g) == gid) {
              return true;
            }
          }
        }
      }
    } catch (IOException | NumberFormatException e) {
      return false; // the process is gone or unreadable: treat it as outside the group, as the safe side
    }
    return false;
  }

  private static RenameMode renameMode(int flags) throws Ext4Exception {
    return switch (flags) {
      case 0 -> RenameMode.REPLACE;
      case FuseProto.RENAME_NOREPLACE -> RenameMode.NOREPLACE;
      case FuseProto.RENAME_EXCHANGE -> RenameMode.EXCHANGE;
      default -> throw new Ext4Exception(Errno.EINVAL, 0, null, "rename flags 0x" + Integer.toHexString(flags)
          + " (RENAME_WHITEOUT is not supported)");
    };
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

  private void readdir(FuseRequest r, long dir, ByteBuffer out, boolean plus) throws IOException {
    long cookie = r.u64(8);
    int size = Math.min(r.u32(16), out.remaining());
    ByteBuffer b = out.slice(out.position(), size).order(out.order());
    int max = Math.max(1, size / (plus ? FuseReplies.ENTRY_OUT + FuseReplies.DIRENT_HEADER + 8 : FuseReplies.DIRENT_HEADER + 8));
    List<DirEntry> entries = fs.readdir(dir, cookie, max);
    for (DirEntry e : entries) {
      int type = FuseReplies.direntType(e.type());
      boolean fits;
      if (plus) {
        Attributes a = e.isDot() ? null : lookupQuietly(dir, e.name());
        fits = FuseReplies.direntPlus(b, a, e.ino(), e.cookie(), type, e.name(), options.entryTimeoutNs(),
            options.attrTimeoutNs());
      } else {
        fits = FuseReplies.dirent(b, e.ino(), e.cookie(), type, e.name());
      }
      if (!fits) {
        break;
      }
    }
    out.position(out.position() + b.position());
  }

  /** The entry's attributes for READDIRPLUS; null (the kernel looks it up itself) if it vanished meanwhile. */
  private Attributes lookupQuietly(long dir, byte[] name) throws IOException {
    try {
      return fs.lookup(dir, name);
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

  private byte[] listxattr(long ino) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(XATTR_LIST_MAX);
    for (String n : fs.listxattr(ino)) {
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

  private void lseek(FuseRequest r, ByteBuffer out) throws IOException {
    OpenFile f = file(r.u64(0));
    long offset = r.u64(8);
    long at = switch (r.u32(16)) {
      case FuseProto.SEEK_DATA -> f.seekData(offset);
      case FuseProto.SEEK_HOLE -> f.seekHole(offset);
      default -> throw new Ext4Exception(Errno.EINVAL, f.ino(), null, "lseek whence " + r.u32(16));
    };
    out.putLong(at);
  }

  /** copy_file_range between two files of this mount: the data read and written in chunks by the engine. */
  private long copyRange(FuseRequest r) throws IOException {
    OpenFile in = file(r.u64(0));
    long inPos = r.u64(8);
    OpenFile dst = file(r.u64(24));
    long outPos = r.u64(32);
    long len = r.u64(40);
    if (r.u64(48) != 0) {
      throw new Ext4Exception(Errno.EINVAL, in.ino(), null, "copy_file_range flags must be 0");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(COPY_CHUNK, Math.max(len, 1)));
    long done = 0;
    while (done < len) {
      buf.clear().limit((int) Math.min(buf.capacity(), len - done));
      int n = in.read(inPos + done, buf);
      if (n <= 0) {
        break;
      }
      buf.flip();
      long w = dst.write(outPos + done, buf);
      done += w;
      if (w < n) {
        break;
      }
    }
    return Math.min(done, Integer.MAX_VALUE);
  }

  /**
   * Closes every file the kernel left open (an unmount that aborted the connection). The first
   * failure is thrown once all are closed, the others suppressed in it.
   */
  void closeAll() throws IOException {
    IOException first = null;
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
