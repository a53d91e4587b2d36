package io.ext4j.fs.file;

import io.ext4j.fs.context.Fs;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.format.XattrName;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.xattr.Xattrs;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Files with inline data (incompat inline_data, inode flag INLINE_DATA): the first 60 bytes live in
 * i_block, the rest in the value of the in-inode attribute {@code system.data}. Read only.
 */
public final class InlineData {
  public static final XattrName SYSTEM_DATA = XattrName.of(XattrName.SYSTEM, "data");

  private InlineData() {}

  /** The file's bytes, i_block then system.data. */
  public static byte[] contents(Fs fs, Inode inode, RawInode raw) throws IOException {
    byte[] extra = new Xattrs(fs).inodeValue(inode, SYSTEM_DATA);
    byte[] ib = raw.iBlock();
    byte[] all = new byte[ib.length + (extra == null ? 0 : extra.length)];
    System.arraycopy(ib, 0, all, 0, ib.length);
    if (extra != null) {
      System.arraycopy(extra, 0, all, ib.length, extra.length);
    }
    return all;
  }

  /** Reads {@code n} bytes at {@code pos} (already clamped to the size); bytes past what is stored read as zeros. */
  static int read(Fs fs, Inode inode, RawInode raw, long pos, ByteBuffer dst, int n) throws IOException {
    byte[] all = contents(fs, inode, raw);
    for (int i = 0; i < n; i++) {
      long at = pos + i;
      dst.put(at < all.length ? all[(int) at] : 0);
    }
    return n;
  }
}
