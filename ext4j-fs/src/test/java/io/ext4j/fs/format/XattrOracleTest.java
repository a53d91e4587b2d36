package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.testkit.Seeds;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link XattrCodec} against e2fsprogs 1.47.0 both ways: attributes debugfs sets decode to the same
 * names and values and re-encode to the same bytes; attributes ext4j encodes into an image are
 * listed by debugfs and pass {@code e2fsck -fn}.
 */
@Tag("oracle")
class XattrOracleTest {
  private static final Pattern ALLOCATED = Pattern.compile("Allocated inode: (\\d+)");
  private static final Pattern FREE_BLOCK = Pattern.compile("Free blocks found: (\\d+)");
  private static final Pattern EA_LINE = Pattern.compile("^  (\\S+) \\((\\d+)\\)");
  private static final String[] NAMESPACES = {"user.", "trusted.", "security."};

  @ParameterizedTest(name = "mkfs.ext4 {0}")
  @ValueSource(strings = {"-b 1024", "-b 4096", "-b 4096 -I 512", "-b 1024 -O ^metadata_csum"})
  void attributesSetByDebugfs_decodeToTheirNamesAndValues_andReencodeToTheStoredBytes(String options) throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    Path img = Tools.mkfs("xattr-debugfs", 16, options.split(" "));
    int bs = TestImage.open(img).blockSize();
    int tooBigForTheInode = TestImage.open(img).sb.inodeSize() - 100;
    Map<String, byte[]> set = randomAttributes(rnd, 2 + rnd.nextInt(4), 1, 12);
    set.putAll(randomAttributes(rnd, 1 + rnd.nextInt(2), tooBigForTheInode, tooBigForTheInode + bs / 8));
    long ino = createFileWith(img, set);

    TestImage image = TestImage.open(img);
    byte[] inode = image.inode(ino);
    int areaOff = TestImage.xattrAreaOffset(inode);
    List<XattrEntry> inInode = XattrCodec.decodeInodeArea(inode, areaOff, inode.length, img + " inode " + ino);
    long aclBlock = TestImage.fileAcl(inode);
    assertThat(aclBlock).as("seed %d: the large values went to a block", seed).isPositive();
    byte[] raw = image.block(aclBlock);
    boolean csum = image.sb.hasMetadataCsum();
    XattrBlock block = XattrCodec.decodeBlock(raw, aclBlock, image.sb.checksumSeed(), csum, img + " xattr block " + aclBlock);

    assertThat(inInode).as("seed %d: some values stayed in the inode", seed).isNotEmpty();
    Map<String, String> decoded = new TreeMap<>();
    for (XattrEntry e : inInode) {
      decoded.put(e.name().fullName(), HexFormat.of().formatHex(e.value()));
    }
    for (XattrEntry e : block.entries()) {
      assertThat(decoded.put(e.name().fullName(), HexFormat.of().formatHex(e.value()))).as("%s stored once", e.name()).isNull();
    }
    assertThat(decoded).as("seed %d", seed).isEqualTo(hex(set));

    // The in-inode area ext4j writes for these entries is byte for byte what debugfs wrote.
    byte[] mine = inode.clone();
    XattrCodec.encodeInodeArea(inInode, mine, areaOff, inode.length);
    assertThat(HexFormat.of().formatHex(mine)).as("seed %d: inode %d", seed, ino).isEqualTo(HexFormat.of().formatHex(inode));

    // Every e_hash is ext4j's; the block is ext4j's but for h_hash, which e2fsprogs leaves 0.
    for (XattrEntry e : block.entries()) {
      assertThat(e.hash()).as("e_hash of %s", e.name()).isEqualTo(XattrCodec.entryHash(e.name(), e.value()));
    }
    assertThat(block.refcount()).isEqualTo(1);
    if (csum) {
      assertThat(block.storedChecksum()).isEqualTo(XattrCodec.blockChecksum(raw, aclBlock, image.sb.checksumSeed()));
    }
    byte[] encoded = XattrCodec.encodeBlock(1, block.entries(), bs, aclBlock, image.sb.checksumSeed(), csum);
    assertThat(LittleEndian.le32(encoded, 0x0C)).isEqualTo(XattrCodec.blockHash(block.entries().stream().map(XattrEntry::hash).toList()));
    LittleEndian.putLe32(encoded, 0x0C, block.storedHash());
    if (csum) {
      LittleEndian.putLe32(encoded, 0x10, XattrCodec.blockChecksum(encoded, aclBlock, image.sb.checksumSeed()));
    }
    assertThat(HexFormat.of().formatHex(encoded)).as("seed %d: block %d", seed, aclBlock).isEqualTo(HexFormat.of().formatHex(raw));
  }

  @ParameterizedTest(name = "mkfs.ext4 {0}")
  @ValueSource(strings = {"-b 1024", "-b 4096", "-b 4096 -O ^metadata_csum,^64bit"})
  void blockEncodedByExt4j_isListedByDebugfs_andPassesE2fsck(String options) throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    Path img = Tools.mkfs("xattr-block", 16, options.split(" "));
    long ino = createFileWith(img, Map.of());
    TestImage before = TestImage.open(img);
    int bs = before.blockSize();
    Map<String, byte[]> attrs = randomAttributes(rnd, 1 + rnd.nextInt(8), 0, bs / 12);
    List<XattrEntry> entries = new ArrayList<>();
    attrs.forEach((name, value) -> entries.add(XattrEntry.of(name, value)));

    // Allocate a block the way e2fsck will count it: bitmap bit, group and total free counts.
    Matcher m = FREE_BLOCK.matcher(Tools.debugfs(img, false, List.of("ffb 1 " + (before.sb.firstDataBlock() + 100))).stdout());
    assertThat(m.find()).isTrue();
    long nr = Long.parseLong(m.group(1));
    long group = (nr - before.sb.firstDataBlock()) / before.sb.blocksPerGroup();
    Tools.debugfs(img, true, List.of("setb " + nr,
        "set_bg " + group + " free_blocks_count " + (before.groupFreeBlocks(group) - 1),
        "set_bg " + group + " checksum calc",
        "ssv free_blocks_count " + (before.freeBlocks() - 1)));

    // Wire the block to the inode by hand: i_file_acl, i_blocks, inode checksum.
    TestImage image = TestImage.open(img);
    image.writeBlock(nr, XattrCodec.encodeBlock(1, entries, bs, nr, image.sb.checksumSeed(), image.sb.hasMetadataCsum()));
    byte[] inode = image.inode(ino);
    LittleEndian.putLe32(inode, 0x68, (int) nr);
    inode[0x76] = (byte) (nr >>> 32);
    inode[0x77] = (byte) (nr >>> 40);
    LittleEndian.putLe32(inode, 0x1C, LittleEndian.le32(inode, 0x1C) + bs / 512);
    image.writeInode(ino, inode);

    assertThat(hex(debugfsAttributes(img, ino))).as("seed %d", seed).isEqualTo(hex(attrs));
    Tools.assertE2fsckClean(img);
  }

  @ParameterizedTest(name = "mkfs.ext4 {0}")
  @ValueSource(strings = {"-I 256", "-I 1024", "-I 256 -O ^metadata_csum"})
  void inodeAreaEncodedByExt4j_isListedByDebugfs_andPassesE2fsck(String options) throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    Path img = Tools.mkfs("xattr-inode", 16, options.split(" "));
    long ino = createFileWith(img, Map.of());
    TestImage image = TestImage.open(img);
    byte[] inode = image.inode(ino);
    int areaOff = TestImage.xattrAreaOffset(inode);
    Map<String, byte[]> attrs = new LinkedHashMap<>();
    List<XattrEntry> entries = new ArrayList<>();
    for (Map.Entry<String, byte[]> a : randomAttributes(rnd, 30, 0, rnd.nextBoolean() ? 8 : 40).entrySet()) {
      List<XattrEntry> more = new ArrayList<>(entries);
      more.add(XattrEntry.of(a.getKey(), a.getValue()));
      if (XattrCodec.inodeAreaSize(more) <= inode.length - areaOff) {
        entries = more;
        attrs.put(a.getKey(), a.getValue());
      }
    }
    assertThat(entries).isNotEmpty();

    XattrCodec.encodeInodeArea(entries, inode, areaOff, inode.length);
    image.writeInode(ino, inode);

    assertThat(hex(debugfsAttributes(img, ino))).as("seed %d", seed).isEqualTo(hex(attrs));
    Tools.assertE2fsckClean(img);
  }

  @Tag("root")
  @ParameterizedTest(name = "mkfs.ext4 {0}")
  @ValueSource(strings = {"-b 4096", "-b 1024 -I 512", "-b 4096 -O ea_inode"})
  void attributesSetByTheKernel_decode_andReencodeToTheStoredBytes_hashesIncluded(String options) throws Exception {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    Path img = Tools.mkfs("xattr-kernel", 32, options.split(" "));
    TestImage fresh = TestImage.open(img);
    int bs = fresh.blockSize();
    int tooBigForTheInode = fresh.sb.inodeSize() - 100;
    // Candidates, kept while they all fit in one block, set in block order: then the kernel's block
    // layout (each new entry appended to the table, its value below the others) is the encoder's.
    Map<String, byte[]> candidates = randomAttributes(rnd, 3 + rnd.nextInt(4), 1, 12);
    candidates.putAll(randomAttributes(rnd, 1 + rnd.nextInt(3), tooBigForTheInode, tooBigForTheInode + bs / 8));
    List<XattrEntry> chosen = new ArrayList<>();
    for (Map.Entry<String, byte[]> c : candidates.entrySet()) {
      List<XattrEntry> more = new ArrayList<>(chosen);
      more.add(XattrEntry.of(c.getKey(), c.getValue()));
      if (XattrCodec.blockSpaceNeeded(more) <= bs) {
        chosen = more;
      }
    }
    byte[] eaInodeValue = null;
    if (options.contains("ea_inode")) {
      eaInodeValue = new byte[bs + 1 + rnd.nextInt(2 * bs)];
      rnd.nextBytes(eaInodeValue);
      chosen.add(XattrEntry.of("user.in_an_ea_inode", eaInodeValue));
    }
    chosen.sort(java.util.Comparator.comparing(XattrEntry::name, XattrName.BLOCK_ORDER));
    Map<String, byte[]> set = new LinkedHashMap<>();
    chosen.forEach(e -> set.put(e.name().fullName(), e.value()));
    long ino;
    try (LoopMount m = LoopMount.mount(img)) {
      Path f = Files.write(m.dir.resolve("f"), new byte[] {42});
      for (Map.Entry<String, byte[]> a : set.entrySet()) {
        LoopMount.setxattr(f, a.getKey(), a.getValue());
        assertThat(LoopMount.getxattr(f, a.getKey())).isEqualTo(a.getValue());
      }
      ino = (Long) Files.getAttribute(f, "unix:ino");
    }

    TestImage image = TestImage.open(img);
    byte[] inode = image.inode(ino);
    int areaOff = TestImage.xattrAreaOffset(inode);
    List<XattrEntry> inInode = XattrCodec.decodeInodeArea(inode, areaOff, inode.length, img + " inode " + ino);
    long nr = TestImage.fileAcl(inode);
    assertThat(nr).as("seed %d: the large values went to a block", seed).isPositive();
    byte[] raw = image.block(nr);
    boolean csum = image.sb.hasMetadataCsum();
    XattrBlock block = XattrCodec.decodeBlock(raw, nr, image.sb.checksumSeed(), csum, img + " xattr block " + nr);

    Map<String, byte[]> decoded = new LinkedHashMap<>();
    List<XattrEntry> all = new ArrayList<>(inInode);
    all.addAll(block.entries());
    for (XattrEntry e : all) {
      byte[] value = e.value();
      if (e.inEaInode()) {
        value = image.fileData(Integer.toUnsignedLong(e.valueInum()), e.valueSize());
        int valueHash = LittleEndian.le32(image.inode(e.valueInum()), 0x08); // i_atime
        assertThat(valueHash).as("the EA inode keeps crc32c(fs seed, value) in i_atime")
            .isEqualTo(io.ext4j.block.Crc32c.update(image.sb.checksumSeed(), value));
        assertThat(e.hash()).as("e_hash of %s", e.name()).isEqualTo(XattrCodec.eaInodeEntryHash(e.name(), valueHash));
      }
      decoded.put(e.name().fullName(), value);
    }
    assertThat(hex(decoded)).as("seed %d", seed).isEqualTo(hex(set));
    if (eaInodeValue != null) {
      assertThat(all).as("seed %d: one value went to an EA inode", seed).anyMatch(XattrEntry::inEaInode);
    }

    // The kernel's bytes are the encoders' bytes: in-inode area, e_hash, h_hash and h_checksum.
    byte[] mine = inode.clone();
    XattrCodec.encodeInodeArea(inInode, mine, areaOff, inode.length);
    assertThat(HexFormat.of().formatHex(mine)).as("seed %d: inode %d", seed, ino).isEqualTo(HexFormat.of().formatHex(inode));
    assertThat(block.storedHash()).as("seed %d: h_hash", seed).isNotZero();
    byte[] encoded = XattrCodec.encodeBlock(block.refcount(), block.entries(), bs, nr, image.sb.checksumSeed(), csum);
    assertThat(HexFormat.of().formatHex(encoded)).as("seed %d: block %d", seed, nr).isEqualTo(HexFormat.of().formatHex(raw));
  }

  @Tag("root")
  @org.junit.jupiter.api.Test
  void namesSetByTheKernel_areStoredWithTheIndexAndSuffixParseGives() throws Exception {
    Path img = Tools.mkfs("xattr-names", 32, "-b", "4096", "-I", "1024");
    List<String> names = List.of("user.mime_type", "trusted.overlay.opaque", "security.ima", "gnu.translator",
        "system.posix_acl_access");
    long ino;
    try (LoopMount m = LoopMount.mount(img)) {
      Path f = Files.write(m.dir.resolve("f"), new byte[] {1});
      for (String name : names) {
        byte[] value = name.startsWith("system.") ? PosixAcl.toVfs(List.of(new PosixAcl.Entry(PosixAcl.USER_OBJ, 6, -1),
            new PosixAcl.Entry(PosixAcl.USER, 4, 1000), new PosixAcl.Entry(PosixAcl.GROUP_OBJ, 4, -1),
            new PosixAcl.Entry(PosixAcl.MASK, 4, -1), new PosixAcl.Entry(PosixAcl.OTHER, 0, -1))) : new byte[] {'v'};
        LoopMount.setxattr(f, name, value);
      }
      ino = (Long) Files.getAttribute(f, "unix:ino");
    }

    List<XattrName> stored = TestImage.open(img).xattrs(ino).stream().map(XattrEntry::name).toList();

    assertThat(stored).containsExactlyElementsOf(names.stream().map(XattrName::parse).toList());
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** Distinct names debugfs passes through unchanged, with random values of the given sizes. */
  static Map<String, byte[]> randomAttributes(Random rnd, int count, int minValue, int maxValue) {
    Map<String, byte[]> out = new LinkedHashMap<>();
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    while (out.size() < count) {
      StringBuilder name = new StringBuilder(NAMESPACES[rnd.nextInt(NAMESPACES.length)]);
      int len = 1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 60);
      for (int i = 0; i < len; i++) {
        name.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
      }
      byte[] value = new byte[minValue + rnd.nextInt(maxValue - minValue + 1)];
      rnd.nextBytes(value);
      out.putIfAbsent(name.toString(), value);
    }
    return out;
  }

  /** Creates a file with {@code debugfs write} and sets {@code attrs} with {@code ea_set -f}; its inode number. */
  private static long createFileWith(Path img, Map<String, byte[]> attrs) throws Exception {
    List<String> commands = new ArrayList<>(List.of("write /dev/null f"));
    List<Path> valueFiles = new ArrayList<>();
    try {
      for (Map.Entry<String, byte[]> a : attrs.entrySet()) {
        Path v = Files.createTempFile(Tools.DIR, "value", ".bin");
        valueFiles.add(v);
        Files.write(v, a.getValue());
        commands.add("ea_set -f " + v + " f " + a.getKey());
      }
      Tools.Result r = Tools.debugfs(img, true, commands);
      assertThat(r.stderr().lines().filter(l -> !l.startsWith("debugfs ")).toList()).as("debugfs errors; %s", r.describe()).isEmpty();
      Matcher m = ALLOCATED.matcher(r.stdout());
      assertThat(m.find()).as("allocated inode in %s", r.describe()).isTrue();
      return Long.parseLong(m.group(1));
    } finally {
      for (Path v : valueFiles) {
        Files.deleteIfExists(v);
      }
    }
  }

  /** Every attribute of inode {@code ino} as debugfs reads it: {@code ea_list} names, {@code ea_get -f} values. */
  static Map<String, byte[]> debugfsAttributes(Path img, long ino) throws Exception {
    Tools.Result list = Tools.debugfs(img, false, List.of("ea_list <" + ino + ">"));
    assertThat(list.stderr().lines().filter(l -> !l.startsWith("debugfs ")).toList()).as("%s", list.describe()).isEmpty();
    Map<String, Integer> sizes = new LinkedHashMap<>();
    for (String line : list.stdout().lines().toList()) {
      Matcher m = EA_LINE.matcher(line);
      if (m.find()) {
        sizes.put(m.group(1), Integer.parseInt(m.group(2)));
      }
    }
    Map<String, byte[]> out = new LinkedHashMap<>();
    List<String> commands = new ArrayList<>();
    Map<String, Path> files = new LinkedHashMap<>();
    try {
      for (String name : sizes.keySet()) {
        Path f = Files.createTempFile(Tools.DIR, "got", ".bin");
        files.put(name, f);
        commands.add("ea_get -f " + f + " <" + ino + "> " + name);
      }
      if (!commands.isEmpty()) {
        Tools.Result get = Tools.debugfs(img, false, commands);
        assertThat(get.stderr().lines().filter(l -> !l.startsWith("debugfs ")).toList()).as("%s", get.describe()).isEmpty();
      }
      for (Map.Entry<String, Path> f : files.entrySet()) {
        byte[] v = Files.readAllBytes(f.getValue());
        if (!f.getKey().startsWith("system.posix_acl_")) { // ea_get converts ACLs to the (larger) VFS form
          assertThat(v).as("ea_get of %s has the size ea_list shows", f.getKey()).hasSize(sizes.get(f.getKey()));
        }
        out.put(f.getKey(), v);
      }
    } finally {
      for (Path f : files.values()) {
        Files.deleteIfExists(f);
      }
    }
    return out;
  }

  static Map<String, String> hex(Map<String, byte[]> attrs) {
    Map<String, String> out = new TreeMap<>();
    attrs.forEach((k, v) -> out.put(k, HexFormat.of().formatHex(v)));
    return out;
  }
}
