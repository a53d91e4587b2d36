package io.ext4j.nio;

import io.ext4j.fs.DirEntry;
import io.ext4j.fs.OpenFile;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The entries of one open directory, read from the engine a page at a time as the iteration goes
 * ({@code readdir} with cookies, so a directory changed meanwhile is listed as getdents lists it:
 * every entry that stays is seen once). "." and ".." are left out; each entry's path is the
 * directory's path and the entry's name, its bytes as the directory holds them (a name that is not
 * UTF-8 stays what it is); the filter is applied to that path. One iterator, as
 * {@link DirectoryStream} allows; not thread-safe. Closing it does not close the directory (its
 * owner, {@link Ext4SecureDirectoryStream}, does).
 */
final class Ext4DirectoryStream implements DirectoryStream<Path> {
  private final Ext4NioFileSystem fs;
  private final Ext4Path dir;
  private final OpenFile open;
  private final Filter<? super Path> filter;
  private boolean iterated;
  private volatile boolean closed; // set by close, from any thread

  Ext4DirectoryStream(Ext4NioFileSystem fs, Ext4Path dir, OpenFile open, Filter<? super Path> filter) {
    this.fs = fs;
    this.dir = dir;
    this.open = open;
    this.filter = filter;
  }

  @Override
  public Iterator<Path> iterator() {
    if (closed) {
      throw new IllegalStateException("directory stream of " + dir + " is closed");
    }
    if (iterated) {
      throw new IllegalStateException("a directory stream has one iterator");
    }
    iterated = true;
    return new Iterator<>() {
      private final ArrayDeque<Path> ready = new ArrayDeque<>();
      private long cookie;
      private boolean end;

      private void fill() {
        while (ready.isEmpty() && !end && !closed) {
          try {
            var page = fs.readdir(open, dir, cookie);
            if (page.isEmpty()) {
              end = true;
              return;
            }
            for (DirEntry e : page) {
              cookie = e.cookie();
              if (e.isDot()) {
                continue;
              }
              Path p = dir.resolve(Ext4Path.ofName(fs, e.name()));
              if (filter == null || filter.accept(p)) {
                ready.add(p);
              }
            }
          } catch (IOException e) {
            throw new DirectoryIteratorException(e);
          }
        }
      }

      @Override
      public boolean hasNext() {
        fill();
        return !ready.isEmpty();
      }

      @Override
      public Path next() {
        fill();
        if (ready.isEmpty()) {
          throw new NoSuchElementException();
        }
        return ready.removeFirst();
      }
    };
  }

  @Override
  public void close() {
    closed = true;
  }
}
