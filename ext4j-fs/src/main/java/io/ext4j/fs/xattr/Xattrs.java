package io.ext4j.fs.xattr;

import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FormatException;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.XattrBlock;
import io.ext4j.fs.format.XattrCodec;
import io.ext4j.fs.format.XattrEntry;
import io.ext4j.fs.format.XattrName;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An inode's extended attributes: in the inode (after {@code i_extra_isize}) and in one attribute
 * block ({@code i_file_acl}) that several inodes may share by reference count.
 *
 * <h2>Placement</h2>
 * A new or changed attribute goes in the inode when it fits beside the ones already there, else in
 * the block. A shared block (refcount &gt; 1) is never changed in place: the inode gets its own copy
 * and the shared one loses a reference (copy on write). A block left empty is freed (or loses the
 * reference). POSIX ACLs are stored in ext4's on-disk form and handed out in the VFS form
 * ({@link PosixAcl}); ea_inode values are read-only.
 *
 * <h2>Locks and durability</h2>
 * Callers hold the inode's {@code rw} lock exclusive to change attributes (shared to read) and a Tx;
 * a shared block's reference count is changed under this object's monitor, which serializes every
 * copy-on-write. Changes are part of the caller's Tx.
 */
public final class Xattrs {
  public static final int CREATE = 1;
  public static final int REPLACE = 2;

  private final Fs fs;

  public Xattrs(Fs fs) {
    this.fs = fs;
  }

  /** Both places' attributes, as stored (ACLs in disk form). */
  public List<XattrEntry> all(Inode inode) throws IOException {
    RawInode raw = inode.snapshot();
    List<XattrEntry> out = new ArrayList<>(inInode(inode.ino, raw));
    long blk = raw.fileAcl();
    if (blk != 0) {
      out.addAll(readBlock(inode.ino, blk).entries());
    }
    return out;
  }

  /** The value of {@code name} (ACLs in the VFS form), or null. */
  public byte[] get(Inode inode, XattrName name) throws IOException {
    for (XattrEntry e : all(inode)) {
      if (e.name().equals(name)) {
        if (e.valueInum() != 0) {
          throw new Ext4Exception(Errno.EOPNOTSUPP, inode.ino, null, "xattr value in an EA inode (ea_inode) is not readable yet");
        }
        if (!isAcl(name)) {
          return e.value();
        }
        try {
          return PosixAcl.fromDisk(e.value());
        } catch (IllegalArgumentException bad) {
          throw Ext4Exception.corrupted(fs.lay.name(), inode.ino, "xattr " + name + ": " + bad.getMessage());
        }
      }
    }
    return null;
  }

  /** The names present, as full names where the namespace has one. */
  public List<String> list(Inode inode) throws IOException {
    List<String> out = new ArrayList<>();
    for (XattrEntry e : all(inode)) {
      if (e.name().hasFullName()) {
        out.add(e.name().fullName());
      }
    }
    return out;
  }

  /**
   * Sets {@code name} to {@code value} (VFS form for ACLs). {@link #CREATE} fails with EEXIST if it
   * exists, {@link #REPLACE} with ENODATA if it does not.
   *
   * @throws Ext4Exception ENOSPC when the value fits neither in the inode nor in a block
   */
  public void set(Tx tx, Inode inode, XattrName name, byte[] value, int flags) throws IOException {
    byte[] stored = isAcl(name) ? acl(inode, value) : value.clone();
    if (stored.length > fs.lay.blockSize() - 64) {
      throw new Ext4Exception(Errno.ENOSPC, inode.ino, null, "xattr value of " + stored.length
          + " bytes does not fit an attribute block of " + fs.lay.blockSize() + " bytes (ext4 answers ENOSPC too)");
    }
    change(tx, inode, name, XattrEntry.of(name, stored), flags);
  }

  /** Removes {@code name}; ENODATA if absent. */
  public void remove(Tx tx, Inode inode, XattrName name) throws IOException {
    change(tx, inode, name, null, REPLACE);
  }

  private byte[] acl(Inode inode, byte[] vfs) throws Ext4Exception {
    try {
      return PosixAcl.toDisk(vfs);
    } catch (IllegalArgumentException e) {
      throw new Ext4Exception(Errno.EINVAL, inode.ino, null, "invalid POSIX ACL: " + e.getMessage());
    }
  }

  private static boolean isAcl(XattrName n) {
    return n.index() == XattrName.POSIX_ACL_ACCESS || n.index() == XattrName.POSIX_ACL_DEFAULT;
  }

  private void change(Tx tx, Inode inode, XattrName name, XattrEntry replacement, int flags) throws IOException {
    // what permission and privilege checks remember of the attributes is forgotten first, so no
    // check after this change's lock is released can use what was before it
    if (name.index() == XattrName.POSIX_ACL_ACCESS) {
      inode.cachedAcl(null);
    } else if (name.index() == XattrName.SECURITY) {
      inode.capabilityKnown(Inode.CAPABILITY_UNKNOWN);
    }
    RawInode raw = inode.snapshot();
    List<XattrEntry> ibody = new ArrayList<>(inInode(inode.ino, raw));
    long blk = raw.fileAcl();
    XattrBlock block = blk == 0 ? null : readBlock(inode.ino, blk);
    List<XattrEntry> inBlock = block == null ? new ArrayList<>() : new ArrayList<>(block.entries());
    boolean inI = ibody.removeIf(e -> e.name().equals(name));
    boolean inB = inBlock.removeIf(e -> e.name().equals(name));
    boolean exists = inI || inB;
    if (exists && (flags & CREATE) != 0) {
      throw new Ext4Exception(Errno.EEXIST, inode.ino, null, "xattr " + describe(name) + " exists");
    }
    if (!exists && (flags & REPLACE) != 0) {
      throw new Ext4Exception(Errno.ENODATA, inode.ino, null, "no xattr " + describe(name));
    }
    int areaOff = 128 + raw.extraIsize();
    int areaEnd = fs.lay.inodeSize();
    boolean hasArea = areaEnd > 128 && areaEnd - areaOff >= 8;
    if (replacement != null) {
      List<XattrEntry> tryInode = new ArrayList<>(ibody);
      tryInode.add(replacement);
      if (hasArea && XattrCodec.inodeAreaSize(tryInode) <= areaEnd - areaOff) {
        ibody = tryInode;
      } else {
        inBlock.add(replacement);
        if (XattrCodec.blockSpaceNeeded(inBlock) > fs.lay.blockSize()) {
          throw new Ext4Exception(Errno.ENOSPC, inode.ino, null, "no room for xattr " + describe(name)
              + " in the inode or its attribute block");
        }
      }
    }
    if (hasArea || inI) {
      inode.fields.lock();
      try {
        XattrCodec.encodeInodeArea(ibody, inode.raw().bytes(), areaOff, areaEnd);
      } finally {
        inode.fields.unlock();
      }
    }
    if (block != null || !inBlock.isEmpty()) {
      writeBlock(tx, inode, blk, block, inBlock);
    }
    inode.fields.lock();
    try {
      inode.raw().time(RawInode.Time.CTIME, fs.clock.now());
    } finally {
      inode.fields.unlock();
    }
    fs.writeInode(tx, inode, false);
  }

  /** Puts {@code entries} in the inode's block: in place, copied when shared, freed when empty. */
  private void writeBlock(Tx tx, Inode inode, long blk, XattrBlock old, List<XattrEntry> entries) throws IOException {
    int bs = fs.lay.blockSize();
    synchronized (this) {
      if (old != null) {
        XattrBlock current = readBlock(inode.ino, blk); // the count may have changed since we read it
        if (current.refcount() > 1) {
          rewrite(tx, blk, current.refcount() - 1, current.entries());
          old = null; // ours is a new block now
          chargeBlock(inode, -1);
          setFileAcl(inode, 0);
        } else if (entries.isEmpty()) {
          tx.forget(blk);
          fs.blocks.free(tx, blk, 1);
          chargeBlock(inode, -1);
          setFileAcl(inode, 0);
          return;
        } else {
          rewrite(tx, blk, 1, entries);
          return;
        }
      }
      if (entries.isEmpty()) {
        return;
      }
      long goal = fs.lay.groupFirstBlock(fs.lay.groupOfInode(inode.ino));
      long nb = fs.blocks.allocate(tx, goal, 1, 1).start();
      try (Buf b = tx.create(nb)) {
        byte[] img = XattrCodec.encodeBlock(1, entries, bs, nb, fs.lay.checksumSeed(), fs.lay.metadataCsum());
        System.arraycopy(img, 0, b.array(), 0, bs);
        tx.dirty(b);
      }
      chargeBlock(inode, 1);
      setFileAcl(inode, nb);
    }
  }

  private void rewrite(Tx tx, long blk, int refcount, List<XattrEntry> entries) throws IOException {
    int bs = fs.lay.blockSize();
    try (Buf b = tx.read(blk)) {
      tx.modify(b);
      byte[] img = XattrCodec.encodeBlock(refcount, entries, bs, blk, fs.lay.checksumSeed(), fs.lay.metadataCsum());
      System.arraycopy(img, 0, b.array(), 0, bs);
      tx.dirty(b);
    }
  }

  /**
   * Drops the inode's reference to its attribute block when the inode is freed: the block is freed
   * with the last reference.
   */
  public void releaseBlock(Tx tx, Inode inode) throws IOException {
    long blk = inode.snapshot().fileAcl();
    if (blk == 0) {
      return;
    }
    synchronized (this) {
      XattrBlock current = readBlock(inode.ino, blk);
      if (current.refcount() > 1) {
        rewrite(tx, blk, current.refcount() - 1, current.entries());
      } else {
        tx.forget(blk);
        fs.blocks.free(tx, blk, 1);
      }
    }
    chargeBlock(inode, -1);
    setFileAcl(inode, 0);
  }

  private void chargeBlock(Inode inode, int blocks) {
    inode.fields.lock();
    try {
      RawInode r = inode.raw();
      r.blocksRaw(Math.max(0, r.blocksRaw() + (long) blocks * fs.lay.sectorsPerBlock()));
    } finally {
      inode.fields.unlock();
    }
  }

  private static void setFileAcl(Inode inode, long block) {
    inode.fields.lock();
    try {
      inode.raw().fileAcl(block);
    } finally {
      inode.fields.unlock();
    }
  }

  private List<XattrEntry> inInode(long ino, RawInode raw) throws IOException {
    int size = fs.lay.inodeSize();
    if (size <= 128 || 128 + raw.extraIsize() + 4 > size) {
      return List.of();
    }
    try {
      return XattrCodec.decodeInodeArea(raw.bytes(), 128 + raw.extraIsize(), size, fs.lay.name() + " inode " + ino);
    } catch (Ext4FormatException e) {
      throw Ext4Exception.corrupted(fs.lay.name(), ino, e.getMessage());
    }
  }

  private XattrBlock readBlock(long ino, long blk) throws IOException {
    if (blk < fs.lay.firstDataBlock() || blk >= fs.lay.blocksCount()) {
      throw Ext4Exception.corrupted(fs.lay.name(), ino, "xattr block " + blk + " is outside the filesystem");
    }
    try (Buf b = fs.meta.read(blk)) {
      return XattrCodec.decodeBlock(b.array(), blk, fs.lay.checksumSeed(), fs.lay.metadataCsum(),
          fs.lay.name() + " xattr block " + blk + " of inode " + ino);
    } catch (Ext4FormatException e) {
      throw Ext4Exception.corrupted(fs.lay.name(), ino, e.getMessage());
    }
  }

  private static String describe(XattrName n) {
    return n.hasFullName() ? n.fullName() : "index " + n.index() + " " + Arrays.toString(n.suffix());
  }

  /** The raw value of a system.* attribute stored in the inode (system.data of inline data), or null. */
  public byte[] inodeValue(Inode inode, XattrName name) throws IOException {
    for (XattrEntry e : inInode(inode.ino, inode.snapshot())) {
      if (e.name().equals(name)) {
        return e.value();
      }
    }
    return null;
  }
}
