package io.ext4j.block.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The C library functions ext4j calls, as typed static methods over the FFM API: extended
 * attributes, {@code mknod}, {@code utimensat} and sparse-file {@code lseek} for the tree copier;
 * {@code /dev/fuse} I/O, {@code mount}, {@code umount2} and the {@code fusermount3} hand-off for the
 * FUSE mount; {@code futex(2)} for the journal's wake-up. Linux only (struct layouts and constants as
 * on 64-bit Linux).
 *
 * <h2>Failures</h2>
 * Every call that can fail returns what the C function does, or {@code -errno} on failure: the
 * errno captured by the downcall itself, so no other call can overwrite it. {@link #strerror} gives
 * its text. The callers decide what a failure means; the methods throw only for a bug in the binding
 * ({@link IllegalStateException}) or a function that is not bound ({@link UnsatisfiedLinkError}).
 *
 * <h2>Binding and native access</h2>
 * The functions are linked together at the first call of any of them, or of {@link #available()};
 * {@link #available()} says whether all of them were, and {@link #unavailableReason()} why not. The
 * futex call, which the journal makes on every commit wake-up, is linked apart, alone, at its first
 * use ({@link #futexUnavailableReason()}).
 * Linking is a restricted FFM operation of this module: {@code --enable-native-access=io.ext4j.block}
 * on the module path, {@code ALL-UNNAMED} on the class path. Without it the JDK warns at the first
 * link (or refuses, with {@code --illegal-native-access=deny}, and nothing is available); a caller
 * that must not cause the warning checks {@link #nativeAccessEnabled()} first, which links nothing.
 */
public final class Libc {
  public static final int O_RDONLY = 0;
  public static final int O_RDWR = 2;
  public static final int O_CLOEXEC = 0x80000;
  public static final int SEEK_DATA = 3;
  public static final int SEEK_HOLE = 4;
  public static final int AT_FDCWD = -100;
  public static final int AT_SYMLINK_NOFOLLOW = 0x100;
  public static final long MS_RDONLY = 1;
  public static final long MS_NOSUID = 2;
  public static final long MS_NODEV = 4;
  public static final int MNT_DETACH = 2;

  public static final int ENOENT = 2;
  public static final int EINTR = 4;
  public static final int ENXIO = 6;
  public static final int EAGAIN = 11;
  public static final int EBUSY = 16;
  public static final int ENODEV = 19;
  public static final int EINVAL = 22;
  public static final int ERANGE = 34;
  public static final int ENOSYS = 38;
  /** EOPNOTSUPP (ENOTSUP on Linux): an xattr call on a filesystem without xattrs, among others. */
  public static final int EOPNOTSUPP = 95;

  /** The futex(2) system call's number: 202 on x86-64, 98 on AArch64, -1 on another architecture. */
  public static final long SYS_FUTEX = switch (System.getProperty("os.arch", "")) {
    case "amd64", "x86_64" -> 202;
    case "aarch64" -> 98;
    default -> -1;
  };

  private Libc() {}

  /**
   * The bound functions, linked when this class is initialized: at the first call that needs one, so
   * that {@link #nativeAccessEnabled()} and the constants link nothing.
   */
  private static final class Bound {
    static final Downcall OPEN = Downcall.capturingErrno("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    static final Downcall READ = Downcall.capturingErrno("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    static final Downcall WRITE = Downcall.capturingErrno("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    static final Downcall CLOSE = Downcall.capturingErrno("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final Downcall LSEEK = Downcall.capturingErrno("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    static final Downcall LLISTXATTR = Downcall.capturingErrno("llistxattr",
        FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
    static final Downcall LGETXATTR = Downcall.capturingErrno("lgetxattr",
        FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    static final Downcall LSETXATTR = Downcall.capturingErrno("lsetxattr",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
    static final Downcall MKNOD = Downcall.capturingErrno("mknod", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    static final Downcall UTIMENSAT = Downcall.capturingErrno("utimensat",
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final Downcall MOUNT = Downcall.capturingErrno("mount",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    static final Downcall UMOUNT2 = Downcall.capturingErrno("umount2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    static final Downcall SOCKETPAIR = Downcall.capturingErrno("socketpair",
        FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    static final Downcall RECVMSG = Downcall.capturingErrno("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    static final Downcall WAITPID = Downcall.capturingErrno("waitpid", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    static final Downcall PROCESS_VM_READV = Downcall.capturingErrno("process_vm_readv",
        FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
    // The posix_spawn family returns the error number itself and leaves errno alone.
    static final Downcall FA_INIT = Downcall.plain("posix_spawn_file_actions_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final Downcall FA_DUP2 = Downcall.plain("posix_spawn_file_actions_adddup2",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    static final Downcall FA_DESTROY = Downcall.plain("posix_spawn_file_actions_destroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final Downcall SPAWNP = Downcall.plain("posix_spawnp",
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final Downcall GETUID = Downcall.plain("getuid", FunctionDescriptor.of(JAVA_INT));
    static final Downcall GETGID = Downcall.plain("getgid", FunctionDescriptor.of(JAVA_INT));
    static final Downcall STRERROR = Downcall.plain("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** Why not every function is bound (the first failure); null when all are. */
    static final String FAILURE = List.of(OPEN, READ, WRITE, CLOSE, LSEEK, LLISTXATTR, LGETXATTR, LSETXATTR, MKNOD, UTIMENSAT, MOUNT,
        UMOUNT2, SOCKETPAIR, RECVMSG, WAITPID, PROCESS_VM_READV, FA_INIT, FA_DUP2, FA_DESTROY, SPAWNP, GETUID, GETGID,
        STRERROR).stream().map(Downcall::failure).filter(Objects::nonNull).findFirst().orElse(null);
  }

  /**
   * futex(2)'s binding, apart from {@link Bound}: the journal's commit wake-up links only this, at
   * its first use, and each thread keeps the segment its errno is captured in.
   */
  private static final class FutexBound {
    // long syscall(long nr, ...): variadic after the number
    static final Downcall SYSCALL = Downcall.capturingErrno("syscall",
        FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
        Linker.Option.firstVariadicArg(1));
    static final ThreadLocal<MemorySegment> CALL_STATE = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(Downcall.CALL_STATE));
  }

  /**
   * Whether this module may make restricted FFM calls without a warning. Links nothing: a caller
   * with a fallback asks this first, so that a JVM started without native access gets the fallback
   * and no warning.
   */
  public static boolean nativeAccessEnabled() {
    return Libc.class.getModule().isNativeAccessEnabled();
  }

  /** Whether every function here but {@link #futex} is bound (linking them if this is the first use). */
  public static boolean available() {
    return Bound.FAILURE == null;
  }

  /** Why {@link #available()} is false: another OS, a missing symbol, or native access denied; null when it is true. */
  public static String unavailableReason() {
    return Bound.FAILURE;
  }

  /**
   * Why {@link #futex} cannot be called (linking {@code syscall} alone if this is the first use):
   * another OS or architecture, a missing symbol, or native access denied; null when it can.
   */
  public static String futexUnavailableReason() {
    return SYS_FUTEX < 0 ? "no futex system call number for " + System.getProperty("os.arch", "") : FutexBound.SYSCALL.failure();
  }

  /** A segment for the errno a downcall captures, for {@link #read} and {@link #write}: one per thread that calls them. */
  public static MemorySegment callState(Arena arena) {
    return arena.allocate(Downcall.CALL_STATE);
  }

  /** strerror(3): the C library's text for {@code errno} ("No such file or directory"); "errno N" when it cannot be had. */
  @SuppressWarnings("restricted") // reads the C string strerror returns; linked under the same native access
  public static String strerror(int errno) {
    try {
      MemorySegment s = (MemorySegment) Bound.STRERROR.handle().invokeExact(errno);
      return s.reinterpret(256).getString(0, StandardCharsets.UTF_8);
    } catch (Throwable t) {
      return "errno " + errno;
    }
  }

  /** getuid(2): the real user id. */
  public static int getuid() {
    try {
      return (int) Bound.GETUID.handle().invokeExact();
    } catch (Throwable t) {
      throw rethrow("getuid", t);
    }
  }

  /** getgid(2): the real group id. */
  public static int getgid() {
    try {
      return (int) Bound.GETGID.handle().invokeExact();
    } catch (Throwable t) {
      throw rethrow("getgid", t);
    }
  }

  /** open(2) of {@code path} (its UTF-8 bytes): the descriptor, or -errno. */
  public static int open(String path, int flags, int mode) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      int r = (int) Bound.OPEN.handle().invokeExact(st, a.allocateFrom(path), flags, mode);
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("open(" + path + ")", t);
    }
  }

  /** read(2) into {@code buf} (its whole size): the bytes read, or -errno; {@code state} is a {@link #callState} the caller owns. */
  public static long read(int fd, MemorySegment buf, MemorySegment state) {
    try {
      long r = (long) Bound.READ.handle().invokeExact(state, fd, buf, buf.byteSize());
      return r < 0 ? -Downcall.errno(state) : r;
    } catch (Throwable t) {
      throw rethrow("read", t);
    }
  }

  /** write(2) of {@code len} bytes of {@code buf}: the bytes written, or -errno; {@code state} as for {@link #read}. */
  public static long write(int fd, MemorySegment buf, long len, MemorySegment state) {
    try {
      long r = (long) Bound.WRITE.handle().invokeExact(state, fd, buf, len);
      return r < 0 ? -Downcall.errno(state) : r;
    } catch (Throwable t) {
      throw rethrow("write", t);
    }
  }

  /** close(2): 0, or -errno. */
  public static int close(int fd) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      int r = (int) Bound.CLOSE.handle().invokeExact(st, fd);
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("close", t);
    }
  }

  /** lseek(2): the new offset, or -errno (-ENXIO from SEEK_DATA past the last data). */
  public static long lseek(int fd, long offset, int whence) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      long r = (long) Bound.LSEEK.handle().invokeExact(st, fd, offset, whence);
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("lseek", t);
    }
  }

  /**
   * llistxattr(2) of {@code path} (a symbolic link itself) into {@code list}, its whole size: the
   * list's length, or -errno. {@link MemorySegment#NULL} asks for the length only.
   */
  public static long llistxattr(String path, MemorySegment list) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      long r = (long) Bound.LLISTXATTR.handle().invokeExact(st, a.allocateFrom(path), list, list.byteSize());
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("llistxattr(" + path + ")", t);
    }
  }

  /**
   * lgetxattr(2) of attribute {@code name} of {@code path} (a symbolic link itself) into
   * {@code value}, its whole size: the value's length, or -errno. {@link MemorySegment#NULL} asks for
   * the length only.
   */
  public static long lgetxattr(String path, String name, MemorySegment value) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      long r = (long) Bound.LGETXATTR.handle().invokeExact(st, a.allocateFrom(path), a.allocateFrom(name), value, value.byteSize());
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("lgetxattr(" + path + ")", t);
    }
  }

  /** lsetxattr(2) of attribute {@code name} of {@code path} (a symbolic link itself): 0, or -errno. */
  public static int lsetxattr(String path, String name, byte[] value, int flags) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment v = a.allocate(Math.max(1, value.length));
      MemorySegment.copy(value, 0, v, JAVA_BYTE, 0, value.length);
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      int r = (int) Bound.LSETXATTR.handle().invokeExact(st, a.allocateFrom(path), a.allocateFrom(name), v, (long) value.length,
          flags);
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("lsetxattr(" + path + ")", t);
    }
  }

  /** mknod(2): {@code mode} with the file type, {@code dev} in glibc's dev_t encoding; 0, or -errno. */
  public static int mknod(String path, int mode, long dev) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      int r = (int) Bound.MKNOD.handle().invokeExact(st, a.allocateFrom(path), mode, dev);
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("mknod(" + path + ")", t);
    }
  }

  /** utimensat(2) with times {atime, mtime} to the nanosecond: 0, or -errno. */
  public static int utimensat(int dirfd, String path, Instant atime, Instant mtime, int flags) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment ts = a.allocate(JAVA_LONG, 4); // struct timespec[2]: {tv_sec, tv_nsec} × 2
      ts.setAtIndex(JAVA_LONG, 0, atime.getEpochSecond());
      ts.setAtIndex(JAVA_LONG, 1, atime.getNano());
      ts.setAtIndex(JAVA_LONG, 2, mtime.getEpochSecond());
      ts.setAtIndex(JAVA_LONG, 3, mtime.getNano());
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      int r = (int) Bound.UTIMENSAT.handle().invokeExact(st, dirfd, a.allocateFrom(path), ts, flags);
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("utimensat(" + path + ")", t);
    }
  }

  /** mount(2): 0, or -errno. */
  public static int mount(String source, String target, String type, long flags, String data) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      int r = (int) Bound.MOUNT.handle().invokeExact(st, a.allocateFrom(source), a.allocateFrom(target), a.allocateFrom(type), flags,
          a.allocateFrom(data));
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("mount(" + target + ")", t);
    }
  }

  /** umount2(2): 0, or -errno. */
  public static int umount2(String target, int flags) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      int r = (int) Bound.UMOUNT2.handle().invokeExact(st, a.allocateFrom(target), flags);
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("umount2(" + target + ")", t);
    }
  }

  /**
   * process_vm_readv(2) of one 32-bit word at {@code address} in process {@code pid} (native byte
   * order): the word, or -errno (-EINVAL for a short read).
   */
  public static long readWordOf(int pid, long address) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      MemorySegment word = a.allocate(JAVA_INT);
      MemorySegment local = a.allocate(16); // struct iovec {base, len}
      local.set(JAVA_LONG, 0, word.address());
      local.set(JAVA_LONG, 8, 4L);
      MemorySegment remote = a.allocate(16);
      remote.set(JAVA_LONG, 0, address);
      remote.set(JAVA_LONG, 8, 4L);
      long r = (long) Bound.PROCESS_VM_READV.handle().invokeExact(st, pid, local, 1L, remote, 1L, 0L);
      if (r < 0) {
        return -Downcall.errno(st);
      }
      return r == 4 ? Integer.toUnsignedLong(word.get(JAVA_INT, 0)) : -EINVAL;
    } catch (Throwable t) {
      throw rethrow("process_vm_readv(" + pid + ")", t);
    }
  }

  /** socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC): the two descriptors, or {-errno}. */
  public static int[] socketpair() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      MemorySegment sv = a.allocate(JAVA_INT, 2);
      int r = (int) Bound.SOCKETPAIR.handle().invokeExact(st, 1, 1 | O_CLOEXEC, 0, sv);
      return r < 0 ? new int[] {-Downcall.errno(st)} : new int[] {sv.getAtIndex(JAVA_INT, 0), sv.getAtIndex(JAVA_INT, 1)};
    } catch (Throwable t) {
      throw rethrow("socketpair", t);
    }
  }

  /**
   * posix_spawnp of {@code argv} with {@code env}, descriptor {@code fd} given to the child as
   * {@code childFd} (dup2 clears close-on-exec there): the pid, or -errno.
   */
  public static int spawn(String[] argv, String[] env, int fd, int childFd) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment fa = a.allocate(256, 8); // posix_spawn_file_actions_t is 80 bytes in glibc
      int r = (int) Bound.FA_INIT.handle().invokeExact(fa);
      if (r != 0) {
        return -r;
      }
      try {
        r = (int) Bound.FA_DUP2.handle().invokeExact(fa, fd, childFd);
        if (r != 0) {
          return -r;
        }
        MemorySegment pid = a.allocate(JAVA_INT);
        r = (int) Bound.SPAWNP.handle().invokeExact(pid, a.allocateFrom(argv[0]), fa, MemorySegment.NULL, strings(a, argv),
            strings(a, env));
        return r != 0 ? -r : pid.get(JAVA_INT, 0);
      } finally {
        int ignored = (int) Bound.FA_DESTROY.handle().invokeExact(fa);
      }
    } catch (Throwable t) {
      throw rethrow("posix_spawnp(" + argv[0] + ")", t);
    }
  }

  /** A NULL-terminated char*[] of {@code s}. */
  private static MemorySegment strings(Arena a, String[] s) {
    MemorySegment v = a.allocate(ADDRESS, s.length + 1L);
    for (int i = 0; i < s.length; i++) {
      v.setAtIndex(ADDRESS, i, a.allocateFrom(s[i]));
    }
    v.setAtIndex(ADDRESS, s.length, MemorySegment.NULL);
    return v;
  }

  /** waitpid(2), retried on EINTR: the child's exit status (0-255), 128+signal if a signal ended it, or -errno. */
  public static int waitpid(int pid) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      MemorySegment status = a.allocate(JAVA_INT);
      int r;
      do {
        r = (int) Bound.WAITPID.handle().invokeExact(st, pid, status, 0);
      } while (r < 0 && Downcall.errno(st) == EINTR);
      if (r < 0) {
        return -Downcall.errno(st);
      }
      int w = status.get(JAVA_INT, 0);
      return (w & 0x7F) == 0 ? (w >> 8) & 0xFF : 128 + (w & 0x7F);
    } catch (Throwable t) {
      throw rethrow("waitpid", t);
    }
  }

  /**
   * recvmsg(2) of one byte carrying one descriptor (SCM_RIGHTS), retried on EINTR: the descriptor, 0
   * if the peer closed without sending one, or -errno. msghdr and cmsghdr as on every 64-bit Linux.
   */
  public static int receiveFd(int sock) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(Downcall.CALL_STATE);
      MemorySegment data = a.allocate(8);
      MemorySegment iov = a.allocate(16, 8);
      iov.set(ADDRESS, 0, data);
      iov.set(JAVA_LONG, 8, 1);
      MemorySegment control = a.allocate(64, 8);
      MemorySegment msg = a.allocate(56, 8); // name, namelen(+pad), iov, iovlen, control, controllen, flags(+pad)
      msg.set(ADDRESS, 16, iov);
      msg.set(JAVA_LONG, 24, 1);
      msg.set(ADDRESS, 32, control);
      msg.set(JAVA_LONG, 40, control.byteSize());
      long r;
      do {
        r = (long) Bound.RECVMSG.handle().invokeExact(st, sock, msg, 0x40000000); // MSG_CMSG_CLOEXEC
      } while (r < 0 && Downcall.errno(st) == EINTR);
      if (r < 0) {
        return -Downcall.errno(st);
      }
      long controlLen = msg.get(JAVA_LONG, 40);
      if (r == 0 || controlLen < 20) {
        return 0;
      }
      int level = control.get(JAVA_INT, 8);
      int type = control.get(JAVA_INT, 12);
      return level == 1 && type == 1 ? control.get(JAVA_INT, 16) : 0; // SOL_SOCKET, SCM_RIGHTS
    } catch (Throwable t) {
      throw rethrow("recvmsg", t);
    }
  }

  /**
   * futex(2) through syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0), for the operations that use
   * no timeout and no second word (FUTEX_WAIT, FUTEX_WAKE and their _PRIVATE forms): the system
   * call's result, or -errno; -ENOSYS where {@link #SYS_FUTEX} is unknown.
   */
  public static long futex(MemorySegment uaddr, int op, int val) {
    if (SYS_FUTEX < 0) {
      return -ENOSYS;
    }
    try {
      MemorySegment st = FutexBound.CALL_STATE.get();
      long r = (long) FutexBound.SYSCALL.handle().invokeExact(st, SYS_FUTEX, uaddr, op, val, MemorySegment.NULL, MemorySegment.NULL, 0);
      return r < 0 ? -Downcall.errno(st) : r;
    } catch (Throwable t) {
      throw rethrow("futex", t);
    }
  }

  /** An unbound function's error as it is; anything else (a bug in the binding) as an IllegalStateException naming the call. */
  private static RuntimeException rethrow(String call, Throwable t) {
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(call, t);
  }
}
