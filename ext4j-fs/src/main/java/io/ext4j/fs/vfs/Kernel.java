package io.ext4j.fs.vfs;

import io.ext4j.fs.Caller;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.ShutdownMode;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.namespace.InodeAttrs;
import io.ext4j.fs.namespace.InodeLife;
import io.ext4j.fs.namespace.Namespace;
import io.ext4j.fs.dir.Directory;
import io.ext4j.fs.file.FileIo;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.xattr.Xattrs;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * What the VFS needs of the engine below it: the filesystem's components and the few services of
 * the engine's façade (open files, the last unpin, error handling). {@link io.ext4j.fs.Ext4FileSystem}
 * gives the one implementation; the VFS holds no other reference to the engine.
 */
// Public (in an exported package) only because Ext4FileSystem, in io.ext4j.fs, implements it; the
// engine types it names are unexported, so no other module can implement or call it.
@SuppressWarnings("exports")
public interface Kernel {
  Fs fs();

  Namespace names();

  InodeAttrs attrs();

  InodeLife life();

  FileIo io();

  Directory dirs();

  Xattrs xattrs();

  /**
   * An open file of {@code pinned}, which takes over the caller's pin (closing the file drops it).
   * {@code writer}: whose writes, truncates and fallocates these are (the privileges they clear);
   * {@code who}: whose allocations (the root-reserved blocks).
   */
  OpenFile open(Inode pinned, Set<OpenFlag> flags, Caller who, Credentials writer) throws IOException;

  /**
   * Up to {@code max} entries of directory {@code d} from {@code cookie} (0: the start), under its
   * shared lock; with {@code accessed} (a getdents, not the engine's own search for a name) the
   * listing updates its access time as the mount's atime options say.
   */
  List<DirEntry> list(Inode d, long cookie, int max, boolean accessed) throws IOException;

  /** Shuts the filesystem down ({@link io.ext4j.fs.Ext4FileSystem#shutdown}). */
  void shutdown(ShutdownMode mode) throws IOException;

  /** The inode an open file keeps pinned. */
  Inode inode(OpenFile f);

  /** Truncates (or extends) regular file {@code i} to {@code size}, clearing first what a data change by {@code writer} clears. */
  void truncate(Inode i, long size, Credentials writer) throws IOException;

  /** Drops a pin; the last pin of an inode without links deletes it. */
  void unpin(Inode i) throws IOException;

  /**
   * Runs {@code op} as the engine runs every call: failing once the filesystem is closed, an error
   * of the filesystem turning it read-only (errors=remount-ro), allocations as {@code who} (an
   * unprivileged caller cannot take the root-reserved blocks) and, with {@code retryEnospc}, run
   * again after a commit when it failed with ENOSPC while freed blocks waited for their commit
   * (only for operations that change nothing when they fail so).
   */
  <T> T run(Caller who, boolean retryEnospc, Op<T> op) throws IOException;

  /** An engine operation. */
  @FunctionalInterface
  interface Op<T> {
    T run() throws IOException;
  }
}
