package io.ext4j.fs.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.testkit.FsManifest;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ext4j → kernel and debugfs, then kernel → ext4j: an image made by mkfs.ext4 and written only by
 * ext4j ({@link Ext4jTree}) is checked by e2fsck, loop-mounted read-only by the kernel, whose view
 * must be ext4j's in every field, and read by debugfs ({@code cat}, {@code stat}, {@code ls -l},
 * {@code htree}); then the kernel writes into a copy of it, and ext4j must see exactly what the
 * kernel saw, and keep writing to a clean image.
 */
@Tag("oracle")
@Tag("root")
class KernelReadsExt4jTreeTest {
  /** "BLOCKSIZE FEATURES": upstream mke2fs.conf defaults, or Debian's. */
  @GuardedBy("KernelReadsExt4jTreeTest.class") private static final Map<String, Built> BUILT = new HashMap<>();

  /** An ext4j-written image (never changed; tests copy it), its model and ext4j's view of it. */
  record Built(Path image, TreeModel model, FsManifest ours, long seed) {}

  static synchronized Built built(String config) throws Exception {
    Built b = BUILT.get(config);
    if (b == null) {
      b = build(config);
      BUILT.put(config, b);
    }
    return b;
  }

  private static Built build(String config) throws Exception {
    long seed = Seeds.seed();
    int bs = Integer.parseInt(config.split(" ", 0)[0]);
    boolean upstream = config.endsWith("upstream");
    Path img = KernelImages.dir("ext4j-tree-" + bs + (upstream ? "" : "-debian")).resolve("ext4j.img");
    if (upstream) {
      KernelImages.mkfs(img, 64, bs, "-O", "metadata_csum_seed,orphan_file");
    } else {
      KernelImages.mkfs(img, 64, bs);
    }
    TreeModel model;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      model = Ext4jTree.write(fs, seed);
    } catch (Throwable t) {
      throw new AssertionError("writing the ext4j tree, seed " + seed + ": " + t, t);
    }
    KernelImages.assertE2fsckClean(img, "after ext4j wrote its tree (seed " + seed + ")");
    FsManifest ours;
    try (Ext4FileSystem fs = KernelImages.openReadOnly(img, bs)) {
      ours = EngineManifest.of(fs, 1000, true, seed);
    }
    KernelImages.assertSame(model.manifest(), TreeModel.comparable(ours), img, "ext4j's tree against its model (seed "
        + seed + ")");
    return new Built(img, model, ours, seed);
  }

  private static Path copy(Built b, String name) throws IOException {
    Path img = KernelImages.dir(b.image().getParent().getFileName() + "-" + name).resolve("ext4j.img");
    KernelImages.copySparse(b.image(), img);
    return img;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"1024 upstream", "4096 debian"})
  void theKernelAndDebugfs_readBackExactlyWhatExt4jWrote(String config) throws Exception {
    Built b = built(config);
    Path img = copy(b, "read");
    FsManifest theirs;
    try (LoopMount m = LoopMount.readOnly(img)) {
      theirs = MountManifest.of(m.dir);
    }
    KernelImages.assertSame(KernelImages.comparable(b.ours()), KernelImages.comparable(theirs), img,
        "the kernel's view of ext4j's tree (seed " + b.seed() + ")");
    debugfsAgrees(img, b.ours(), Integer.parseInt(config.split(" ", 0)[0]));
  }

  /** debugfs reads every inode, directory and file as ext4j does, and lists /big's htree whole. */
  private static void debugfsAgrees(Path img, FsManifest ours, int blockSize) throws Exception {
    Map<Long, String> firstPath = new HashMap<>();
    List<String> dirs = new ArrayList<>();
    for (String p : ours.paths()) {
      long ino = Long.parseLong(ours.field(p, "ino"));
      firstPath.putIfAbsent(ino, p);
      if (ours.field(p, "type").equals("d")) {
        dirs.add(p);
      }
    }
    // stat of every inode
    List<Long> inos = new ArrayList<>(firstPath.keySet());
    List<String> stats = Debugfs.batch(img, inos.stream().map(i -> "stat <" + i + ">").toList());
    for (int i = 0; i < inos.size(); i++) {
      String p = firstPath.get(inos.get(i));
      Debugfs.Stat s = Debugfs.stat(stats.get(i));
      Map<String, String> f = ours.entry(p);
      String what = "debugfs stat of " + p;
      assertThat(s.ino()).as(what).isEqualTo(inos.get(i));
      assertThat(String.format("%04o", s.mode() & 07777)).as("%s: mode", what).isEqualTo(f.get("mode"));
      assertThat(s.type()).as("%s: type", what).isEqualTo(f.get("type").charAt(0));
      assertThat(s.uid()).as("%s: uid", what).isEqualTo(Long.parseLong(f.get("uid")));
      assertThat(s.gid()).as("%s: gid", what).isEqualTo(Long.parseLong(f.get("gid")));
      assertThat(s.size()).as("%s: size", what).isEqualTo(Long.parseLong(f.get("size")));
      assertThat(s.links()).as("%s: links", what).isEqualTo(Long.parseLong(f.get("nlink")));
      assertThat(s.blockcount()).as("%s: blocks", what).isEqualTo(Long.parseLong(f.get("blocks")));
      assertThat(FsManifest.time(s.atime())).as("%s: atime", what).isEqualTo(f.get("atime"));
      assertThat(FsManifest.time(s.mtime())).as("%s: mtime", what).isEqualTo(f.get("mtime"));
      assertThat(FsManifest.time(s.ctime())).as("%s: ctime", what).isEqualTo(f.get("ctime"));
      if (f.containsKey("rdev")) {
        assertThat(s.device()).as("%s: device", what).isEqualTo(f.get("rdev"));
      }
    }
    // contents of every regular file: dump by inode; and cat by path for a few
    Path dumps = Files.createDirectories(img.resolveSibling("dumps"));
    List<Long> files = inos.stream().filter(i -> ours.field(firstPath.get(i), "sha256") != null).toList();
    Debugfs.batch(img, files.stream().map(i -> "dump <" + i + "> " + dumps.resolve(i.toString()).toAbsolutePath()).toList());
    for (long i : files) {
      byte[] got = Files.readAllBytes(dumps.resolve(Long.toString(i)));
      assertThat(FsManifest.sha256(got)).as("debugfs dump of %s", firstPath.get(i)).isEqualTo(ours.field(firstPath.get(i), "sha256"));
    }
    for (String p : List.of("/files/small.txt", "/files/sequential.bin", "/sparse/holes.bin", "/sparse/unwritten.bin",
        "/sparse/zeroed.bin", "/deep/deep.bin", "/links/hard-c", "/xattr/many")) {
      String path = p.equals("/links/hard-c") ? "/links/other/hard-c" : p;
      assertThat(FsManifest.sha256(Debugfs.cat(img, path))).as("debugfs cat %s", path).isEqualTo(ours.field(path, "sha256"));
    }
    // ls -l of every directory
    List<String> listings = Debugfs.batch(img, dirs.stream().map(d -> "ls -l <" + ours.field(d, "ino") + ">").toList());
    for (int i = 0; i < dirs.size(); i++) {
      String d = dirs.get(i);
      Set<String> want = new TreeSet<>();
      for (String p : children(ours, d)) {
        want.add(p.substring(p.lastIndexOf('/') + 1) + " " + ours.field(p, "ino"));
      }
      Set<String> got = new TreeSet<>();
      for (Debugfs.Listed l : Debugfs.ls(listings.get(i))) {
        String n = FsManifest.escape(l.name());
        if (!n.equals(".") && !n.equals("..")) {
          got.add(n + " " + l.ino());
        }
      }
      assertThat(got).as("debugfs ls -l %s", d).isEqualTo(want);
    }
    // htree of /big: the whole index, without complaint
    String htree = Debugfs.batch(img, List.of("htree /big")).getFirst();
    assertThat(htree.lines().filter(l -> l.replaceAll("0x[0-9a-f]+(-[0-9a-f]+)?", "").replaceAll(
        "an-htree-name\\S*", "").matches("(?i).*(bad|corrupt|error|invalid|fail).*")).toList())
        .as("debugfs htree /big complaints").isEmpty();
    // 20,400 names need more leaves than a 1 KiB root indexes, fewer than a 4 KiB one does
    assertThat(htree).as("htree /big").contains("Indirect levels: " + (blockSize == 1024 ? 1 : 0));
    Map<String, Long> listed = Debugfs.htreeNames(htree);
    Map<String, Long> want = new HashMap<>();
    for (String p : children(ours, "/big")) {
      want.put(p.substring(p.lastIndexOf('/') + 1), Long.parseLong(ours.field(p, "ino")));
    }
    assertThat(want).hasSizeGreaterThanOrEqualTo(Ext4jTree.BIG_ENTRIES);
    assertThat(listed).as("the names htree /big lists").isEqualTo(want);
  }

  private static List<String> children(FsManifest m, String dir) {
    String prefix = dir.equals("/") ? "/" : dir + "/";
    List<String> out = new ArrayList<>();
    for (String p : m.paths()) {
      if (p.startsWith(prefix) && p.length() > prefix.length() && p.indexOf('/', prefix.length()) < 0) {
        out.add(p);
      }
    }
    return out;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"1024 upstream", "4096 debian"})
  void whatTheKernelWritesIntoAnExt4jImage_ext4jReadsBackExactly_andKeepsWritingCleanly(String config) throws Exception {
    Built b = built(config);
    long seed = Seeds.seed();
    Path img = copy(b, "kernel-writes");
    int bs = Integer.parseInt(config.split(" ", 0)[0]);
    FsManifest theirs;
    try (LoopMount m = LoopMount.readWrite(img)) {
      KernelWrites.into(m.dir, seed);
      KernelImages.runOk("sync", "-f", m.dir.toString());
      m.remountReadOnly();
      theirs = MountManifest.of(m.dir);
    }
    List<String> kernels = KernelImages.kernelsExtentTreeOptimizations(img);
    KernelImages.assertE2fsckCleanBut(img, kernels, "after the kernel wrote into ext4j's image");
    FsManifest ours;
    try (Ext4FileSystem fs = KernelImages.openReadOnly(img, bs)) {
      ours = EngineManifest.of(fs, 333, true, seed);
    }
    KernelImages.assertSame(KernelImages.comparable(theirs), KernelImages.comparable(ours), img,
        "ext4j's view of what the kernel wrote into its image (seed " + seed + ")");

    TreeModel model = TreeModel.of(theirs);
    TreeWorkload w;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      w = new TreeWorkload(fs, model, seed);
      w.run(Integer.getInteger("ext4j.kernel.ops", 1200));
    } catch (Throwable t) {
      throw new AssertionError("seed " + seed + ": " + t, t);
    }
    System.out.println(config + " ops: " + w.counts);
    // What the kernel left unbalanced may stay so; ext4j must add nothing.
    KernelImages.assertE2fsckCleanBut(img, kernels, "after ext4j wrote on (seed " + seed + ")");
    try (Ext4FileSystem fs = KernelImages.openReadOnly(img, bs)) {
      ours = EngineManifest.of(fs, 1000, false, seed);
    }
    KernelImages.assertSame(model.manifest(), TreeModel.comparable(ours), img, "ext4j against the model (seed " + seed + ")");
    try (LoopMount m = LoopMount.readOnly(img)) {
      theirs = MountManifest.of(m.dir);
    }
    KernelImages.assertSame(KernelImages.comparable(ours), KernelImages.comparable(theirs), img,
        "the kernel's view at the end (seed " + seed + ")");
  }
}
