package io.ext4j.fs.power;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.fs.SetAttributes;
import io.ext4j.fs.StatFs;
import io.ext4j.testkit.Seeds;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The child JVM of {@link KillNineOracleTest}: {@code PowerCutWriter IMAGE SEED CACHE} (see
 * {@link #main}) opens the image read-write and runs a seeded random workload until it is killed,
 * printing {@code READY} once set up and then one {@link Fact} line per durability acknowledgement,
 * each only after the fsync or syncfs that backs it has returned (stdout is flushed after every
 * batch, in one write, so the parent sees a line only if the call returned).
 *
 * <h2>What it touches</h2>
 * Three populations, with names from one counter, so no name is ever used twice:
 * <ul>
 *   <li><b>Sealed files</b> ({@code sN}): created in a directory already durable, written (writes
 *       at offsets that overwrite, extend or leave a hole, sometimes a truncate), made durable, then
 *       never touched again — not written, renamed or removed. What is claimed of them holds forever.
 *   <li><b>Free files</b> ({@code wN}), in any directory: written, appended, overwritten, truncated,
 *       fallocated, renamed (fresh name, replacing another free file, or exchanging with one),
 *       unlinked, unlinked while held open and then written (orphans), fsynced and fdatasynced.
 *       Their content is never claimed; only a removed name is (GONE).
 *   <li><b>Directories</b> ({@code d0}…{@code d3} at the root, {@code mN} below): never renamed
 *       or removed. Sealed files go only into directories already claimed durable.
 * </ul>
 *
 * <h2>Which call backs which fact</h2>
 * Only what the engine promises ({@link Ext4FileSystem}'s and {@link OpenFile}'s Durability
 * sections, and what FsCrashStateTest asserts of them):
 * <ul>
 *   <li>fsync or fdatasync of a sealed file (through its {@link OpenFile} or by inode number), or the
 *       last write through a SYNC or DSYNC handle: {@link Fact.File}, its content and the name it was
 *       created under — the file's fsync waits for its own transactions, the create among them
 *       (FsCrashStateTest: "create A/new + write, fsync", "create A/new2, fdatasync"). A datasync
 *       seal always follows at least one write, so the file has data to make durable.
 *   <li>fsync of a directory, its entries: {@link Fact.Name} of sealed files not yet claimed in
 *       it, {@link Fact.Dir} of directories made in it (when it is durable itself), {@link Fact.Gone}
 *       of names removed from it.
 *   <li>syncfs: everything — {@link Fact.Dir}, {@link Fact.File} of every unclaimed sealed file,
 *       {@link Fact.Gone} of every removed name.
 * </ul>
 *
 * <p>Space is budgeted (free files at most {@value #MAX_FREE} of {@value #MAX_FREE_SIZE} bytes,
 * sealed files at most {@value #MAX_SEALED} and {@value #MAX_SEALED_BYTES} bytes, and only removals
 * while statfs shows the image short of blocks or inodes), so ENOSPC never ends the workload; any
 * exception does, with its stack trace on stderr, which fails the test. As a safety net against an
 * orphaned child it stops by itself after {@value #SAFETY_SECONDS} s.
 */
public final class PowerCutWriter {
  private static final int TOP_DIRS = 4;
  private static final int MAX_DIRS = 40;
  private static final int MAX_DEPTH = 3;
  private static final int MAX_FREE = 40;
  private static final int MAX_HELD = 3;
  private static final int MAX_FREE_SIZE = 256 << 10;
  private static final int MAX_SEALED = 2000;
  private static final long MAX_SEALED_BYTES = 8 << 20;
  private static final int MAX_WRITE = 48 << 10;
  private static final long SAFETY_SECONDS = 120;

  /** A directory of the workload; {@code removed} are names removed since its last fsync or syncfs. */
  private static final class Dir {
    final Dir parent; // null at the top
    final String path;
    final long ino;
    final int depth;
    boolean durable;
    final List<String> removed = new ArrayList<>();

    Dir(Dir parent, String path, long ino, int depth) {
      this.parent = parent;
      this.path = path;
      this.ino = ino;
      this.depth = depth;
    }

    String path(String name) {
      return path + "/" + name;
    }
  }

  /** A free file: where it is now. */
  private static final class FreeFile {
    final long ino;
    Dir dir;
    String name;

    FreeFile(long ino, Dir dir, String name) {
      this.ino = ino;
      this.dir = dir;
      this.name = name;
    }
  }

  /** A sealed file not yet claimed with its content (its name may be, by a directory fsync). */
  private static final class Sealed {
    final Dir dir;
    final String name;
    final long ino;
    final long size;
    final String sha256;
    boolean nameClaimed;

    Sealed(Dir dir, String name, long ino, long size, String sha256) {
      this.dir = dir;
      this.name = name;
      this.ino = ino;
      this.size = size;
      this.sha256 = sha256;
    }
  }

  private final Ext4FileSystem fs;
  private final SplittableRandom r;
  private final PrintStream out;
  private final List<Dir> dirs = new ArrayList<>();
  private final List<Dir> durableDirs = new ArrayList<>();
  private final List<Dir> pendingDirs = new ArrayList<>(); // in creation order: a parent before its children
  private final List<FreeFile> frees = new ArrayList<>();
  private final List<OpenFile> held = new ArrayList<>(); // free files unlinked while open
  private final List<Sealed> pendingSealed = new ArrayList<>();
  private long next; // the name counter
  private int sealed;
  private long sealedBytes;
  private boolean tight; // short of space: only removals

  private PowerCutWriter(Ext4FileSystem fs, SplittableRandom r, PrintStream out) {
    this.fs = fs;
    this.r = r;
    this.out = out;
  }

  /**
   * {@code PowerCutWriter IMAGE SEED CACHE}: CACHE {@code page-cache} opens the image file as any
   * user does ({@link Ext4FileSystem#open(Path, Ext4Options)}: what the engine wrote is in the OS page
   * cache and survives the kill); {@code volatile-cache} puts a {@link VolatileCacheDevice} between
   * the engine and the file, so the kill also loses every write not flushed — a power cut.
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      throw new IllegalArgumentException("usage: PowerCutWriter IMAGE SEED page-cache|volatile-cache");
    }
    Path image = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), false,
        StandardCharsets.UTF_8);
    try (Ext4FileSystem fs = open(image, args[2], seed)) {
      new PowerCutWriter(fs, new SplittableRandom(seed), out).run();
    }
  }

  private static Ext4FileSystem open(Path image, String cache, long seed) throws IOException {
    return switch (cache) {
      case "page-cache" -> Ext4FileSystem.open(image, Ext4Options.defaults());
      case "volatile-cache" -> {
        int bs;
        try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
          bs = Ext4JournalLocator.readSuperblock(probe).blockSize();
        }
        BlockDevice dev = new VolatileCacheDevice(FileBlockDevice.open(image, bs), Seeds.derive(seed, "flush order"));
        try {
          yield Ext4FileSystem.open(dev, Ext4Options.defaults(), true);
        } catch (IOException | RuntimeException e) {
          dev.close();
          throw e;
        }
      }
      default -> throw new IllegalArgumentException("CACHE is page-cache or volatile-cache, not " + cache);
    };
  }

  private void run() throws IOException {
    for (int i = 0; i < TOP_DIRS; i++) {
      String name = "d" + i;
      Dir d = new Dir(null, "/" + name, fs.mkdir(Ext4FileSystem.ROOT, b(name), 0755, Caller.ROOT).ino(), 1);
      dirs.add(d);
      pendingDirs.add(d);
    }
    syncfs();
    out.print("READY\n");
    out.flush();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SAFETY_SECONDS);
    for (long op = 0; ; op++) {
      if (op % 16 == 0) {
        StatFs s = fs.statfs();
        tight = s.freeBlocks() < s.blocks() * 3 / 10 || s.freeInodes() < s.inodes() / 5;
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("not killed within " + SAFETY_SECONDS + " s; stopping (the parent is gone?)");
        }
      }
      if (tight) {
        removeSomething();
      } else {
        step();
      }
    }
  }

  private void step() throws IOException {
    int x = r.nextInt(100);
    boolean canSeal = sealed < MAX_SEALED && sealedBytes < MAX_SEALED_BYTES;
    if (x < 8 || frees.isEmpty()) {
      if (frees.size() < MAX_FREE) {
        createFree();
      } else {
        unlinkFree();
      }
    } else if (x < 18) {
      writeFree(false);
    } else if (x < 23) {
      writeFree(true);
    } else if (x < 27) {
      truncateFree();
    } else if (x < 30) {
      fallocateFree();
    } else if (x < 36) {
      renameFree();
    } else if (x < 40) {
      unlinkFree();
    } else if (x < 44) {
      held();
    } else if (x < 47) {
      mkdir();
    } else if (x < 60 && canSeal) {
      sealNow();
    } else if (x < 68 && canSeal) {
      sealLater();
    } else if (x < 76) {
      fsyncFree();
    } else if (x < 92) {
      fsyncDir(pick(dirs));
    } else {
      syncfs();
    }
  }

  /** While short of space: unlink, truncate, close held files, and commit so the freed space is reusable. */
  private void removeSomething() throws IOException {
    int x = r.nextInt(100);
    if (x < 40 && !frees.isEmpty()) {
      unlinkFree();
    } else if (x < 55 && !frees.isEmpty()) {
      fs.setattr(pick(frees).ino, SetAttributes.none().withSize(0));
    } else if (x < 65 && !held.isEmpty()) {
      held.remove(r.nextInt(held.size())).close();
    } else if (x < 85) {
      syncfs();
    } else {
      fsyncDir(pick(dirs));
    }
  }

  // ============================================================ sealed files

  /** A sealed file made durable at once: FILE. */
  private void sealNow() throws IOException {
    Dir d = pick(durableDirs);
    String name = "s" + next++;
    long ino = fs.create(d.ino, b(name), 0644, Caller.ROOT).ino();
    int how = r.nextInt(6);
    byte[] content;
    if (how >= 4) {
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE, how == 4 ? OpenFlag.SYNC : OpenFlag.DSYNC))) {
        content = writeSealed(f, false, 1); // each write returns durable
      }
    } else {
      boolean datasync = how % 2 == 1;
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
        content = writeSealed(f, true, datasync ? 1 : 0);
        if (how < 2) {
          f.fsync(datasync);
        }
      }
      if (how >= 2) {
        fs.fsync(ino, datasync); // by inode number, after the last handle closed
      }
    }
    sealed++;
    sealedBytes += content.length;
    say(List.of(new Fact.File(d.path(name), ino, content.length, Fact.sha256(content))));
  }

  /** A sealed file left for a later directory fsync (NAME) or syncfs (FILE). */
  private void sealLater() throws IOException {
    Dir d = pick(durableDirs);
    String name = "s" + next++;
    long ino = fs.create(d.ino, b(name), 0644, Caller.ROOT).ino();
    byte[] content;
    try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
      content = writeSealed(f, true, 0);
    }
    sealed++;
    sealedBytes += content.length;
    pendingSealed.add(new Sealed(d, name, ino, content.length, Fact.sha256(content)));
  }

  /**
   * Writes a sealed file's content: the first write at 0, later ones overwriting, extending or
   * leaving a hole, then perhaps a truncate (shorter or longer). Returns the content.
   */
  private byte[] writeSealed(OpenFile f, boolean mayTruncate, int minWrites) throws IOException {
    byte[] content = new byte[0];
    int writes = r.nextInt(minWrites, 4);
    for (int k = 0; k < writes; k++) {
      int pos = k == 0 ? 0 : r.nextInt(content.length + 8193);
      byte[] data = bytes(sealedLength());
      write(f, pos, data);
      if (pos + data.length > content.length) {
        content = Arrays.copyOf(content, pos + data.length);
      }
      System.arraycopy(data, 0, content, pos, data.length);
    }
    if (mayTruncate && r.nextInt(4) == 0) {
      int size = r.nextInt(content.length + 4097);
      f.truncate(size);
      content = Arrays.copyOf(content, size);
    }
    return content;
  }

  // ============================================================ free files

  private void createFree() throws IOException {
    Dir d = pick(dirs);
    String name = "w" + next++;
    long ino = fs.create(d.ino, b(name), 0644, Caller.ROOT).ino();
    frees.add(new FreeFile(ino, d, name));
    if (r.nextInt(4) > 0) {
      try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
        write(f, 0, bytes(length(64 << 10)));
      }
    }
  }

  /** Overwrites, extends or leaves a hole; or appends (perhaps through a DSYNC handle). */
  private void writeFree(boolean append) throws IOException {
    FreeFile ff = pick(frees);
    long size = fs.getattr(ff.ino).size();
    if (size > MAX_FREE_SIZE) {
      fs.setattr(ff.ino, SetAttributes.none().withSize(r.nextLong(size / 2)));
      return;
    }
    EnumSet<OpenFlag> flags = append ? EnumSet.of(OpenFlag.WRITE, OpenFlag.APPEND) : EnumSet.of(OpenFlag.WRITE);
    if (r.nextInt(8) == 0) {
      flags.add(OpenFlag.DSYNC);
    }
    try (OpenFile f = fs.open(ff.ino, flags)) {
      write(f, append ? 0 : r.nextLong(size + 16385), bytes(length(MAX_WRITE)));
    }
  }

  private void truncateFree() throws IOException {
    FreeFile ff = pick(frees);
    long size = fs.getattr(ff.ino).size();
    long to = r.nextInt(3) == 0 ? 0 : r.nextLong(Math.min(size * 3 / 2, MAX_FREE_SIZE) + 1);
    if (r.nextBoolean()) {
      fs.setattr(ff.ino, SetAttributes.none().withSize(to));
    } else {
      try (OpenFile f = fs.open(ff.ino, EnumSet.of(OpenFlag.WRITE))) {
        f.truncate(to);
      }
    }
  }

  /** Preallocates (within or past the size), punches a hole or zeroes a range. */
  private void fallocateFree() throws IOException {
    FreeFile ff = pick(frees);
    long size = fs.getattr(ff.ino).size();
    int[] modes = {0, OpenFile.FALLOC_KEEP_SIZE, OpenFile.FALLOC_PUNCH_HOLE | OpenFile.FALLOC_KEEP_SIZE, OpenFile.FALLOC_ZERO_RANGE};
    int mode = modes[r.nextInt(modes.length)];
    long offset = r.nextLong(Math.min(size, MAX_FREE_SIZE) + 8193);
    long length = r.nextLong(1, 32 << 10);
    try (OpenFile f = fs.open(ff.ino, EnumSet.of(OpenFlag.WRITE))) {
      f.fallocate(mode, offset, length);
    }
  }

  /** Renames to a fresh name, over another free file, or exchanges with one; in any directory. */
  private void renameFree() throws IOException {
    FreeFile ff = pick(frees);
    Dir to = pick(dirs);
    List<FreeFile> there = frees.stream().filter(o -> o.dir == to && o != ff).toList();
    int how = there.isEmpty() ? 0 : r.nextInt(3);
    if (how == 0) {
      String name = "w" + next++;
      fs.rename(ff.dir.ino, b(ff.name), to.ino, b(name), RenameMode.REPLACE);
      ff.dir.removed.add(ff.name);
      ff.dir = to;
      ff.name = name;
    } else {
      FreeFile other = pick(there);
      Dir fromDir = ff.dir;
      String from = ff.name;
      String target = other.name;
      fs.rename(fromDir.ino, b(from), to.ino, b(target), how == 1 ? RenameMode.REPLACE : RenameMode.EXCHANGE);
      if (how == 1) {
        frees.remove(other); // its inode is freed; its name now names ff
        fromDir.removed.add(from);
      } else {
        other.dir = fromDir; // exchanged: no name removed
        other.name = from;
      }
      ff.dir = to;
      ff.name = target;
    }
  }

  private void unlinkFree() throws IOException {
    FreeFile ff = frees.remove(r.nextInt(frees.size()));
    fs.unlink(ff.dir.ino, b(ff.name));
    ff.dir.removed.add(ff.name);
  }

  /** Holds a free file open and unlinks it, writes to a held one, or closes one (freeing it). */
  private void held() throws IOException {
    int x = r.nextInt(3);
    if (x == 0 && held.size() < MAX_HELD) {
      FreeFile ff = frees.remove(r.nextInt(frees.size()));
      OpenFile f = fs.open(ff.ino, EnumSet.of(OpenFlag.READ, OpenFlag.WRITE));
      held.add(f);
      fs.unlink(ff.dir.ino, b(ff.name));
      ff.dir.removed.add(ff.name);
    } else if (x == 1 && !held.isEmpty()) {
      OpenFile f = pick(held);
      long size = f.size();
      if (size > MAX_FREE_SIZE) {
        f.truncate(size / 3);
      } else {
        write(f, r.nextLong(size + 4097), bytes(length(MAX_WRITE)));
      }
    } else if (!held.isEmpty()) {
      held.remove(r.nextInt(held.size())).close();
    }
  }

  private void fsyncFree() throws IOException {
    FreeFile ff = pick(frees);
    boolean datasync = r.nextBoolean();
    if (r.nextBoolean()) {
      try (OpenFile f = fs.open(ff.ino, EnumSet.of(OpenFlag.WRITE))) {
        f.fsync(datasync);
      }
    } else {
      fs.fsync(ff.ino, datasync);
    }
  }

  // ============================================================ directories and syncs

  private void mkdir() throws IOException {
    List<Dir> parents = dirs.stream().filter(d -> d.depth < MAX_DEPTH).toList();
    if (dirs.size() >= MAX_DIRS || parents.isEmpty()) {
      return;
    }
    Dir p = pick(parents);
    String name = "m" + next++;
    Dir d = new Dir(p, p.path(name), fs.mkdir(p.ino, b(name), 0755, Caller.ROOT).ino(), p.depth + 1);
    dirs.add(d);
    pendingDirs.add(d);
  }

  /** fsync of a directory: its entries are durable. */
  private void fsyncDir(Dir d) throws IOException {
    fs.fsync(d.ino, false);
    List<Fact> facts = new ArrayList<>();
    if (d.durable) {
      for (Dir c : List.copyOf(pendingDirs)) {
        if (c.parent == d) {
          facts.add(durable(c));
        }
      }
      for (Sealed s : pendingSealed) {
        if (s.dir == d && !s.nameClaimed) {
          s.nameClaimed = true;
          facts.add(new Fact.Name(d.path(s.name), s.ino));
        }
      }
    }
    for (String name : d.removed) {
      facts.add(new Fact.Gone(d.path(name)));
    }
    d.removed.clear();
    say(facts);
  }

  /** syncfs: everything is durable. */
  private void syncfs() throws IOException {
    fs.syncfs();
    List<Fact> facts = new ArrayList<>();
    for (Dir c : List.copyOf(pendingDirs)) {
      facts.add(durable(c));
    }
    for (Sealed s : pendingSealed) {
      facts.add(new Fact.File(s.dir.path(s.name), s.ino, s.size, s.sha256));
    }
    pendingSealed.clear();
    for (Dir d : dirs) {
      for (String name : d.removed) {
        facts.add(new Fact.Gone(d.path(name)));
      }
      d.removed.clear();
    }
    say(facts);
  }

  private Fact durable(Dir d) {
    d.durable = true;
    pendingDirs.remove(d);
    durableDirs.add(d);
    return new Fact.Dir(d.path, d.ino);
  }

  // ============================================================ helpers

  /** Prints the facts, one line each, in one write: only after the call backing them returned. */
  private void say(List<Fact> facts) {
    if (facts.isEmpty()) {
      return;
    }
    for (Fact f : facts) {
      out.print(f.line() + "\n");
    }
    out.flush();
  }

  private static void write(OpenFile f, long pos, byte[] data) throws IOException {
    long n = f.write(pos, ByteBuffer.wrap(data));
    if (n != data.length) {
      throw new IllegalStateException("short write to inode " + f.ino() + ": " + n + " of " + data.length + " bytes at " + pos);
    }
  }

  /** A write length in [1, max], half of them at most a block. */
  private int length(int max) {
    return switch (r.nextInt(4)) {
      case 0 -> r.nextInt(1, 513);
      case 1 -> r.nextInt(1, 4097);
      default -> r.nextInt(1, max + 1);
    };
  }

  /** A sealed file's write: mostly small, so many fit the budget; one in twenty up to 128 KiB (an extent tree's worth with holes). */
  private int sealedLength() {
    int x = r.nextInt(20);
    return x < 8 ? r.nextInt(1, 513) : x < 14 ? r.nextInt(1, 4097) : x < 19 ? r.nextInt(1, 16385) : r.nextInt(1, 128 << 10);
  }

  private byte[] bytes(int n) {
    byte[] data = new byte[n];
    r.nextBytes(data);
    return data;
  }

  private <T> T pick(List<T> list) {
    return list.get(r.nextInt(list.size()));
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
