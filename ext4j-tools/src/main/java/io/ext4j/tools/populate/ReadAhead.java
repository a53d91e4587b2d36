package io.ext4j.tools.populate;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Another {@link TreeSource} walked on a thread of its own, a bounded distance ahead of the one that
 * copies: while the image is being written, the next entries are already listed and stat'ed, and
 * the contents of files up to {@link #SMALL_FILE} bytes already read, so the host's side of a copy
 * (about a quarter of {@code mkfs -d}'s time on a tree of small files) overlaps the engine's.
 * Entries reach the sink in the source's order, on the calling thread.
 *
 * <p>Only for sources whose {@link TreeEntry.Contents} can still be opened after their entry was
 * delivered ({@link HostDirectory}; not {@link TarArchive}, whose contents are the archive's stream
 * at that entry). Larger files keep their source's contents, opened when the sink asks. A failure
 * to read a file ahead is thrown where the sink opens its contents, as without read-ahead; a
 * failure of the walk itself is thrown from {@link #entries} after the entries before it.
 *
 * <h2>Locks and memory</h2>
 * {@code lock} guards the queue, the bytes it holds, and the walker's end state. The queue holds at
 * most {@link #MAX_QUEUED} entries and {@link #BUDGET} bytes of contents read ahead (one larger
 * item when it is alone). When the sink fails, the walker is stopped and waited for before
 * {@link #entries} throws.
 */
public final class ReadAhead implements TreeSource {
  /** Files up to this size are read ahead whole. */
  public static final int SMALL_FILE = 256 << 10;
  /** At most this many bytes of contents read ahead and not yet copied. */
  public static final long BUDGET = 4L << 20;
  /** At most this many entries listed ahead. */
  public static final int MAX_QUEUED = 1024;

  private final TreeSource source;

  public ReadAhead(TreeSource source) {
    this.source = source;
  }

  @Override
  public String name() {
    return source.name();
  }

  @Override
  public void entries(Sink sink) throws IOException {
    Pipe pipe = new Pipe();
    Thread walker = Thread.ofPlatform().daemon().name("ext4j-read-ahead").start(() -> pipe.fill(source));
    try {
      for (TreeEntry e = pipe.take(); e != null; e = pipe.take()) {
        sink.accept(e);
      }
    } catch (IOException | RuntimeException | Error e) {
      pipe.cancel();
      joinQuietly(walker);
      throw e;
    }
    joinQuietly(walker);
  }

  private static void joinQuietly(Thread walker) {
    boolean interrupted = false;
    while (true) {
      try {
        walker.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true; // the walker ends on its own once cancelled or done; keep the interrupt for the caller
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The entry with its contents read, when it is a small file (else as it is), and the bytes held. */
  private static Held readAhead(TreeEntry e) {
    if (e.contents() == null || e.size() > SMALL_FILE) {
      return new Held(e, 0);
    }
    try (InputStream in = e.contents().open()) {
      byte[] bytes = in.readNBytes(SMALL_FILE + 1);
      if (bytes.length > SMALL_FILE) {
        return new Held(e, 0); // it grew since its stat: read it when copying, as a large file
      }
      return new Held(withContents(e, () -> new ByteArrayInputStream(bytes)), bytes.length);
    } catch (IOException failure) {
      return new Held(withContents(e, () -> {
        throw failure;
      }), 0);
    }
  }

  private static TreeEntry withContents(TreeEntry e, TreeEntry.Contents c) {
    return new TreeEntry(e.path(), e.kind(), e.perms(), e.uid(), e.gid(), e.atime(), e.mtime(), e.ctime(), e.size(), e.major(),
        e.minor(), e.link(), e.xattrs(), c);
  }

  /** An entry and how many bytes of its contents it holds in memory. */
  private record Held(TreeEntry entry, long bytes) {}

  /** The bounded queue between the walker and the copier. */
  private static final class Pipe {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Held> queue = new ArrayDeque<>(); // lock
    private long bytes; // lock: contents held by the queue
    private boolean done; // lock: the walk ended (see failure)
    private Throwable failure; // lock: why the walk ended early, or null
    private boolean cancelled; // lock: the copier gave up
    private boolean walkerWaits; // lock: the walker waits for room
    private boolean copierWaits; // lock: the copier waits for an entry

    /** The walker: runs the source into the queue, then marks the end. */
    void fill(TreeSource source) {
      Throwable failed = null;
      try {
        source.entries(e -> put(readAhead(e)));
      } catch (Cancelled c) {
        // the copier stopped first
      } catch (Throwable t) {
        failed = t;
      }
      lock.lock();
      try {
        done = true;
        failure = failed;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }

    private void put(Held h) throws IOException {
      lock.lock();
      try {
        while (!cancelled && !queue.isEmpty() && (queue.size() >= MAX_QUEUED || bytes + h.bytes() > BUDGET)) {
          walkerWaits = true;
          changed.awaitUninterruptibly(); // only cancel or the copier taking an entry ends this wait
          walkerWaits = false;
        }
        if (cancelled) {
          throw new Cancelled();
        }
        queue.add(h);
        bytes += h.bytes();
        if (copierWaits) {
          changed.signalAll(); // a signal per entry, waited for or not, cost more than reading the tree
        }
      } finally {
        lock.unlock();
      }
    }

    /** The next entry, null after the last; throws what ended the walk early. */
    TreeEntry take() throws IOException {
      lock.lock();
      try {
        while (queue.isEmpty() && !done) {
          copierWaits = true;
          try {
            changed.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading the tree to copy");
          } finally {
            copierWaits = false;
          }
        }
        Held h = queue.poll();
        if (h != null) {
          bytes -= h.bytes();
          if (walkerWaits) {
            changed.signalAll();
          }
          return h.entry();
        }
        if (failure != null) {
          throw rethrowable(failure);
        }
        return null;
      } finally {
        lock.unlock();
      }
    }

    void cancel() {
      lock.lock();
      try {
        cancelled = true;
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    }

    private static IOException rethrowable(Throwable t) {
      if (t instanceof IOException io) {
        return io;
      }
      if (t instanceof UncheckedIOException u) {
        return u.getCause();
      }
      if (t instanceof RuntimeException r) {
        throw r;
      }
      if (t instanceof Error err) {
        throw err;
      }
      return new IOException(t);
    }
  }

  /** Thrown inside the walker to end it once the copier has stopped. */
  private static final class Cancelled extends IOException {
    Cancelled() {
      super("the copy stopped", null);
    }
  }
}
