package io.ext4j.tools.populate;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.SetAttributes;
import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.vfs.AttrChange;
import io.ext4j.fs.vfs.Capability;
import io.ext4j.fs.vfs.Credentials;
import io.ext4j.fs.vfs.TimeSpec;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one tree copier: copies a {@link TreeSource} into a directory of an open filesystem (mkfs -d
 * into a new image's root, put -r into a live one), through the filesystem's {@link Vfs} as a
 * caller with every capability, so a copy obeys the rules every other change does (default ACLs,
 * setgid directories, the immutable flag) and races nothing. Every entry is made with its type,
 * permission bits, owner, device number and extended attributes; regular files are written without
 * their holes (the source's data ranges when it knows them, and any all-zero block), so sparse
 * files stay sparse; hard links become links; times are set once contents are in, directories'
 * after their children.
 *
 * <h2>Entries that exist</h2>
 * {@link Existing#FAIL} (mkfs -d): the name must be new (EEXIST otherwise). {@link Existing#MERGE}
 * (put -r, as {@code cp -a}): an existing directory is merged into and takes the source's
 * attributes, an existing non-directory is replaced, and a directory and a non-directory in each
 * other's place is a failure of that entry.
 *
 * <h2>Failures</h2>
 * A failure to copy one entry — the source cannot be read, the image refuses the name — goes to
 * {@link Options#onFailure}, which either returns (the entry and what is below it are skipped, the
 * copy goes on) or throws (the copy ends). Either way the image stays consistent: each VFS call is
 * atomic.
 *
 * <h2>Reproducibility</h2>
 * With a clamp time (SOURCE_DATE_EPOCH), every timestamp later than it becomes it. Entries arrive in
 * the source's order, which {@link HostDirectory} makes independent of the host's listing order.
 * With {@link Options#sourceCtime} (mkfs -d, a new image nobody else uses) the change time is the
 * source's too, as mke2fs -d keeps it: the last attribute write of each entry then goes to the engine
 * directly, since no VFS call sets a change time.
 *
 * <h2>Durability</h2>
 * That of the VFS calls it makes: nothing is synced; the caller syncs or closes the filesystem.
 */
public final class Populator {
  /** Called as entries are copied (for a progress bar). */
  @FunctionalInterface
  public interface Progress {
    void copied(long entries, long bytes);
  }

  /** What a copy does where the tree names an entry the target already has. */
  public enum Existing {
    /** The entry fails with EEXIST (the target is new: mkfs -d). */
    FAIL,
    /** As cp -a: merge into an existing directory, replace an existing non-directory. */
    MERGE
  }

  /** Decides about one entry that could not be copied. */
  @FunctionalInterface
  public interface Failure {
    /**
     * Returns to skip the entry at {@code path} (relative to the target, "/a/b") and what is below
     * it; throws (typically {@code e}) to end the copy.
     */
    void failed(String path, IOException e) throws IOException;
  }

  /**
   * How {@link Populator} copies entries into the target.
   *
   * @param clamp timestamps later than this become this (null: keep them)
   * @param owners keep the source's owners (false: everything belongs to the caller)
   * @param caller the owner of entries when {@code owners} is false
   * @param progress progress callback (may be null)
   * @param existing what an entry the target has already becomes
   * @param onFailure what a failure of one entry does (the default ends the copy)
   * @param sourceCtime set each entry's change time to the source's (a new image only)
   */
  public record Options(Instant clamp, boolean owners, Caller caller, Progress progress, Existing existing,
      Failure onFailure, boolean sourceCtime) {
    private static final Failure END = (path, e) -> {
      throw e;
    };

    /** mkfs -d's options: names must be new, any failure ends the copy, change times kept. */
    public Options(Instant clamp, boolean owners, Caller caller, Progress progress) {
      this(clamp, owners, caller, progress, Existing.FAIL, END, true);
    }

    public static Options defaults() {
      return new Options(null, true, Caller.ROOT, null);
    }

    /** put -r's options: merged as cp -a, each failure to {@code onFailure}, change times now. */
    public Options merging(Failure onFailure) {
      return new Options(clamp, owners, caller, progress, Existing.MERGE, onFailure, false);
    }
  }

  /** What was copied. */
  public record Summary(long files, long directories, long symlinks, long hardLinks, long specials, long bytes) {
    public long entries() {
      return files + directories + symlinks + hardLinks + specials;
    }
  }

  /** A directory of the tree held open while entries go in it: its path below the target, and its descriptor. */
  private record OpenDir(List<byte[]> path, OpenFile fd) {}

  /** A directory whose mode and times are set after its children. */
  private record DirAttrs(List<byte[]> path, int perms, Instant atime, Instant mtime, Instant ctime) {}

  private final Ext4FileSystem fs;
  private final Vfs vfs;
  private final Options options;
  private final int bs;
  private final Credentials operator; // the caller's ids, umask 0, every capability
  private final Map<Long, Credentials> owners = new HashMap<>(); // (uid << 32 | gid) -> credentials creating as them
  private final Deque<OpenDir> open = new ArrayDeque<>(); // the target at the bottom, then the directories on the current path
  private final List<DirAttrs> dirAttrs = new ArrayList<>(); // applied last, deepest last-listed first
  private final Set<String> skipped = new HashSet<>(); // directories not copied: what is below them is skipped too
  private final Set<String> defaultAcls = new HashSet<>(); // directories whose new entries inherit an ACL
  private final Set<String> made = new HashSet<>(); // directories this copy made: nothing in them can exist before it
  private long files;
  private long dirs;
  private long links;
  private long hard;
  private long specials;
  private long bytes;
  private byte[] chunk; // the copy buffer of writeContents, made on first use
  private final byte[] zeros; // one block of zeros, what a hole reads as

  private Populator(Ext4FileSystem fs, Options options, OpenFile target) {
    this.fs = fs;
    this.vfs = fs.vfs();
    this.options = options;
    this.bs = fs.superblock().blockSize();
    this.zeros = new byte[bs];
    this.operator = as(options.caller().uid(), options.caller().gid());
    open.push(new OpenDir(List.of(), target));
  }

  /** Copies {@code source} into the directory {@code target} names (a path from the root) of {@code fs}. */
  public static Summary copy(Ext4FileSystem fs, TreeSource source, String target, Options options) throws IOException {
    Credentials c = Credentials.root().withUmask(0);
    try (OpenFile dir = fs.vfs().openat(null, target.getBytes(StandardCharsets.UTF_8),
        EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0, c)) {
      return copy(fs, source, dir, options);
    }
  }

  /** Copies {@code source} into the open directory {@code target} of {@code fs} (which stays open). */
  public static Summary copy(Ext4FileSystem fs, TreeSource source, OpenFile target, Options options) throws IOException {
    Populator p = new Populator(fs, options, target);
    try {
      if (fs.vfs().listxattrat(target, DOT, false, p.operator).contains(PosixAcl.DEFAULT_NAME)) {
        p.defaultAcls.add("");
      }
      source.entries(new TreeSource.Sink() {
        @Override
        public void accept(TreeEntry e) throws IOException {
          p.add(e);
        }

        @Override
        public void failed(List<byte[]> path, IOException e) throws IOException {
          p.fail(path, e);
        }
      });
      p.closeDirsBelow(0);
      for (int i = p.dirAttrs.size() - 1; i >= 0; i--) {
        p.setDirAttrs(target, p.dirAttrs.get(i));
      }
    } finally {
      p.closeDirsBelow(0);
    }
    return new Summary(p.files, p.dirs, p.links, p.hard, p.specials, p.bytes);
  }

  private static final byte[] DOT = {'.'};

  private Instant clamp(Instant t) {
    Instant c = options.clamp();
    return c != null && t.isAfter(c) ? c : t;
  }

  private static String key(List<byte[]> path) {
    return new String(HostDirectory.join(path), StandardCharsets.ISO_8859_1);
  }

  /** Credentials that create entries owned by {@code uid}:{@code gid}, exempt from every permission rule. */
  private Credentials as(long uid, long gid) {
    return owners.computeIfAbsent(uid << 32 | gid,
        k -> Credentials.user(uid, gid).withUmask(0).withCapabilities(EnumSet.allOf(Capability.class)));
  }

  private void fail(List<byte[]> path, IOException e) throws IOException {
    skipped.add(key(path));
    options.onFailure().failed(TreeEntry.display(path), e);
  }

  private void add(TreeEntry e) throws IOException {
    List<byte[]> path = e.path();
    if (!path.isEmpty() && skipped.contains(key(path.subList(0, path.size() - 1)))) {
      skipped.add(key(path)); // below a directory that was not copied
      return;
    }
    try {
      copy(e);
    } catch (IOException x) {
      fail(path, x);
    }
    progress();
  }

  private void copy(TreeEntry e) throws IOException {
    long uid = options.owners() ? e.uid() : options.caller().uid();
    long gid = options.owners() ? e.gid() : options.caller().gid();
    Credentials who = as(uid, gid);
    if (e.path().isEmpty()) { // the root of the tree: its attributes go to the target directory
      OpenFile target = open.getLast().fd();
      chown(target, DOT, vfs.fstat(target), uid, gid);
      setXattrs(target, DOT, e);
      dirAttrs.add(new DirAttrs(List.of(), e.perms(), clamp(e.atime()), clamp(e.mtime()), clamp(e.ctime())));
      return;
    }
    OpenFile parent = dirOf(e.path().subList(0, e.path().size() - 1));
    String parentKey = key(e.path().subList(0, e.path().size() - 1));
    byte[] name = e.path().getLast();
    Attributes there = options.existing() == Existing.MERGE && !made.contains(parentKey) ? existing(parent, name) : null;
    if (there != null) {
      boolean dir = e.kind() == TreeEntry.Kind.DIR;
      if (dir && !there.isDirectory()) {
        throw new Ext4Exception(Errno.ENOTDIR, there.ino(), null, "cannot overwrite a non-directory with a directory");
      }
      if (!dir && there.isDirectory()) {
        throw new Ext4Exception(Errno.EISDIR, there.ino(), null, "cannot overwrite a directory with a non-directory");
      }
      if (!dir) {
        vfs.unlinkat(parent, name, false, operator);
        there = null;
      }
    }
    Attributes created;
    switch (e.kind()) {
      case DIR -> {
        if (there == null) {
          created = vfs.mkdirat(parent, name, e.perms() & 0777, who);
          made.add(key(e.path()));
        } else {
          created = there;
          if (vfs.listxattrat(parent, name, false, operator).contains(PosixAcl.DEFAULT_NAME)) {
            defaultAcls.add(key(e.path())); // what the copy makes in it inherits the image's default ACL
          }
        }
        dirs++;
      }
      case FILE -> {
        try (OpenFile f = vfs.openat(parent, name, EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE, OpenFlag.EXCLUSIVE,
            OpenFlag.NOFOLLOW), e.perms() & 0777, who)) {
          bytes += writeContents(f, e);
          files++;
          finish(parent, name, f.attributes(), e, uid, gid, parentKey, f);
        }
        return;
      }
      case SYMLINK -> {
        created = vfs.symlinkat(e.link(), parent, name, who);
        links++;
      }
      case HARDLINK -> {
        vfs.linkat(open.getLast().fd(), e.link(), parent, name, false, operator);
        hard++;
        return;
      }
      default -> {
        int type = switch (e.kind()) {
          case FIFO -> Attributes.S_IFIFO;
          case SOCKET -> Attributes.S_IFSOCK;
          case CHAR_DEVICE -> Attributes.S_IFCHR;
          default -> Attributes.S_IFBLK;
        };
        created = vfs.mknodat(parent, name, type | (e.perms() & 0777), Attributes.rdev(e.major(), e.minor()), who);
        specials++;
      }
    }
    finish(parent, name, created, e, uid, gid, parentKey, null);
  }

  /**
   * An entry made (attributes {@code a}; {@code file}, a regular file still open, else null): its
   * owner, extended attributes, then — a directory's after its children — permission bits and times.
   */
  private void finish(OpenFile parent, byte[] name, Attributes a, TreeEntry e, long uid, long gid, String parentKey,
      OpenFile file) throws IOException {
    chown(parent, name, a, uid, gid);
    setXattrs(parent, name, e);
    if (e.kind() == TreeEntry.Kind.DIR) {
      if (e.xattrs().containsKey(PosixAcl.DEFAULT_NAME)) {
        defaultAcls.add(key(e.path()));
      }
      if (defaultAcls.contains(parentKey) && removeAclsNotIn(parent, name, e.xattrs().keySet()).contains(PosixAcl.DEFAULT_NAME)) {
        defaultAcls.remove(key(e.path()));
      }
      dirAttrs.add(new DirAttrs(e.path(), e.perms(), clamp(e.atime()), clamp(e.mtime()), clamp(e.ctime())));
      return;
    }
    if (defaultAcls.contains(parentKey) && e.kind() != TreeEntry.Kind.SYMLINK) {
      removeAclsNotIn(parent, name, e.xattrs().keySet());
    }
    Integer perms = e.kind() == TreeEntry.Kind.SYMLINK ? null : e.perms();
    if (file != null && !options.sourceCtime()) { // through the open file: no second walk
      AttrChange c = AttrChange.times(TimeSpec.at(clamp(e.atime())), TimeSpec.at(clamp(e.mtime()))).withMode(perms);
      vfs.setattr(file, c, operator);
      return;
    }
    setAttrs(parent, name, a.ino(), perms, clamp(e.atime()), clamp(e.mtime()), clamp(e.ctime()));
  }

  /** What {@code name} in {@code dir} is now, or null. */
  private Attributes existing(OpenFile dir, byte[] name) throws IOException {
    try {
      return vfs.statat(dir, name, false, operator);
    } catch (Ext4Exception x) {
      if (x.errno() == Errno.ENOENT) {
        return null;
      }
      throw x;
    }
  }

  /** Gives the entry its owner when creating it did not (a setgid directory's group, a merged directory). */
  private void chown(OpenFile dir, byte[] name, Attributes a, long uid, long gid) throws IOException {
    if (a.uid() != uid || a.gid() != gid) {
      vfs.setattrat(dir, name, false, AttrChange.chown(uid, gid), operator);
    }
  }

  /** The permission bits (null for a symlink) and times of an entry, and with sourceCtime its change time. */
  private void setAttrs(OpenFile dir, byte[] name, long ino, Integer perms, Instant atime, Instant mtime, Instant ctime)
      throws IOException {
    if (options.sourceCtime()) { // a new image only: the engine directly, as no VFS call sets a change time
      SetAttributes s = SetAttributes.none().withTimes(atime, mtime).withCtime(ctime);
      fs.setattr(ino, perms == null ? s : s.withMode(perms));
      return;
    }
    AttrChange c = AttrChange.times(TimeSpec.at(atime), TimeSpec.at(mtime));
    vfs.setattrat(dir, name, false, perms == null ? c : c.withMode(perms), operator);
  }

  private void setDirAttrs(OpenFile target, DirAttrs d) throws IOException {
    if (d.path().isEmpty()) {
      setAttrs(target, DOT, vfs.fstat(target).ino(), d.perms(), d.atime(), d.mtime(), d.ctime());
      return;
    }
    if (skipped.contains(key(d.path()))) {
      return;
    }
    byte[] rel = HostDirectory.join(d.path());
    try {
      long ino = options.sourceCtime() ? vfs.statat(target, rel, false, operator).ino() : 0;
      setAttrs(target, rel, ino, d.perms(), d.atime(), d.mtime(), d.ctime());
    } catch (IOException x) {
      options.onFailure().failed(TreeEntry.display(d.path()), x);
    }
  }

  /**
   * The open directory at {@code path} below the target: the directories held open are those on the
   * path of the last entry, so a depth-first source opens each directory once; memory and open
   * descriptors grow with the depth only.
   */
  private OpenFile dirOf(List<byte[]> path) throws IOException {
    int common = 0;
    for (OpenDir d : open) { // top first: the deepest held directory that is a prefix of path
      if (isPrefix(d.path(), path)) {
        common = d.path().size();
        break;
      }
    }
    closeDirsBelow(common);
    while (open.peek().path().size() < path.size()) {
      OpenDir top = open.peek();
      List<byte[]> next = List.copyOf(path.subList(0, top.path().size() + 1));
      OpenFile fd = vfs.openat(top.fd(), next.getLast(), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY, OpenFlag.NOFOLLOW), 0,
          operator);
      open.push(new OpenDir(next, fd));
    }
    return open.peek().fd();
  }

  /** Closes the held directories deeper than {@code depth} (never the target). */
  private void closeDirsBelow(int depth) throws IOException {
    while (open.size() > 1 && open.peek().path().size() > depth) {
      open.pop().fd().close();
    }
  }

  private static boolean isPrefix(List<byte[]> p, List<byte[]> of) {
    if (p.size() > of.size()) {
      return false;
    }
    for (int i = 0; i < p.size(); i++) {
      if (!java.util.Arrays.equals(p.get(i), of.get(i))) {
        return false;
      }
    }
    return true;
  }

  private void progress() {
    if (options.progress() != null) {
      options.progress().copied(files + dirs + links + hard + specials, bytes);
    }
  }

  private void setXattrs(OpenFile dir, byte[] name, TreeEntry e) throws IOException {
    for (Map.Entry<String, byte[]> x : e.xattrs().entrySet()) {
      vfs.setxattrat(dir, name, false, x.getKey(), x.getValue(), 0, operator);
    }
  }

  /**
   * Removes the ACLs an entry inherited from its directory's default ACL (as on Linux) that its
   * source does not have, so the copy matches the source; returns the names removed.
   */
  private List<String> removeAclsNotIn(OpenFile dir, byte[] name, Set<String> sourceNames) throws IOException {
    List<String> have = vfs.listxattrat(dir, name, false, operator);
    List<String> removed = new ArrayList<>(2);
    for (String acl : List.of(PosixAcl.ACCESS_NAME, PosixAcl.DEFAULT_NAME)) {
      if (have.contains(acl) && !sourceNames.contains(acl)) {
        vfs.removexattrat(dir, name, false, acl, operator);
        removed.add(acl);
      }
    }
    return removed;
  }

  /**
   * Writes the file's bytes: only the source's data ranges when it knows them (the rest is skipped
   * unread), and of those only the blocks that are not all zeros; the size is set at the end, so
   * what was not written stays a hole. Returns the file's size.
   */
  private long writeContents(OpenFile f, TreeEntry e) throws IOException {
    List<TreeEntry.DataRange> ranges = e.contents().dataRanges();
    long pos = 0;
    try (InputStream in = e.contents().open()) {
      byte[] chunk = chunk();
      if (ranges == null) {
        pos = copyRange(in, f, 0, Long.MAX_VALUE, chunk);
      } else {
        for (TreeEntry.DataRange r : ranges) {
          long start = Math.max(pos, r.offset() - r.offset() % bs);
          if (start >= r.end()) {
            continue;
          }
          in.skipNBytes(start - pos); // a seek on a file's stream
          long end = copyRange(in, f, start, r.end() - start, chunk);
          pos = end;
          if (end < r.end()) {
            break; // the source shrank while we read it
          }
        }
        pos = Math.max(pos, e.size());
      }
    }
    if (f.size() < pos) {
      f.truncate(pos); // trailing holes: the size without the blocks
    }
    return pos;
  }

  /** Copies up to {@code length} bytes of {@code in} to {@code f} at {@code pos}, leaving all-zero blocks unwritten; returns where it stopped. */
  private long copyRange(InputStream in, OpenFile f, long pos, long length, byte[] chunk) throws IOException {
    long left = length;
    while (left > 0) {
      int n = in.readNBytes(chunk, 0, (int) Math.min(chunk.length, left));
      if (n <= 0) {
        break;
      }
      int run = -1; // start of a run of non-zero blocks in chunk
      for (int off = 0; off < n; off += bs) {
        int len = Math.min(bs, n - off);
        boolean zero = java.util.Arrays.mismatch(chunk, off, off + len, zeros, 0, len) < 0; // vectorized
        if (!zero && run < 0) {
          run = off;
        }
        if (zero && run >= 0) {
          writeFully(f, pos + run, chunk, run, off - run);
          run = -1;
        }
      }
      if (run >= 0) {
        writeFully(f, pos + run, chunk, run, n - run);
      }
      pos += n;
      left -= n;
    }
    return pos;
  }

  private static void writeFully(OpenFile f, long at, byte[] a, int off, int len) throws IOException {
    ByteBuffer src = ByteBuffer.wrap(a, off, len);
    while (src.hasRemaining()) {
      long n = f.write(at + (src.position() - off), src);
      if (n <= 0) {
        throw new Ext4Exception(Errno.ENOSPC, f.ino(), null, "short write");
      }
    }
  }

  /** The copy buffer, made once (a fresh megabyte per small file costs more than copying it). */
  private byte[] chunk() {
    if (chunk == null) {
      chunk = new byte[Math.max(bs, 1 << 20) / bs * bs];
    }
    return chunk;
  }
}
