package io.ext4j.fs.power;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Errno;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Optional;

/**
 * One thing {@link PowerCutWriter} acknowledged durable, as the line it prints after the fsync or
 * syncfs backing it returned, and how to check it on a recovered image. Every fact is permanent:
 * the writer never touches a claimed path again (sealed files and directories are never changed,
 * renamed or removed; a removed name is never used again), so every fact ever printed must hold
 * after the crash, whatever happened later.
 *
 * <p>Line grammar (paths are absolute, their names have no spaces):
 * <pre>
 *   DIR  PATH INO              a directory, durable with its name
 *   FILE PATH INO SIZE SHA256  a regular file: its name, and its whole content (hex SHA-256)
 *   NAME PATH INO              a name (its content not claimed)
 *   GONE PATH                  a removed name: it must not resolve
 * </pre>
 */
sealed interface Fact {
  /** The line the writer prints. */
  String line();

  /**
   * Checks this fact on {@code fs}.
   *
   * @throws AssertionError naming the fact and what was found instead
   */
  void check(Ext4FileSystem fs) throws IOException;

  record Dir(String path, long ino) implements Fact {
    @Override
    public String line() {
      return "DIR " + path + " " + ino;
    }

    @Override
    public void check(Ext4FileSystem fs) throws IOException {
      Attributes a = resolved(fs, this, path);
      expect(a.ino() == ino && a.isDirectory(), this, "found inode " + a.ino() + " of mode 0" + Integer.toOctalString(a.mode()));
    }
  }

  record File(String path, long ino, long size, String sha256) implements Fact {
    @Override
    public String line() {
      return "FILE " + path + " " + ino + " " + size + " " + sha256;
    }

    @Override
    public void check(Ext4FileSystem fs) throws IOException {
      Attributes a = resolved(fs, this, path);
      expect(a.ino() == ino && a.isRegularFile(), this, "found inode " + a.ino() + " of mode 0" + Integer.toOctalString(a.mode()));
      expect(a.size() == size, this, "found size " + a.size());
      byte[] content = readAll(fs, ino, size);
      String got = Fact.sha256(content);
      expect(got.equals(sha256), this, "found content with SHA-256 " + got);
    }
  }

  record Name(String path, long ino) implements Fact {
    @Override
    public String line() {
      return "NAME " + path + " " + ino;
    }

    @Override
    public void check(Ext4FileSystem fs) throws IOException {
      Attributes a = resolved(fs, this, path);
      expect(a.ino() == ino, this, "found inode " + a.ino());
    }
  }

  record Gone(String path) implements Fact {
    @Override
    public String line() {
      return "GONE " + path;
    }

    @Override
    public void check(Ext4FileSystem fs) throws IOException {
      Optional<Attributes> a = resolve(fs, path);
      expect(a.isEmpty(), this, "it resolves to inode " + a.map(Attributes::ino).orElse(0L));
    }
  }

  /** Parses a line {@link #line()} printed. */
  static Fact parse(String line) {
    String[] w = line.split(" ", 0);
    try {
      return switch (w[0]) {
        case "DIR" -> new Dir(w[1], Long.parseLong(w[2]));
        case "FILE" -> new File(w[1], Long.parseLong(w[2]), Long.parseLong(w[3]), w[4]);
        case "NAME" -> new Name(w[1], Long.parseLong(w[2]));
        case "GONE" -> new Gone(w[1]);
        default -> throw new IllegalArgumentException("unknown kind");
      };
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a fact line: '" + line + "'", e);
    }
  }

  /** Resolves {@code path} from the root component by component; empty when some component does not exist. */
  static Optional<Attributes> resolve(Ext4FileSystem fs, String path) throws IOException {
    Attributes at = fs.getattr(Ext4FileSystem.ROOT);
    for (String part : path.substring(1).split("/", 0)) {
      try {
        at = fs.lookup(at.ino(), part.getBytes(StandardCharsets.UTF_8));
      } catch (Ext4Exception e) {
        if (e.errno() == Errno.ENOENT) {
          return Optional.empty();
        }
        throw e;
      }
    }
    return Optional.of(at);
  }

  private static Attributes resolved(Ext4FileSystem fs, Fact f, String path) throws IOException {
    Optional<Attributes> a = resolve(fs, path);
    expect(a.isPresent(), f, "the path does not resolve");
    return a.orElseThrow();
  }

  private static void expect(boolean ok, Fact f, String found) {
    if (!ok) {
      throw new AssertionError("acknowledged '" + f.line() + "', but " + found);
    }
  }

  /** The whole content of inode {@code ino}, which must end at {@code size}. */
  private static byte[] readAll(Ext4FileSystem fs, long ino, long size) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(Math.toIntExact(size));
    try (OpenFile f = fs.open(ino, EnumSet.of(OpenFlag.READ))) {
      while (buf.hasRemaining()) {
        if (f.read(buf.position(), buf) < 0) {
          break; // short: the size check already failed or the hash will
        }
      }
    }
    return Arrays.copyOf(buf.array(), buf.position());
  }

  static String sha256(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
