package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * debugfs (e2fsprogs) as an oracle that reads an image without the kernel: many requests in one run
 * ({@code debugfs -f}), inodes named as {@code <ino>} so no name needs quoting, and parsers for what
 * {@code stat}, {@code ls -l} and {@code htree} print.
 */
final class Debugfs {
  private Debugfs() {}

  /**
   * Runs every request against {@code img} in one debugfs and returns each request's output (what
   * debugfs printed after echoing {@code debugfs: REQUEST}), in order.
   */
  static List<String> batch(Path img, List<String> requests) throws IOException, InterruptedException {
    Path cmds = img.resolveSibling(img.getFileName() + ".debugfs");
    Files.writeString(cmds, String.join("\n", requests) + "\n", StandardCharsets.ISO_8859_1);
    KernelImages.Result r = KernelImages.run("debugfs", "-f", cmds.toString(), img.toString());
    assertThat(r.exit()).as("debugfs exit; %s", r.command()).isZero();
    List<String> out = new ArrayList<>();
    StringBuilder cur = null;
    int at = 0;
    for (String line : r.out().split("\n", -1)) {
      if (at < requests.size() && line.equals("debugfs: " + requests.get(at))) {
        if (cur != null) {
          out.add(cur.toString());
        }
        cur = new StringBuilder();
        at++;
      } else if (cur != null) {
        cur.append(line).append('\n');
      }
    }
    if (cur != null) {
      out.add(cur.toString());
    }
    assertThat(out).as("debugfs answered every request; stderr:%n%s", r.err()).hasSize(requests.size());
    return out;
  }

  /** {@code debugfs -R "cat PATH"}: the file's bytes. */
  static byte[] cat(Path img, String path) throws IOException, InterruptedException {
    KernelImages.Result r = KernelImages.run("debugfs", "-R", "cat " + path, img.toString());
    assertThat(r.exit()).as("debugfs cat %s", path).isZero();
    return r.out().getBytes(StandardCharsets.ISO_8859_1);
  }

  /** What {@code stat <ino>} says of an inode. */
  record Stat(long ino, char type, int mode, long uid, long gid, long size, long links, long blockcount, Instant atime,
      Instant mtime, Instant ctime, String device) {}

  private static final Pattern INODE = Pattern.compile("Inode: (\\d+)\\s+Type: (.+?)\\s+Mode:\\s+(\\d+)");
  private static final Pattern OWNER = Pattern.compile("User:\\s+(-?\\d+)\\s+Group:\\s+(-?\\d+)(?:\\s+Project:\\s+\\d+)?\\s+Size: (\\d+)");
  private static final Pattern LINKS = Pattern.compile("Links: (\\d+)\\s+Blockcount: (\\d+)");
  private static final Pattern DEVICE = Pattern.compile("Device major/minor number: (\\d+):(\\d+)");

  static Stat stat(String out) {
    Matcher i = find(INODE, out);
    Matcher o = find(OWNER, out);
    Matcher l = find(LINKS, out);
    Matcher d = DEVICE.matcher(out);
    char type = switch (i.group(2)) {
      case "regular" -> 'f';
      case "directory" -> 'd';
      case "symlink" -> 'l';
      case "FIFO" -> 'p';
      case "socket" -> 's';
      case "character special" -> 'c';
      case "block special" -> 'b';
      default -> throw new AssertionError("debugfs stat type '" + i.group(2) + "'");
    };
    // debugfs prints uid and gid as signed 32-bit numbers
    return new Stat(Long.parseLong(i.group(1)), type, Integer.parseInt(i.group(3), 8),
        Integer.toUnsignedLong((int) Long.parseLong(o.group(1))), Integer.toUnsignedLong((int) Long.parseLong(o.group(2))), Long.parseLong(o.group(3)), Long.parseLong(l.group(1)), Long.parseLong(l.group(2)),
        time(out, "atime"), time(out, "mtime"), time(out, "ctime"),
        d.find() ? Integer.parseInt(d.group(1)) + ":" + Integer.parseInt(d.group(2)) : null);
  }

  private static Matcher find(Pattern p, String out) {
    Matcher m = p.matcher(out);
    assertThat(m.find()).as("/%s/ in debugfs stat:%n%s", p, out).isTrue();
    return m;
  }

  /** {@code  mtime: 0xLLLLLLLL:EEEEEEEE}: the low 32 seconds (signed), and the extra field's epoch bits and nanoseconds. */
  private static Instant time(String out, String which) {
    Matcher m = Pattern.compile("(?m)^\\s*" + which + ": 0x([0-9a-f]{8}):([0-9a-f]{8})").matcher(out);
    assertThat(m.find()).as("%s in debugfs stat:%n%s", which, out).isTrue();
    long lo = (int) Long.parseLong(m.group(1), 16);
    long extra = Long.parseLong(m.group(2), 16);
    return Instant.ofEpochSecond(lo + ((extra & 3) << 32), extra >>> 2);
  }

  /** One line of {@code ls -l}: inode number, mode and name bytes (entries in use only). */
  record Listed(long ino, int mode, byte[] name) {}

  private static final Pattern LS = Pattern.compile(
      "^\\s*(\\d+)\\s+(\\d+)\\s+\\(\\d+\\)\\s+-?\\d+\\s+-?\\d+\\s+\\S+\\s+\\S+\\s+\\S+ (.*)$");

  static List<Listed> ls(String out) {
    List<Listed> got = new ArrayList<>();
    for (String line : out.split("\n", 0)) {
      if (line.isBlank() || line.matches("\\s*0\\s.*")) {
        continue; // an unused entry (inode 0), which debugfs lists too
      }
      Matcher m = LS.matcher(line);
      assertThat(m.matches()).as("debugfs ls -l line '%s'", line).isTrue();
      got.add(new Listed(Long.parseLong(m.group(1)), Integer.parseInt(m.group(2), 8), unescape(m.group(3))));
    }
    return got;
  }

  /** A name as debugfs prints it: bytes outside printable ASCII as {@code \\xNN} (our trees have no backslashes). */
  static byte[] unescape(String printed) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int i = 0; i < printed.length(); i++) {
      char c = printed.charAt(i);
      if (c == '\\' && i + 3 < printed.length() && printed.charAt(i + 1) == 'x') {
        out.write(Integer.parseInt(printed, i + 2, i + 4, 16));
        i += 3;
      } else {
        out.write(c);
      }
    }
    return out.toByteArray();
  }

  private static final Pattern LEAF_ENTRY = Pattern.compile("(\\d+) 0x[0-9a-f]{8}-[0-9a-f]{8} \\((\\d+)\\) (\\S+)   ");

  /** The names (ASCII, no spaces) {@code htree} lists in the leaves, with their inode numbers. */
  static Map<String, Long> htreeNames(String out) {
    Map<String, Long> names = new LinkedHashMap<>();
    Matcher m = LEAF_ENTRY.matcher(out);
    while (m.find()) {
      assertThat(names.put(m.group(3), Long.parseLong(m.group(1)))).as("htree lists %s once", m.group(3)).isNull();
    }
    return names;
  }
}
