package io.ext4j.tools.populate;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One entry of a tree to copy into an image: a path relative to the tree's root (components as
 * bytes), what it is, its metadata, and for a regular file a way to read its contents.
 *
 * @param path the components below the root (empty for the root itself)
 * @param kind what it is
 * @param perms permission bits (07777)
 * @param uid owner
 * @param gid group
 * @param atime access time
 * @param mtime modification time
 * @param ctime change time
 * @param size bytes of a regular file
 * @param major device major number (devices)
 * @param minor device minor number (devices)
 * @param link a symlink's target, or for {@link Kind#HARDLINK} the path of the earlier entry it names
 * @param xattrs extended attributes by full name
 * @param contents opens a regular file's bytes (null for the others)
 */
public record TreeEntry(List<byte[]> path, Kind kind, int perms, long uid, long gid, Instant atime, Instant mtime,
    Instant ctime, long size, int major, int minor, byte[] link, Map<String, byte[]> xattrs, Contents contents) {

  public enum Kind { FILE, DIR, SYMLINK, HARDLINK, FIFO, SOCKET, CHAR_DEVICE, BLOCK_DEVICE }

  /** A regular file's bytes. */
  @FunctionalInterface
  public interface Contents {
    /** The bytes from the start; {@code skip} on the stream is a seek (a file's stream is). */
    InputStream open() throws IOException;

    /**
     * Where the file has data (SEEK_DATA / SEEK_HOLE), in order; what lies between is a hole and is
     * not read. Null when the source cannot tell (all of it is read).
     */
    default List<DataRange> dataRanges() throws IOException {
      return null;
    }
  }

  /** Bytes [offset, end) of a file that hold data. */
  public record DataRange(long offset, long end) {
    public DataRange {
      if (offset < 0 || end < offset) {
        throw new IllegalArgumentException("a data range is [offset, end) with 0 <= offset <= end, not [" + offset + ", " + end + ")");
      }
    }
  }

  /** The path as a readable string ("/a/b"). */
  public String display() {
    return display(path);
  }

  /** A tree path's components as a readable string ("/a/b"; "/" for the root). */
  public static String display(List<byte[]> path) {
    StringBuilder s = new StringBuilder();
    for (byte[] c : path) {
      s.append('/').append(new String(c, java.nio.charset.StandardCharsets.UTF_8));
    }
    return s.isEmpty() ? "/" : s.toString();
  }
}
