package io.ext4j.cli;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.JournalLocation;
import io.ext4j.jbd2.JournalCorruptException;
import io.ext4j.jbd2.JournalMap;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code IMAGE [--standalone]} arguments shared by the journal subcommands, and opening them: an
 * ext4 image's internal journal is found with {@link Ext4JournalLocator}; a standalone journal file
 * holds the journal from its block 0, in the block size its superblock names.
 */
public final class JournalTarget {
  @Parameters(index = "0", paramLabel = "IMAGE", description = "An ext4 image file or block device.")
  Path image;

  @Option(names = "--standalone", description = "IMAGE is a bare journal region (journal superblock at byte 0), not an ext4 image.")
  boolean standalone;

  @Option(names = "--journal-dev", paramLabel = "PATH",
      description = "IMAGE's external journal device (made by mke2fs -O journal_dev, IMAGE by mke2fs -J device=); its UUID must be IMAGE's journal UUID.")
  Path journalDevice;

  /** An open journal: the device (in the journal's block size), its map, and for ext4 where it was found. */
  public record Opened(BlockDevice device, JournalMap map, JournalLocation location) implements AutoCloseable {
    /** True for the internal journal of an ext4 image. */
    public boolean isExt4() {
      return location != null;
    }

    @Override
    public void close() throws IOException {
      device.close();
    }
  }

  /** Opens the target; read-only unless {@code writable}. Nothing is written by opening. */
  public Opened open(boolean writable) throws IOException {
    FileBlockDevice.Options opts = FileBlockDevice.Options.defaults().withReadOnly(!writable);
    if (standalone) {
      int bs;
      try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
        if (probe.blockCount() < 1) {
          throw new JournalCorruptException(image.toString(), 0, "superblock", "the file is smaller than 1024 bytes");
        }
        ByteBuffer b = ByteBuffer.allocate(1024);
        probe.read(0, b);
        bs = b.getInt(0xC);
      }
      if (bs < 1024 || bs > 65536 || Integer.bitCount(bs) != 1) {
        throw new JournalCorruptException(image.toString(), 0, "superblock block size",
            "s_blocksize " + Integer.toUnsignedString(bs) + " is not a power of two in [1024, 65536]");
      }
      FileBlockDevice dev = FileBlockDevice.open(image, bs, opts);
      return new Opened(dev, JournalMap.contiguous(0, Math.max(1, dev.blockCount())), null);
    }
    if (journalDevice != null) {
      return openExternal(opts);
    }
    JournalLocation loc;
    try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      loc = Ext4JournalLocator.locate(probe);
    }
    FileBlockDevice dev = FileBlockDevice.open(image, loc.blockSize(), opts);
    return new Opened(dev, loc.journalMap(), loc);
  }

  /** IMAGE and its journal device as one address space, the journal device's blocks after IMAGE's. */
  private Opened openExternal(FileBlockDevice.Options opts) throws IOException {
    io.ext4j.fs.format.Ext4Superblock sb;
    try (FileBlockDevice probe = FileBlockDevice.open(image, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      sb = Ext4JournalLocator.readSuperblock(probe);
    }
    if (!sb.hasJournal() || sb.journalInode() != 0) {
      throw new io.ext4j.fs.Ext4FormatException(image.toString(), io.ext4j.fs.format.Ext4Superblock.OFFSET + 0xE0,
          "--journal-dev was given, but the filesystem " + (sb.hasJournal() ? "has an internal journal" : "has no journal"));
    }
    io.ext4j.block.ConcatBlockDevice both = io.ext4j.block.ConcatBlockDevice.open(image, journalDevice, sb.blockSize(), opts, false);
    try {
      JournalLocation loc = Ext4JournalLocator.locateExternal(both, both.secondStart(), sb, journalDevice.toString());
      return new Opened(both, loc.journalMap(), loc);
    } catch (IOException | RuntimeException e) {
      both.close();
      throw e;
    }
  }
}
