package io.ext4j.cli;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.JournalLocation;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j info IMAGE}: the superblock in the words of {@code dumpe2fs -h} — label, UUID,
 * features by name, state, counts, sizes, per-group figures, times, orphans, error fields when there
 * are any — then the journal superblock as {@code journal info} prints it. Reads the superblock as it
 * is on disk (as dumpe2fs does: an image that needs recovery shows needs_recovery and the counts
 * before the replay), so it also describes images the engine refuses to open. Writes nothing.
 */
@Command(name = "info", mixinStandardHelpOptions = true,
    description = "Show the superblock and journal summary of an ext4 image (like dumpe2fs -h).")
public final class InfoCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "IMAGE", description = "An ext4 image file or block device.")
  Path image;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (Files.isDirectory(image)) {
      throw new CliException(image + ": is a directory, not an ext4 image");
    }
    Ext4Superblock sb;
    long deviceBytes;
    try (FileBlockDevice dev = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      sb = Ext4JournalLocator.readSuperblock(dev);
      deviceBytes = dev.blockCount() * 1024;
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(format(sb));
    out.flush();
    long deviceBlocks = deviceBytes / sb.blockSize();
    if (sb.blocksCount() > deviceBlocks) { // the header is what dumpe2fs -h would print; nothing past it can be read
      throw new CliException(image + ": the filesystem has " + sb.blocksCount() + " blocks but the device only "
          + deviceBlocks + " (truncated image?)");
    }
    if (sb.hasJournal() && sb.journalInode() != 0) {
      JournalLocation loc;
      try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
        loc = Ext4JournalLocator.locate(probe);
      }
      try (FileBlockDevice dev = FileBlockDevice.open(image, loc.blockSize(), FileBlockDevice.Options.defaults().withReadOnly(true))) {
        JournalSuperblock jsb = JournalRecovery.readSuperblock(dev, loc.journalMap());
        out.print(JournalInfoCommand.format(jsb, sb.blockSize()));
        out.println(field("Journal state:") + (jsb.needsRecovery() ? "needs recovery" : "clean"));
      }
    }
    out.flush();
    return 0;
  }

  private static String field(String label) {
    return String.format("%-26s", label);
  }

  /** The superblock lines, in dumpe2fs's order and words (a few it lacks: "Block groups"). */
  static String format(Ext4Superblock sb) {
    List<String[]> f = new ArrayList<>();
    String label = sb.volumeName();
    f.add(kv("Filesystem volume name:", label.isEmpty() ? "<none>" : label));
    String mounted = sb.lastMounted();
    f.add(kv("Last mounted on:", mounted.isEmpty() ? "<not available>" : mounted));
    f.add(kv("Filesystem UUID:", sb.uuid().toString()));
    f.add(kv("Filesystem magic number:", String.format("0x%04X", sb.magic())));
    f.add(kv("Filesystem revision #:", sb.revLevel() + (sb.revLevel() == 0 ? " (original)" : sb.revLevel() == 1 ? " (dynamic)" : " (unknown)")));
    List<String> features = sb.featureNames();
    f.add(kv("Filesystem features:", features.isEmpty() ? "(none)" : String.join(" ", features)));
    f.add(kv("Filesystem flags:", flags(sb.flags())));
    f.add(kv("Default mount options:", mountOptions(sb.defaultMountOptions())));
    f.add(kv("Filesystem state:", state(sb.state())));
    f.add(kv("Errors behavior:", switch (sb.errorBehaviour()) {
      case 1 -> "Continue";
      case 2 -> "Remount read-only";
      case 3 -> "Panic";
      default -> "Unknown (continue)";
    }));
    f.add(kv("Filesystem OS type:", switch (sb.creatorOs()) {
      case 0 -> "Linux";
      case 1 -> "Hurd";
      case 2 -> "Masix";
      case 3 -> "FreeBSD";
      case 4 -> "Lites";
      default -> "(unknown os)";
    }));
    f.add(kv("Inode count:", sb.inodesCount()));
    f.add(kv("Block count:", sb.blocksCount()));
    f.add(kv("Reserved block count:", sb.reservedBlocksCount()));
    if (sb.overheadClusters() != 0) {
      f.add(kv("Overhead clusters:", sb.overheadClusters()));
    }
    f.add(kv("Free blocks:", sb.freeBlocksCount()));
    f.add(kv("Free inodes:", sb.freeInodesCount()));
    f.add(kv("First block:", sb.firstDataBlock()));
    f.add(kv("Block size:", sb.blockSize()));
    boolean bigalloc = sb.hasRoCompat(Ext4Superblock.RO_COMPAT_BIGALLOC);
    f.add(kv(bigalloc ? "Cluster size:" : "Fragment size:", 1024L << sb.logClusterSize()));
    if (sb.is64Bit()) {
      f.add(kv("Group descriptor size:", sb.descriptorSize()));
    }
    if (sb.reservedGdtBlocks() != 0) {
      f.add(kv("Reserved GDT blocks:", sb.reservedGdtBlocks()));
    }
    f.add(kv("Blocks per group:", sb.blocksPerGroup()));
    f.add(kv(bigalloc ? "Clusters per group:" : "Fragments per group:", sb.clustersPerGroup()));
    f.add(kv("Inodes per group:", sb.inodesPerGroup()));
    f.add(kv("Inode blocks per group:", Math.ceilDiv(sb.inodesPerGroup() * sb.inodeSize(), sb.blockSize())));
    if (sb.hasIncompat(Ext4Superblock.INCOMPAT_META_BG)) {
      f.add(kv("First meta block group:", sb.firstMetaBg()));
    }
    if (sb.hasIncompat(Ext4Superblock.INCOMPAT_FLEX_BG)) {
      f.add(kv("Flex block group size:", sb.groupsPerFlex()));
    }
    f.add(kv("Block groups:", sb.groupCount()));
    f.add(kv("Filesystem created:", Formats.ctime(sb.mkfsTime())));
    f.add(kv("Last mount time:", Formats.ctime(sb.mountTime())));
    f.add(kv("Last write time:", Formats.ctime(sb.writeTime())));
    f.add(kv("Mount count:", sb.mountCount()));
    f.add(kv("Maximum mount count:", sb.maxMountCount()));
    f.add(kv("Last checked:", Formats.ctime(sb.lastCheckTime())));
    f.add(kv("Check interval:", sb.checkInterval() + " (" + interval(sb.checkInterval()) + ")"));
    if (sb.kbytesWritten() != 0) {
      f.add(kv("Lifetime writes:", kbytes(sb.kbytesWritten())));
    }
    f.add(kv("Reserved blocks uid:", sb.defaultReservedUid() + " " + HostNames.user(sb.defaultReservedUid())));
    f.add(kv("Reserved blocks gid:", sb.defaultReservedGid() + " " + HostNames.group(sb.defaultReservedGid())));
    if (sb.revLevel() >= 1) {
      f.add(kv("First inode:", sb.firstInode()));
      f.add(kv("Inode size:", sb.inodeSize()));
      if (sb.minExtraIsize() != 0) {
        f.add(kv("Required extra isize:", sb.minExtraIsize()));
      }
      if (sb.wantExtraIsize() != 0) {
        f.add(kv("Desired extra isize:", sb.wantExtraIsize()));
      }
    }
    UUID nil = new UUID(0, 0);
    if (!sb.journalUuid().equals(nil)) {
      f.add(kv("Journal UUID:", sb.journalUuid().toString()));
    }
    if (sb.journalInode() != 0) {
      f.add(kv("Journal inode:", sb.journalInode()));
    }
    if (sb.journalDevice() != 0) {
      f.add(kv("Journal device:", String.format("0x%04x", sb.journalDevice())));
    }
    if (sb.lastOrphan() != 0) {
      f.add(kv("First orphan inode:", sb.lastOrphan()));
    }
    if (sb.hasCompat(Ext4Superblock.COMPAT_DIR_INDEX) || sb.defaultHashVersion() != 0) {
      f.add(kv("Default directory hash:", hashName(sb.defaultHashVersion())));
    }
    int[] seed = sb.hashSeed();
    if ((seed[0] | seed[1] | seed[2] | seed[3]) != 0) {
      f.add(kv("Directory Hash Seed:", seedUuid(seed).toString()));
    }
    if (sb.journalBackupType() != 0) {
      f.add(kv("Journal backup:", sb.journalBackupType() == 1 ? "inode blocks" : "type " + sb.journalBackupType()));
    }
    if (sb.hasMetadataCsum()) {
      f.add(kv("Checksum type:", sb.checksumType() == 1 ? "crc32c" : "unknown"));
      f.add(kv("Checksum:", String.format("0x%08x", sb.checksum())));
    }
    if (sb.hasIncompat(Ext4Superblock.INCOMPAT_CSUM_SEED)) {
      f.add(kv("Checksum seed:", String.format("0x%08x", sb.storedChecksumSeed())));
    }
    if (sb.orphanFileInode() != 0) {
      f.add(kv("Orphan file inode:", sb.orphanFileInode()));
    }
    if (sb.errorCount() != 0 || sb.firstErrorTime() != 0 || sb.lastErrorTime() != 0) {
      f.add(kv("FS Error count:", Integer.toUnsignedString(sb.errorCount())));
      if (sb.firstErrorTime() != 0) {
        f.add(kv("First error time:", Formats.ctime(sb.firstErrorTime())));
        f.add(kv("First error function:", sb.firstErrorFunction()));
        f.add(kv("First error line #:", Integer.toUnsignedString(sb.firstErrorLine())));
        f.add(kv("First error inode #:", sb.firstErrorInode()));
        f.add(kv("First error block #:", sb.firstErrorBlock()));
        f.add(kv("First error err:", errName(sb.firstErrorCode())));
      }
      if (sb.lastErrorTime() != 0) {
        f.add(kv("Last error time:", Formats.ctime(sb.lastErrorTime())));
        f.add(kv("Last error function:", sb.lastErrorFunction()));
        f.add(kv("Last error line #:", Integer.toUnsignedString(sb.lastErrorLine())));
        f.add(kv("Last error inode #:", sb.lastErrorInode()));
        f.add(kv("Last error block #:", sb.lastErrorBlock()));
        f.add(kv("Last error err:", errName(sb.lastErrorCode())));
      }
    }
    StringBuilder s = new StringBuilder();
    for (String[] kv : f) {
      s.append(field(kv[0])).append(kv[1]).append('\n');
    }
    return s.toString();
  }

  private static String[] kv(String k, Object v) {
    return new String[] {k, String.valueOf(v)};
  }

  private static String flags(int flags) {
    List<String> names = new ArrayList<>();
    if ((flags & Ext4Superblock.FLAG_SIGNED_HASH) != 0) {
      names.add("signed_directory_hash");
    }
    if ((flags & Ext4Superblock.FLAG_UNSIGNED_HASH) != 0) {
      names.add("unsigned_directory_hash");
    }
    if ((flags & 0x4) != 0) {
      names.add("test_filesystem");
    }
    return names.isEmpty() ? "(none)" : String.join(" ", names);
  }

  /** s_default_mount_opts by name (EXT4_DEFM_*; the journal mode is a two-bit field). */
  private static String mountOptions(int bits) {
    String[] names = {"debug", "bsdgroups", "user_xattr", "acl", "uid16", null, null, null, "nobarrier", "block_validity",
        "discard", "nodelalloc"};
    List<String> out = new ArrayList<>();
    for (int i = 0; i < names.length; i++) {
      if (names[i] != null && (bits & (1 << i)) != 0) {
        out.add(names[i]);
      }
    }
    switch (bits & 0x60) {
      case 0x20 -> out.add("journal_data");
      case 0x40 -> out.add("journal_data_ordered");
      case 0x60 -> out.add("journal_data_writeback");
      default -> { }
    }
    int unknown = bits & ~0xF7F;
    if (unknown != 0) {
      out.add(String.format("mntopts_0x%x", unknown));
    }
    return out.isEmpty() ? "(none)" : String.join(" ", out);
  }

  private static String state(int state) {
    String s = (state & Ext4Superblock.STATE_VALID) != 0 ? "clean" : "not clean";
    if ((state & Ext4Superblock.STATE_ERRORS) != 0) {
      s += " with errors";
    }
    if ((state & Ext4Superblock.STATE_ORPHANS) != 0) {
      s += " (orphans being recovered)";
    }
    return s;
  }

  private static String hashName(int v) {
    return switch (v) {
      case 0 -> "legacy";
      case 1 -> "half_md4";
      case 2 -> "tea";
      case 3 -> "legacy_unsigned";
      case 4 -> "half_md4_unsigned";
      case 5 -> "tea_unsigned";
      case 6 -> "siphash";
      default -> "unknown (" + v + ")";
    };
  }

  /** s_hash_seed's 16 bytes (stored as four little-endian words) read as a UUID, as dumpe2fs prints it. */
  private static UUID seedUuid(int[] seed) {
    ByteBuffer le = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
    for (int w : seed) {
      le.putInt(w);
    }
    le.flip().order(ByteOrder.BIG_ENDIAN);
    return new UUID(le.getLong(), le.getLong());
  }

  /** dumpe2fs's "Lifetime writes": kB below 8 MiB, then MB, GB, TB, rounded. */
  private static String kbytes(long kb) {
    if (kb < 8192) {
      return kb + " kB";
    }
    if (kb < 8192L << 10) {
      return ((kb + 512) >> 10) + " MB";
    }
    if (kb < 8192L << 20) {
      return ((kb + (1 << 19)) >> 20) + " GB";
    }
    return ((kb + (1L << 29)) >> 30) + " TB";
  }

  private static String errName(int code) {
    for (io.ext4j.fs.Errno e : io.ext4j.fs.Errno.values()) {
      if (e.number() == code) {
        return e.name();
      }
    }
    return Integer.toString(code);
  }

  /** An interval as dumpe2fs words it: "<none>", or months (30 days), weeks, days, hours, minutes, seconds. */
  static String interval(long secs) {
    if (secs == 0) {
      return "<none>";
    }
    long[] units = {30L * 86400, 7L * 86400, 86400, 3600, 60, 1};
    String[] names = {"month", "week", "day", "hour", "minute", "second"};
    StringBuilder out = new StringBuilder();
    long left = secs;
    for (int i = 0; i < units.length; i++) {
      long n = left / units[i];
      left -= n * units[i];
      if (n > 0) {
        out.append(out.isEmpty() ? "" : ", ").append(n).append(' ').append(names[i]).append(n == 1 ? "" : "s");
      }
    }
    return out.toString();
  }
}
