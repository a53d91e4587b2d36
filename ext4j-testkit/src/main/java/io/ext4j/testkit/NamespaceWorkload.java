package io.ext4j.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads racing on one directory tree with the namespace calls Linux offers (create with and
 * without O_EXCL, O_TRUNC, write, read, unlink, rename over, link, mkdir, rmdir, readdir), on shared
 * names and on names private to a thread, through any {@link Ops} — the java.nio provider, the
 * engine's VFS, a FUSE mount, the JDK's own file system — so that every adapter, and Linux, run the
 * same program.
 *
 * <p>What it checks while it runs:
 * <ul>
 *   <li>A private file reads back exactly what its thread wrote, after a rename too.
 *   <li>A shared file holds only data written to that name (every 64-byte block names the file it
 *       was written to), never another file's: a name confused with a reused inode shows here.
 *   <li>Every call ends in an outcome Linux allows for it ({@link #ALLOWED}): a create with O_CREAT
 *       never fails for the name appearing or vanishing, a private operation never fails at all.
 *   <li>A listing shows only names the program makes.
 * </ul>
 * A violation is recorded with the thread, the operation and the seed; {@link Result#violations()}
 * lists them. The file system's own consistency (fsck) is the caller's to check afterwards.
 */
public final class NamespaceWorkload {
  /** Size of a labelled block: every file is a whole number of them. */
  public static final int BLOCK = 64;

  /** The calls, as the workload makes them; names are relative to the tree's root, '/' between. */
  public interface Ops {
    /** open(name, O_WRONLY|O_CREAT|O_TRUNC (|O_EXCL when {@code exclusive})), one write of {@code data}, close. */
    void write(String name, byte[] data, boolean exclusive) throws IOException;

    /** The whole file. */
    byte[] read(String name) throws IOException;

    /** unlink. */
    void unlink(String name) throws IOException;

    /** rename(2), replacing the target. */
    void rename(String from, String to) throws IOException;

    /** link(2). */
    void link(String existing, String name) throws IOException;

    void mkdir(String name) throws IOException;

    void rmdir(String name) throws IOException;

    /** The names in directory {@code dir} ("" for the root), "." and ".." left out. */
    List<String> list(String dir) throws IOException;

    /** The errno an exception of these calls stands for ("ENOENT", "EEXIST", …), or null when it is not one. */
    String errno(IOException e);

    /**
     * What the file system under test can tell of {@code name}'s file now (its inode, size, blocks
     * and their bytes on the device), for the message of a violation found reading it; "" when it
     * can tell nothing more than the calls above.
     */
    default String inspect(String name) {
      return "";
    }
  }

  /** The operations, as named in outcomes. */
  public enum Op { CREATE, CREATE_EXCL, READ, UNLINK, RENAME, LINK, MKDIR, RMDIR, LIST, PRIVATE }

  /** What Linux lets each operation end in (besides success) when the names race as here. */
  public static final Map<Op, Set<String>> ALLOWED = Map.of(
      Op.CREATE, Set.of("ENOENT"), // only inside a shared directory removed meanwhile
      Op.CREATE_EXCL, Set.of("EEXIST", "ENOENT"), // ENOENT as CREATE's
      Op.READ, Set.of("ENOENT"),
      Op.UNLINK, Set.of("ENOENT"),
      Op.RENAME, Set.of("ENOENT"),
      Op.LINK, Set.of("ENOENT", "EEXIST"),
      Op.MKDIR, Set.of("EEXIST"),
      Op.RMDIR, Set.of("ENOENT", "ENOTEMPTY"),
      Op.LIST, Set.of("ENOENT"),
      Op.PRIVATE, Set.of());

  private static final int SHARED_FILES = 6;
  private static final int SHARED_DIRS = 3;

  /** What a run did and found. */
  public record Result(long seed, long operations, Map<String, Long> outcomes, List<String> violations) {
    /** One line per outcome class, "CREATE OK 1234". */
    public String summary() {
      StringBuilder s = new StringBuilder("seed " + seed + ", " + operations + " operations\n");
      outcomes.forEach((k, v) -> s.append("  ").append(k).append(' ').append(v).append('\n'));
      return s.toString();
    }
  }

  private final Ops ops;
  private final int threads;
  private final Duration duration;
  private final long seed;
  private final Map<String, AtomicLong> outcomes = Collections.synchronizedMap(new TreeMap<>());
  private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
  private final AtomicLong operations = new AtomicLong();

  public NamespaceWorkload(Ops ops, int threads, Duration duration, long seed) {
    this.ops = ops;
    this.threads = threads;
    this.duration = duration;
    this.seed = seed;
  }

  /** Runs the threads for the duration; returns once all have stopped. */
  public Result run() throws InterruptedException {
    CyclicBarrier start = new CyclicBarrier(threads);
    long end = System.nanoTime() + duration.toNanos();
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      ts.add(Thread.ofPlatform().name("namespace-" + t).start(() -> {
        try {
          start.await();
          new Worker(id, new Random(Seeds.derive(seed, "namespace-" + id)), end).run();
        } catch (Exception | Error e) {
          violations.add("thread " + id + " died: " + e);
        }
      }));
    }
    for (Thread t : ts) {
      t.join();
    }
    Map<String, Long> counts = new TreeMap<>();
    synchronized (outcomes) {
      outcomes.forEach((k, v) -> counts.put(k, v.get()));
    }
    return new Result(seed, operations.get(), counts, List.copyOf(violations));
  }

  private static String sharedFile(int i) {
    return "s" + i;
  }

  private static String sharedDir(int i) {
    return "d" + i;
  }

  /** {@code blocks} labelled blocks of {@code name}, written by {@code who}. */
  static byte[] data(String name, String who, int blocks) {
    byte[] out = new byte[blocks * BLOCK];
    for (int b = 0; b < blocks; b++) {
      byte[] label = ("<" + name + "|" + who + "|" + b + ">").getBytes(StandardCharsets.US_ASCII);
      for (int i = 0; i < BLOCK; i++) {
        out[b * BLOCK + i] = i < label.length ? label[i] : (byte) '.';
      }
    }
    return out;
  }

  private static final java.util.regex.Pattern SHARED_LABEL = java.util.regex.Pattern.compile("<(?:d[0-9]+/)?s[0-9]+\\|[0-9.]+\\|([0-9]+)>");

  /**
   * The first block of shared file content {@code got} that is not data written to a shared name
   * at that block's offset, or -1. (A rename moves a file's data to another shared name, so the
   * label may name any shared file, but never a private one, and always this block's index. A
   * read racing a truncate may end inside a block: that last piece need only start as one.)
   */
  static int foreignBlock(byte[] got) {
    for (int b = 0; b < (got.length + BLOCK - 1) / BLOCK; b++) {
      if (foreign(got, b)) {
        return b;
      }
    }
    return -1;
  }

  /** Whether block {@code b} of {@code got} is not data written to a shared name at that block's offset (see {@link #foreignBlock}). */
  private static boolean foreign(byte[] got, int b) {
    int from = b * BLOCK;
    int to = Math.min(got.length, from + BLOCK);
    int close = from;
    while (close < to && got[close] != '>') {
      close++;
    }
    if (to - from != BLOCK) { // a read cut short by a truncate racing it: a torn last block, as Linux gives too
      return got[from] != '<';
    }
    if (close == to) {
      return true;
    }
    var m = SHARED_LABEL.matcher(new String(got, from, close + 1 - from, StandardCharsets.ISO_8859_1));
    return !m.matches() || Integer.parseInt(m.group(1)) != b;
  }

  private final class Worker {
    private final int id;
    private final Random rnd;
    private final long end;
    private long seq;

    Worker(int id, Random rnd, long end) {
      this.id = id;
      this.rnd = rnd;
      this.end = end;
    }

    void run() {
      while (System.nanoTime() - end < 0) {
        step();
        operations.incrementAndGet();
      }
    }

    private String anyFile() {
      String f = sharedFile(rnd.nextInt(SHARED_FILES));
      return rnd.nextInt(4) == 0 ? sharedDir(rnd.nextInt(SHARED_DIRS)) + "/" + f : f;
    }

    private void step() {
      int pick = rnd.nextInt(100);
      if (pick < 15) {
        String n = anyFile();
        boolean excl = rnd.nextInt(3) == 0;
        call(excl ? Op.CREATE_EXCL : Op.CREATE, n.contains("/"), () -> ops.write(n, data(n, id + "." + seq++, 1 + rnd.nextInt(40)), excl));
      } else if (pick < 30) {
        String n = anyFile();
        call(Op.READ, false, () -> {
          byte[] got = ops.read(n);
          int bad = foreignBlock(got);
          if (bad >= 0) {
            violate("read of " + n + " (" + got.length + " bytes): block " + bad + " holds " + show(got, bad)
                + ", not data written to a shared name at that offset" + inspected(n));
          }
        });
      } else if (pick < 40) {
        String n = anyFile();
        call(Op.UNLINK, false, () -> ops.unlink(n));
      } else if (pick < 50) {
        String from = anyFile();
        String to = anyFile();
        call(Op.RENAME, false, () -> {
          ops.rename(from, to);
        });
      } else if (pick < 55) {
        String from = anyFile();
        String to = anyFile();
        call(Op.LINK, false, () -> ops.link(from, to));
      } else if (pick < 60) {
        String d = sharedDir(rnd.nextInt(SHARED_DIRS));
        call(Op.MKDIR, false, () -> ops.mkdir(d));
      } else if (pick < 64) {
        String d = sharedDir(rnd.nextInt(SHARED_DIRS));
        call(Op.RMDIR, false, () -> ops.rmdir(d));
      } else if (pick < 70) {
        String d = rnd.nextBoolean() ? "" : sharedDir(rnd.nextInt(SHARED_DIRS));
        call(Op.LIST, false, () -> {
          for (String n : ops.list(d)) {
            if (!known(d, n)) {
              violate("listing of '" + d + "' shows '" + n + "', a name the program never makes there");
            }
          }
        });
      } else {
        call(Op.PRIVATE, false, this::privateLife);
      }
    }

    /** A thread's own file: created, read back, renamed, read back, linked, removed — none of it may fail. */
    private void privateLife() throws IOException {
      String a = "p" + id + "-a";
      String b = "p" + id + "-b";
      String c = "p" + id + "-c";
      byte[] mine = data(a, id + "." + seq++, 1 + rnd.nextInt(200));
      ops.write(a, mine, true);
      expect(a, mine);
      ops.rename(a, b);
      expect(b, mine);
      ops.link(b, c);
      ops.unlink(b);
      expect(c, mine);
      if (rnd.nextBoolean()) {
        byte[] again = data(c, id + "." + seq++, 1 + rnd.nextInt(20));
        ops.write(c, again, false);
        expect(c, again);
      }
      ops.unlink(c);
    }

    private void expect(String name, byte[] want) throws IOException {
      byte[] got = ops.read(name);
      if (!java.util.Arrays.equals(got, want)) {
        int at = java.util.Arrays.mismatch(got, want);
        violate("private file " + name + " read back " + got.length + " bytes, wrote " + want.length + "; first difference at byte "
            + at + ": " + show(got, Math.max(0, at) / BLOCK));
      }
    }

    private boolean known(String dir, String n) {
      if (dir.isEmpty()) {
        return n.matches("s[0-" + (SHARED_FILES - 1) + "]|d[0-" + (SHARED_DIRS - 1) + "]|p[0-9]+-[abc]|lost\\+found");
      }
      return n.matches("s[0-" + (SHARED_FILES - 1) + "]");
    }

    /** {@link Ops#inspect} of {@code name}, as a suffix of a violation's message; a failure to inspect is said too. */
    private String inspected(String name) {
      String seen;
      try {
        seen = ops.inspect(name);
      } catch (RuntimeException e) {
        seen = "inspecting it failed: " + e;
      }
      return seen.isEmpty() ? "" : "; afterwards: " + seen;
    }

    private void violate(String what) {
      violations.add("thread " + id + ", seed " + seed + ": " + what);
    }

    /**
     * Runs {@code body}, files its outcome, and records one Linux does not allow; {@code inSharedDir}:
     * the name is in a shared directory, which may vanish (a create's ENOENT is allowed only then).
     */
    private void call(Op op, boolean inSharedDir, Body body) {
      String outcome;
      try {
        body.run();
        outcome = "OK";
      } catch (IOException e) {
        String errno = ops.errno(e);
        outcome = errno == null ? e.getClass().getSimpleName() : errno;
        boolean create = op == Op.CREATE || op == Op.CREATE_EXCL;
        boolean allowed = errno != null && ALLOWED.get(op).contains(errno) && !(create && errno.equals("ENOENT") && !inSharedDir);
        if (!allowed) {
          violate(op + " failed as Linux would not: " + e);
        }
      } catch (RuntimeException e) {
        outcome = e.getClass().getSimpleName();
        violate(op + " threw " + e);
      }
      outcomes.computeIfAbsent(op + " " + outcome, k -> new AtomicLong()).incrementAndGet();
    }
  }

  /**
   * The 64-byte block {@code block} of {@code got} as text ('?' for a byte outside printable ASCII)
   * and in hex, with how many of the content's blocks are foreign and how many bytes are zero: zeros,
   * metadata and another file's labels each point to a different defect.
   */
  static String show(byte[] got, int block) {
    int from = block * BLOCK;
    int to = Math.min(got.length, from + BLOCK);
    StringBuilder text = new StringBuilder();
    StringBuilder hex = new StringBuilder();
    for (int i = from; i < to; i++) {
      char ch = (char) (got[i] & 0xFF);
      text.append(ch >= 32 && ch < 127 ? ch : '?');
      hex.append(String.format("%02x", got[i] & 0xFF));
    }
    int foreignCount = 0;
    for (int b = 0; b < (got.length + BLOCK - 1) / BLOCK; b++) {
      foreignCount += foreign(got, b) ? 1 : 0;
    }
    int zeros = 0;
    for (byte x : got) {
      zeros += x == 0 ? 1 : 0;
    }
    return "'" + text + "' (hex " + hex + "; " + foreignCount + " of " + (got.length + BLOCK - 1) / BLOCK + " blocks foreign, "
        + zeros + " of " + got.length + " bytes zero)";
  }

  @FunctionalInterface
  private interface Body {
    void run() throws IOException;
  }
}
