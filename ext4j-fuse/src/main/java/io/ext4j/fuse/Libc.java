package io.ext4j.fuse;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The few system calls a FUSE session needs, through libc with the FFM API: open, read and write
 * of {@code /dev/fuse}, mount(2) and umount2(2). Linux only. Each call returns what the system call
 * does, or {@code -errno} on failure (the errno captured by the downcall itself, so no other call
 * can overwrite it).
 */
final class Libc {
  private static final Linker LINKER = Linker.nativeLinker();
  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

  private static final MethodHandle OPEN = downcall("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
  private static final MethodHandle READ = downcall("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
  private static final MethodHandle WRITE = downcall("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
  private static final MethodHandle CLOSE = downcall("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
  private static final MethodHandle MOUNT = downcall("mount",
      FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
  private static final MethodHandle UMOUNT2 = downcall("umount2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle GETUID = LINKER.downcallHandle(LINKER.defaultLookup().find("getuid").orElseThrow(),
      FunctionDescriptor.of(JAVA_INT));
  private static final MethodHandle GETGID = LINKER.downcallHandle(LINKER.defaultLookup().find("getgid").orElseThrow(),
      FunctionDescriptor.of(JAVA_INT));

  private static final MethodHandle SOCKETPAIR = downcall("socketpair",
      FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
  private static final MethodHandle RECVMSG = downcall("recvmsg", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
  private static final MethodHandle FA_INIT = downcall("posix_spawn_file_actions_init", FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle FA_DUP2 = downcall("posix_spawn_file_actions_adddup2",
      FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
  private static final MethodHandle FA_DESTROY = downcall("posix_spawn_file_actions_destroy",
      FunctionDescriptor.of(JAVA_INT, ADDRESS));
  private static final MethodHandle SPAWNP = downcall("posix_spawnp",
      FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
  private static final MethodHandle PROCESS_VM_READV = downcall("process_vm_readv",
      FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
  private static final MethodHandle WAITPID = downcall("waitpid", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));

  static final int O_RDWR = 2;
  static final int O_CLOEXEC = 0x80000;
  static final long MS_RDONLY = 1;
  static final long MS_NOSUID = 2;
  static final long MS_NODEV = 4;
  static final int MNT_DETACH = 2;

  static final int ENOENT = 2;
  static final int EINTR = 4;
  static final int EAGAIN = 11;
  static final int ENODEV = 19;
  static final int EBUSY = 16;
  static final int EINVAL = 22;

  private Libc() {}

  private static MethodHandle downcall(String name, FunctionDescriptor fd) {
    MemorySegment f = LINKER.defaultLookup().find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    return LINKER.downcallHandle(f, fd, Linker.Option.captureCallState("errno"));
  }

  private static int errno(MemorySegment state) {
    return (int) ERRNO.get(state, 0L);
  }

  static int open(String path, int flags) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      int r = (int) OPEN.invokeExact(st, a.allocateFrom(path), flags, 0);
      return r < 0 ? -errno(st) : r;
    } catch (Throwable t) {
      throw new IllegalStateException("open(" + path + ")", t);
    }
  }

  /** read(2) into {@code buf}; {@code state} is a {@link #callState} segment the caller owns. */
  static long read(int fd, MemorySegment buf, MemorySegment state) {
    try {
      long r = (long) READ.invokeExact(state, fd, buf, buf.byteSize());
      return r < 0 ? -errno(state) : r;
    } catch (Throwable t) {
      throw new IllegalStateException("read(/dev/fuse)", t);
    }
  }

  /** write(2) of {@code len} bytes of {@code buf}. */
  static long write(int fd, MemorySegment buf, long len, MemorySegment state) {
    try {
      long r = (long) WRITE.invokeExact(state, fd, buf, len);
      return r < 0 ? -errno(state) : r;
    } catch (Throwable t) {
      throw new IllegalStateException("write(/dev/fuse)", t);
    }
  }

  static int close(int fd) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      int r = (int) CLOSE.invokeExact(st, fd);
      return r < 0 ? -errno(st) : r;
    } catch (Throwable t) {
      throw new IllegalStateException("close", t);
    }
  }

  static int mount(String source, String target, String type, long flags, String data) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      int r = (int) MOUNT.invokeExact(st, a.allocateFrom(source), a.allocateFrom(target), a.allocateFrom(type), flags,
          a.allocateFrom(data));
      return r < 0 ? -errno(st) : r;
    } catch (Throwable t) {
      throw new IllegalStateException("mount(" + target + ")", t);
    }
  }

  /**
   * process_vm_readv(2) of one 32-bit word at {@code address} in process {@code pid} (native byte
   * order): the word, or a negative errno in the high half's place ({@code -errno} as a long).
   */
  static long readWordOf(int pid, long address) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment word = a.allocate(JAVA_INT);
      MemorySegment local = a.allocate(16);
      local.set(JAVA_LONG, 0, word.address());
      local.set(JAVA_LONG, 8, 4L);
      MemorySegment remote = a.allocate(16);
      remote.set(JAVA_LONG, 0, address);
      remote.set(JAVA_LONG, 8, 4L);
      long r = (long) PROCESS_VM_READV.invokeExact(st, pid, local, 1L, remote, 1L, 0L);
      if (r < 0) {
        return -errno(st);
      }
      return r == 4 ? Integer.toUnsignedLong(word.get(JAVA_INT, 0)) : -EINVAL;
    } catch (Throwable t) {
      throw new IllegalStateException("process_vm_readv(" + pid + ")", t);
    }
  }

  static int umount2(String target, int flags) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      int r = (int) UMOUNT2.invokeExact(st, a.allocateFrom(target), flags);
      return r < 0 ? -errno(st) : r;
    } catch (Throwable t) {
      throw new IllegalStateException("umount2(" + target + ")", t);
    }
  }

  static int getuid() {
    try {
      return (int) GETUID.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException("getuid", t);
    }
  }

  static int getgid() {
    try {
      return (int) GETGID.invokeExact();
    } catch (Throwable t) {
      throw new IllegalStateException("getgid", t);
    }
  }

  /** socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC): the two descriptors, or {-errno}. */
  static int[] socketpair() {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment sv = a.allocate(JAVA_INT, 2);
      int r = (int) SOCKETPAIR.invokeExact(st, 1, 1 | 0x80000, 0, sv);
      return r < 0 ? new int[] {-errno(st)} : new int[] {sv.getAtIndex(JAVA_INT, 0), sv.getAtIndex(JAVA_INT, 1)};
    } catch (Throwable t) {
      throw new IllegalStateException("socketpair", t);
    }
  }

  /**
   * posix_spawnp of {@code argv} with {@code env}, descriptor {@code fd} given to the child as
   * {@code childFd} (dup2 clears close-on-exec there); returns the pid, or -errno.
   */
  static int spawn(String[] argv, String[] env, int fd, int childFd) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment fa = a.allocate(256, 8); // posix_spawn_file_actions_t is 80 bytes in glibc
      int r = (int) FA_INIT.invokeExact(st, fa);
      if (r != 0) {
        return -r;
      }
      try {
        r = (int) FA_DUP2.invokeExact(st, fa, fd, childFd);
        if (r != 0) {
          return -r;
        }
        MemorySegment pid = a.allocate(JAVA_INT);
        r = (int) SPAWNP.invokeExact(st, pid, a.allocateFrom(argv[0]), fa, MemorySegment.NULL, strings(a, argv), strings(a, env));
        return r != 0 ? -r : pid.get(JAVA_INT, 0);
      } finally {
        int ignored = (int) FA_DESTROY.invokeExact(st, fa);
      }
    } catch (Throwable t) {
      throw new IllegalStateException("posix_spawnp(" + argv[0] + ")", t);
    }
  }

  private static MemorySegment strings(Arena a, String[] s) {
    MemorySegment v = a.allocate(ADDRESS, s.length + 1L);
    for (int i = 0; i < s.length; i++) {
      v.setAtIndex(ADDRESS, i, a.allocateFrom(s[i]));
    }
    v.setAtIndex(ADDRESS, s.length, MemorySegment.NULL);
    return v;
  }

  /** waitpid: the child's exit status (0-255), 128+signal if a signal ended it, or -errno. */
  static int waitpid(int pid) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
      MemorySegment status = a.allocate(JAVA_INT);
      int r;
      do {
        r = (int) WAITPID.invokeExact(st, pid, status, 0);
      } while (r < 0 && errno(st) == EINTR);
      if (r < 0) {
        return -errno(st);
      }
      int w = status.get(JAVA_INT, 0);
      return (w & 0x7F) == 0 ? (w >> 8) & 0xFF : 128 + (w & 0x7F);
    } catch (Throwable t) {
      throw new IllegalStateException("waitpid", t);
    }
  }

  /**
   * recvmsg of one byte carrying one descriptor (SCM_RIGHTS): the descriptor, 0 if the peer closed
   * without sending one, or -errno. msghdr and cmsghdr as on every 64-bit Linux.
   */
  static int receiveFd(int sock) {
    try (Arena a = Arena.ofConfined()) {
      MemorySegment st = a.allocate(CALL_STATE);
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
        r = (long) RECVMSG.invokeExact(st, sock, msg, 0x40000000); // MSG_CMSG_CLOEXEC
      } while (r < 0 && errno(st) == EINTR);
      if (r < 0) {
        return -errno(st);
      }
      long controlLen = msg.get(JAVA_LONG, 40);
      if (r == 0 || controlLen < 20) {
        return 0;
      }
      int level = control.get(JAVA_INT, 8);
      int type = control.get(JAVA_INT, 12);
      return level == 1 && type == 1 ? control.get(JAVA_INT, 16) : 0; // SOL_SOCKET, SCM_RIGHTS
    } catch (Throwable t) {
      throw new IllegalStateException("recvmsg", t);
    }
  }

  /** A segment for the errno a downcall captures; one per thread that calls read or write. */
  static MemorySegment callState(Arena arena) {
    return arena.allocate(CALL_STATE);
  }

  /** strerror-like text for the errnos a mount meets. */
  static String describe(int errno) {
    return switch (errno) {
      case 1 -> "EPERM: operation not permitted (mounting needs root, or CAP_SYS_ADMIN)";
      case 2 -> "ENOENT: no such file or directory";
      case 13 -> "EACCES: permission denied";
      case 16 -> "EBUSY: busy (something is already mounted there, or a file on it is open)";
      case 19 -> "ENODEV: no such device (the kernel has no FUSE support loaded)";
      case 20 -> "ENOTDIR: not a directory";
      case 22 -> "EINVAL: invalid argument";
      default -> "errno " + errno;
    };
  }
}
