package io.ext4j.tools.mkfs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What dumpe2fs and debugfs say about an image: the header's {@code Key: value} lines, each group's
 * lines, and the block lists of inodes from {@code debugfs stat}. Parsing only; absent keys are null.
 */
record Mke2fsReport(Map<String, String> header, List<Group> groups, Map<Long, Blocks> files) {

  /** One "Group N:" paragraph; absent positions are −1, absent counts −1, flags null when none printed. */
  record Group(long group, long first, long last, List<String> flags, long superblock, boolean primary,
      long descStart, long descEnd, long rsvStart, long rsvEnd, long blockBitmap, long inodeBitmap,
      long inodeTableStart, long inodeTableEnd, long freeBlocks, long freeInodes, long unusedInodes) {}

  /**
   * An inode's blocks as debugfs lists them: extents (logical order), extent-tree leaf blocks
   * ("ETB0", in order), and the first block of each other tag (IND, DIND, TIND).
   */
  record Blocks(List<BlockRun> extents, List<Long> leaves, Map<String, Long> tagged) {}

  private static final Pattern GROUP = Pattern.compile("^Group (\\d+): \\(Blocks (\\d+)-(\\d+)\\)(.*)$");
  private static final Pattern FLAGS = Pattern.compile("\\[([A-Z_, ]*)\\]");
  private static final Pattern SUPER = Pattern.compile("(Primary|Backup) superblock at (\\d+)");
  private static final Pattern DESC = Pattern.compile("Group descriptors? at (\\d+)(?:-(\\d+))?");
  private static final Pattern RSV = Pattern.compile("Reserved GDT blocks at (\\d+)-(\\d+)");
  private static final Pattern BB = Pattern.compile("Block bitmap at (\\d+)");
  private static final Pattern IB = Pattern.compile("Inode bitmap at (\\d+)");
  private static final Pattern IT = Pattern.compile("Inode table at (\\d+)-(\\d+)");
  private static final Pattern COUNTS = Pattern.compile(
      "(\\d+) free blocks, (\\d+) free inodes, (\\d+) directories(?:, (\\d+) unused inodes)?");
  private static final Pattern RUN = Pattern.compile("\\((\\d+)(?:-(\\d+))?\\):(\\d+)(?:-(\\d+))?");
  private static final Pattern TAGGED = Pattern.compile("\\(([A-Z]+\\d*)\\):(\\d+)");

  static Mke2fsReport parse(String dumpe2fs, String debugfs) {
    Map<String, String> header = new LinkedHashMap<>();
    List<Group> groups = new ArrayList<>();
    List<String> paragraph = null;
    for (String line : lines(dumpe2fs)) {
      if (GROUP.matcher(line).matches()) {
        if (paragraph != null) {
          groups.add(group(paragraph));
        }
        paragraph = new ArrayList<>(List.of(line));
      } else if (paragraph != null) {
        paragraph.add(line);
      } else {
        int colon = line.indexOf(':');
        if (colon > 0) {
          header.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
        }
      }
    }
    if (paragraph != null) {
      groups.add(group(paragraph));
    }
    return new Mke2fsReport(header, groups, files(debugfs));
  }

  /**
   * The lines of {@code s} exactly as {@code s.split("\n")} gives them: trailing empty lines dropped,
   * except that a string without a newline is its own single line (even when empty).
   */
  private static List<String> lines(String s) {
    String[] parts = s.split("\n", -1);
    int n = parts.length;
    if (n > 1) {
      while (n > 0 && parts[n - 1].isEmpty()) {
        n--;
      }
    }
    return Arrays.asList(parts).subList(0, n);
  }

  private static Group group(List<String> lines) {
    Matcher h = GROUP.matcher(lines.getFirst());
    h.matches();
    Matcher fl = FLAGS.matcher(h.group(4));
    List<String> flags = fl.find() ? List.of(fl.group(1).split(",\\s*")) : null;
    String body = String.join("\n", lines.subList(1, lines.size()));
    Matcher sb = SUPER.matcher(body);
    boolean hasSb = sb.find();
    Matcher d = DESC.matcher(body);
    boolean hasDesc = d.find();
    Matcher r = RSV.matcher(body);
    boolean hasRsv = r.find();
    Matcher it = IT.matcher(body);
    boolean hasIt = it.find();
    Matcher c = COUNTS.matcher(body);
    boolean hasCounts = c.find();
    return new Group(Long.parseLong(h.group(1)), Long.parseLong(h.group(2)), Long.parseLong(h.group(3)), flags,
        hasSb ? Long.parseLong(sb.group(2)) : -1, hasSb && sb.group(1).equals("Primary"),
        hasDesc ? Long.parseLong(d.group(1)) : -1,
        hasDesc ? Long.parseLong(d.group(2) != null ? d.group(2) : d.group(1)) : -1,
        hasRsv ? Long.parseLong(r.group(1)) : -1, hasRsv ? Long.parseLong(r.group(2)) : -1,
        first(BB, body), first(IB, body),
        hasIt ? Long.parseLong(it.group(1)) : -1, hasIt ? Long.parseLong(it.group(2)) : -1,
        hasCounts ? Long.parseLong(c.group(1)) : -1, hasCounts ? Long.parseLong(c.group(2)) : -1,
        hasCounts && c.group(4) != null ? Long.parseLong(c.group(4)) : -1);
  }

  private static long first(Pattern p, String body) {
    Matcher m = p.matcher(body);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  /** Splits {@code debugfs -f} output at its "debugfs: stat <n>" echoes. */
  private static Map<Long, Blocks> files(String debugfs) {
    Map<Long, Blocks> out = new LinkedHashMap<>();
    Matcher cmd = Pattern.compile("(?m)^debugfs: stat <(\\d+)>$").matcher(debugfs);
    List<long[]> starts = new ArrayList<>();
    while (cmd.find()) {
      starts.add(new long[] {Long.parseLong(cmd.group(1)), cmd.end()});
    }
    for (int i = 0; i < starts.size(); i++) {
      int from = (int) starts.get(i)[1];
      int to = i + 1 < starts.size() ? debugfs.lastIndexOf("debugfs:", (int) starts.get(i + 1)[1]) : debugfs.length();
      out.put(starts.get(i)[0], blocks(debugfs.substring(from, to)));
    }
    return out;
  }

  private static Blocks blocks(String stat) {
    int at = Math.max(stat.indexOf("EXTENTS:"), stat.indexOf("BLOCKS:"));
    List<BlockRun> extents = new ArrayList<>();
    List<Long> leaves = new ArrayList<>();
    Map<String, Long> tagged = new LinkedHashMap<>();
    if (at < 0) {
      return new Blocks(extents, leaves, tagged);
    }
    String list = stat.substring(at);
    int total = list.indexOf("TOTAL:");
    if (total >= 0) {
      list = list.substring(0, total);
    }
    Matcher t = TAGGED.matcher(list);
    while (t.find()) {
      if (t.group(1).equals("ETB0")) {
        leaves.add(Long.parseLong(t.group(2)));
      }
      tagged.putIfAbsent(t.group(1), Long.parseLong(t.group(2)));
    }
    Matcher m = RUN.matcher(list);
    while (m.find()) {
      long lo = Long.parseLong(m.group(3));
      long hi = m.group(4) == null ? lo : Long.parseLong(m.group(4));
      extents.add(new BlockRun(lo, hi - lo + 1));
    }
    return new Blocks(extents, leaves, tagged);
  }

  String headerValue(String key) {
    return header.get(key);
  }
}
