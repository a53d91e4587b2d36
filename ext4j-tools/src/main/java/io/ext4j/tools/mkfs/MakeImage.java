package io.ext4j.tools.mkfs;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.FsClock;
import io.ext4j.tools.populate.Populator;
import io.ext4j.tools.populate.TreeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.SplittableRandom;

/**
 * Makes an image file: a new sparse file of the requested size, formatted as {@link Mkfs} does, and
 * optionally filled from a tree ({@link Populator}, through the engine in bulk mode). What
 * {@code ext4j mkfs} runs.
 *
 * <h2>Reproducible images</h2>
 * With a fixed UUID ({@link Mkfs.Identity#reproducible}) and a clamp time, two runs over the same
 * tree give byte-identical images: the hash seed derives from the UUID, new inodes' generations
 * come from a generator seeded by it, every time is clamped, and the tree is read in byte order.
 *
 * <h2>Durability</h2>
 * When {@link #make} returns the image is complete, closed cleanly and flushed.
 */
public final class MakeImage {
  private MakeImage() {}

  /**
   * What was made.
   *
   * @param populated what was copied (null without a tree)
   * @param journal the journal's statistics at the end of a copy through it (null without a tree or
   *     in bulk mode, which writes in place without the journal, as mke2fs -d does)
   */
  public record Result(Geometry geometry, Populator.Summary populated, io.ext4j.jbd2.JournalStats journal) {}

  /**
   * Creates {@code image} (replacing a regular file of that name; a block device is formatted in
   * place) with parameters {@code p} and identity {@code id}, then copies {@code tree} into it when
   * not null.
   *
   * @param reproducible derive inode generations from the UUID instead of randomly
   */
  public static Result make(Path image, MkfsParameters p, Mkfs.Identity id, TreeSource tree, Populator.Options populate,
      boolean reproducible) throws IOException {
    return make(image, p, id, tree, populate, reproducible, false);
  }

  /**
   * As {@link #make(Path, MkfsParameters, Mkfs.Identity, TreeSource, Populator.Options, boolean)};
   * with {@code journaled} the tree is copied through the journal (every change in a journal handle,
   * as any later change would be) instead of in bulk mode.
   */
  public static Result make(Path image, MkfsParameters p, Mkfs.Identity id, TreeSource tree, Populator.Options populate,
      boolean reproducible, boolean journaled) throws IOException {
    Geometry g = Geometry.of(p);
    boolean device = Files.exists(image) && !Files.isRegularFile(image, LinkOption.NOFOLLOW_LINKS)
        && !Files.isDirectory(image);
    if (!device) {
      Files.deleteIfExists(image);
    }
    FileBlockDevice.Options opts = device ? FileBlockDevice.Options.defaults()
        : FileBlockDevice.Options.defaults().create(g.blocksCount());
    try (FileBlockDevice dev = FileBlockDevice.open(image, g.blockSize(), opts)) {
      Mkfs.format(dev, g, id, !device);
      Populator.Summary summary = null;
      io.ext4j.jbd2.JournalStats stats = null;
      if (tree != null) {
        SplittableRandom gen = new SplittableRandom(java.nio.ByteBuffer.wrap(id.uuid()).getLong() ^ 0x9E3779B97F4A7C15L);
        Ext4Options.Builder eo = Ext4Options.builder().bulkLoad(!journaled);
        if (reproducible) {
          eo.generations(gen::nextInt);
        }
        Instant clamp = populate.clamp();
        eo.clock(clamp != null ? FsClock.fixed(clamp) : FsClock.system());
        try (Ext4FileSystem fs = Ext4FileSystem.open(dev, eo.build(), false)) {
          summary = Populator.copy(fs, tree, "/", populate);
          if (journaled) {
            fs.syncfs();
            stats = fs.journalStats();
          }
        }
      }
      return new Result(g, summary, stats);
    }
  }
}
