package io.ext4j.fuse;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.os.Libc;
import io.ext4j.fs.Ext4FileSystem;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An ext4 engine mounted through the kernel's FUSE: ext4j speaks the {@code /dev/fuse} protocol
 * itself (libc's open, read, write and mount through {@link Libc}; no libfuse), so every operation the
 * engine has reaches the kernel — hard links, fallocate, SEEK_DATA/SEEK_HOLE, real inode numbers,
 * renameat2 flags, 1 MiB writes.
 *
 * <h2>Lifecycle</h2>
 * {@link #mount} opens {@code /dev/fuse} and mounts it (with {@code default_permissions} unless told not to) — as root
 * with mount(2), as any other user through the setuid {@code fusermount3} (which passes the
 * descriptor back over a socket) — and starts the session threads. The session ends when the
 * kernel says the mount is gone — {@code umount}, {@code fusermount3 -u}, or {@link #unmount} — and
 * {@link #awaitUnmount} returns. {@link #close} unmounts if still mounted (lazily and aborting
 * the connection if files on it are open: their later calls fail with ENOTCONN), waits for the
 * threads and closes every file the kernel left open. The engine belongs to the caller, who closes
 * it after this (that commits and checkpoints the journal).
 *
 * <h2>Threads</h2>
 * {@link FuseOptions#threads} platform threads each read one request, serve it through
 * {@link Ext4FuseOps} and write the reply, so that many fsyncs wait in the journal's group commit at
 * once. Each has its own buffer of max_write plus a page (the kernel refuses a smaller read).
 *
 * <h2>Durability</h2>
 * That of the engine's calls (see {@link Ext4FuseOps}); unmounting does not sync by itself: closing
 * the engine does.
 */
public final class FuseMount implements AutoCloseable {
  private static final String DEV_FUSE = "/dev/fuse";
  private static final String FUSERMOUNT = "fusermount3";
  private static final int MAX_BACKGROUND = 64;

  private final Path mountpoint;
  private final FuseOptions options;
  private final Ext4FuseOps ops;
  private final int fd;
  private final String connection; // the mount's "major:minor", for /sys/fs/fuse/connections; null if unknown
  private final boolean userMount; // mounted by fusermount3, so unmounted by it
  private final Arena arena = Arena.ofShared(); // the threads' buffers; closed by close() once they ended
  private final List<Thread> threads = new ArrayList<>();
  private final CountDownLatch ended = new CountDownLatch(1);
  private final AtomicInteger alive = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final AtomicInteger internalErrors = new AtomicInteger();
  private final java.util.concurrent.atomic.AtomicLongArray served = new java.util.concurrent.atomic.AtomicLongArray(64); // per opcode
  private volatile boolean initialized; // set by the thread that served INIT
  private volatile boolean mounted; // true from mount(2) until the kernel or unmount() ends it
  @GuardedBy("this") private boolean closed;

  private FuseMount(Ext4FileSystem fs, Path mountpoint, FuseOptions options, int fd, String connection, boolean userMount) {
    this.userMount = userMount;
    this.mountpoint = mountpoint;
    this.options = options;
    this.ops = new Ext4FuseOps(fs, options);
    this.fd = fd;
    this.connection = connection;
  }

  /**
   * Mounts {@code fs} on {@code mountpoint} (an existing directory). {@code source} is what mount(8)
   * shows as the device (the image path, unless {@link FuseOptions#fsName} says otherwise).
   */
  public static FuseMount mount(Ext4FileSystem fs, String source, Path mountpoint, FuseOptions options)
      throws IOException {
    if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
      throw new IOException("a FUSE mount needs Linux (this is " + System.getProperty("os.name")
          + "); use the java.nio provider (ext4j-nio) instead");
    }
    Path mp = mountpoint.toAbsolutePath().normalize();
    if (!Files.isDirectory(mp)) {
      throw new IOException(mp + ": mount point " + (Files.exists(mp) ? "is not a directory" : "does not exist"));
    }
    boolean ro = options.readOnly() || fs.isReadOnly();
    String src = options.fsName() != null ? options.fsName() : source.replace(',', '_');
    boolean root = Libc.getuid() == 0;
    int fd = root ? mountAsRoot(mp, src, ro, options) : mountThroughFusermount(mp, src, ro, options);
    FuseMount m = new FuseMount(fs, mp, options, fd, connectionOf(mp), !root);
    m.mounted = true;
    m.start();
    return m;
  }

  /** open(/dev/fuse) and mount(2) with its descriptor; returns the descriptor. */
  private static int mountAsRoot(Path mp, String src, boolean ro, FuseOptions options) throws IOException {
    int fd = Libc.open(DEV_FUSE, Libc.O_RDWR | Libc.O_CLOEXEC, 0);
    if (fd < 0) {
      throw new IOException(DEV_FUSE + ": cannot open: " + ErrnoText.describe(-fd)
          + (-fd == 2 ? " (load the fuse module: modprobe fuse)" : ""));
    }
    String data = "fd=" + fd + ",rootmode=40000,user_id=0,group_id=" + Integer.toUnsignedString(Libc.getgid())
        + (options.defaultPermissions() ? ",default_permissions" : "") + (options.allowOther() ? ",allow_other" : "");
    long flags = options.mountFlags() | (ro ? Libc.MS_RDONLY : 0);
    int r = Libc.mount(src, mp.toString(), "fuse.ext4j", flags, data);
    if (r < 0) {
      Libc.close(fd);
      throw new IOException(mp + ": mount failed: " + ErrnoText.describe(-r));
    }
    return fd;
  }

  /**
   * A user's mount: the setuid {@code fusermount3} mounts and hands back the {@code /dev/fuse}
   * descriptor over a socket (its {@code _FUSE_COMMFD} protocol); fusermount3 prints its own
   * errors on stderr.
   */
  private static int mountThroughFusermount(Path mp, String src, boolean ro, FuseOptions options) throws IOException {
    int[] sv = Libc.socketpair();
    if (sv.length == 1) {
      throw new IOException("socketpair for fusermount3 failed: " + ErrnoText.describe(-sv[0]));
    }
    try {
      if ((options.mountFlags() & (FuseOptions.MS_NOSUID | FuseOptions.MS_NODEV)) != (FuseOptions.MS_NOSUID | FuseOptions.MS_NODEV)) {
        throw new IOException(mp + ": suid and dev need root (fusermount3 always mounts nosuid,nodev)");
      }
      String opts = (options.defaultPermissions() ? "default_permissions," : "") + "fsname=" + src + ",subtype=ext4j"
          + ((options.mountFlags() & FuseOptions.MS_NOEXEC) != 0 ? ",noexec" : "")
          + ((options.mountFlags() & FuseOptions.MS_SYNCHRONOUS) != 0 ? ",sync" : "")
          + ((options.mountFlags() & FuseOptions.MS_NOATIME) != 0 ? ",noatime" : "")
          + ((options.mountFlags() & FuseOptions.MS_NODIRATIME) != 0 ? ",nodiratime" : "")
          + ((options.mountFlags() & FuseOptions.MS_STRICTATIME) != 0 ? ",strictatime" : "")
          + (options.allowOther() ? ",allow_other" : "")
          + (ro ? ",ro" : "");
      List<String> env = new ArrayList<>();
      System.getenv().forEach((k, v) -> {
        if (!k.equals("_FUSE_COMMFD")) {
          env.add(k + "=" + v);
        }
      });
      env.add("_FUSE_COMMFD=3");
      int pid = Libc.spawn(new String[] {FUSERMOUNT, "-o", opts, "--", mp.toString()}, env.toArray(String[]::new), sv[1], 3);
      if (pid < 0) {
        throw new IOException(mp + ": cannot run " + FUSERMOUNT + " (a user's FUSE mount needs it; package fuse3): "
            + ErrnoText.describe(-pid));
      }
      Libc.close(sv[1]);
      sv[1] = -1;
      int fd = Libc.receiveFd(sv[0]);
      int status = Libc.waitpid(pid);
      if (fd <= 0) {
        throw new IOException(mp + ": " + FUSERMOUNT + " did not mount (exit " + status + "; its message is above)");
      }
      return fd;
    } finally {
      Libc.close(sv[0]);
      if (sv[1] >= 0) {
        Libc.close(sv[1]);
      }
    }
  }

  /** The mount's device number ("major:minor") from /proc/self/mountinfo: the FUSE connection's id. */
  private static String connectionOf(Path mp) {
    try {
      String found = null;
      for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        String[] f = line.split(" ", 0);
        if (f.length > 4 && unescape(f[4]).equals(mp.toString())) {
          found = f[2];
        }
      }
      return found;
    } catch (IOException e) {
      return null;
    }
  }

  private static String unescape(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 3 < s.length()) {
        b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  private void start() {
    int n = options.threads();
    alive.set(n);
    for (int i = 0; i < n; i++) {
      MemorySegment buf = arena.allocate(options.maxWrite() + 4096L, 4096);
      MemorySegment notice = arena.allocate(FuseProto.OUT_HEADER + 24, 8);
      MemorySegment state = Libc.callState(arena);
      threads.add(Thread.ofPlatform().daemon().name("ext4j-fuse-" + i).start(() -> serve(buf, notice, state)));
    }
  }

  private void serve(MemorySegment buf, MemorySegment notice, MemorySegment state) {
    ByteBuffer bb = buf.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    try {
      while (true) {
        long n = Libc.read(fd, buf, state);
        if (n == -Libc.EINTR || n == -Libc.EAGAIN || n == -Libc.ENOENT) {
          continue; // a signal, or a request the kernel withdrew before we read it
        }
        if (n == -Libc.ENODEV) {
          break; // unmounted
        }
        if (n < 0) {
          failure.compareAndSet(null, new IOException(DEV_FUSE + ": read failed: " + ErrnoText.describe((int) -n)));
          break;
        }
        FuseRequest req = FuseRequest.decode(bb, (int) n);
        if (req.opcode >= 0 && req.opcode < served.length()) {
          served.incrementAndGet(req.opcode);
        }
        ByteBuffer out = bb.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(FuseProto.OUT_HEADER);
        int err = req.opcode == FuseProto.INIT ? init(req, out) : serveOne(req, out);
        if (err == Ext4FuseOps.NO_REPLY) {
          continue;
        }
        if (req.invalidateBeforeReply != 0) {
          invalidate(req.invalidateBeforeReply, req.invalidatePagesFrom, req.invalidatePagesLength, notice, state);
        }
        int len = err == 0 ? out.position() : FuseProto.OUT_HEADER;
        bb.putInt(0, len).putInt(4, -err).putLong(8, req.unique);
        long w = Libc.write(fd, buf, len, state);
        if (w < 0 && w != -Libc.ENOENT) { // ENOENT: the request was interrupted and needs no reply
          if (w == -Libc.ENODEV) {
            break;
          }
          failure.compareAndSet(null, new IOException(DEV_FUSE + ": reply to " + req + " failed: " + ErrnoText.describe((int) -w)));
          break;
        }
        if (req.opcode == FuseProto.DESTROY) {
          break;
        }
      }
    } catch (Throwable t) {
      failure.compareAndSet(null, t);
    } finally {
      if (alive.decrementAndGet() == 0) {
        mounted = false;
        ended.countDown();
      }
    }
  }

  /**
   * FUSE_NOTIFY_INVAL_INODE: with {@code from} -1 the kernel forgets the node's cached attributes
   * (not its pages); with {@code from} ≥ 0 also its cached pages of {@code length} bytes from there.
   * Sent before the reply, so the caller cannot stat the old mode between the two (it did, rarely,
   * when this came after). With offset -1 the kernel takes no page or inode lock; with a range it
   * locks the range's pages one by one but not the inode, and a page lock is held only by a reader
   * waiting for a READ that another session thread serves, so the request the kernel waits on (a
   * direct write, which holds the inode lock and no page) does not block it. ENOENT (the kernel no
   * longer has the node) is fine.
   */
  private void invalidate(long nodeid, long from, long length, MemorySegment buf, MemorySegment state) {
    ByteBuffer b = buf.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(0, FuseProto.OUT_HEADER + 24).putInt(4, FuseProto.NOTIFY_INVAL_INODE).putLong(8, 0);
    b.putLong(16, nodeid).putLong(24, from).putLong(32, from < 0 ? 0 : length);
    long w = Libc.write(fd, buf, FuseProto.OUT_HEADER + 24, state);
    if (w < 0 && w != -Libc.ENOENT && w != -Libc.ENODEV) {
      failure.compareAndSet(null, new IOException(DEV_FUSE + ": attribute invalidation failed: " + ErrnoText.describe((int) -w)));
    }
  }

  /** One request through the engine; a bug in ext4j (not an engine error) answers EIO and is printed once. */
  private int serveOne(FuseRequest req, ByteBuffer out) {
    try {
      return ops.handle(req, out);
    } catch (RuntimeException | Error e) {
      if (internalErrors.getAndIncrement() == 0) {
        System.err.println("ext4j mount: internal error serving " + req + " (answered EIO): " + e);
        e.printStackTrace();
      }
      return io.ext4j.fs.Errno.EIO.number();
    }
  }

  /** FUSE_INIT: agree on the protocol version and what the kernel may send. */
  private int init(FuseRequest req, ByteBuffer out) {
    int major = req.u32(0);
    int minor = req.u32(4);
    int readahead = req.u32(8);
    int kernelFlags = req.u32(12);
    if (major < FuseProto.MAJOR) {
      failure.compareAndSet(null, new IOException("the kernel speaks FUSE " + major + "." + minor + ", ext4j needs 7.x"));
      return FuseProto.EPROTO;
    }
    if (major > FuseProto.MAJOR) { // the kernel asks again with ours
      out.putInt(FuseProto.MAJOR);
      return 0;
    }
    int want = FuseProto.ASYNC_READ | FuseProto.BIG_WRITES | FuseProto.DO_READDIRPLUS | FuseProto.READDIRPLUS_AUTO
        | FuseProto.ASYNC_DIO | FuseProto.PARALLEL_DIROPS | FuseProto.MAX_PAGES | FuseProto.CACHE_SYMLINKS
        | FuseProto.HANDLE_KILLPRIV_V2 | FuseProto.DONT_MASK | FuseProto.IOCTL_DIR | FuseProto.EXPORT_SUPPORT
        | FuseProto.INIT_EXT | (options.writebackCache() ? FuseProto.WRITEBACK_CACHE : 0);
    int kernelFlags2 = (kernelFlags & FuseProto.INIT_EXT) != 0 ? req.u32(16) : 0;
    int want2 = FuseProto.DIRECT_IO_ALLOW_MMAP_2;
    FuseReplies.init(out, Math.min(minor, FuseProto.MINOR), readahead, kernelFlags & want, kernelFlags2 & want2,
        MAX_BACKGROUND, options.maxWrite(), options.maxWrite() / 4096);
    initialized = true;
    return 0;
  }

  /** The requests served so far, by opcode name, most frequent first (for the end-of-mount summary and benchmarks). */
  public java.util.Map<String, Long> requestCounts() {
    java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
    java.util.stream.IntStream.range(0, served.length()).filter(i -> served.get(i) > 0).boxed()
        .sorted((a, b) -> Long.compare(served.get(b), served.get(a)))
        .forEach(i -> out.put(FuseProto.name(i), served.get(i)));
    return out;
  }

  public Path mountpoint() {
    return mountpoint;
  }

  /** Blocks until the session ends (the file system was unmounted); rethrows what ended it abnormally. */
  public void awaitUnmount() throws IOException, InterruptedException {
    ended.await();
    rethrow();
  }

  private void rethrow() throws IOException {
    Throwable t = failure.get();
    if (t instanceof IOException e) {
      throw e;
    } else if (t != null) {
      throw new IOException("FUSE session failed: " + t, t);
    }
  }

  /**
   * Unmounts: umount(2), or when files on the mount are still open, a lazy unmount that also aborts
   * the connection (their later calls fail with ENOTCONN) so that the session ends now.
   */
  public void unmount() throws IOException {
    if (!mounted) {
      return;
    }
    if (userMount) {
      fusermountUnmount();
    } else {
      int r = Libc.umount2(mountpoint.toString(), 0);
      if (r == -Libc.EBUSY) {
        r = Libc.umount2(mountpoint.toString(), Libc.MNT_DETACH);
        abortConnection();
      }
      if (r < 0 && r != -Libc.EINVAL) { // EINVAL: no longer mounted
        throw new IOException(mountpoint + ": unmount failed: " + ErrnoText.describe(-r));
      }
    }
    if (!initialized) {
      abortConnection(); // a session that never served INIT gets no ENODEV from the unmount alone
    }
  }

  /** {@code fusermount3 -u}, lazily ({@code -z}) if busy: the session ends when the last file on it closes. */
  private void fusermountUnmount() throws IOException {
    for (String[] cmd : List.of(new String[] {FUSERMOUNT, "-u", "-q", mountpoint.toString()},
        new String[] {FUSERMOUNT, "-u", "-q", "-z", mountpoint.toString()})) {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
      try {
        if (p.waitFor() == 0 || !mounted) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(mountpoint + ": interrupted while unmounting", e);
      }
      if (cmd.length == 5) {
        throw new IOException(mountpoint + ": " + FUSERMOUNT + " -u failed: " + out);
      }
    }
  }

  private void abortConnection() throws IOException {
    if (connection == null) {
      return;
    }
    String[] mm = connection.split(":", 0);
    Path abort = Path.of("/sys/fs/fuse/connections", mm.length == 2 ? mm[1] : connection, "abort");
    if (Files.exists(abort)) {
      Files.writeString(abort, "1");
    }
  }

  /**
   * Unmounts if still mounted, waits for the session threads and closes the files the kernel left
   * open. Idempotent.
   */
  @Override
  public synchronized void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    IOException first = null;
    try {
      unmount();
    } catch (IOException e) {
      first = e;
    }
    try {
      if (!ended.await(30, TimeUnit.SECONDS)) {
        abortConnection();
        ended.await();
      }
      for (Thread t : threads) {
        t.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(mountpoint + ": interrupted while the FUSE session ended", e);
    }
    try {
      ops.closeAll();
    } catch (IOException e) {
      if (first == null) {
        first = e;
      } else {
        first.addSuppressed(e);
      }
    }
    Libc.close(fd);
    arena.close();
    if (first != null) {
      throw first;
    }
    rethrow();
  }
}
