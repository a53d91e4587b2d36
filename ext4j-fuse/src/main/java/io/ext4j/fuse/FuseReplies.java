package io.ext4j.fuse;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.StatFs;
import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * Encoders of the reply structs, each written at the buffer's position (little-endian), which it
 * advances. Pure: no I/O, no engine. Layouts (all fields little-endian, no implicit padding):
 * <pre>
 * fuse_attr (88)       ino, size, blocks, atime, mtime, ctime: u64; atimensec, mtimensec, ctimensec,
 *                      mode, nlink, uid, gid, rdev, blksize, padding: u32
 * fuse_entry_out (128) nodeid, generation, entry_valid, attr_valid: u64;
 *                      entry_valid_nsec, attr_valid_nsec: u32; fuse_attr
 * fuse_attr_out (104)  attr_valid u64, attr_valid_nsec u32, dummy u32, fuse_attr
 * fuse_open_out (16)   fh u64, open_flags u32, padding u32
 * fuse_kstatfs (80)    blocks, bfree, bavail, files, ffree: u64; bsize, namelen, frsize, padding: u32;
 *                      spare[6] u32
 * fuse_dirent          ino u64, off u64, namelen u32, type u32, name, zero padding to 8 bytes
 * fuse_direntplus      fuse_entry_out, then a fuse_dirent
 * fuse_init_out (64)   major, minor, max_readahead, flags: u32; max_background, congestion_threshold: u16;
 *                      max_write u32, time_gran u32, max_pages u16, map_alignment u16, unused[8] u32
 * </pre>
 * Times are seconds since the epoch (signed) and nanoseconds; a node id is the ext4 inode number
 * except for the root, which the kernel calls 1.
 */
final class FuseReplies {
  static final int ATTR = 88;
  static final int ENTRY_OUT = 128;
  static final int ATTR_OUT = 104;
  static final int OPEN_OUT = 16;
  static final int STATFS_OUT = 80;
  static final int INIT_OUT = 64;
  static final int DIRENT_HEADER = 24;

  private FuseReplies() {}

  /** The node id the kernel uses for ext4 inode {@code ino}. */
  static long nodeId(long ino) {
    return ino == io.ext4j.fs.Ext4FileSystem.ROOT ? FuseProto.ROOT_ID : ino;
  }

  static void attr(ByteBuffer b, Attributes a) {
    b.putLong(a.ino()); // st_ino: the root shows as 2, as on ext4
    b.putLong(a.size());
    b.putLong(a.blocks());
    Instant atime = a.atime();
    Instant mtime = a.mtime();
    Instant ctime = a.ctime();
    b.putLong(atime.getEpochSecond());
    b.putLong(mtime.getEpochSecond());
    b.putLong(ctime.getEpochSecond());
    b.putInt(atime.getNano());
    b.putInt(mtime.getNano());
    b.putInt(ctime.getNano());
    b.putInt(a.mode());
    b.putInt(a.nlink());
    b.putInt((int) a.uid());
    b.putInt((int) a.gid());
    b.putInt((int) a.rdev());
    b.putInt(a.blockSize());
    b.putInt(0);
  }

  /** fuse_entry_out for {@code a}, cached by the kernel for the given nanoseconds. */
  static void entry(ByteBuffer b, Attributes a, long entryValidNs, long attrValidNs) {
    b.putLong(nodeId(a.ino()));
    b.putLong(a.generation() & 0xFFFF_FFFFL);
    b.putLong(entryValidNs / 1_000_000_000L);
    b.putLong(attrValidNs / 1_000_000_000L);
    b.putInt((int) (entryValidNs % 1_000_000_000L));
    b.putInt((int) (attrValidNs % 1_000_000_000L));
    attr(b, a);
  }

  static void attrOut(ByteBuffer b, Attributes a, long attrValidNs) {
    b.putLong(attrValidNs / 1_000_000_000L);
    b.putInt((int) (attrValidNs % 1_000_000_000L));
    b.putInt(0);
    attr(b, a);
  }

  /** statx's basic fields and the birth time (STATX_BASIC_STATS | STATX_BTIME). */
  static final int STATX_MASK = 0x7ff | 0x800;
  /** The statx attribute flags ext4 reports, which are its inode flags of the same values: compressed, immutable, append, nodump. */
  private static final long STATX_FROM_FLAGS = 0x4 | 0x10 | 0x20 | 0x40;
  /** What ext4 says it can report (statx's attributes_mask): those, encrypted and verity. */
  private static final long STATX_ATTRIBUTES_MASK = STATX_FROM_FLAGS | 0x800 | 0x100000;

  /**
   * fuse_statx_out for {@code a}: the validity, then struct fuse_statx — mask, blksize, attributes,
   * nlink, uid, gid, mode, ino, size, blocks, attributes_mask, atime, btime, ctime, mtime (each
   * seconds, nanoseconds, padding), rdev and dev as major and minor — padded to its 256 bytes.
   */
  static void statxOut(ByteBuffer b, Attributes a, long attrValidNs) {
    b.putLong(attrValidNs / 1_000_000_000L);
    b.putInt((int) (attrValidNs % 1_000_000_000L));
    b.putInt(0); // flags
    b.putLong(0).putLong(0); // spare
    int start = b.position();
    b.putInt(a.crtime() != null ? STATX_MASK : STATX_MASK & ~0x800); // no birth time in a 128-byte inode
    b.putInt(a.blockSize());
    b.putLong(a.flags() & STATX_FROM_FLAGS);
    b.putInt(a.nlink());
    b.putInt((int) a.uid());
    b.putInt((int) a.gid());
    b.putShort((short) a.mode());
    b.putShort((short) 0);
    b.putLong(a.ino());
    b.putLong(a.size());
    b.putLong(a.blocks());
    b.putLong(STATX_ATTRIBUTES_MASK);
    for (Instant t : new Instant[] {a.atime(), a.crtime() != null ? a.crtime() : Instant.EPOCH, a.ctime(), a.mtime()}) {
      b.putLong(t.getEpochSecond()).putInt(t.getNano()).putInt(0);
    }
    long rdev = a.rdev(); // the kernel's new_encode_dev form, as fuse_attr carries it
    b.putInt((int) ((rdev & 0xfff00) >>> 8)).putInt((int) ((rdev & 0xff) | ((rdev >>> 12) & 0xfff00)));
    b.putInt(0).putInt(0); // dev: the kernel fills in the mount's own
    while (b.position() < start + 256) {
      b.putLong(0);
    }
  }

  static void open(ByteBuffer b, long fh, int openFlags) {
    b.putLong(fh);
    b.putInt(openFlags);
    b.putInt(0);
  }

  static void statfs(ByteBuffer b, StatFs s) {
    b.putLong(s.blocks());
    b.putLong(s.freeBlocks());
    b.putLong(s.availableBlocks());
    b.putLong(s.inodes());
    b.putLong(s.freeInodes());
    b.putInt(s.blockSize());
    b.putInt(s.maxNameLength());
    b.putInt(s.blockSize());
    b.putInt(0);
    for (int i = 0; i < 6; i++) {
      b.putInt(0);
    }
  }

  /** A u32 and a u32 of padding: fuse_write_out, fuse_getxattr_out. */
  static void sizeOut(ByteBuffer b, long size) {
    b.putInt((int) size);
    b.putInt(0);
  }

  /** The bytes a fuse_dirent with a name of {@code nameLength} bytes takes. */
  static int direntSize(int nameLength) {
    return (DIRENT_HEADER + nameLength + 7) & ~7;
  }

  /**
   * Appends a fuse_dirent if it fits in what remains of {@code b}; returns whether it did. {@code off}
   * is the cookie the kernel passes back to continue after this entry.
   */
  static boolean dirent(ByteBuffer b, long ino, long off, int dtype, byte[] name) {
    int size = direntSize(name.length);
    if (b.remaining() < size) {
      return false;
    }
    int start = b.position();
    b.putLong(ino);
    b.putLong(off);
    b.putInt(name.length);
    b.putInt(dtype);
    b.put(name);
    while (b.position() < start + size) {
      b.put((byte) 0);
    }
    return true;
  }

  /**
   * Appends a fuse_direntplus if it fits; {@code a} null gives an entry the kernel does not cache
   * (node id 0: "." and "..").
   */
  static boolean direntPlus(ByteBuffer b, Attributes a, long ino, long off, int dtype, byte[] name, long entryValidNs,
      long attrValidNs) {
    if (b.remaining() < ENTRY_OUT + direntSize(name.length)) {
      return false;
    }
    if (a == null) {
      for (int i = 0; i < ENTRY_OUT; i++) {
        b.put((byte) 0);
      }
    } else {
      entry(b, a, entryValidNs, attrValidNs);
    }
    return dirent(b, ino, off, dtype, name);
  }

  /** The dirent type (DT_*) of an ext4 directory entry's file_type byte. */
  static int direntType(int ext4FileType) {
    return switch (ext4FileType) {
      case 1 -> 8; // DT_REG
      case 2 -> 4; // DT_DIR
      case 3 -> 2; // DT_CHR
      case 4 -> 6; // DT_BLK
      case 5 -> 1; // DT_FIFO
      case 6 -> 12; // DT_SOCK
      case 7 -> 10; // DT_LNK
      default -> 0; // DT_UNKNOWN
    };
  }

  static void init(ByteBuffer b, int minor, int maxReadahead, int flags, int flags2, int maxBackground, int maxWrite,
      int maxPages) {
    b.putInt(FuseProto.MAJOR);
    b.putInt(minor);
    b.putInt(maxReadahead);
    b.putInt(flags);
    b.putShort((short) maxBackground);
    b.putShort((short) (maxBackground * 3 / 4)); // congestion threshold, as libfuse picks it
    b.putInt(maxWrite);
    b.putInt(1); // time_gran: nanoseconds
    b.putShort((short) maxPages);
    b.putShort((short) 0); // map_alignment
    b.putInt(flags2);
    for (int i = 0; i < 7; i++) { // max_stack_depth, request_timeout, unused
      b.putInt(0);
    }
  }

  /**
   * An Instant from a fuse time (seconds, nanoseconds), clamped to what an Instant holds; the inode
   * then clamps it to what ext4 stores, as the kernel clamps utimensat's times to the filesystem's range.
   */
  static Instant time(long sec, int nsec) {
    long s = Math.max(Instant.MIN.getEpochSecond(), Math.min(Instant.MAX.getEpochSecond() - 1, sec));
    return Instant.ofEpochSecond(s, Math.max(0, Math.min(999_999_999, nsec)));
  }
}
