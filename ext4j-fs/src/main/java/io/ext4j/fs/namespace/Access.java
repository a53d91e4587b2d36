package io.ext4j.fs.namespace;

import io.ext4j.fs.inode.Inode;
import java.io.IOException;

/**
 * The permission checks a namespace operation makes on its caller's behalf, at the point where
 * the kernel's VFS makes them: under the locks of the directories (and inodes) concerned, after
 * the names were looked up and before anything changes, so that what was checked is what is
 * changed. The VFS implements them from the caller's credentials; {@link #NONE} (the engine's own
 * inode-level API, tools that restore trees) allows everything. The rules that hold whoever calls
 * — immutable and append-only inodes, a removed directory — are {@link Namespace}'s own.
 */
public interface Access {
  /** Allows everything. */
  Access NONE = new Access() {};

  /** May the caller add an entry to {@code dir} (write and search)? */
  default void mayCreate(Inode dir) throws IOException {}

  /**
   * May the caller remove {@code victim}'s entry from {@code dir} — unlink, rmdir, a rename's
   * source, or a rename's target being replaced (write and search, the sticky rule)?
   */
  default void mayDelete(Inode dir, Inode victim) throws IOException {}

  /** May the caller move directory {@code dir} to another parent (its ".." changes: write on it)? */
  default void mayReparent(Inode dir) throws IOException {}
}
