package io.ext4j.cli;

import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4FileSystem;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/** A directory's entries read through {@link Ext4FileSystem#readdir} to the end, page by page. */
final class DirListing {
  /** Entries asked for per readdir call. */
  static final int PAGE = 512;

  /** Byte order of names, as {@code LC_ALL=C ls} sorts. */
  static final Comparator<DirEntry> BY_NAME = (a, b) -> Arrays.compareUnsigned(a.name(), b.name());

  private DirListing() {}

  /** Every entry of directory {@code dir} ("." and ".." only with {@code dots}), sorted by name. */
  static List<DirEntry> sorted(Ext4FileSystem fs, long dir, boolean dots) throws IOException {
    List<DirEntry> all = new ArrayList<>();
    long cookie = 0;
    while (true) {
      List<DirEntry> page = fs.readdir(dir, cookie, PAGE);
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
        throw new CliException(fs.name() + ": directory inode " + dir + ": readdir did not advance past cookie " + cookie);
      }
      cookie = next;
    }
    all.sort(BY_NAME);
    return all;
  }

  /** {@code dir + "/" + name}, without doubling a slash. */
  static String join(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }
}
