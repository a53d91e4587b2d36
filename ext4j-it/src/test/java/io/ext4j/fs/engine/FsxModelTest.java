package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.DioLocking;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * fsx in the engine: a long random sequence of reads, buffered and direct writes, truncates and
 * fallocates (allocate, keep-size past the end, punch hole, zero range, collapse and insert range) on a few files of an
 * in-memory image, each read checked byte for byte against a model (an array per file), with
 * fsync, fdatasync and a close-and-reopen of the whole filesystem now and then (after which every
 * file is read back whole). The configurations together run {@code -Dext4j.fsx.ops} operations
 * (default 1,000,000); at the end each image goes to {@code e2fsck -fn}, which must find nothing.
 *
 * <p>On a failure the operations are shrunk (replayed on a fresh image with chunks left out, as
 * long as it still fails, for at most {@code -Dext4j.fsx.shrinkSeconds}) and the failure message
 * lists the short sequence that remains.
 */
@Tag("oracle")
class FsxModelTest {
  static final Path DIR = Path.of("target", "test-images", "fsx");
  static final int TOTAL_OPS = Integer.getInteger("ext4j.fsx.ops", 1_000_000);
  static final int SHRINK_SECONDS = Integer.getInteger("ext4j.fsx.shrinkSeconds", 120);
  static final int FILES = 3;
  static final int MAX_SIZE = 768 << 10;
  static final int MAX_IO = 48 << 10;
  static final int REOPEN_EVERY = 25_000;

  enum Op { READ, WRITE, DIRECT_WRITE, DIRECT_READ, TRUNCATE, FALLOCATE, PUNCH, ZERO, COLLAPSE, INSERT, FSYNC, REOPEN }

  /**
   * One concrete operation: on file {@code file}, at {@code pos} for {@code len} bytes; {@code mode}
   * is fallocate's; {@code flag} picks a direct buffer (writes), the direct handle (fsync) or
   * datasync. Its data pattern derives from {@code no}.
   */
  record Action(int no, int file, Op op, long pos, long len, int mode, boolean flag, boolean flag2) {
    @Override
    public String toString() {
      return "#" + no + " f" + file + " " + op + " [" + pos + ", " + (pos + len) + ") len " + len
          + (op == Op.FALLOCATE || op == Op.PUNCH || op == Op.ZERO || op == Op.COLLAPSE || op == Op.INSERT ? " mode 0x" + Integer.toHexString(mode) : "")
          + (flag ? " flag" : "") + (flag2 ? " flag2" : "");
    }
  }

  /** A configuration: the image and the options to open it with. */
  record Config(int blockSize, String features, DioLocking dio, long seed) {}

  @ParameterizedTest(name = "{0}-byte blocks, -O {1}, {2}")
  @CsvSource({
    "4096, '', SHARED_WITH_UNWRITTEN",
    "1024, '^metadata_csum,^64bit,uninit_bg', SHARED_OVERWRITE",
    "4096, '^flex_bg,orphan_file', ALWAYS_EXCLUSIVE",
  })
  void randomFileOperations_readBackExactlyAsTheModel(int blockSize, String features, DioLocking dio) throws Exception {
    Config c = new Config(blockSize, features, dio, Seeds.seed());
    int ops = Math.ceilDiv(TOTAL_OPS, 3); // three configurations: at least TOTAL_OPS in all
    Run run = new Run(c);
    Random rnd = new Random(c.seed);
    List<Action> done = new ArrayList<>();
    Map<Op, Integer> counts = new TreeMap<>();
    try {
      for (int n = 0; n < ops; n++) {
        Action a = n > 0 && n % REOPEN_EVERY == 0 ? new Action(n, 0, Op.REOPEN, 0, 0, 0, false, false) : next(rnd, n, c.blockSize, run.model);
        done.add(a);
        counts.merge(a.op, 1, Integer::sum);
        run.apply(a);
      }
      run.apply(new Action(ops, 0, Op.REOPEN, 0, 0, 0, false, false));
      run.close();
    } catch (Throwable t) {
      run.abandon();
      throw new AssertionError("fsx seed " + c.seed + " " + c + " failed at op " + done.size() + " " + counts + ": " + t
          + "\n" + shrink(c, done), t);
    }
    Path img = MemoryImages.save(run.dev, DIR.resolve("fsx-" + blockSize + "-" + dio + ".img"));
    E2fsprogs.Result fsck = E2fsprogs.e2fsckForceNoChange(img);
    assertThat(fsck.exitCode()).as("e2fsck -fn after fsx (seed %d):%n%s", c.seed, fsck.output()).isZero();
    System.out.printf("fsx %d-byte blocks %s %s: %d ops %s (seed %d)%n", blockSize, features, dio, done.size(), counts, c.seed);
  }

  /** The next random action, sized by the file's current length. */
  static Action next(Random rnd, int no, int bs, byte[][] model) {
    int file = rnd.nextInt(FILES);
    int size = model[file].length;
    int r = rnd.nextInt(100);
    if (r < 30 || (r >= 63 && r < 70)) {
      Op op = r < 30 ? Op.READ : Op.DIRECT_READ;
      boolean aligned = op == Op.DIRECT_READ && rnd.nextInt(4) != 0;
      int len = length(rnd, aligned ? bs : 1);
      long pos = offset(rnd, Math.max(1, size + bs), aligned ? bs : 1);
      return new Action(no, file, op, pos, len, 0, false, false);
    }
    if (r < 63) {
      Op op = r < 55 ? Op.WRITE : Op.DIRECT_WRITE;
      boolean direct = op == Op.DIRECT_WRITE;
      boolean aligned = direct && rnd.nextInt(4) != 0;
      // Most direct writes overwrite what is there (the shared-lock path), some extend or fill holes.
      long limit = direct && rnd.nextInt(3) != 0 && size > bs ? size : MAX_SIZE;
      int len = length(rnd, aligned ? bs : 1);
      long pos = offset(rnd, Math.max(1, limit - len), aligned ? bs : 1);
      len = (int) Math.min(len, MAX_SIZE - pos);
      return new Action(no, file, op, pos, Math.max(len, 1), 0, direct && rnd.nextBoolean(), false);
    }
    if (r < 77) {
      long to = rnd.nextInt(4) == 0 ? (long) rnd.nextInt(MAX_SIZE / bs + 1) * bs : rnd.nextInt(MAX_SIZE + 1);
      return new Action(no, file, Op.TRUNCATE, to, 0, 0, false, false);
    }
    if (r < 97) {
      long pos = offset(rnd, MAX_SIZE - 1, rnd.nextBoolean() ? bs : 1);
      long len = Math.max(1, Math.min(MAX_SIZE - pos, 1 + rnd.nextInt(4 * MAX_IO)));
      if (r < 81) {
        return new Action(no, file, Op.FALLOCATE, pos, len, 0, false, false);
      } else if (r < 86) {
        return new Action(no, file, Op.FALLOCATE, pos, len, OpenFile.FALLOC_KEEP_SIZE, false, false);
      } else if (r < 92) {
        return new Action(no, file, Op.PUNCH, pos, len, OpenFile.FALLOC_PUNCH_HOLE | OpenFile.FALLOC_KEEP_SIZE, false, false);
      }
      if (r < 95) {
        return new Action(no, file, Op.ZERO, pos, len, OpenFile.FALLOC_ZERO_RANGE | (rnd.nextBoolean() ? OpenFile.FALLOC_KEEP_SIZE : 0), false, false);
      }
      // collapse or insert: block-aligned, inside the file (the shift moves every later extent)
      long blocks = size / bs;
      long at = blocks > 1 ? bs * (long) rnd.nextInt((int) blocks - 1) : -1;
      long n = bs * (1L + rnd.nextInt(Math.max(1, 4 * MAX_IO / bs)));
      if (r == 95 && at >= 0 && at + n < size) {
        return new Action(no, file, Op.COLLAPSE, at, n, OpenFile.FALLOC_COLLAPSE_RANGE, false, false);
      }
      if (r == 96 && at >= 0 && size + n <= MAX_SIZE) {
        return new Action(no, file, Op.INSERT, at, n, OpenFile.FALLOC_INSERT_RANGE, false, false);
      }
    }
    return new Action(no, file, Op.FSYNC, 0, 0, 0, rnd.nextBoolean(), rnd.nextBoolean());
  }

  /** A fresh in-memory image with its files, their models and open handles. */
  static final class Run {
    final Config c;
    final MemoryBlockDevice dev;
    final Ext4Options options;
    final byte[][] model = new byte[FILES][0];
    final long[] inos = new long[FILES];
    final OpenFile[] buffered = new OpenFile[FILES];
    final OpenFile[] direct = new OpenFile[FILES];
    Ext4FileSystem fs;

    Run(Config c) throws IOException {
      this.c = c;
      dev = MemoryImages.format(64L << 20, c.blockSize, c.features, c.seed);
      options = Ext4Options.builder().dioLocking(c.dio).build();
      fs = Ext4FileSystem.open(dev, options, false);
      for (int k = 0; k < FILES; k++) {
        inos[k] = fs.create(Ext4FileSystem.ROOT, ("f" + k).getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
      }
      openAll();
    }

    void openAll() throws IOException {
      for (int k = 0; k < FILES; k++) {
        buffered[k] = fs.open(inos[k], EnumSet.of(OpenFlag.READ, OpenFlag.WRITE));
        direct[k] = fs.open(inos[k], EnumSet.of(OpenFlag.READ, OpenFlag.WRITE, OpenFlag.DIRECT));
      }
    }

    void close() throws IOException {
      for (int k = 0; k < FILES; k++) {
        buffered[k].close();
        direct[k].close();
      }
      fs.close();
    }

    /** Closes what can be closed after a failure, keeping the first failure's report. */
    void abandon() {
      try {
        close();
      } catch (Throwable ignored) {
        // the run already failed; its first failure is the one reported
      }
    }

    /** Performs {@code a} on the engine and on the model, checking what it can. */
    void apply(Action a) throws IOException {
      int k = a.file;
      OpenFile f = buffered[k];
      byte[] m = model[k];
      switch (a.op) {
        case READ -> check(f, m, a.pos, (int) a.len, a.toString());
        case DIRECT_READ -> check(direct[k], m, a.pos, (int) a.len, a.toString());
        case WRITE, DIRECT_WRITE -> {
          byte[] data = pattern(a.no, a.pos, (int) a.len);
          long n = (a.op == Op.DIRECT_WRITE ? direct[k] : f).write(a.pos, a.flag ? directBuffer(data) : ByteBuffer.wrap(data));
          assertThat(n).as("bytes written by %s", a).isEqualTo(a.len);
          byte[] out = a.pos + a.len > m.length ? Arrays.copyOf(m, (int) (a.pos + a.len)) : m;
          System.arraycopy(data, 0, out, (int) a.pos, (int) a.len);
          model[k] = out;
        }
        case TRUNCATE -> {
          f.truncate(a.pos);
          model[k] = Arrays.copyOf(m, (int) a.pos);
        }
        case FALLOCATE, PUNCH, ZERO -> {
          f.fallocate(a.mode, a.pos, a.len);
          long end = a.pos + a.len;
          byte[] out = m;
          if ((a.mode & OpenFile.FALLOC_KEEP_SIZE) == 0 && end > m.length) {
            out = Arrays.copyOf(m, (int) end);
          }
          if (a.op != Op.FALLOCATE) {
            Arrays.fill(out, (int) Math.min(a.pos, out.length), (int) Math.min(end, out.length), (byte) 0);
          }
          model[k] = out;
        }
        case COLLAPSE -> {
          f.fallocate(a.mode, a.pos, a.len);
          byte[] out = new byte[m.length - (int) a.len];
          System.arraycopy(m, 0, out, 0, (int) a.pos);
          System.arraycopy(m, (int) (a.pos + a.len), out, (int) a.pos, m.length - (int) (a.pos + a.len));
          model[k] = out;
        }
        case INSERT -> {
          f.fallocate(a.mode, a.pos, a.len);
          byte[] out = new byte[m.length + (int) a.len];
          System.arraycopy(m, 0, out, 0, (int) a.pos);
          System.arraycopy(m, (int) a.pos, out, (int) (a.pos + a.len), m.length - (int) a.pos);
          model[k] = out;
        }
        case FSYNC -> (a.flag ? direct[k] : f).fsync(a.flag2);
        case REOPEN -> {
          close();
          fs = Ext4FileSystem.open(dev, options, false);
          openAll();
          for (int j = 0; j < FILES; j++) {
            checkWhole(buffered[j], model[j], "after reopen at " + a);
          }
        }
        default -> throw new IllegalStateException(a.toString());
      }
      assertThat(buffered[k].size()).as("size after %s", a).isEqualTo(model[k].length);
    }
  }

  /** Whether replaying {@code actions} on a fresh image fails. */
  static boolean fails(Config c, List<Action> actions) {
    Run run = null;
    try {
      run = new Run(c);
      for (Action a : actions) {
        run.apply(a);
      }
      run.apply(new Action(Integer.MAX_VALUE, 0, Op.REOPEN, 0, 0, 0, false, false));
      run.close();
      return false;
    } catch (Throwable t) {
      if (run != null) {
        run.abandon();
      }
      return true;
    }
  }

  /** Leaves out chunks of the failing sequence while it still fails; describes what remains. */
  static String shrink(Config c, List<Action> failing) {
    long deadline = System.nanoTime() + SHRINK_SECONDS * 1_000_000_000L;
    List<Action> cur = new ArrayList<>(failing);
    if (!fails(c, cur)) {
      return "(replaying the " + cur.size() + " operations on a fresh image did not fail: not shrunk)";
    }
    for (int chunk = Math.max(1, cur.size() / 2); chunk >= 1 && System.nanoTime() < deadline; chunk /= 2) {
      for (int at = cur.size() - chunk; at >= 0 && System.nanoTime() < deadline; at -= chunk) {
        List<Action> without = new ArrayList<>(cur.subList(0, at));
        without.addAll(cur.subList(Math.min(cur.size(), at + chunk), cur.size()));
        if (fails(c, without)) {
          cur = without;
        }
      }
      if (chunk == 1) {
        break;
      }
    }
    StringBuilder sb = new StringBuilder("shrunk to " + cur.size() + " operations that still fail on a fresh image"
        + (System.nanoTime() >= deadline ? " (time ran out)" : "") + ":\n");
    for (Action a : cur.subList(0, Math.min(cur.size(), 200))) {
      sb.append("  ").append(a).append('\n');
    }
    return sb.toString();
  }

  static long offset(Random rnd, long below, int align) {
    long units = Math.max(1, below / align);
    return ((long) (rnd.nextDouble() * units)) * align;
  }

  static int length(Random rnd, int align) {
    int len = rnd.nextInt(8) == 0 ? 1 + rnd.nextInt(MAX_IO) : 1 + rnd.nextInt(MAX_IO / 8);
    return align == 1 ? len : Math.max(align, len / align * align);
  }

  /** fsx's pattern: the op number and the file offset show in every byte, so a misplaced write is visible. */
  static byte[] pattern(int opNo, long pos, int len) {
    byte[] b = new byte[len];
    int base = opNo * 31;
    for (int i = 0; i < len; i++) {
      long at = pos + i;
      b[i] = (byte) (base + at % 253 + (at >>> 10));
    }
    return b;
  }

  static ByteBuffer directBuffer(byte[] data) {
    ByteBuffer b = ByteBuffer.allocateDirect(data.length);
    b.put(data).flip();
    return b;
  }

  static void check(OpenFile f, byte[] m, long pos, int len, String what) throws IOException {
    ByteBuffer dst = ByteBuffer.allocate(len);
    int got = 0;
    while (dst.hasRemaining()) {
      int n = f.read(pos + got, dst);
      if (n < 0) {
        break;
      }
      assertThat(n).as("%s: a read of %d at %d returned nothing before the end", what, len, pos + got).isPositive();
      got += n;
    }
    int expect = (int) Math.max(0, Math.min(len, m.length - pos));
    assertThat(got).as("%s: bytes read of %d at %d (size %d)", what, len, pos, m.length).isEqualTo(expect);
    if (expect > 0) {
      byte[] want = Arrays.copyOfRange(m, (int) pos, (int) pos + expect);
      byte[] have = Arrays.copyOf(dst.array(), expect);
      if (!Arrays.equals(want, have)) {
        int at = Arrays.mismatch(want, have);
        throw new AssertionError(what + ": read of " + len + " at " + pos + " differs first at file offset " + (pos + at)
            + " (expected " + want[at] + ", read " + have[at] + "; size " + m.length + ")");
      }
    }
  }

  static void checkWhole(OpenFile f, byte[] m, String when) throws IOException {
    assertThat(f.size()).as("size %s", when).isEqualTo(m.length);
    check(f, m, 0, m.length + 1, "whole file " + when);
  }
}
