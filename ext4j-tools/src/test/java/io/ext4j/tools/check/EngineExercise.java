package io.ext4j.tools.check;

import com.sun.management.ThreadMXBean;
import io.ext4j.block.BlockDevice;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Puts one (possibly hostile) image through the engine the way a user would: open it, list it
 * recursively, look every name up, read every file, link and xattr, then write — create, append,
 * truncate, rename, unlink, mkdir, setxattr, fsync — close it, and check the result with ext4j's
 * checker. Every call may fail with an IOException (a clear refusal: the engine found the damage);
 * anything else — a RuntimeException, an Error, an operation using more than {@link #OP_CPU_LIMIT_NS}
 * of CPU, or the whole run allocating more than {@link #ALLOC_BUDGET} bytes — is a {@link Defect}.
 * Walks are bounded (entries, bytes) so that a sound engine finishes quickly whatever the image.
 * Not thread-safe: one exercise per thread.
 */
final class EngineExercise {
  /** The most CPU one engine call may take on an image of a few MiB. */
  static final long OP_CPU_LIMIT_NS = 1_000_000_000L;
  /** The most one exercise may allocate (the images are a few MiB; the caches are capped below). */
  static final long ALLOC_BUDGET = 256L << 20;
  private static final int MAX_ENTRIES = 300;
  private static final int MAX_READ = 192 << 10;
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final Ext4Options OPTIONS = Ext4Options.builder().cacheBytes(4L << 20).inodeCacheSize(256).build();

  /** Something the engine must never do, whatever the image. */
  static final class Defect extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Defect(String what, Throwable cause) {
      super(what, cause);
    }
  }

  /** What happened: calls made, calls refused with an IOException, whether the open succeeded, the checker's exit code. */
  record Result(int calls, int refused, boolean opened, boolean wroteSomething, int checkExit, long slowestCpuNs) {}

  private final BlockDevice device;
  private int calls;
  private int refused;
  private long slowest;
  private boolean wrote;

  EngineExercise(BlockDevice device) {
    this.device = device;
  }

  @FunctionalInterface
  interface Call<T> {
    T run() throws IOException;
  }

  /** Runs the whole exercise. @throws Defect on anything but a clean refusal */
  Result run() {
    long alloc0 = THREADS.getCurrentThreadAllocatedBytes();
    Ext4FileSystem fs = call("open", () -> Ext4FileSystem.open(device, OPTIONS, false));
    boolean opened = fs != null;
    if (fs != null) {
      try {
        List<Found> found = walk(fs);
        if (!fs.isReadOnly()) {
          write(fs, found);
        }
      } finally {
        call("close", () -> {
          fs.close();
          return null;
        });
      }
    }
    CheckReport rep = call("check", () -> Checker.check(device, CheckOptions.defaults().withMaxProblems(100)));
    if (rep != null && rep.problems().stream().anyMatch(p -> p.what().startsWith("internal checker error"))) {
      throw new Defect("the checker failed internally: " + rep.toText(), null);
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - alloc0;
    if (allocated > ALLOC_BUDGET) {
      throw new Defect("allocated " + (allocated >> 20) + " MiB, over the budget of " + (ALLOC_BUDGET >> 20) + " MiB", null);
    }
    return new Result(calls, refused, opened, wrote, rep == null ? -1 : rep.exitCode(), slowest);
  }

  private record Found(long dir, byte[] name, Attributes attrs) {}

  private List<Found> walk(Ext4FileSystem fs) {
    List<Found> found = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    ArrayDeque<Long> dirs = new ArrayDeque<>();
    dirs.add(Ext4FileSystem.ROOT);
    seen.add(Ext4FileSystem.ROOT);
    call("statfs", fs::statfs);
    call("getattr /", () -> fs.getattr(Ext4FileSystem.ROOT));
    while (!dirs.isEmpty() && found.size() < MAX_ENTRIES) {
      long dir = dirs.poll();
      long cookie = 0;
      for (int page = 0; page < 20 && found.size() < MAX_ENTRIES; page++) {
        final long from = cookie;
        List<DirEntry> entries = call("readdir " + dir, () -> fs.readdir(dir, from, 64));
        if (entries == null || entries.isEmpty()) {
          break;
        }
        for (DirEntry e : entries) {
          if (isDot(e.name())) {
            continue;
          }
          Attributes a = call("lookup", () -> fs.lookup(dir, e.name()));
          if (a == null) {
            continue;
          }
          found.add(new Found(dir, e.name(), a));
          if (!seen.add(a.ino())) {
            continue; // a hard link, or a loop the checks let through: visit once
          }
          visit(fs, a);
          if (a.fileType() == 0x4000) {
            dirs.add(a.ino());
          }
        }
        long next = entries.getLast().cookie();
        if (next == cookie) {
          break;
        }
        cookie = next;
      }
    }
    return found;
  }

  private void visit(Ext4FileSystem fs, Attributes a) {
    call("getattr", () -> fs.getattr(a.ino()));
    switch (a.fileType()) {
      case 0x8000 -> {
        OpenFile f = call("open file", () -> fs.open(a.ino(), EnumSet.of(OpenFlag.READ)));
        if (f != null) {
          try {
            ByteBuffer b = ByteBuffer.allocate(64 << 10);
            for (long pos = 0; pos < MAX_READ; ) {
              b.clear();
              final long at = pos;
              Integer n = call("read", () -> f.read(at, b));
              if (n == null || n <= 0) {
                break;
              }
              pos += n;
            }
            call("seekData", () -> f.seekData(0));
            call("seekHole", () -> f.seekHole(0));
          } finally {
            call("close file", () -> {
              f.close();
              return null;
            });
          }
        }
      }
      case 0xA000 -> call("readlink", () -> fs.readlink(a.ino()));
      default -> {}
    }
    List<String> names = call("listxattr", () -> fs.listxattr(a.ino()));
    if (names != null) {
      for (String n : names.subList(0, Math.min(8, names.size()))) {
        call("getxattr", () -> fs.getxattr(a.ino(), n));
      }
    }
  }

  private void write(Ext4FileSystem fs, List<Found> found) {
    Attributes made = call("create", () -> fs.create(Ext4FileSystem.ROOT, bytes("fuzz-new"), 0644, Caller.ROOT));
    if (made != null) {
      OpenFile f = call("open new", () -> fs.open(made.ino(), EnumSet.of(OpenFlag.WRITE)));
      if (f != null) {
        try {
          call("write new", () -> f.write(0, ByteBuffer.allocate(100_000)));
          call("fsync new", () -> {
            f.fsync(false);
            return null;
          });
        } finally {
          call("close new", () -> {
            f.close();
            return null;
          });
        }
      }
    }
    call("mkdir", () -> fs.mkdir(Ext4FileSystem.ROOT, bytes("fuzz-dir"), 0755, Caller.ROOT));
    int dirsTouched = 0;
    int filesTouched = 0;
    for (int k = 0; k < found.size(); k++) {
      Found e = found.get(k);
      if (e.attrs().fileType() == 0x4000 && dirsTouched < 3) {
        dirsTouched++;
        call("create in dir", () -> fs.create(e.attrs().ino(), bytes("fz-" + e.attrs().ino()), 0644, Caller.ROOT));
        call("setxattr dir", () -> {
          fs.setxattr(e.attrs().ino(), "user.fuzz", new byte[40], 0);
          return null;
        });
      } else if (e.attrs().fileType() == 0x8000 && filesTouched < 4) {
        int which = filesTouched++;
        switch (which) {
          case 0 -> call("unlink", () -> {
            fs.unlink(e.dir(), e.name());
            return null;
          });
          case 1 -> call("rename", () -> {
            fs.rename(e.dir(), e.name(), Ext4FileSystem.ROOT, bytes("fuzz-moved"), RenameMode.REPLACE);
            return null;
          });
          default -> {
            OpenFile f = call("open rw", () -> fs.open(e.attrs().ino(), EnumSet.of(OpenFlag.WRITE)));
            if (f != null) {
              try {
                call("truncate", () -> {
                  f.truncate(e.attrs().size() / 2);
                  return null;
                });
                call("append", () -> f.write(e.attrs().size() / 2, ByteBuffer.allocate(5000)));
              } finally {
                call("close rw", () -> {
                  f.close();
                  return null;
                });
              }
            }
            call("setxattr", () -> {
              fs.setxattr(e.attrs().ino(), "user.fuzz", new byte[300], 0);
              return null;
            });
          }
        }
      }
    }
    call("syncfs", () -> {
      fs.syncfs();
      return null;
    });
  }

  /**
   * One engine call: its result, or null when it refused with an IOException. A call over the CPU
   * limit is a defect whatever it returned or threw; a defect it threw is then kept as suppressed.
   */
  private <T> T call(String what, Call<T> c) {
    calls++;
    long cpu0 = THREADS.getCurrentThreadCpuTime();
    T t = null;
    Defect threw = null;
    try {
      t = c.run();
      if (what.startsWith("create") || what.startsWith("write") || what.startsWith("mkdir")) {
        wrote = true;
      }
    } catch (IOException e) {
      refused++;
    } catch (RuntimeException | Error e) {
      threw = new Defect(what + " threw " + e, e);
    }
    long cpu = THREADS.getCurrentThreadCpuTime() - cpu0;
    slowest = Math.max(slowest, cpu);
    if (cpu > OP_CPU_LIMIT_NS) {
      Defect slow = new Defect(what + " took " + cpu / 1_000_000 + " ms of CPU", null);
      if (threw != null) {
        slow.addSuppressed(threw);
      }
      throw slow;
    }
    if (threw != null) {
      throw threw;
    }
    return t;
  }

  private static boolean isDot(byte[] n) {
    return (n.length == 1 && n[0] == '.') || (n.length == 2 && n[0] == '.' && n[1] == '.');
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
