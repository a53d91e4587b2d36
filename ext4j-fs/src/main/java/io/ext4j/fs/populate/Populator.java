package io.ext4j.fs.populate;

import io.ext4j.fs.Caller;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.SetAttributes;
import io.ext4j.fs.core.InodeLife;
import io.ext4j.fs.format.PosixAcl;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Copies a {@link TreeSource} into an open filesystem (mkfs -d, put -r): every entry created with
 * its type, permissions, owner, device number and extended attributes; regular files written with
 * runs of zero blocks left as holes (sparse files stay sparse); hard links as links; times set once
 * contents are in, directories' after their children.
 *
 * <h2>Reproducibility</h2>
 * With a clamp time (SOURCE_DATE_EPOCH), every timestamp later than it becomes it. Entries arrive in
 * the source's order, which {@link HostDirectory} makes independent of the host's listing order.
 */
public final class Populator {
  /** Called as entries are copied (for a progress bar). */
  @FunctionalInterface
  public interface Progress {
    void copied(long entries, long bytes);
  }

  /**
   * @param clamp timestamps later than this become this (null: keep them)
   * @param owners keep the source's owners (false: everything belongs to the caller)
   * @param caller the owner of entries when {@code owners} is false
   * @param progress progress callback (may be null)
   */
  public record Options(Instant clamp, boolean owners, Caller caller, Progress progress) {
    public static Options defaults() {
      return new Options(null, true, Caller.ROOT, null);
    }
  }

  /** What was copied. */
  public record Summary(long files, long directories, long symlinks, long hardLinks, long specials, long bytes) {
    public long entries() {
      return files + directories + symlinks + hardLinks + specials;
    }
  }

  private final Ext4FileSystem fs;
  private final Options options;
  private final int bs;
  private final Map<String, Long> inodes = new HashMap<>(); // path key -> inode number
  private final List<Object[]> dirTimes = new ArrayList<>(); // {ino, atime, mtime, ctime}, applied last
  private long files;
  private long dirs;
  private long links;
  private long hard;
  private long specials;
  private long bytes;
  private byte[] chunk; // the copy buffer of writeContents, made on first use
  private final byte[] zeros; // one block of zeros, what a hole reads as
  private final java.util.Set<Long> defaultAcls = new java.util.HashSet<>(); // directories whose new entries inherit an ACL

  private Populator(Ext4FileSystem fs, Options options, int blockSize) {
    this.fs = fs;
    this.options = options;
    this.bs = blockSize;
    this.zeros = new byte[blockSize];
  }

  /** Copies {@code source} into {@code fs} under directory {@code target} (an inode number). */
  public static Summary copy(Ext4FileSystem fs, TreeSource source, long target, Options options) throws IOException {
    Populator p = new Populator(fs, options, fs.getattr(Ext4FileSystem.ROOT).blockSize());
    p.inodes.put("", target);
    if (fs.listxattr(target).contains(PosixAcl.DEFAULT_NAME)) {
      p.defaultAcls.add(target);
    }
    source.entries(p::add);
    for (int i = p.dirTimes.size() - 1; i >= 0; i--) { // deepest last-listed first; each after its children
      Object[] t = p.dirTimes.get(i);
      fs.setattr((Long) t[0], SetAttributes.none().withTimes((Instant) t[1], (Instant) t[2]).withCtime((Instant) t[3]));
    }
    return new Summary(p.files, p.dirs, p.links, p.hard, p.specials, p.bytes);
  }

  private Instant clamp(Instant t) {
    Instant c = options.clamp();
    return c != null && t.isAfter(c) ? c : t;
  }

  private static String key(List<byte[]> path) {
    return new String(HostDirectory.join(path), StandardCharsets.ISO_8859_1);
  }

  private void add(TreeEntry e) throws IOException {
    long uid = options.owners() ? e.uid() : options.caller().uid();
    long gid = options.owners() ? e.gid() : options.caller().gid();
    Caller who = new Caller(uid, gid);
    if (e.path().isEmpty()) { // the root of the tree: its attributes go to the target directory
      long ino = inodes.get("");
      fs.setattr(ino, SetAttributes.none().withMode(e.perms()).withOwner(uid, gid));
      setXattrs(ino, e);
      dirTimes.add(new Object[] {ino, clamp(e.atime()), clamp(e.mtime()), clamp(e.ctime())});
      return;
    }
    Long parent = inodes.get(key(e.path().subList(0, e.path().size() - 1)));
    if (parent == null) {
      throw new Ext4Exception(Errno.ENOENT, 0, e.display(), "its directory is not in the tree");
    }
    byte[] name = e.path().getLast();
    long ino;
    switch (e.kind()) {
      case DIR -> {
        ino = fs.mkdir(parent, name, e.perms(), who).ino();
        dirs++;
      }
      case FILE -> {
        ino = fs.create(parent, name, e.perms(), who).ino();
        bytes += writeContents(ino, e);
        files++;
      }
      case SYMLINK -> {
        ino = fs.symlink(parent, name, e.link(), who).ino();
        links++;
      }
      case HARDLINK -> {
        Long existing = inodes.get(new String(e.link(), StandardCharsets.ISO_8859_1));
        if (existing == null) {
          throw new Ext4Exception(Errno.ENOENT, 0, e.display(), "hard link to " + new String(e.link(), StandardCharsets.UTF_8)
              + ", which is not in the tree");
        }
        fs.link(existing, parent, name);
        hard++;
        inodes.put(key(e.path()), existing);
        progress();
        return;
      }
      default -> {
        int type = switch (e.kind()) {
          case FIFO -> 0x1000;
          case SOCKET -> 0xC000;
          case CHAR_DEVICE -> 0x2000;
          default -> 0x6000;
        };
        ino = fs.mknod(parent, name, type | e.perms(), InodeLife.encodeRdev(e.major(), e.minor()), who).ino();
        specials++;
      }
    }
    inodes.put(key(e.path()), ino);
    setXattrs(ino, e);
    if (defaultAcls.contains(parent) && e.kind() != TreeEntry.Kind.SYMLINK) {
      undoInherited(ino, e);
    }
    if (e.kind() == TreeEntry.Kind.DIR) {
      dirTimes.add(new Object[] {ino, clamp(e.atime()), clamp(e.mtime()), clamp(e.ctime())});
    } else {
      fs.setattr(ino, SetAttributes.none().withTimes(clamp(e.atime()), clamp(e.mtime())).withCtime(clamp(e.ctime())));
    }
    progress();
  }

  private void progress() {
    if (options.progress() != null) {
      options.progress().copied(files + dirs + links + hard + specials, bytes);
    }
  }

  private void setXattrs(long ino, TreeEntry e) throws IOException {
    for (Map.Entry<String, byte[]> x : e.xattrs().entrySet()) {
      fs.setxattr(ino, x.getKey(), x.getValue(), 0);
    }
    if (e.kind() == TreeEntry.Kind.DIR && e.xattrs().containsKey(PosixAcl.DEFAULT_NAME)) {
      defaultAcls.add(ino);
    }
  }

  /**
   * An entry made under a directory with a default ACL inherited ACLs and bits from it (as on Linux);
   * the copy is to match the source instead: ACLs the source lacks are removed, its bits set.
   */
  private void undoInherited(long ino, TreeEntry e) throws IOException {
    if (removeAclsNotIn(fs, ino, e.xattrs().keySet()).contains(PosixAcl.DEFAULT_NAME)) {
      defaultAcls.remove(ino);
    }
    if (fs.getattr(ino).permissions() != e.perms()) {
      fs.setattr(ino, SetAttributes.none().withMode(e.perms()));
    }
  }

  /**
   * Removes the ACLs inode {@code ino} has (inherited, as a new entry under a directory with a
   * default ACL) but a copy's source does not: those not among {@code sourceNames}. Returns the
   * names removed. (Not for symlinks, which have no ACLs.)
   */
  public static List<String> removeAclsNotIn(Ext4FileSystem fs, long ino, java.util.Set<String> sourceNames) throws IOException {
    List<String> have = fs.listxattr(ino);
    List<String> removed = new ArrayList<>(2);
    for (String acl : List.of(PosixAcl.ACCESS_NAME, PosixAcl.DEFAULT_NAME)) {
      if (have.contains(acl) && !sourceNames.contains(acl)) {
        fs.removexattr(ino, acl);
        removed.add(acl);
      }
    }
    return removed;
  }

  /** Writes the file's bytes, leaving runs of zero blocks as holes; returns the bytes read. */
  private long writeContents(long ino, TreeEntry e) throws IOException {
    long pos = 0;
    try (InputStream in = e.contents().open(); OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
      byte[] chunk = chunk();
      while (true) {
        int n = in.readNBytes(chunk, 0, chunk.length);
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
            f.write(pos + run, ByteBuffer.wrap(chunk, run, off - run));
            run = -1;
          }
        }
        if (run >= 0) {
          f.write(pos + run, ByteBuffer.wrap(chunk, run, n - run));
        }
        pos += n;
      }
      if (f.size() < pos) {
        f.truncate(pos); // trailing zeros: a hole up to the size
      }
    }
    return pos;
  }

  /** The copy buffer, made once (a fresh megabyte per small file costs more than copying it). */
  private byte[] chunk() {
    if (chunk == null) {
      chunk = new byte[Math.max(bs, 1 << 20) / bs * bs];
    }
    return chunk;
  }
}
