package io.ext4j.fuse;

/**
 * The kernel's FUSE protocol as ext4j speaks it: version 7.33 (the kernel adapts to a lower minor
 * than its own), little-endian structs read from and written to {@code /dev/fuse}. Numbers are the
 * ones {@code <linux/fuse.h>} defines; the struct layouts are described where they are encoded
 * ({@link FuseRequest}, {@link FuseReplies}).
 */
final class FuseProto {
  private FuseProto() {}

  static final int MAJOR = 7;
  static final int MINOR = 33;

  /** fuse_in_header: len, opcode, unique, nodeid, uid, gid, pid, padding. */
  static final int IN_HEADER = 40;
  /** fuse_out_header: len, error, unique. */
  static final int OUT_HEADER = 16;
  /** The node id the kernel gives the mount's root. */
  static final long ROOT_ID = 1;

  // opcodes
  static final int LOOKUP = 1;
  static final int FORGET = 2;
  static final int GETATTR = 3;
  static final int SETATTR = 4;
  static final int READLINK = 5;
  static final int SYMLINK = 6;
  static final int MKNOD = 8;
  static final int MKDIR = 9;
  static final int UNLINK = 10;
  static final int RMDIR = 11;
  static final int RENAME = 12;
  static final int LINK = 13;
  static final int OPEN = 14;
  static final int READ = 15;
  static final int WRITE = 16;
  static final int STATFS = 17;
  static final int RELEASE = 18;
  static final int FSYNC = 20;
  static final int SETXATTR = 21;
  static final int GETXATTR = 22;
  static final int LISTXATTR = 23;
  static final int REMOVEXATTR = 24;
  static final int FLUSH = 25;
  static final int INIT = 26;
  static final int OPENDIR = 27;
  static final int READDIR = 28;
  static final int RELEASEDIR = 29;
  static final int FSYNCDIR = 30;
  static final int GETLK = 31;
  static final int SETLK = 32;
  static final int SETLKW = 33;
  static final int ACCESS = 34;
  static final int CREATE = 35;
  static final int INTERRUPT = 36;
  static final int BMAP = 37;
  static final int DESTROY = 38;
  static final int IOCTL = 39;
  static final int POLL = 40;
  static final int BATCH_FORGET = 42;
  static final int FALLOCATE = 43;
  static final int READDIRPLUS = 44;
  static final int RENAME2 = 45;
  static final int LSEEK = 46;
  static final int COPY_FILE_RANGE = 47;
  static final int TMPFILE = 51;
  /** statx(2) with what GETATTR lacks: the birth time and the inode's attribute flags (kernel 6.6 and later). */
  static final int STATX = 52;

  // fuse_init flags
  static final int ASYNC_READ = 1;
  static final int ATOMIC_O_TRUNC = 1 << 3;
  static final int EXPORT_SUPPORT = 1 << 4;
  static final int BIG_WRITES = 1 << 5;
  static final int DONT_MASK = 1 << 6;
  static final int IOCTL_DIR = 1 << 11;
  static final int AUTO_INVAL_DATA = 1 << 12;
  static final int DO_READDIRPLUS = 1 << 13;
  static final int READDIRPLUS_AUTO = 1 << 14;
  static final int ASYNC_DIO = 1 << 15;
  static final int WRITEBACK_CACHE = 1 << 16;
  static final int PARALLEL_DIROPS = 1 << 18;
  static final int HANDLE_KILLPRIV = 1 << 19;
  static final int MAX_PAGES = 1 << 22;
  static final int CACHE_SYMLINKS = 1 << 23;
  /**
   * The file system clears setuid/setgid on writes and truncates the kernel marks (below) and
   * drops security.capability on writes; in return the kernel stops asking for security.capability
   * before every write (its SB_NOSEC), which otherwise costs a GETXATTR round trip per write.
   */
  static final int HANDLE_KILLPRIV_V2 = 1 << 28;
  /** fuse_init_in/out carry a second word of flags ({@code flags2}, bits 32…63). */
  static final int INIT_EXT = 1 << 30;
  /** flags2: files opened FOPEN_DIRECT_IO (every O_DIRECT open) may still be mmapped. */
  static final int DIRECT_IO_ALLOW_MMAP_2 = 1 << (36 - 32);

  /** fuse_write_in.write_flags: the kernel writing back its own cached pages (mmap, writeback cache). */
  static final int WRITE_CACHE = 1;
  /** fuse_write_in.write_flags: clear setuid/setgid (HANDLE_KILLPRIV_V2). */
  static final int WRITE_KILL_SUIDGID = 1 << 2;

  // setattr valid bits
  static final int FATTR_MODE = 1;
  static final int FATTR_UID = 1 << 1;
  static final int FATTR_GID = 1 << 2;
  static final int FATTR_SIZE = 1 << 3;
  static final int FATTR_ATIME = 1 << 4;
  static final int FATTR_MTIME = 1 << 5;
  static final int FATTR_FH = 1 << 6;
  static final int FATTR_ATIME_NOW = 1 << 7;
  static final int FATTR_MTIME_NOW = 1 << 8;
  static final int FATTR_CTIME = 1 << 10;
  /** Clear setuid/setgid along with this setattr (HANDLE_KILLPRIV_V2). */
  static final int FATTR_KILL_SUIDGID = 1 << 11;

  // open reply flags
  static final int FOPEN_DIRECT_IO = 1;
  static final int FOPEN_KEEP_CACHE = 1 << 1;
  static final int FOPEN_CACHE_DIR = 1 << 3;

  static final int FSYNC_FDATASYNC = 1;

  // renameat2 flags
  static final int RENAME_NOREPLACE = 1;
  static final int RENAME_EXCHANGE = 2;

  // open(2) flags as the kernel passes them (x86-64 and arm64 share these)
  static final int O_ACCMODE = 3;
  static final int O_WRONLY = 1;
  static final int O_RDWR = 2;
  static final int O_EXCL = 0x80;
  static final int O_TRUNC = 0x200;
  static final int O_APPEND = 0x400;
  static final int O_DSYNC = 0x1000;
  static final int O_DIRECT = 0x4000;
  static final int O_SYNC = 0x101000;

  /** fuse_out_header.error of a notification (unique 0): forget an inode's attributes (and pages). */
  static final int NOTIFY_INVAL_INODE = 2;

  /** The errno for an opcode not implemented. */
  static final int ENOSYS = 38;
  /** The errno for a protocol version ext4j cannot speak. */
  static final int EPROTO = 71;

  // ioctl commands the mount serves (FS_IOC_*), as the kernel's fileattr calls send them
  static final int FS_IOC_GETFLAGS = 0x80086601;
  static final int FS_IOC_SETFLAGS = 0x40086602;
  static final int FS_IOC32_GETFLAGS = 0x80046601;
  static final int FS_IOC32_SETFLAGS = 0x40046602;
  static final int FS_IOC_FSGETXATTR = 0x801c581f;
  static final int FS_IOC_FSSETXATTR = 0x401c5820;
  /**
   * FS_IOC_SHUTDOWN (ext4's EXT4_IOC_SHUTDOWN, XFS's XFS_IOC_GOINGDOWN: _IOR('X', 125, __u32)).
   * _IOR, so a restricted FUSE ioctl brings none of its argument: the flag word is read from the
   * caller's memory, and written back unchanged as the 4 bytes of output the kernel copies out.
   */
  static final int FS_IOC_SHUTDOWN = 0x8004587d;
  static final int IOCTL_OUT = 16; // fuse_ioctl_out: result, flags, in_iovs, out_iovs
  static final int ENOTTY = 25;

  static final int SEEK_DATA = 3;
  static final int SEEK_HOLE = 4;

  /** A readable name for an opcode (for error messages and statistics). */
  static String name(int opcode) {
    return switch (opcode) {
      case LOOKUP -> "LOOKUP";
      case FORGET -> "FORGET";
      case GETATTR -> "GETATTR";
      case SETATTR -> "SETATTR";
      case READLINK -> "READLINK";
      case SYMLINK -> "SYMLINK";
      case MKNOD -> "MKNOD";
      case MKDIR -> "MKDIR";
      case UNLINK -> "UNLINK";
      case RMDIR -> "RMDIR";
      case RENAME -> "RENAME";
      case LINK -> "LINK";
      case OPEN -> "OPEN";
      case READ -> "READ";
      case WRITE -> "WRITE";
      case STATFS -> "STATFS";
      case RELEASE -> "RELEASE";
      case FSYNC -> "FSYNC";
      case SETXATTR -> "SETXATTR";
      case GETXATTR -> "GETXATTR";
      case LISTXATTR -> "LISTXATTR";
      case REMOVEXATTR -> "REMOVEXATTR";
      case FLUSH -> "FLUSH";
      case INIT -> "INIT";
      case OPENDIR -> "OPENDIR";
      case READDIR -> "READDIR";
      case RELEASEDIR -> "RELEASEDIR";
      case FSYNCDIR -> "FSYNCDIR";
      case ACCESS -> "ACCESS";
      case CREATE -> "CREATE";
      case INTERRUPT -> "INTERRUPT";
      case DESTROY -> "DESTROY";
      case BATCH_FORGET -> "BATCH_FORGET";
      case FALLOCATE -> "FALLOCATE";
      case READDIRPLUS -> "READDIRPLUS";
      case RENAME2 -> "RENAME2";
      case LSEEK -> "LSEEK";
      case COPY_FILE_RANGE -> "COPY_FILE_RANGE";
      case TMPFILE -> "TMPFILE";
      case STATX -> "STATX";
      case IOCTL -> "IOCTL";
      default -> "opcode " + opcode;
    };
  }
}
