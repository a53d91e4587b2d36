package io.ext4j.nio;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.fs.OpenFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A {@link FileChannel} on an open engine file ({@link OpenFile}): reads and writes at the channel's
 * position or at a given one, APPEND writes at the end, {@code force} is fsync or fdatasync, SYNC
 * and DSYNC make every write so (the engine's O_SYNC/O_DSYNC). File locks are held in this JVM
 * only ({@link FileLocks}), as the JDK's are among the channels of one JVM.
 *
 * <h2>Threads</h2>
 * Methods that use the position are serialized on {@code this} (as the JDK's channel serializes
 * them); positional reads and writes run concurrently, each as the engine runs it.
 *
 * <h2>Durability</h2>
 * As the engine's: a write is durable once {@code force} returns (or at once with SYNC/DSYNC), or
 * after the file system is closed.
 */
final class Ext4FileChannel extends FileChannel {
  private final Ext4NioFileSystem fs;
  private final OpenFile file;
  private final Ext4Path path;
  private final boolean readable;
  private final boolean writable;
  private final boolean append;
  private final FileLocks locks;
  private final Runnable onClose;
  @GuardedBy("this") private long position;

  Ext4FileChannel(Ext4NioFileSystem fs, OpenFile file, Ext4Path path, boolean readable, boolean writable, boolean append,
      FileLocks locks, Runnable onClose) {
    this.fs = fs;
    this.file = file;
    this.path = path;
    this.readable = readable;
    this.writable = writable;
    this.append = append;
    this.locks = locks;
    this.onClose = onClose;
  }

  private IOException fail(IOException e) {
    return NioErrors.translate(e, path, null);
  }

  private void checkRead() throws IOException {
    ensureOpen();
    if (!readable) {
      throw new NonReadableChannelException();
    }
  }

  private void checkWrite() throws IOException {
    ensureOpen();
    if (!writable) {
      throw new NonWritableChannelException();
    }
  }

  private void ensureOpen() throws IOException {
    if (!isOpen()) {
      throw new java.nio.channels.ClosedChannelException();
    }
  }

  @Override
  public synchronized int read(ByteBuffer dst) throws IOException {
    checkRead();
    int n = read(dst, position);
    if (n > 0) {
      position += n;
    }
    return n;
  }

  @Override
  public synchronized long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
    checkRead();
    long total = 0;
    for (int i = offset; i < offset + length; i++) {
      if (!dsts[i].hasRemaining()) {
        continue;
      }
      int n = read(dsts[i], position);
      if (n < 0) {
        return total == 0 ? -1 : total;
      }
      position += n;
      total += n;
      if (dsts[i].hasRemaining()) {
        break;
      }
    }
    return total;
  }

  @Override
  public int read(ByteBuffer dst, long at) throws IOException {
    checkRead();
    if (at < 0) {
      throw new IllegalArgumentException("negative position " + at);
    }
    if (!dst.hasRemaining()) {
      return 0;
    }
    try {
      return file.read(at, dst);
    } catch (IOException e) {
      throw fail(e);
    }
  }

  @Override
  public synchronized int write(ByteBuffer src) throws IOException {
    checkWrite();
    long at = append ? size() : position;
    int n = write(src, at);
    position = at + n;
    return n;
  }

  @Override
  public synchronized long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    long total = 0;
    for (int i = offset; i < offset + length; i++) {
      total += write(srcs[i]);
    }
    return total;
  }

  @Override
  public int write(ByteBuffer src, long at) throws IOException {
    checkWrite();
    if (at < 0) {
      throw new IllegalArgumentException("negative position " + at);
    }
    try {
      return Math.toIntExact(file.write(at, src));
    } catch (IOException e) {
      throw fail(e);
    }
  }

  @Override
  public synchronized long position() throws IOException {
    ensureOpen();
    return append ? size() : position;
  }

  @Override
  public synchronized FileChannel position(long newPosition) throws IOException {
    ensureOpen();
    if (newPosition < 0) {
      throw new IllegalArgumentException("negative position " + newPosition);
    }
    position = newPosition;
    return this;
  }

  @Override
  public long size() throws IOException {
    ensureOpen();
    try {
      return file.size();
    } catch (IOException e) {
      throw fail(e);
    }
  }

  @Override
  public synchronized FileChannel truncate(long size) throws IOException {
    checkWrite();
    if (size < 0) {
      throw new IllegalArgumentException("negative size " + size);
    }
    try {
      if (size < file.size()) {
        file.truncate(size);
      }
    } catch (IOException e) {
      throw fail(e);
    }
    position = Math.min(position, size);
    return this;
  }

  @Override
  public void force(boolean metaData) throws IOException {
    ensureOpen();
    try {
      file.fsync(!metaData);
    } catch (IOException e) {
      throw fail(e);
    }
  }

  @Override
  public long transferTo(long at, long count, WritableByteChannel target) throws IOException {
    checkRead();
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(count, 1 << 20));
    long done = 0;
    while (done < count) {
      buf.clear().limit((int) Math.min(buf.capacity(), count - done));
      int n = read(buf, at + done);
      if (n <= 0) {
        break;
      }
      buf.flip();
      while (buf.hasRemaining()) {
        target.write(buf);
      }
      done += n;
    }
    return done;
  }

  @Override
  public long transferFrom(ReadableByteChannel src, long at, long count) throws IOException {
    checkWrite();
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(count, 1 << 20));
    long done = 0;
    while (done < count) {
      buf.clear().limit((int) Math.min(buf.capacity(), count - done));
      int n = src.read(buf);
      if (n <= 0) {
        break;
      }
      buf.flip();
      while (buf.hasRemaining()) {
        done += write(buf, at + done);
      }
    }
    return done;
  }

  /**
   * READ_ONLY and PRIVATE maps are a snapshot of the region: it is copied to a temporary file of
   * the default file system, which the JDK maps (and which is removed at once where the OS allows,
   * else at exit). That is what the JDK promises of these modes — whether later changes of the
   * file reach the buffer is unspecified, and a PRIVATE buffer's changes never reach the file. A
   * READ_WRITE map, whose changes must reach the image, cannot be made so and is refused.
   */
  @Override
  public MappedByteBuffer map(MapMode mode, long at, long size) throws IOException {
    ensureOpen();
    if (mode == MapMode.READ_WRITE) {
      throw new UnsupportedOperationException("a READ_WRITE map of a file in an ext4 image (" + path
          + "): its changes could not reach the image; map READ_ONLY or PRIVATE");
    }
    checkRead();
    if (mode != MapMode.READ_ONLY && !writable) {
      throw new NonWritableChannelException(); // as the JDK's: PRIVATE needs a channel open for writing
    }
    if (at < 0 || size < 0 || size > Integer.MAX_VALUE || at > Long.MAX_VALUE - size) {
      throw new IllegalArgumentException("map range " + at + "+" + size);
    }
    if (at + size > size()) { // as the JDK's: the file grows to the region's end, which needs a writable channel
      if (!writable) {
        throw new IOException("Channel not open for writing - cannot extend file to required size");
      }
      try {
        file.truncate(at + size);
      } catch (IOException e) {
        throw fail(e);
      }
    }
    java.nio.file.Path tmp = java.nio.file.Files.createTempFile("ext4j-map", ".bin");
    try (FileChannel out = FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
      transferTo(at, size, out);
    }
    try (FileChannel in = FileChannel.open(tmp, java.nio.file.StandardOpenOption.READ,
        mode == MapMode.PRIVATE ? java.nio.file.StandardOpenOption.WRITE : java.nio.file.StandardOpenOption.READ)) {
      return in.map(mode, 0, size);
    } finally {
      try {
        java.nio.file.Files.delete(tmp);
      } catch (IOException mappedOnWindows) {
        tmp.toFile().deleteOnExit();
      }
    }
  }

  @Override
  public FileLock lock(long at, long size, boolean shared) throws IOException {
    ensureOpen();
    checkLockMode(shared);
    return locks.acquire(this, file.ino(), at, size, shared);
  }

  @Override
  public FileLock tryLock(long at, long size, boolean shared) throws IOException {
    return lock(at, size, shared);
  }

  private void checkLockMode(boolean shared) {
    if (shared && !readable) {
      throw new NonReadableChannelException();
    }
    if (!shared && !writable) {
      throw new NonWritableChannelException();
    }
  }

  @Override
  protected void implCloseChannel() throws IOException {
    locks.releaseAll(this);
    try {
      file.close();
    } catch (IOException e) {
      throw fail(e);
    } finally {
      fs.untrack(this);
      onClose.run(); // DELETE_ON_CLOSE
    }
  }
}
