package io.ext4j.fs.inode;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.alloc.Groups;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.MetaStore;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;

/**
 * Reads and writes inodes in the groups' inode tables, checking their checksums.
 *
 * <h2>Durability</h2>
 * {@link #write} changes the inode-table block in the caller's Tx.
 */
public final class InodeTable {
  private final FsLayout lay;
  private final Groups groups;
  private final MetaStore meta;

  public InodeTable(FsLayout lay, Groups groups, MetaStore meta) {
    this.lay = lay;
    this.groups = groups;
    this.meta = meta;
  }

  /** Whether {@code ino} names an inode of this filesystem (1 … s_inodes_count). */
  public boolean valid(long ino) {
    return ino >= 1 && ino <= lay.inodesCount();
  }

  /**
   * The inode's bytes. An inode in an INODE_UNINIT group, or past its group's itable_unused
   * watermark, reads as all zeros (free), as e2fsck and the kernel treat it.
   *
   * @throws Ext4Exception EFSCORRUPTED (checksum mismatch, naming the inode and block) or EINVAL
   *     for a number outside the filesystem
   */
  public RawInode read(long ino) throws IOException {
    if (!valid(ino)) {
      throw new Ext4Exception(Errno.EINVAL, ino, null, lay.name() + ": inode number outside [1, " + lay.inodesCount() + "]");
    }
    GroupDescriptor d = groups.group(lay.groupOfInode(ino)).desc();
    if (uninitialized(d, ino)) {
      return RawInode.blank(lay.inodeSize());
    }
    long block = lay.inodeBlock(d.inodeTable(), ino);
    int off = lay.inodeOffset(ino);
    RawInode raw;
    try (Buf b = meta.read(block)) {
      raw = new RawInode(b.array(), off, lay.inodeSize());
    }
    if (lay.metadataCsum() && !raw.checksumValid(lay.checksumSeed(), ino)) {
      throw Ext4Exception.corrupted(lay.name(), ino, String.format("inode %d checksum mismatch (block %d, stored 0x%08X, computed 0x%08X)",
          ino, block, raw.storedChecksum(), raw.computeChecksum(lay.checksumSeed(), ino)));
    }
    if (raw.links() > 0) {
      String bad = badFields(raw);
      if (bad != null) {
        throw Ext4Exception.corrupted(lay.name(), ino, block, "inode " + ino + " (block " + block + "): " + bad);
      }
    }
    return raw;
  }

  /** The kernel's ext4_iget checks of an inode in use: i_extra_isize and i_size. Null when they hold. */
  private String badFields(RawInode raw) {
    int extra = raw.extraIsize();
    if (lay.inodeSize() > 128 && (128 + extra > lay.inodeSize() || (extra & 3) != 0)) {
      return "i_extra_isize " + extra + " does not fit an inode of " + lay.inodeSize() + " bytes";
    }
    long size = raw.sizeBytes();
    if (size < 0) {
      return "i_size " + Long.toUnsignedString(size) + " is negative as a file offset";
    }
    if (raw.isDirectory() && !lay.largeDir() && size >= 1L << 32) {
      return "directory size " + size + " needs large_dir (at most 4 GiB without it)";
    }
    return null;
  }

  private boolean uninitialized(GroupDescriptor d, long ino) {
    if (!lay.metadataCsum() && !lay.gdtCsum()) {
      return false;
    }
    return d.has(GroupDescriptor.INODE_UNINIT) || lay.indexInGroup(ino) >= lay.inodesPerGroup() - d.itableUnused();
  }

  /** Writes the inode's bytes (with a fresh checksum) into its inode-table block in {@code tx}. */
  public void write(Tx tx, long ino, RawInode raw) throws IOException {
    GroupDescriptor d = groups.group(lay.groupOfInode(ino)).desc();
    long block = lay.inodeBlock(d.inodeTable(), ino);
    try (Buf b = tx.read(block)) {
      tx.modify(b);
      raw.writeTo(b.array(), lay.inodeOffset(ino), ino, lay.csumSeedOrNull());
      tx.dirty(b);
    }
  }

  /**
   * Writes the in-memory inode's current bytes into its inode-table block in {@code tx}. The copy
   * is taken under the inode's fields lock, so of two threads writing the same inode the later
   * copy carries both threads' changes.
   */
  public void write(Tx tx, Inode inode) throws IOException {
    GroupDescriptor d = groups.group(lay.groupOfInode(inode.ino)).desc();
    long block = lay.inodeBlock(d.inodeTable(), inode.ino);
    try (Buf b = tx.read(block)) {
      tx.modify(b);
      inode.fields.lock();
      try {
        inode.raw().writeTo(b.array(), lay.inodeOffset(inode.ino), inode.ino, lay.csumSeedOrNull());
      } finally {
        inode.fields.unlock();
      }
      tx.dirty(b);
    }
  }

  /** The inode-table block holding {@code ino} (for read-ahead and credits). */
  public long blockOf(long ino) {
    return lay.inodeBlock(groups.group(lay.groupOfInode(ino)).desc().inodeTable(), ino);
  }
}
