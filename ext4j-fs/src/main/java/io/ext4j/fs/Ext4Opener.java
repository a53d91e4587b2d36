package io.ext4j.fs;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.block.OverlayBlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.fs.alloc.Groups;
import io.ext4j.fs.context.Features;
import io.ext4j.fs.context.Fs;
import io.ext4j.fs.context.SuperblockState;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.meta.JournaledStore;
import io.ext4j.fs.meta.MetaStore;
import io.ext4j.fs.meta.UnjournaledStore;
import io.ext4j.jbd2.Journal;
import io.ext4j.jbd2.JournalOptions;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalSuperblock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Opening a filesystem, the steps before its first operation: the primary superblock read and
 * checked against the device (a torn one accepted only as {@link #checkTorn} allows), the
 * read-only decision, the journal found, repaired, recovered (full commits, then fast commits) and
 * opened, the shared context ({@link Fs}) built, and the mount ({@link Ext4Lifecycle#mount}:
 * orphans, the mounted superblock). {@link Ext4FileSystem}'s {@code open} methods call it; a
 * failure at any step closes what the earlier ones opened.
 */
final class Ext4Opener {
  private Ext4Opener() {}

  /** ro_compat bits the kernel sets in the primary superblock only, so a backup may lack them. */
  private static final int KERNEL_SET_RO_COMPAT = Ext4Superblock.RO_COMPAT_LARGE_FILE | Ext4Superblock.RO_COMPAT_HUGE_FILE
      | Ext4Superblock.RO_COMPAT_ORPHAN_PRESENT;

  /** The block size the superblock of the image at {@code image} names (read through 1 KiB blocks). */
  static int blockSizeOf(Path image) throws IOException {
    try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      return Ext4JournalLocator.readSuperblock(probe).blockSize();
    }
  }

  /** The primary superblock, and why its checksum failed when it is used all the same (else null). */
  private record Primary(Ext4Superblock sb, Ext4FormatException failure) {}

  /** What opening the journal leaves: the device the engine writes through, the journal and cache if open, the superblock after recovery. */
  private record Journaled(BlockDevice dev, Journal journal, BlockCache cache, Ext4Superblock sb, Ext4FormatException primaryFailure) {}

  /**
   * Opens the filesystem on {@code device}; with {@code externalStart} ≥ 0 the device is the
   * filesystem followed by its external journal device (named {@code journalName}) from that block.
   */
  static Ext4FileSystem open(BlockDevice device, Ext4Options options, boolean closeDevice, String journalName, long externalStart)
      throws IOException {
    Primary primary = readPrimary(device);
    Ext4Superblock sb = primary.sb();
    checkAgainstDevice(device, sb, externalStart);
    String reason = Features.readOnlyReason(device.name(), sb, externalStart >= 0);
    boolean readOnly = options.readOnly() || device.isReadOnly() || reason != null;
    if (!options.readOnly() && reason != null) {
      reason = "opened read-only: " + reason;
    } else if (readOnly && reason == null) {
      reason = device.isReadOnly() && !options.readOnly() ? "the device is read-only" : "opened read-only";
    }
    Journaled j = sb.hasJournal() && (sb.journalInode() != 0 || externalStart >= 0)
        ? openJournal(device, sb, primary.failure(), options, readOnly, journalName, externalStart)
        : new Journaled(device, null, null, sb, primary.failure());
    if (j.primaryFailure() != null) {
      checkTorn(device, j.sb(), j.primaryFailure()); // no journal to rewrite it
    }
    Fs fs = context(device.name(), j, options, readOnly);
    Ext4FileSystem f = new Ext4FileSystem(fs, j.dev(), closeDevice, options, j.journal(), readOnly ? reason : null);
    try {
      f.lifecycle.mount();
    } catch (IOException | RuntimeException e) {
      try {
        f.lifecycle.shutdown(false);
      } catch (IOException | RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return f;
  }

  /**
   * Decodes the primary superblock. One whose checksum alone fails (every field otherwise valid) is
   * kept with the failure: a crash may have torn it, which {@link #checkTorn} decides.
   */
  private static Primary readPrimary(BlockDevice device) throws IOException {
    byte[] raw = Ext4JournalLocator.readBytes(device, Ext4Superblock.OFFSET, Ext4Superblock.SIZE);
    try {
      return new Primary(Ext4Superblock.decode(device.name(), raw), null);
    } catch (Ext4FormatException e) {
      Ext4Superblock unverified;
      try {
        unverified = Ext4Superblock.decodeIgnoringChecksum(device.name(), raw);
      } catch (Ext4FormatException worse) {
        throw e;
      }
      if (unverified.checksumValid()) {
        throw e;
      }
      return new Primary(unverified, e);
    }
  }

  /** The superblock's block size, size, journal and hash version against the device it was read from. */
  private static void checkAgainstDevice(BlockDevice device, Ext4Superblock sb, long externalStart) throws IOException {
    long fsBlocks = externalStart >= 0 ? externalStart : device.blockCount();
    if (sb.blockSize() != device.blockSize()) {
      throw new Ext4FormatException(device.name(), Ext4Superblock.OFFSET + 0x18, "the filesystem's block size is "
          + sb.blockSize() + " but the device was opened with blocks of " + device.blockSize());
    }
    if (sb.blocksCount() > fsBlocks) {
      throw new Ext4FormatException(device.name(), Ext4Superblock.OFFSET + 4, "the filesystem has " + sb.blocksCount()
          + " blocks but the device only " + fsBlocks + " (truncated image?)");
    }
    if (externalStart >= 0 && (!sb.hasJournal() || sb.journalInode() != 0)) {
      throw new Ext4FormatException(device.name(), Ext4Superblock.OFFSET + 0xE0, "a journal device was given, but the filesystem "
          + (sb.hasJournal() ? "has an internal journal (inode " + sb.journalInode() + ")" : "has no journal"));
    }
    if (sb.hasCompat(Ext4Superblock.COMPAT_DIR_INDEX) && (sb.defaultHashVersion() < 0 || sb.defaultHashVersion() > 5)) {
      // e2fsck passes it (each htree root names its own), but every name lookup here hashes with it
      throw new Ext4FormatException(device.name(), Ext4Superblock.OFFSET + 0xFC, "default directory hash version "
          + sb.defaultHashVersion() + " is unknown (0-5)");
    }
  }

  /**
   * Finds the journal, repairs a damaged journal inode from the superblock's backup (read-write),
   * recovers what it holds (into memory only when read-only), retires an old fast-commit area, and
   * opens it for writing unless read-only; the superblock is read again after a replay.
   */
  private static Journaled openJournal(BlockDevice device, Ext4Superblock sb, Ext4FormatException primaryFailure,
      Ext4Options options, boolean readOnly, String journalName, long externalStart) throws IOException {
    BlockDevice dev = device;
    Journal journal = null;
    BlockCache cache = null;
    JournalLocation loc = externalStart >= 0 ? Ext4JournalLocator.locateExternal(dev, externalStart, sb, journalName)
        : Ext4JournalLocator.locate(dev, sb);
    if (loc.damagedInode() != null && !readOnly) {
      // e2fsck's answer to a damaged journal inode: the superblock's backup of its blocks, written back
      Ext4JournalLocator.repairJournalInode(dev, sb, loc);
      dev.flush();
    }
    boolean dirty = JournalRecovery.readSuperblock(dev, loc.journalMap()).start() != 0;
    boolean torn = false;
    if (primaryFailure != null && !dirty) {
      checkTorn(device, sb, primaryFailure);
      primaryFailure = null; // repaired when written at mount
      torn = true;
    }
    if (readOnly && dirty) {
      dev = new OverlayBlockDevice(device); // replay into memory only
    }
    if (options.bulkLoad() && dirty) {
      throw new Ext4Exception(Errno.EINVAL, 0, null, device.name() + ": bulk loading needs an empty journal; this one needs recovery");
    }
    if (dirty) {
      JournalSuperblock jsb = JournalRecovery.readSuperblock(dev, loc.journalMap());
      if (jsb.has(JournalFeature.FAST_COMMIT)) {
        // full commits and then fast commits, offline (the journal engine knows no filesystem)
        Ext4Recovery.Result r = Ext4Recovery.recover(dev, loc.journalMap(), jsb);
        JournalRecovery.markEmpty(dev, loc.journalMap(), jsb, r.journal());
      }
    }
    if (!readOnly && !options.bulkLoad()) {
      Ext4Recovery.retireFastCommitArea(dev, loc.journalMap(), JournalRecovery.readSuperblock(dev, loc.journalMap()));
    }
    if ((!readOnly && !options.bulkLoad()) || dirty) {
      cache = new BlockCache(dev, BlockCache.Options.ofBytes(options.cacheBytes(), sb.blockSize()));
      // A transaction's buffers stay in the cache until it commits: cap them well below its size.
      int cap = Math.max(256, cache.options().capacityBlocks() / 4);
      JournalOptions jo = options.journal().toBuilder().checksumV3(sb.hasMetadataCsum()).bit64(sb.is64Bit())
          .maxTransactionBuffers(options.journal().maxTransactionBuffers() == 0 ? cap
              : Math.min(cap, options.journal().maxTransactionBuffers())).build();
      journal = Journal.open(dev, loc.journalMap(), jo, cache);
      // Recovery may have replayed the superblock; then it must verify.
      byte[] again = Ext4JournalLocator.readBytes(dev, Ext4Superblock.OFFSET, Ext4Superblock.SIZE);
      sb = torn ? Ext4Superblock.decodeIgnoringChecksum(dev.name(), again) : Ext4Superblock.decode(dev.name(), again);
      if (readOnly) {
        journal.closeWithoutCheckpoint();
        journal = null;
        cache = null;
      }
    }
    return new Journaled(dev, journal, cache, sb, primaryFailure);
  }

  /** The context every component shares: layout, cache, metadata store, groups, superblock state. Closes the journal if it fails. */
  private static Fs context(String name, Journaled j, Ext4Options options, boolean readOnly) throws IOException {
    BlockDevice dev = j.dev();
    FsLayout lay = FsLayout.of(name, j.sb());
    BlockCache cache = j.cache() != null ? j.cache() : new BlockCache(dev, BlockCache.Options.ofBytes(options.cacheBytes(), lay.blockSize()));
    MetaStore meta = j.journal() != null ? new JournaledStore(dev, cache, j.journal()) : new UnjournaledStore(dev, cache);
    Groups groups;
    SuperblockState state;
    try {
      groups = Groups.load(lay, j.sb(), meta);
      state = new SuperblockState(lay, j.sb(), groups::freeBlocks, groups::freeInodes);
    } catch (IOException | RuntimeException e) {
      if (j.journal() != null) {
        try {
          j.journal().close();
        } catch (IOException | RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    return new Fs(lay, dev, cache, meta, groups, state, options.clock(), readOnly, options.inodeCacheSize());
  }

  /**
   * Accepts a primary superblock whose checksum fails as a write of ext4j's own torn by a crash —
   * the mount and unmount writes go straight to the device (the kernel's way; needs_recovery must be
   * on disk before the log holds anything) and a superblock spans two 512-byte sectors, each of
   * which then holds either version, every field valid — when the journal has nothing to replay and
   * the backup superblock in group 1, if the filesystem has one, agrees on every field that never
   * changes after mkfs. The mount rewrites it with a correct checksum. Anything else is corruption.
   */
  private static void checkTorn(BlockDevice device, Ext4Superblock primary, Ext4FormatException failure) throws IOException {
    if (primary.groupCount() < 2) {
      return; // no backup to compare with
    }
    long backupBlock = primary.firstDataBlock() + primary.blocksPerGroup();
    Ext4Superblock backup;
    try {
      backup = Ext4Superblock.decode(device.name(),
          Ext4JournalLocator.readBytes(device, backupBlock * primary.blockSize(), Ext4Superblock.SIZE));
    } catch (Ext4FormatException e) {
      failure.addSuppressed(e);
      throw failure;
    }
    boolean agrees = Arrays.equals(backup.uuidBytes(), primary.uuidBytes())
        && backup.blocksCount() == primary.blocksCount() && backup.inodesCount() == primary.inodesCount()
        && backup.blockSize() == primary.blockSize() && backup.blocksPerGroup() == primary.blocksPerGroup()
        && backup.inodesPerGroup() == primary.inodesPerGroup() && backup.inodeSize() == primary.inodeSize()
        && backup.journalInode() == primary.journalInode() && backup.checksumSeed() == primary.checksumSeed()
        && backup.checksumType() == primary.checksumType() && backup.revLevel() == primary.revLevel()
        && backup.firstInode() == primary.firstInode() && backup.descriptorSize() == primary.descriptorSize()
        && backup.firstDataBlock() == primary.firstDataBlock() && backup.logGroupsPerFlex() == primary.logGroupsPerFlex()
        && backup.defaultHashVersion() == primary.defaultHashVersion()
        && Arrays.equals(backup.hashSeed(), primary.hashSeed())
        && backup.featureCompat() == primary.featureCompat()
        && (backup.featureIncompat() | Ext4Superblock.INCOMPAT_RECOVER) == (primary.featureIncompat() | Ext4Superblock.INCOMPAT_RECOVER)
        && (backup.featureRoCompat() | KERNEL_SET_RO_COMPAT) == (primary.featureRoCompat() | KERNEL_SET_RO_COMPAT);
    if (!agrees) {
      throw failure;
    }
  }
}
