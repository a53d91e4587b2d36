package io.ext4j.cli;

import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.vfs.Vfs;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/** An open directory's entries read through {@link Vfs#readdir} to the end, page by page. */
final class DirListing {
  /** Entries asked for per readdir call. */
  static final int PAGE = 512;

  /** Byte order of names, as {@code LC_ALL=C ls} sorts. */
  static final Comparator<DirEntry> BY_NAME = (a, b) -> Arrays.compareUnsigned(a.name(), b.name());

  private DirListing() {}

  /** Every entry of the open directory {@code dir} ("." and ".." only with {@code dots}), sorted by name. */
  static List<DirEntry> sorted(Vfs vfs, OpenFile dir, boolean dots) throws IOException {
    List<DirEntry> all = new ArrayList<>();
    long cookie = 0;
    while (true) {
      List<DirEntry> page = vfs.readdir(dir, cookie, PAGE);
      if (page.isEmpty()) {
        break;
      }
      for (DirEntry e : page) {
        if (dots || !e.isDot()) {
          all.add(e);
        }
      }
      long next = page.getLast().cookie();
      if (next == cookie) {
        throw new Ext4Exception(Errno.EFSCORRUPTED, dir.ino(), null, "readdir did not advance past cookie " + cookie);
      }
      cookie = next;
    }
    all.sort(BY_NAME);
    return all;
  }

  /** Opens the directory {@code name} in {@code dir} (null: {@code name} is a path from the root) for listing, never through a symbolic link. */
  static OpenFile open(Vfs vfs, OpenFile dir, byte[] name) throws IOException {
    return vfs.openat(dir, name, java.util.EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY, OpenFlag.NOFOLLOW), 0,
        ImageTarget.credentials());
  }

  /** {@code dir + "/" + name}, without doubling a slash. */
  static String join(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }
}
