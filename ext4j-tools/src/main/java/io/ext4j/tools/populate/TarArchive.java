package io.ext4j.tools.populate;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.CompressorException;
import org.apache.commons.compress.compressors.CompressorStreamFactory;

/**
 * A tar archive (plain, or compressed in any format Commons Compress detects: gzip, xz, bzip2,
 * zstd where available) as a {@link TreeSource}, read with Apache Commons Compress: owners,
 * permissions, times (nanoseconds from PAX headers), devices, hard links and symlinks from the
 * archive itself, so a tree with root-owned files and devices needs no root to be made. Extended
 * attributes from PAX {@code SCHILY.xattr.*} records. Directories the archive does not list are
 * implied (mode 0755, the entry's owner and time).
 */
public final class TarArchive implements TreeSource {
  private final Path archive;

  public TarArchive(Path archive) {
    this.archive = archive;
  }

  @Override
  public String name() {
    return archive.toString();
  }

  /** Whether {@code p} looks like a tar archive by name. */
  public static boolean looksLikeTar(Path p) {
    String n = p.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
    return n.endsWith(".tar") || n.endsWith(".tar.gz") || n.endsWith(".tgz") || n.endsWith(".tar.xz")
        || n.endsWith(".tar.bz2") || n.endsWith(".tar.zst");
  }

  @Override
  public void entries(Sink sink) throws IOException {
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(archive));
         InputStream in = decompressed(raw);
         TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
      Set<String> dirs = new HashSet<>();
      dirs.add("");
      TarArchiveEntry e;
      boolean rootSeen = false;
      while ((e = tar.getNextEntry()) != null) {
        List<byte[]> path = split(e.getName());
        String key = String.join("/", path.stream().map(c -> new String(c, StandardCharsets.UTF_8)).toList());
        Instant mtime = e.getLastModifiedTime() == null ? Instant.EPOCH : e.getLastModifiedTime().toInstant();
        for (int i = 1; i < path.size(); i++) { // parents the archive did not list
          String parent = String.join("/", path.subList(0, i).stream().map(c -> new String(c, StandardCharsets.UTF_8)).toList());
          if (dirs.add(parent)) {
            sink.accept(new TreeEntry(new ArrayList<>(path.subList(0, i)), TreeEntry.Kind.DIR, 0755, e.getLongUserId(),
                e.getLongGroupId(), mtime, mtime, mtime, 0, 0, 0, null, Map.of(), null));
          }
        }
        if (path.isEmpty()) {
          if (rootSeen || !e.isDirectory()) {
            continue;
          }
          rootSeen = true;
        }
        TreeEntry.Kind kind;
        byte[] link = null;
        if (e.isDirectory()) {
          kind = TreeEntry.Kind.DIR;
          if (!dirs.add(key) && !path.isEmpty()) {
            continue; // already implied; the archive's own entry came late
          }
        } else if (e.isSymbolicLink()) {
          kind = TreeEntry.Kind.SYMLINK;
          link = e.getLinkName().getBytes(StandardCharsets.UTF_8);
        } else if (e.isLink()) {
          kind = TreeEntry.Kind.HARDLINK;
          link = HostDirectory.join(split(e.getLinkName()));
        } else if (e.isCharacterDevice()) {
          kind = TreeEntry.Kind.CHAR_DEVICE;
        } else if (e.isBlockDevice()) {
          kind = TreeEntry.Kind.BLOCK_DEVICE;
        } else if (e.isFIFO()) {
          kind = TreeEntry.Kind.FIFO;
        } else {
          kind = TreeEntry.Kind.FILE;
        }
        Map<String, byte[]> xattrs = new LinkedHashMap<>();
        e.getExtraPaxHeaders().forEach((k, v) -> {
          if (k.startsWith("SCHILY.xattr.")) {
            xattrs.put(k.substring("SCHILY.xattr.".length()), v.getBytes(StandardCharsets.ISO_8859_1));
          }
        });
        Instant atime = time(e.getLastAccessTime(), mtime);
        Instant ctime = time(e.getStatusChangeTime(), mtime);
        TarArchiveInputStream current = tar;
        TreeEntry.Contents contents = kind == TreeEntry.Kind.FILE ? () -> new FilterInputStream(current) {
          @Override
          public void close() {
            // the archive stream is the caller's; the next entry starts where this one ends
          }
        } : null;
        sink.accept(new TreeEntry(path, kind, e.getMode() & 07777, e.getLongUserId(), e.getLongGroupId(), atime, mtime,
            ctime, kind == TreeEntry.Kind.FILE ? e.getRealSize() : 0, e.getDevMajor(), e.getDevMinor(), link, xattrs, contents));
      }
    }
  }

  private static Instant time(FileTime t, Instant otherwise) {
    return t == null ? otherwise : t.toInstant();
  }

  private static InputStream decompressed(InputStream raw) throws IOException {
    try {
      String kind = CompressorStreamFactory.detect(raw);
      return new CompressorStreamFactory().createCompressorInputStream(kind, raw);
    } catch (CompressorException notCompressed) {
      return raw; // a plain tar
    }
  }

  /** Path components, without "." components or leading/trailing slashes. */
  static List<byte[]> split(String name) {
    List<byte[]> out = new ArrayList<>();
    for (String c : name.split("/", -1)) {
      if (!c.isEmpty() && !c.equals(".")) {
        out.add(c.getBytes(StandardCharsets.UTF_8));
      }
    }
    return out;
  }
}
