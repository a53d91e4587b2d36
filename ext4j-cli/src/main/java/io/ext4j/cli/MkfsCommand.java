package io.ext4j.cli;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.ByteSize;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.tools.check.CheckOptions;
import io.ext4j.tools.check.CheckReport;
import io.ext4j.tools.check.Checker;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.tools.mkfs.Geometry;
import io.ext4j.tools.mkfs.MakeImage;
import io.ext4j.tools.mkfs.Mkfs;
import io.ext4j.tools.mkfs.MkfsParameters;
import io.ext4j.tools.populate.HostDirectory;
import io.ext4j.tools.populate.Populator;
import io.ext4j.tools.populate.ReadAhead;
import io.ext4j.tools.populate.TarArchive;
import io.ext4j.tools.populate.TreeSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j mkfs IMAGE [SIZE] [options]}: a new ext4 filesystem laid out exactly as
 * {@code mkfs.ext4} of e2fsprogs 1.47 lays it (the same default features, groups, inode tables,
 * journal and lazy inode-table initialization, so a 1 TiB sparse image takes seconds), optionally
 * filled from a host directory or a tar archive ({@code -d}; from a tar, owners, modes, devices and
 * xattrs come from the archive, so no root is needed), with htree directories where they grow
 * large. SIZE takes mke2fs's suffixes (k, m, g, t; none: KiB, or blocks with {@code -b}); without
 * it an existing image keeps its size and a {@code -d} tree gets room for itself and half again.
 *
 * <h2>Reproducible images</h2>
 * With {@code SOURCE_DATE_EPOCH} set, it is the filesystem's creation time and every later
 * timestamp of the copied tree is clamped to it; with a fixed {@code -U} the hash seed, inode
 * generations and every other random field derive from the UUID. Together: two runs on the same
 * content give byte-identical images, whatever order the host lists directories in.
 *
 * <p>Prints what it made (geometry, features, what was copied and how long it took; with
 * {@code --journaled} the journal's statistics of the copy, with {@code --check} ext4j's fsck of the
 * result). A progress bar is drawn on a terminal while a tree is copied.
 */
@Command(name = "mkfs", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Make an ext4 filesystem (as mkfs.ext4 1.47 does), optionally filled from a directory or tar archive.")
public final class MkfsCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "IMAGE", description = "The image file to create (replaced), or a block device.")
  Path image;

  @Parameters(index = "1", arity = "0..1", paramLabel = "SIZE",
      description = "Size: 64M, 1G, 1T … (no suffix: KiB, or blocks with -b). Default: the existing image's size,"
          + " or with -d room for the tree and half again.")
  String size;

  @Option(names = {"-b", "--block-size"}, paramLabel = "BYTES", description = "Block size: 1024, 2048 or 4096 (default: by size, as mke2fs).")
  Integer blockSize;

  @Option(names = "--journal-size", paramLabel = "MiB", description = "Journal size in MiB (default: by size, as mke2fs).")
  Long journalMiB;

  @Option(names = "-J", paramLabel = "size=MiB", description = "mke2fs's spelling of --journal-size.")
  String journalOption;

  @Option(names = "-O", paramLabel = "FEATURES", description = "Features to set or (^) clear, comma-separated, as mke2fs -O.")
  String features;

  @Option(names = "-L", paramLabel = "LABEL", description = "Volume label (up to 16 bytes).")
  String label;

  @Option(names = "-U", paramLabel = "UUID", description = "Filesystem UUID; fixed, it also fixes every other random field.")
  String uuid;

  @Option(names = "-E", paramLabel = "OPTS", description = "Extended options: hash_seed=UUID, root_owner=UID:GID, lazy_itable_init=0|1.")
  String extended;

  @Option(names = "-N", paramLabel = "INODES", description = "Number of inodes.")
  Long inodes;

  @Option(names = "-i", paramLabel = "BYTES", description = "Bytes per inode.")
  Integer bytesPerInode;

  @Option(names = "-I", paramLabel = "BYTES", description = "Inode size.")
  Integer inodeSize;

  @Option(names = "-m", paramLabel = "PERCENT", description = "Blocks reserved for root, in percent (default 5).")
  Double reservedPercent;

  @Option(names = "-d", paramLabel = "DIR|TAR", description = "Copy this host directory or tar archive (.tar, .tar.gz, .tgz …) into the root.")
  Path source;

  @Option(names = "--journaled", description = "Copy the tree through the journal (each change in a journal handle) instead of in bulk, and print the journal's statistics.")
  boolean journaled;

  @Option(names = "--check", description = "Check the result with ext4j's fsck and print its summary.")
  boolean check;

  @Option(names = {"-q", "--quiet"}, description = "Print nothing.")
  boolean quiet;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    long started = System.nanoTime();
    Instant epoch = sourceDateEpoch();
    Instant now = epoch != null ? epoch : Instant.now();
    TreeSource tree = null;
    TreeSize needs = null;
    if (source != null) {
      if (!Files.exists(source, LinkOption.NOFOLLOW_LINKS)) {
        throw new java.nio.file.NoSuchFileException(source.toString());
      }
      boolean sizing = size == null || (!quiet && Progress.onTerminal()); // a walk of its own: only when needed
      if (Files.isDirectory(source)) {
        tree = new ReadAhead(new HostDirectory(source)); // the host walk overlaps the image writes
        needs = sizing ? TreeSize.ofDirectory(source) : null;
      } else if (TarArchive.looksLikeTar(source)) {
        tree = new TarArchive(source);
        needs = sizing ? TreeSize.ofArchive(source) : null;
      } else {
        throw new CliException(source + ": neither a directory nor a tar archive");
      }
    }
    MkfsParameters params = parameters(needs);
    Mkfs.Identity id = identity(now);
    boolean reproducible = uuid != null;
    boolean show = tree != null && needs != null && !quiet && Progress.onTerminal();
    MakeImage.Result made;
    try (Progress progress = Progress.start("mkfs -d", show ? needs.bytes : 0, show)) {
      long[] last = {0};
      Populator.Options po = new Populator.Options(epoch, true, Caller.ROOT, (entries, bytes) -> {
        progress.bytes(bytes - last[0]);
        last[0] = bytes;
        progress.entry();
      });
      made = MakeImage.make(image, params, id, tree, po, reproducible, journaled);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    CheckReport report = null;
    if (check) {
      try (FileBlockDevice dev = FileBlockDevice.open(image, made.geometry().blockSize(), FileBlockDevice.Options.defaults().withReadOnly(true))) {
        report = Checker.check(dev, CheckOptions.defaults().withStrict(true));
      }
    }
    if (!quiet) {
      describe(out, made, seconds);
      if (report != null) {
        out.print("ext4j fsck --strict: " + (report.clean() ? "clean" : "PROBLEMS") + System.lineSeparator() + report.toText());
      }
      out.flush();
    }
    return report == null || report.clean() ? 0 : FsckCommand.EXIT_ERRORS;
  }

  private void describe(PrintWriter out, MakeImage.Result made, double seconds) throws IOException {
    Geometry g = made.geometry();
    Ext4Superblock sb;
    try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      sb = Ext4JournalLocator.readSuperblock(probe);
    }
    long bytes = g.blocksCount() * g.blockSize();
    out.printf(Locale.ROOT, "%s: %s (%d blocks of %d bytes), %d inodes, %d block group%s%n", image, human(bytes), g.blocksCount(),
        g.blockSize(), g.inodesCount(), g.groupCount(), g.groupCount() == 1 ? "" : "s");
    out.printf(Locale.ROOT, "UUID %s%s%n", sb.uuid(), sb.volumeName().isEmpty() ? "" : ", label \"" + sb.volumeName() + "\"");
    out.println("Features: " + String.join(" ", sb.featureNames()));
    long journalBlocks = g.journalBlocks();
    out.printf(Locale.ROOT, "Journal: %d blocks (%s)%n", journalBlocks, human(journalBlocks * g.blockSize()));
    Populator.Summary s = made.populated();
    if (s != null) {
      out.printf(Locale.ROOT, "Copied %s: %d files, %d directories, %d symlinks, %d hard links, %d special files, %s of data%n",
          source, s.files(), s.directories(), s.symlinks(), s.hardLinks(), s.specials(), human(s.bytes()));
      if (made.journal() != null) {
        out.println("Journal statistics of the copy:");
        out.print(made.journal().format().indent(2));
      } else {
        out.println("Copied in bulk: written in place and flushed once at the end, as mke2fs -d does (--journaled copies through the journal)");
      }
    }
    out.printf(Locale.ROOT, "Made in %.2f s%n", seconds);
  }

  /** The mkfs parameters the options ask for. */
  private MkfsParameters parameters(TreeSize needs) throws IOException {
    MkfsParameters.Builder b = MkfsParameters.builder();
    if (blockSize != null) {
      b.blockSize(blockSize);
    }
    if (size != null) {
      FsSize parsed = parseSize(size, blockSize);
      if (parsed.blocks() > 0) {
        b.blocksCount(parsed.blocks());
      } else {
        b.sizeBytes(parsed.bytes());
      }
    } else if (Files.isRegularFile(image) && Files.size(image) > 0 && source == null) {
      b.sizeBytes(Files.size(image));
    } else if (Files.exists(image) && !Files.isRegularFile(image) && !Files.isDirectory(image)) {
      try (FileBlockDevice d = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
        b.sizeBytes(d.blockCount() * 1024);
      }
    } else if (needs != null) {
      b.sizeBytes(needs.imageBytes());
      if (inodes == null && bytesPerInode == null) {
        b.inodesCount(Math.max(needs.entries * 2 + 64, 1024));
      }
    } else {
      throw new CliException("give the SIZE of " + image + " (e.g. 64M), or -d DIR|TAR to size it by its tree");
    }
    String journalSpec = journalOption;
    if (journalSpec != null) {
      if (!journalSpec.startsWith("size=")) {
        throw new CliException("-J " + journalSpec + ": only size=MiB is supported");
      }
      journalMiB = parseLong("-J size", journalSpec.substring(5));
    }
    if (features != null) {
      try {
        b.withFeatureString(features);
      } catch (IllegalArgumentException e) {
        throw new CliException("-O " + features + ": " + e.getMessage());
      }
    }
    if (inodes != null) {
      b.inodesCount(inodes);
    }
    if (bytesPerInode != null) {
      b.inodeRatio(bytesPerInode);
    }
    if (inodeSize != null) {
      b.inodeSize(inodeSize);
    }
    if (reservedPercent != null) {
      b.reservedPercent(reservedPercent);
    }
    for (String[] kv : extendedOptions()) {
      if (kv[0].equals("lazy_itable_init")) {
        b.lazyItableInit(!kv[1].equals("0"));
      }
    }
    MkfsParameters built;
    try {
      if (journalMiB != null) {
        int bs = blockSize != null ? blockSize : b.build().resolvedBlockSize();
        b.journalBlocks((journalMiB << 20) / bs);
      }
      built = b.build();
      Geometry.of(built); // surfaces a layout that cannot be made now, with its reason
    } catch (IllegalArgumentException e) {
      throw new CliException(image + ": " + e.getMessage());
    }
    return built;
  }

  /** The identity: random unless -U fixes it; -L, -E hash_seed and root_owner applied. */
  private Mkfs.Identity identity(Instant time) throws IOException {
    Mkfs.Identity id;
    if (uuid != null && !uuid.equalsIgnoreCase("random")) {
      id = Mkfs.Identity.reproducible(uuidBytes("-U", uuid), time);
    } else {
      id = Mkfs.Identity.random(time);
    }
    if (label != null) {
      if (label.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 16) {
        throw new CliException("-L " + label + ": a label holds at most 16 bytes");
      }
      id = id.withLabel(label);
    }
    for (String[] kv : extendedOptions()) {
      switch (kv[0]) {
        case "hash_seed" -> {
          ByteBuffer seed = ByteBuffer.wrap(uuidBytes("-E hash_seed", kv[1])).order(java.nio.ByteOrder.LITTLE_ENDIAN);
          int[] words = {seed.getInt(), seed.getInt(), seed.getInt(), seed.getInt()};
          id = new Mkfs.Identity(id.uuid(), words, id.time(), id.label(), id.rootUid(), id.rootGid());
        }
        case "root_owner" -> {
          String[] ug = kv[1].split(":", 0);
          if (ug.length != 2) {
            throw new CliException("-E root_owner=" + kv[1] + ": expected UID:GID");
          }
          id = id.withRootOwner(parseLong("root_owner uid", ug[0]), parseLong("root_owner gid", ug[1]));
        }
        case "lazy_itable_init" -> { } // a layout parameter, applied in parameters()
        default -> throw new CliException("-E " + kv[0] + ": unknown extended option (known: hash_seed, root_owner, lazy_itable_init)");
      }
    }
    return id;
  }

  private java.util.List<String[]> extendedOptions() throws CliException {
    java.util.List<String[]> out = new java.util.ArrayList<>();
    if (extended == null) {
      return out;
    }
    for (String opt : extended.split(",", 0)) {
      if (opt.isBlank()) {
        continue;
      }
      int eq = opt.indexOf('=');
      if (eq <= 0) {
        throw new CliException("-E " + opt + ": expected NAME=VALUE");
      }
      out.add(new String[] {opt.substring(0, eq).trim(), opt.substring(eq + 1).trim()});
    }
    return out;
  }

  private static byte[] uuidBytes(String what, String text) throws CliException {
    try {
      UUID u = UUID.fromString(text);
      return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    } catch (IllegalArgumentException e) {
      String hex = text.replace("-", "");
      if (hex.length() == 32) {
        try {
          return HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException ignored) {
          // reported below
        }
      }
      throw new CliException(what + " " + text + ": not a UUID (like 0b5f0e2a-4f55-4b7e-9c6a-2b1d1c1f2e3d)");
    }
  }

  /** SOURCE_DATE_EPOCH as an instant, or null when unset. */
  static Instant sourceDateEpoch() throws CliException {
    String v = System.getenv("SOURCE_DATE_EPOCH");
    if (v == null || v.isBlank()) {
      return null;
    }
    try {
      return Instant.ofEpochSecond(Long.parseLong(v.strip()));
    } catch (NumberFormatException e) {
      throw new CliException("SOURCE_DATE_EPOCH=" + v + ": not a number of seconds since 1970");
    }
  }

  /**
   * mke2fs's fs-size: bytes for a suffixed size (k, m, g, t, as powers of two); without a suffix,
   * blocks when a block size is given, else KiB.
   */
  static FsSize parseSize(String text, Integer blockSize) throws CliException {
    try {
      if (ByteSize.hasUnit(text)) {
        return FsSize.ofBytes(ByteSize.parse(text));
      }
      if (blockSize != null) {
        return new FsSize(0, ByteSize.parse(text));
      }
      return FsSize.ofBytes(ByteSize.parse(text.strip() + "k"));
    } catch (IllegalArgumentException e) {
      throw new CliException("SIZE " + e.getMessage());
    }
  }

  /** mke2fs's fs-size as given: a byte count, or (a bare number with -b) a block count; the other is 0. */
  record FsSize(long bytes, long blocks) {
    static FsSize ofBytes(long bytes) {
      return new FsSize(bytes, 0);
    }
  }

  private static long parseLong(String what, String text) throws CliException {
    try {
      long v = Long.parseLong(text.strip());
      if (v <= 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new CliException(what + " " + text + ": not a positive whole number");
    }
  }

  static String human(long bytes) {
    if (bytes >= 1L << 30) {
      return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
    }
    if (bytes >= 1L << 20) {
      return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
    }
    if (bytes >= 1L << 10) {
      return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }
    return bytes + " bytes";
  }

  /** What a tree needs: its entries and the bytes of its files, for the default size and the progress bar. */
  record TreeSize(long entries, long bytes, long blocks4k) {
    /** Room for the tree and half again, plus the journal and inode tables mke2fs would add. */
    long imageBytes() {
      long content = blocks4k * 4096 + entries * 1024;
      long want = content + content / 2 + (64L << 20);
      return (want + (1 << 20) - 1) & ~((1L << 20) - 1);
    }

    static TreeSize ofDirectory(Path root) throws IOException {
      long[] sum = {0, 0, 0};
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
          sum[0]++;
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          sum[0]++;
          if (attrs.isRegularFile()) {
            sum[1] += attrs.size();
            sum[2] += (attrs.size() + 4095) / 4096;
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException exc) {
          return FileVisitResult.CONTINUE;
        }
      });
      return new TreeSize(sum[0], sum[1], sum[2]);
    }

    static TreeSize ofArchive(Path archive) throws IOException {
      long[] sum = {0, 0, 0};
      new TarArchive(archive).entries(e -> {
        sum[0]++;
        if (e.kind() == io.ext4j.tools.populate.TreeEntry.Kind.FILE) {
          sum[1] += e.size();
          sum[2] += (e.size() + 4095) / 4096;
        }
      });
      return new TreeSize(sum[0], sum[1], sum[2]);
    }
  }
}
