package io.ext4j.block;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A block device over a {@link FileChannel} on an image file or a raw block device.
 *
 * <h2>Transfers</h2>
 * Reads and writes are positional ({@code pread}/{@code pwrite}): they never touch the channel's
 * position, so any number of threads transfer at once without a lock. Each transfer loops until
 * every byte has moved. A read that meets end of file before its last byte fails with a
 * {@link BlockDeviceException} naming the device and the block, never padding with zeros (holes in a
 * sparse image are not end of file and read as zeros, as the kernel returns them). The vectored
 * {@link #write(long, ByteBuffer...)} is one {@code writev}: {@code FileChannel} has no positional
 * gathering write, so the channel is positioned and written under {@code vectorLock}. Only vectored
 * writes take that lock; positional transfers do not use the position and run beside them. A
 * scattered write ({@link #write(long[], ByteBuffer[])}, the checkpoint's home writes) becomes one
 * vectored write per run of contiguous entries.
 *
 * <h2>Direct I/O</h2>
 * With {@link Options#direct()} the file is opened with {@code O_DIRECT}: transfers bypass the page
 * cache and must be aligned to the file store's block size in buffer address, file position and
 * length. The device's block size must therefore be a multiple of that alignment (checked at open),
 * and {@link #alignment()} reports it. Buffers that are not direct and aligned are copied through
 * bounce buffers of {@value #BOUNCE_BYTES} bytes (a transfer longer than that goes in pieces), taken
 * from a small pool the device keeps (at most {@value #MAX_IDLE_BOUNCES} idle), so a transfer
 * allocates nothing once the pool is warm; pass aligned direct buffers ({@link #allocateAligned(int)})
 * to avoid the copy. A pool rather than a buffer per thread: virtual threads would each pin one.
 *
 * <h2>Zero-out</h2>
 * {@link #zeroOut} writes zeros from one zero buffer the device keeps, in gathering writes of up to
 * {@value #ZERO_RUN_BYTES} bytes. It does not punch holes: the JDK has no {@code fallocate}, and this
 * module needs no native access.
 *
 * <h2>Size</h2>
 * The block count is {@code size / blockSize}, rounded down: a trailing partial block is not part of
 * the device. For a raw block device whose {@link FileChannel#size()} reports 0, the size comes from
 * Linux sysfs: {@code /sys/dev/block/<major>:<minor>/size} (found from the device number) or else
 * {@code /sys/class/block/<name>/size}, each in 512-byte sectors whatever the device's sector size.
 * If neither exists the open fails; a zero-block device is never returned for a raw device.
 *
 * <h2>Durability</h2>
 * A returned {@code write} is in the OS page cache (or, with direct I/O, has reached the device,
 * which may still hold it in a volatile write cache); either way it may be lost by a crash until
 * {@link #flush()} returns. {@code flush()} is {@link FileChannel#force(boolean) force(false)}, i.e.
 * {@code fdatasync}: when it returns, every write completed before the call is on stable storage,
 * including the file size a write extended (fdatasync flushes metadata needed to read the data).
 * When {@link Options#create(long)} makes a new image, the open fsyncs the new file and its directory
 * before returning, so the image itself survives a crash. If {@code flush} throws, the caller must
 * treat every unflushed write as lost: Linux may drop the dirty pages and report the error only once.
 * {@link #close()} does not flush.
 *
 * <h2>Interrupts</h2>
 * Callers must not interrupt threads blocked in this device: an interrupt during
 * {@code FileChannel} I/O closes the channel for every thread, and later calls fail with
 * {@link ClosedChannelException}.
 */
public final class FileBlockDevice implements BlockDevice {
  /**
   * O_DIRECT as an open option: the JDK's {@code com.sun.nio.file.ExtendedOpenOption.DIRECT} (module
   * jdk.unsupported). Looked up by name: javac and javadoc warn on every direct use of that
   * internal API, and the javadoc build fails on warnings.
   */
  public static final OpenOption O_DIRECT = extendedOption("DIRECT");

  private static OpenOption extendedOption(String name) {
    try {
      for (Object c : Class.forName("com.sun.nio.file.ExtendedOpenOption").getEnumConstants()) {
        if (((Enum<?>) c).name().equals(name)) {
          return (OpenOption) c;
        }
      }
    } catch (ClassNotFoundException e) {
      throw new ExceptionInInitializerError("this JDK has no com.sun.nio.file.ExtendedOpenOption (module jdk.unsupported)");
    }
    throw new ExceptionInInitializerError("this JDK's com.sun.nio.file.ExtendedOpenOption has no " + name);
  }


  /**
   * How to open a {@link FileBlockDevice}. Build with {@link #defaults()} and the {@code with}
   * methods; invalid combinations are rejected when the record is made.
   *
   * @param readOnly open for reading only; writes and flushes fail with {@link ReadOnlyDeviceException}
   *     (default false)
   * @param direct open with {@code O_DIRECT}, bypassing the page cache (default false)
   * @param createBlocks when present, create a new sparse image file of this many blocks; the open
   *     fails with {@link FileAlreadyExistsException} if the file exists (default absent: the file
   *     must exist)
   */
  public record Options(boolean readOnly, boolean direct, OptionalLong createBlocks) {
    public Options {
      Objects.requireNonNull(createBlocks, "createBlocks");
      if (createBlocks.isPresent() && createBlocks.getAsLong() <= 0) {
        throw new IllegalArgumentException("a new image needs a positive block count, not " + createBlocks.getAsLong());
      }
      if (readOnly && createBlocks.isPresent()) {
        throw new IllegalArgumentException("cannot create a new image read-only");
      }
    }

    /** Read-write, buffered, existing file. */
    public static Options defaults() {
      return new Options(false, false, OptionalLong.empty());
    }

    public Options withReadOnly(boolean readOnly) {
      return new Options(readOnly, direct, createBlocks);
    }

    public Options withDirect(boolean direct) {
      return new Options(readOnly, direct, createBlocks);
    }

    /** Creates a new sparse image of {@code blocks} blocks instead of opening an existing file. */
    public Options create(long blocks) {
      return new Options(readOnly, direct, OptionalLong.of(blocks));
    }
  }

  private final Path path;
  private final String name;
  private final FileChannel channel;
  private final int blockSize;
  private final long blockCount;
  private final boolean readOnly;
  private final int alignment; // 0 when buffered; else the O_DIRECT alignment in bytes
  private final ReentrantLock vectorLock = new ReentrantLock(); // guards the channel's position
  /** Idle bounce buffers for direct I/O; a thread takes one for a transfer and gives it back. */
  private final ConcurrentLinkedQueue<ByteBuffer> idleBounces = new ConcurrentLinkedQueue<>();
  private final AtomicInteger idleBounceCount = new AtomicInteger(); // approximately idleBounces.size(), kept lock-free
  private final int bounceBytes; // a multiple of the block size
  private volatile ByteBuffer zeros; // made on first zeroOut; never written after (shared read-only through duplicates)

  /** Bytes of one direct-I/O bounce buffer (at least one block). */
  static final int BOUNCE_BYTES = 256 * 1024;
  /** Bounce buffers kept for reuse. */
  static final int MAX_IDLE_BOUNCES = 8;
  /** Bytes of zeros written per gathering write by {@link #zeroOut}. */
  static final int ZERO_RUN_BYTES = 1 << 20;

  private FileBlockDevice(Path path, FileChannel channel, int blockSize, long blockCount, boolean readOnly, int alignment) {
    this.path = path;
    this.name = path.toString();
    this.channel = channel;
    this.blockSize = blockSize;
    this.blockCount = blockCount;
    this.readOnly = readOnly;
    this.alignment = alignment;
    this.bounceBytes = Math.max(blockSize, BOUNCE_BYTES / blockSize * blockSize);
  }

  /** Opens an existing image file or raw block device read-write with buffered I/O. */
  public static FileBlockDevice open(Path path, int blockSize) throws IOException {
    return open(path, blockSize, Options.defaults());
  }

  /**
   * Opens (or, with {@link Options#create(long)}, creates) an image file or raw block device with the
   * given block size. The caller chooses the block size; nothing is read from the device.
   *
   * @throws NoSuchFileException if the file does not exist and is not being created; the message
   *     names the path
   * @throws FileAlreadyExistsException if asked to create a file that exists
   * @throws IllegalArgumentException if the block size is not a power of two in [512, 65536], or
   *     direct I/O is asked for with a block size that is not a multiple of the file store's alignment
   * @throws IOException if the file cannot be opened or a raw device's size cannot be found
   */
  public static FileBlockDevice open(Path path, int blockSize, Options options) throws IOException {
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(options, "options");
    MemoryBlockDevice.checkBlockSize(blockSize);
    List<OpenOption> openOptions = new ArrayList<>();
    openOptions.add(StandardOpenOption.READ);
    if (!options.readOnly()) {
      openOptions.add(StandardOpenOption.WRITE);
    }
    int alignment = 0;
    if (options.direct()) { // checked before creating anything
      Path parent = path.toAbsolutePath().getParent();
      alignment = directAlignment(options.createBlocks().isPresent() && parent != null ? parent : path);
      if (blockSize % alignment != 0) {
        throw new IllegalArgumentException("direct I/O on " + path + " needs a block size that is a multiple of "
            + alignment + " (the file store's block size), not " + blockSize);
      }
      openOptions.add(O_DIRECT);
    }
    if (options.createBlocks().isPresent()) {
      createImage(path, Math.multiplyExact(options.createBlocks().getAsLong(), (long) blockSize));
    }
    FileChannel channel;
    try {
      channel = FileChannel.open(path, openOptions.toArray(OpenOption[]::new));
    } catch (NoSuchFileException e) {
      NoSuchFileException clear = new NoSuchFileException(path.toString(), null,
          "no such image file or block device (to make a new image, open with Options.create(blocks))");
      clear.initCause(e);
      throw clear;
    }
    try {
      long bytes = sizeInBytes(path, channel);
      return new FileBlockDevice(path, channel, blockSize, bytes / blockSize, options.readOnly(), alignment);
    } catch (IOException | RuntimeException e) {
      try {
        channel.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  /**
   * A zero-filled direct buffer of {@code bytes} bytes whose address is aligned for this device's
   * direct I/O (to 512 bytes when buffered: a direct buffer still spares the JDK's copy into its own),
   * so transfers need no bounce copy.
   */
  @Override
  public ByteBuffer allocateAligned(int bytes) {
    return BlockDevice.alignedBuffer(bytes, Math.max(alignment, 512));
  }

  /** The O_DIRECT alignment (the file store's block size) with direct I/O, else 1. */
  @Override
  public int alignment() {
    return alignment == 0 ? 1 : alignment;
  }

  /** The image file or device path. */
  public Path path() {
    return path;
  }

  /** True when opened with {@code O_DIRECT}. */
  public boolean isDirect() {
    return alignment != 0;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int blockSize() {
    return blockSize;
  }

  @Override
  public long blockCount() {
    return blockCount;
  }

  @Override
  public boolean isReadOnly() {
    return readOnly;
  }

  @Override
  public void read(long block, ByteBuffer dst) throws IOException {
    ensureOpen();
    BlockDevice.checkTransfer(this, block, dst);
    if (!needsBounce(dst)) {
      readFully(block, dst);
      return;
    }
    ByteBuffer bounce = takeBounce();
    try {
      long at = block;
      while (dst.hasRemaining()) {
        int n = Math.min(dst.remaining(), bounceBytes);
        bounce.clear().limit(n);
        readFully(at, bounce);
        dst.put(bounce.flip());
        at += n / blockSize;
      }
    } finally {
      giveBack(bounce);
    }
  }

  @Override
  public void write(long block, ByteBuffer src) throws IOException {
    ensureWritable();
    BlockDevice.checkTransfer(this, block, src);
    if (!needsBounce(src)) {
      writeFully(block, src);
      return;
    }
    ByteBuffer bounce = takeBounce();
    try {
      long at = block;
      while (src.hasRemaining()) {
        int n = Math.min(src.remaining(), bounceBytes);
        bounce.clear().put(src.slice(src.position(), n)).flip();
        writeFully(at, bounce);
        src.position(src.position() + n);
        at += n / blockSize;
      }
    } finally {
      giveBack(bounce);
    }
  }

  /**
   * Writes the buffers to consecutive blocks as one gathering write. With direct I/O the buffers are
   * copied through a pooled bounce buffer and written positionally instead, a bounce buffer's worth
   * at a time.
   */
  @Override
  public void write(long block, ByteBuffer... srcs) throws IOException {
    ensureWritable();
    long at = block;
    long total = 0;
    for (ByteBuffer src : srcs) { // check all before anything moves
      at += BlockDevice.checkTransfer(this, at, src);
      total += src.remaining();
    }
    if (srcs.length == 0) {
      return;
    }
    if (alignment != 0) {
      writeDirectThroughBounce(block, srcs);
      return;
    }
    if (srcs.length == 1) {
      writeFully(block, srcs[0]); // one buffer: a pwrite, without the seek and the lock a gathering write needs
      return;
    }
    gather(block, srcs, total);
  }

  /** Fills bounce buffers from the sources in order and writes each full one positionally. */
  private void writeDirectThroughBounce(long block, ByteBuffer[] srcs) throws IOException {
    ByteBuffer bounce = takeBounce();
    try {
      long at = block;
      bounce.clear();
      for (ByteBuffer src : srcs) {
        while (src.hasRemaining()) {
          int n = Math.min(src.remaining(), bounce.remaining());
          bounce.put(src.slice(src.position(), n));
          src.position(src.position() + n);
          if (!bounce.hasRemaining()) {
            int blocks = bounce.position() / blockSize;
            writeFully(at, bounce.flip());
            at += blocks;
            bounce.clear();
          }
        }
      }
      if (bounce.position() > 0) {
        writeFully(at, bounce.flip());
      }
    } finally {
      giveBack(bounce);
    }
  }

  /** One gathering write at {@code block} under {@code vectorLock} (buffered I/O only). */
  private void gather(long block, ByteBuffer[] srcs, long total) throws IOException {
    long position = block * blockSize;
    vectorLock.lock();
    try {
      channel.position(position);
      long written = 0;
      while (written < total) {
        written += channel.write(srcs);
      }
    } catch (ClosedChannelException e) {
      throw e;
    } catch (IOException e) {
      throw new BlockDeviceException(name, block, "vectored write of " + total / blockSize + " blocks failed", e);
    } finally {
      vectorLock.unlock();
    }
  }

  /**
   * Writes zeros over {@code [block, block + count)}: gathering writes of duplicates of one shared
   * zero buffer (aligned for direct I/O), so nothing is allocated per call. See the class doc for why
   * no hole is punched.
   */
  @Override
  public void zeroOut(long block, long count) throws IOException {
    ensureWritable();
    BlockDevice.checkRange(this, block, count);
    ByteBuffer z = zeroBuffer();
    int perBuffer = z.capacity() / blockSize;
    long at = block;
    long left = count;
    while (left > 0) {
      long run = Math.min(left, (long) perBuffer * (ZERO_RUN_BYTES / z.capacity()));
      if (alignment != 0) {
        int n = (int) Math.min(run, perBuffer);
        writeFully(at, z.duplicate().clear().limit(n * blockSize));
        at += n;
        left -= n;
        continue;
      }
      int buffers = (int) ((run + perBuffer - 1) / perBuffer);
      ByteBuffer[] srcs = new ByteBuffer[buffers];
      long rest = run;
      for (int i = 0; i < buffers; i++) {
        int n = (int) Math.min(rest, perBuffer);
        srcs[i] = z.duplicate().clear().limit(n * blockSize);
        rest -= n;
      }
      gather(at, srcs, run * blockSize);
      at += run;
      left -= run;
    }
  }

  private ByteBuffer zeroBuffer() {
    ByteBuffer z = zeros;
    if (z == null) {
      z = allocateAligned(Math.max(blockSize, 64 * 1024 / blockSize * blockSize)); // zero-filled
      zeros = z; // a racing thread may make its own: both are zeros
    }
    return z;
  }

  /** A bounce buffer of {@code bounceBytes}: an idle one, else a new one. */
  private ByteBuffer takeBounce() {
    ByteBuffer b = idleBounces.poll();
    if (b != null) {
      idleBounceCount.decrementAndGet();
      return b;
    }
    return allocateAligned(bounceBytes);
  }

  /** Returns a bounce buffer to the pool unless it already holds {@value #MAX_IDLE_BOUNCES}. */
  private void giveBack(ByteBuffer b) {
    if (idleBounceCount.incrementAndGet() <= MAX_IDLE_BOUNCES) {
      idleBounces.offer(b);
    } else {
      idleBounceCount.decrementAndGet();
    }
  }

  /** Bounce buffers allocated so far but idle now (for tests: a warm pool allocates nothing). */
  int idleBounceBuffers() {
    return idleBounceCount.get();
  }

  /** {@code fdatasync}: returns when every write completed before the call is on stable storage. */
  @Override
  public void flush() throws IOException {
    ensureWritable();
    try {
      channel.force(false);
    } catch (ClosedChannelException e) {
      throw e;
    } catch (IOException e) {
      throw new BlockDeviceException(name, -1, "flush (fdatasync) failed; unflushed writes may be lost", e);
    }
  }

  /**
   * Takes an exclusive advisory lock on the whole file (fcntl on Linux), so that a second writer —
   * another process, or another open in this JVM — is refused with an IOException naming the file.
   * Released by {@link #close}. (The JDK's file locks belong to the process: closing any other
   * channel this JVM has open on the same file may release it too.)
   *
   * @throws IOException if the device is read-only, or another holder has the file locked
   */
  public void lockExclusive() throws IOException {
    if (readOnly) {
      throw new IOException(name + ": a read-only device cannot take an exclusive lock");
    }
    java.nio.channels.FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (java.nio.channels.OverlappingFileLockException e) {
      throw new IOException(name + ": already open for writing in this process");
    }
    if (lock == null) {
      throw new IOException(name + ": in use by another process (it holds the image's lock)");
    }
  }

  /** Closes the channel without flushing. */
  @Override
  public void close() throws IOException {
    channel.close();
  }

  @Override
  public String toString() {
    return "FileBlockDevice[" + name + ", " + blockCount + " x " + blockSize + (readOnly ? ", read-only" : "")
        + (alignment != 0 ? ", direct" : "") + "]";
  }

  private void readFully(long block, ByteBuffer dst) throws IOException {
    long position = block * blockSize;
    try {
      while (dst.hasRemaining()) {
        int n = channel.read(dst, position);
        if (n < 0) {
          long at = position / blockSize;
          throw new BlockDeviceException(name, at,
              "short read: end of file at byte " + position + " (the file shrank below " + blockCount + " blocks?)");
        }
        position += n;
      }
    } catch (ClosedChannelException | BlockDeviceException e) {
      throw e;
    } catch (IOException e) {
      throw new BlockDeviceException(name, position / blockSize, "read failed", e);
    }
  }

  private void writeFully(long block, ByteBuffer src) throws IOException {
    long position = block * blockSize;
    try {
      while (src.hasRemaining()) {
        position += channel.write(src, position);
      }
    } catch (ClosedChannelException e) {
      throw e;
    } catch (IOException e) {
      throw new BlockDeviceException(name, position / blockSize, "write failed", e);
    }
  }

  private boolean needsBounce(ByteBuffer buffer) {
    return alignment != 0 && !(buffer.isDirect() && buffer.alignmentOffset(buffer.position(), alignment) == 0);
  }

  private void ensureOpen() throws ClosedChannelException {
    if (!channel.isOpen()) {
      throw new ClosedChannelException();
    }
  }

  private void ensureWritable() throws IOException {
    ensureOpen();
    if (readOnly) {
      throw new ReadOnlyDeviceException(name);
    }
  }

  /** Creates a new sparse file of {@code bytes} bytes and makes it and its directory entry durable. */
  private static void createImage(Path path, long bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(1), bytes - 1); // extends the file; everything before is a hole
      ch.force(true);
    }
    Path dir = path.toAbsolutePath().getParent();
    if (dir != null) {
      try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
        d.force(true); // the new directory entry
      }
    }
  }

  private static int directAlignment(Path path) throws IOException {
    try {
      return Math.toIntExact(Math.max(512, Files.getFileStore(path).getBlockSize()));
    } catch (NoSuchFileException e) {
      NoSuchFileException clear = new NoSuchFileException(path.toString(), null, "no such image file or block device");
      clear.initCause(e);
      throw clear;
    }
  }

  private static long sizeInBytes(Path path, FileChannel channel) throws IOException {
    long size = channel.size();
    if (size > 0) {
      return size;
    }
    BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
    if (!attrs.isOther()) {
      return size; // an empty regular file: a device of zero blocks
    }
    OptionalLong sectors = sysfsSectors(path);
    if (sectors.isEmpty()) {
      throw new BlockDeviceException(path.toString(), -1,
          "cannot determine the size of this device: FileChannel.size() is 0 and sysfs has no size for it");
    }
    return Math.multiplyExact(sectors.getAsLong(), 512L);
  }

  /** The size in 512-byte sectors that Linux sysfs reports for a block device, if it can be found. */
  static OptionalLong sysfsSectors(Path device) throws IOException {
    try {
      Object rdev = Files.getAttribute(device, "unix:rdev");
      if (rdev instanceof Long dev) {
        OptionalLong s = readSectors(Path.of("/sys/dev/block", major(dev) + ":" + minor(dev), "size"));
        if (s.isPresent()) {
          return s;
        }
      }
    } catch (UnsupportedOperationException | IllegalArgumentException e) {
      // no unix view on this platform; try by name
    }
    Path real = device.toRealPath(); // /dev/disk/by-id/... and /dev/mapper/x are symlinks to /dev/<name>
    Path fileName = real.getFileName();
    return fileName == null ? OptionalLong.empty() : readSectors(Path.of("/sys/class/block", fileName.toString(), "size"));
  }

  private static OptionalLong readSectors(Path sizeFile) throws IOException {
    if (!Files.exists(sizeFile)) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(Files.readString(sizeFile).strip()));
    } catch (NumberFormatException e) {
      throw new IOException(sizeFile + " does not hold a sector count", e);
    }
  }

  /** The major number of a Linux {@code dev_t} (glibc's encoding: 12 bits low, the rest high). */
  static long major(long dev) {
    return ((dev >>> 8) & 0xfffL) | ((dev >>> 32) & ~0xfffL);
  }

  /** The minor number of a Linux {@code dev_t}. */
  static long minor(long dev) {
    return (dev & 0xffL) | ((dev >>> 12) & 0xffff_ff00L);
  }
}
