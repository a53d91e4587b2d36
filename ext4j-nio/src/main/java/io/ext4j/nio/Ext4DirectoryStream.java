package io.ext4j.nio;

import io.ext4j.fs.DirEntry;
import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The entries of one directory, read from the engine a page at a time as the iteration goes
 * ({@code readdir} with cookies, so a directory changed meanwhile is listed as getdents lists it:
 * every entry that stays is seen once). "." and ".." are left out; the filter is applied to the
 * path of each entry under the directory. One iterator, as {@link DirectoryStream} allows; not
 * thread-safe.
 */
final class Ext4DirectoryStream implements DirectoryStream<Path> {
  private final Ext4NioFileSystem fs;
  private final Ext4Path dir;
  private final long ino;
  private final Filter<? super Path> filter;
  private boolean iterated;
  private boolean closed;

  Ext4DirectoryStream(Ext4NioFileSystem fs, Ext4Path dir, long ino, Filter<? super Path> filter) {
    this.fs = fs;
    this.dir = dir;
    this.ino = ino;
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
            var page = fs.readdir(dir, ino, cookie);
            if (page.isEmpty()) {
              end = true;
              return;
            }
            for (DirEntry e : page) {
              cookie = e.cookie();
              if (e.isDot()) {
                continue;
              }
              Path p = dir.resolve(e.nameString());
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
