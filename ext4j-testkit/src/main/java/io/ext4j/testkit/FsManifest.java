package io.ext4j.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a filesystem tree holds, one line per name: the format {@code scripts/fs-manifest.py} writes
 * from a kernel mount, and that tests write from ext4j's view of the same tree, so that the two
 * compare as data.
 *
 * <h2>Format</h2>
 * Lines starting with {@code #} are comments, except {@code # statfs k=v ...} (statvfs's numbers:
 * bsize blocks bfree bavail files ffree). Every other line is {@code PATH k=v k=v ...}: PATH is
 * {@code /} for the root and {@code /a/b} below it, lines sorted by the path's bytes (unsigned).
 * The keys, in this order: {@code type} (f d l p s c b), {@code mode} (permission bits, 4 octal
 * digits), {@code uid}, {@code gid}, {@code size}, {@code nlink}, {@code ino}, {@code blocks}
 * (512-byte units), {@code atime}, {@code mtime}, {@code ctime} ({@code SEC.NNNNNNNNN}, SEC signed,
 * the nanoseconds always 0..999999999), {@code rdev} ({@code MAJ:MIN}, c and b only), {@code target}
 * (l only), {@code sha256} (f of at most {@link #BIG} bytes) or {@code data} (larger f:
 * {@code OFF:LEN:SHA256} per data segment, comma-separated, {@code -} for none; the rest reads as
 * zeros), then {@code xattr.NAME} per extended attribute in name order (value in hex, {@code -} if
 * empty). PATH, target values and NAME escape every byte outside 0x21..0x7e, and {@code \} and
 * {@code =}, as {@code \xNN} ({@link #escape}).
 *
 * <p>Immutable. Paths are kept escaped; {@link #unescape} gives their bytes.
 */
public final class FsManifest {
  /** Files larger than this have {@code data} segments instead of one {@code sha256}. */
  public static final long BIG = 64L << 20;

  private static final String STATFS = "# statfs";
  private static final Comparator<String> BY_BYTES = (a, b) -> Arrays.compareUnsigned(unescape(a), unescape(b));

  private final Map<String, String> statfs; // insertion order, unmodifiable
  private final NavigableMap<String, Map<String, String>> entries; // by path bytes; values unmodifiable

  private FsManifest(Map<String, String> statfs, NavigableMap<String, Map<String, String>> entries) {
    this.statfs = statfs;
    this.entries = entries;
  }

  /** Reads a manifest (UTF-8 text; every non-ASCII byte of a name is escaped anyway). */
  public static FsManifest read(InputStream in) throws IOException {
    BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    List<String> lines = new ArrayList<>();
    for (String l = r.readLine(); l != null; l = r.readLine()) {
      lines.add(l);
    }
    return parse(lines);
  }

  /**
   * Parses manifest lines.
   *
   * @throws IllegalArgumentException naming the line that is malformed or repeats a path
   */
  public static FsManifest parse(List<String> lines) {
    Builder b = builder();
    int n = 0;
    for (String line : lines) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith(STATFS + " ")) {
        b.statfs(fields(line.substring(STATFS.length() + 1), n));
      } else if (!line.startsWith("#")) {
        int sp = line.indexOf(' ');
        String path = sp < 0 ? line : line.substring(0, sp);
        b.add(path, sp < 0 ? Map.of() : fields(line.substring(sp + 1), n));
      }
    }
    return b.build();
  }

  private static Map<String, String> fields(String text, int line) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String kv : text.split(" ", 0)) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("manifest line " + line + ": '" + kv + "' is not key=value");
      }
      if (out.put(kv.substring(0, eq), kv.substring(eq + 1)) != null) {
        throw new IllegalArgumentException("manifest line " + line + ": key " + kv.substring(0, eq) + " twice");
      }
    }
    return out;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link FsManifest}; not thread-safe. */
  public static final class Builder {
    private Map<String, String> statfs = Map.of();
    private final TreeMap<String, Map<String, String>> entries = new TreeMap<>(BY_BYTES);

    private Builder() {}

    /** Sets the statfs numbers (bsize blocks bfree bavail files ffree, or a subset). */
    public Builder statfs(Map<String, String> numbers) {
      statfs = Collections.unmodifiableMap(new LinkedHashMap<>(numbers));
      return this;
    }

    /** Adds the line of {@code path} (escaped) with its fields in the order given. */
    public Builder add(String path, Map<String, String> fields) {
      if (!path.startsWith("/")) {
        throw new IllegalArgumentException("manifest path '" + path + "' does not start with /");
      }
      if (entries.put(path, Collections.unmodifiableMap(new LinkedHashMap<>(fields))) != null) {
        throw new IllegalArgumentException("manifest path " + path + " twice");
      }
      return this;
    }

    public FsManifest build() {
      return new FsManifest(statfs, new TreeMap<>(entries));
    }
  }

  /** The statfs numbers, empty if the manifest has none. */
  public Map<String, String> statfs() {
    return statfs;
  }

  /** Every path (escaped), sorted by their bytes. */
  public Set<String> paths() {
    return Collections.unmodifiableSet(entries.keySet());
  }

  /** The fields of {@code path} (escaped), or null if the manifest has no such line. */
  public Map<String, String> entry(String path) {
    return entries.get(path);
  }

  /** The field {@code key} of {@code path}, or null. */
  public String field(String path, String key) {
    Map<String, String> e = entries.get(path);
    return e == null ? null : e.get(key);
  }

  public int size() {
    return entries.size();
  }

  /** The manifest as text lines (statfs first, if any). */
  public List<String> lines() {
    List<String> out = new ArrayList<>(entries.size() + 1);
    if (!statfs.isEmpty()) {
      out.add(STATFS + " " + join(statfs));
    }
    entries.forEach((p, f) -> out.add(f.isEmpty() ? p : p + " " + join(f)));
    return out;
  }

  private static String join(Map<String, String> f) {
    StringBuilder sb = new StringBuilder();
    f.forEach((k, v) -> sb.append(sb.isEmpty() ? "" : " ").append(k).append('=').append(v));
    return sb.toString();
  }

  /**
   * This manifest without the fields named (in every line); a name ending in {@code *} drops every
   * field starting with what precedes it ({@code "xattr.*"}); {@code "statfs"} drops the statfs
   * numbers, {@code "statfs.K"} only the number K.
   */
  public FsManifest without(String... keys) {
    Set<String> drop = new TreeSet<>(List.of(keys));
    Map<String, String> sf = new LinkedHashMap<>(statfs);
    if (drop.contains("statfs")) {
      sf.clear();
    }
    sf.keySet().removeIf(k -> drop.contains("statfs." + k));
    Builder b = builder().statfs(sf);
    entries.forEach((p, f) -> {
      Map<String, String> kept = new LinkedHashMap<>(f);
      kept.keySet().removeIf(k -> dropped(drop, k));
      b.add(p, kept);
    });
    return b.build();
  }

  private static boolean dropped(Set<String> drop, String key) {
    if (drop.contains(key)) {
      return true;
    }
    for (String d : drop) {
      if (d.endsWith("*") && key.startsWith(d.substring(0, d.length() - 1))) {
        return true;
      }
    }
    return false;
  }

  /** This manifest without the fields named in the line of {@code path} (escaped) only. */
  public FsManifest withoutAt(String path, String... keys) {
    Builder b = builder().statfs(statfs);
    Set<String> drop = new TreeSet<>(List.of(keys));
    entries.forEach((p, f) -> {
      Map<String, String> kept = new LinkedHashMap<>(f);
      if (p.equals(path)) {
        kept.keySet().removeIf(k -> dropped(drop, k));
      }
      b.add(p, kept);
    });
    return b.build();
  }

  /** This manifest with only the paths {@code keep} accepts (escaped). */
  public FsManifest onlyPaths(java.util.function.Predicate<String> keep) {
    Builder b = builder().statfs(statfs);
    entries.forEach((p, f) -> {
      if (keep.test(p)) {
        b.add(p, f);
      }
    });
    return b.build();
  }

  /**
   * How {@code actual} differs from this manifest (the expected one), at most {@code limit}
   * descriptions and then a count of the rest: {@code missing PATH}, {@code unexpected PATH},
   * {@code PATH: KEY expected X, actual Y}, {@code statfs: KEY expected X, actual Y}. Empty when
   * they are equal.
   */
  public List<String> differences(FsManifest actual, int limit) {
    List<String> out = new ArrayList<>();
    int[] more = {0};
    java.util.function.Consumer<String> say = s -> {
      if (out.size() < limit) {
        out.add(s);
      } else {
        more[0]++;
      }
    };
    compare("statfs", statfs, actual.statfs, say);
    TreeSet<String> all = new TreeSet<>(BY_BYTES);
    all.addAll(entries.keySet());
    all.addAll(actual.entries.keySet());
    for (String p : all) {
      Map<String, String> e = entries.get(p);
      Map<String, String> a = actual.entries.get(p);
      if (a == null) {
        say.accept("missing " + p + " " + join(e));
      } else if (e == null) {
        say.accept("unexpected " + p + " " + join(a));
      } else {
        compare(p, e, a, say);
      }
    }
    if (more[0] > 0) {
      out.add("... and " + more[0] + " more differences");
    }
    return out;
  }

  private static void compare(String what, Map<String, String> e, Map<String, String> a,
      java.util.function.Consumer<String> say) {
    TreeSet<String> keys = new TreeSet<>(e.keySet());
    keys.addAll(a.keySet());
    for (String k : keys) {
      String x = e.get(k);
      String y = a.get(k);
      if (!Objects.equals(x, y)) {
        say.accept(what + ": " + k + " expected " + shorten(x) + ", actual " + shorten(y));
      }
    }
  }

  private static String shorten(String v) {
    return v == null ? "(none)" : v.length() > 160 ? v.substring(0, 150) + "...(" + v.length() + " chars)" : v;
  }

  // ------------------------------------------------------------------ field formats

  /** Escapes every byte outside 0x21..0x7e, and {@code \} and {@code =}, as {@code \xNN}. */
  public static String escape(byte[] bytes) {
    StringBuilder sb = new StringBuilder(bytes.length + 8);
    for (byte x : bytes) {
      int c = x & 0xFF;
      if (c >= 0x21 && c <= 0x7E && c != '\\' && c != '=') {
        sb.append((char) c);
      } else {
        sb.append("\\x").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
      }
    }
    return sb.toString();
  }

  /** The bytes {@link #escape} escaped. */
  public static byte[] unescape(String s) {
    byte[] out = new byte[s.length()];
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 3 < s.length() && s.charAt(i + 1) == 'x') {
        out[n++] = (byte) Integer.parseInt(s, i + 2, i + 4, 16);
        i += 3;
      } else {
        out[n++] = (byte) c;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** The escaped path of {@code name} in the directory whose escaped path is {@code dir}. */
  public static String child(String dir, byte[] name) {
    return (dir.equals("/") ? "" : dir) + "/" + escape(name);
  }

  /** A time as {@code SEC.NNNNNNNNN}. */
  public static String time(Instant t) {
    return t.getEpochSecond() + "." + String.format("%09d", t.getNano());
  }

  /** The time {@link #time} formatted. */
  public static Instant parseTime(String s) {
    int dot = s.indexOf('.');
    return Instant.ofEpochSecond(Long.parseLong(s.substring(0, dot)), Long.parseLong(s.substring(dot + 1)));
  }

  /** An xattr value: lowercase hex, {@code -} if empty. */
  public static String hex(byte[] value) {
    return value.length == 0 ? "-" : HexFormat.of().formatHex(value);
  }

  /** The bytes of an xattr value {@link #hex} formatted. */
  public static byte[] parseHex(String s) {
    return s.equals("-") ? new byte[0] : HexFormat.of().parseHex(s);
  }

  /** The lowercase hex SHA-256 of {@code bytes}. */
  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError("every JDK has SHA-256", e);
    }
  }

  /** One data segment of a {@code data} field. */
  public record Segment(long offset, long length, String sha256) {
    @Override
    public String toString() {
      return offset + ":" + length + ":" + sha256;
    }
  }

  /** The segments of a {@code data} field. */
  public static List<Segment> parseSegments(String data) {
    List<Segment> out = new ArrayList<>();
    if (!data.equals("-")) {
      for (String s : data.split(",", 0)) {
        String[] p = s.split(":", 0);
        out.add(new Segment(Long.parseLong(p[0]), Long.parseLong(p[1]), p[2]));
      }
    }
    return out;
  }

  /** A {@code data} field of these segments. */
  public static String segments(List<Segment> segments) {
    if (segments.isEmpty()) {
      return "-";
    }
    StringBuilder sb = new StringBuilder();
    for (Segment s : segments) {
      sb.append(sb.isEmpty() ? "" : ",").append(s);
    }
    return sb.toString();
  }

  /** Writes {@link #lines} to a file (for a failing test's evidence). */
  public void writeTo(java.nio.file.Path file) {
    try {
      java.nio.file.Files.write(file, lines(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
