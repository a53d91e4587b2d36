package io.ext4j.fs.engine;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.tools.mkfs.Geometry;
import io.ext4j.tools.mkfs.Mkfs;
import io.ext4j.tools.mkfs.MkfsParameters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Random;

/** Empty filesystems made by ext4j's mkfs in memory, for tests that need no external tool to start. */
final class MemoryImages {
  private MemoryImages() {}

  /** A fresh image of {@code bytes} with {@code features} (mkfs -O syntax, "" for the default set), its identity from {@code seed}. */
  static MemoryBlockDevice format(long bytes, int blockSize, String features, long seed) throws IOException {
    MkfsParameters.Builder p = MkfsParameters.builder().sizeBytes(bytes).blockSize(blockSize);
    if (!features.isEmpty()) {
      p.withFeatureString(features);
    }
    Geometry geo = Geometry.of(p.build());
    MemoryBlockDevice dev = new MemoryBlockDevice("mem-" + blockSize, blockSize, geo.blocksCount());
    byte[] uuid = new byte[16];
    new Random(seed).nextBytes(uuid);
    Mkfs.format(dev, geo, Mkfs.Identity.reproducible(uuid, Instant.ofEpochSecond(1_700_000_000L)), true);
    return dev;
  }

  /** Writes the device's contents to {@code file} (for e2fsck and debugfs). */
  static Path save(MemoryBlockDevice dev, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, dev.toByteArray());
    return file;
  }
}
