package io.ext4j.nio;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.DirEntry;
import io.ext4j.fs.OpenFile;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.Watchable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;

/**
 * A polling {@link WatchService} (an image has no inotify): a daemon thread lists every registered
 * directory each {@link #INTERVAL} (or the interval a {@code SensitivityWatchEventModifier} asks
 * for) and compares it with the last listing — a new name is ENTRY_CREATE, a gone one
 * ENTRY_DELETE, a name whose inode's size, mtime or ctime changed ENTRY_MODIFY (a name now on
 * another inode: DELETE then CREATE). Changes between two polls that cancel out are not seen, as
 * with any polling watcher (the JDK's on macOS). More than {@link #MAX_EVENTS} pending events on a
 * key collapse into OVERFLOW.
 *
 * <h2>Threads</h2>
 * Keys are changed by the poll thread and by their users, under each key's monitor; the queue of
 * signalled keys is a blocking deque. {@link #close} stops the thread and cancels every key.
 */
final class Ext4WatchService implements WatchService {
  /** How often directories are listed by default. */
  static final Duration INTERVAL = Duration.ofMillis(200);
  static final int MAX_EVENTS = 512;

  private final Ext4NioFileSystem fs;
  private final LinkedBlockingDeque<Key> signalled = new LinkedBlockingDeque<>();
  private final List<Key> keys = new CopyOnWriteArrayList<>();
  private final Thread poller;
  private volatile boolean closed; // written by close, read by every method and the poll thread

  Ext4WatchService(Ext4NioFileSystem fs) {
    this.fs = fs;
    this.poller = Thread.ofPlatform().daemon().name("ext4j-watch-" + fs.image().getFileName()).start(this::pollLoop);
  }

  /** One registered directory. */
  final class Key implements WatchKey {
    private final Ext4Path dir;
    private volatile Set<WatchEvent.Kind<?>> kinds; // replaced by a new registration
    private final long intervalNanos;
    @GuardedBy("this") private Map<Ext4Path, long[]> last; // name -> {ino, size, mtime ns, ctime ns}
    @GuardedBy("this") private List<WatchEvent<?>> events = new ArrayList<>();
    @GuardedBy("this") private boolean ready = true; // not signalled
    private volatile boolean valid = true;
    private long nextPoll; // poll thread only

    Key(Ext4Path dir, Set<WatchEvent.Kind<?>> kinds, Duration interval) throws IOException {
      this.dir = dir;
      this.kinds = kinds;
      this.intervalNanos = interval.toNanos();
      this.last = snapshot();
    }

    private Map<Ext4Path, long[]> snapshot() throws IOException {
      Map<Ext4Path, long[]> m = new HashMap<>();
      try (OpenFile d = fs.openDirectory(null, dir, dir)) {
        long cookie = 0;
        while (true) {
          List<DirEntry> page = fs.readdir(d, dir, cookie);
          if (page.isEmpty()) {
            return m;
          }
          for (DirEntry e : page) {
            cookie = e.cookie();
            if (e.isDot()) {
              continue;
            }
            Ext4Path name = Ext4Path.ofName(fs, e.name());
            Attributes a = fs.statIfExists(d, name, dir, LinkOption.NOFOLLOW_LINKS);
            if (a != null) { // null: removed between the listing and the stat, seen at the next poll
              m.put(name, new long[] {a.ino(), a.size(), nanos(a.mtime()), nanos(a.ctime())});
            }
          }
        }
      }
    }

    private static long nanos(java.time.Instant t) {
      return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    /** Lists the directory and queues what changed; poll thread only. */
    void poll() {
      Map<Ext4Path, long[]> now;
      try {
        now = snapshot();
      } catch (IOException | RuntimeException e) {
        cancel(); // the directory went away, or the file system closed
        signal();
        return;
      }
      List<WatchEvent<?>> found = new ArrayList<>();
      Set<WatchEvent.Kind<?>> k = kinds;
      Map<Ext4Path, long[]> before;
      synchronized (this) {
        before = last;
        last = now;
      }
      for (var e : before.entrySet()) {
        long[] n = now.get(e.getKey());
        if (n == null || n[0] != e.getValue()[0]) {
          add(found, k, StandardWatchEventKinds.ENTRY_DELETE, e.getKey());
        } else if (!java.util.Arrays.equals(n, e.getValue())) {
          add(found, k, StandardWatchEventKinds.ENTRY_MODIFY, e.getKey());
        }
      }
      for (var e : now.entrySet()) {
        long[] b = before.get(e.getKey());
        if (b == null || b[0] != e.getValue()[0]) {
          add(found, k, StandardWatchEventKinds.ENTRY_CREATE, e.getKey());
        }
      }
      if (!found.isEmpty()) {
        synchronized (this) {
          events.addAll(found);
          if (events.size() > MAX_EVENTS) {
            events = new ArrayList<>(List.of(new Event<>(StandardWatchEventKinds.OVERFLOW, null, events.size())));
          }
        }
        signal();
      }
    }

    private void add(List<WatchEvent<?>> out, Set<WatchEvent.Kind<?>> k, WatchEvent.Kind<Path> kind, Ext4Path name) {
      if (k.contains(kind)) {
        out.add(new Event<>(kind, name, 1));
      }
    }

    private void signal() {
      synchronized (this) {
        if (!ready) {
          return;
        }
        ready = false;
      }
      signalled.add(this);
    }

    @Override
    public boolean isValid() {
      return valid && !closed;
    }

    @Override
    public synchronized List<WatchEvent<?>> pollEvents() {
      List<WatchEvent<?>> out = events;
      events = new ArrayList<>();
      return out;
    }

    @Override
    public boolean reset() {
      boolean again;
      synchronized (this) {
        if (!isValid()) {
          return false;
        }
        if (ready) {
          return true;
        }
        ready = true;
        again = !events.isEmpty();
      }
      if (again) {
        signal();
      }
      return true;
    }

    @Override
    public void cancel() {
      valid = false;
      keys.remove(this);
    }

    @Override
    public Watchable watchable() {
      return dir;
    }
  }

  private record Event<T>(WatchEvent.Kind<T> kind, T context, int count) implements WatchEvent<T> {}

  /** Whether this service is of {@code fs}. */
  boolean watches(Ext4NioFileSystem f) {
    return f == fs;
  }

  /** Registers {@code dir} (a new registration of a watched directory replaces its kinds). */
  WatchKey register(Ext4Path dir, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) throws IOException {
    if (closed) {
      throw new ClosedWatchServiceException();
    }
    Duration interval = INTERVAL;
    for (WatchEvent.Modifier m : modifiers) {
      if (m.getClass().getName().equals("com.sun.nio.file.SensitivityWatchEventModifier")) {
        try {
          int seconds = (int) m.getClass().getMethod("sensitivityValueInSeconds").invoke(m);
          interval = Duration.ofSeconds(seconds);
        } catch (ReflectiveOperationException e) {
          throw new UnsupportedOperationException("watch modifier " + m, e);
        }
      } else {
        throw new UnsupportedOperationException("watch modifier " + m);
      }
    }
    Set<WatchEvent.Kind<?>> kinds = new java.util.HashSet<>();
    for (WatchEvent.Kind<?> k : events) {
      if (k != StandardWatchEventKinds.ENTRY_CREATE && k != StandardWatchEventKinds.ENTRY_DELETE
          && k != StandardWatchEventKinds.ENTRY_MODIFY && k != StandardWatchEventKinds.OVERFLOW) {
        throw new UnsupportedOperationException("watch event kind " + k.name());
      }
      kinds.add(k);
    }
    Ext4Path abs = dir.toAbsolutePath().normalize();
    for (Key k : keys) {
      if (k.dir.equals(abs)) {
        k.kinds = kinds;
        return k;
      }
    }
    fs.stat(abs, LinkOption.NOFOLLOW_LINKS);
    Key k = new Key(abs, kinds, interval);
    keys.add(k);
    return k;
  }

  private void pollLoop() {
    while (!closed) {
      long now = System.nanoTime();
      long sleep = INTERVAL.toNanos();
      for (Key k : keys) {
        if (now - k.nextPoll >= 0) {
          k.poll();
          k.nextPoll = now + k.intervalNanos;
        }
        sleep = Math.min(sleep, Math.max(1_000_000, k.nextPoll - now));
      }
      try {
        TimeUnit.NANOSECONDS.sleep(sleep); // a polling service's tick, not a wait for a result
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private WatchKey checked(Key k) {
    if (closed) {
      throw new ClosedWatchServiceException();
    }
    return k;
  }

  @Override
  public WatchKey poll() {
    if (closed) {
      throw new ClosedWatchServiceException();
    }
    Key k = signalled.poll();
    return k == null ? null : checked(k);
  }

  @Override
  public WatchKey poll(long timeout, TimeUnit unit) throws InterruptedException {
    if (closed) {
      throw new ClosedWatchServiceException();
    }
    Key k = signalled.poll(timeout, unit);
    return k == null ? null : checked(k);
  }

  @Override
  public WatchKey take() throws InterruptedException {
    while (true) {
      if (closed) {
        throw new ClosedWatchServiceException();
      }
      Key k = signalled.poll(100, TimeUnit.MILLISECONDS); // a close from another thread ends the wait
      if (k != null) {
        return checked(k);
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    fs.untrack(this);
    poller.interrupt();
    for (Key k : keys) {
      k.cancel();
    }
  }
}
