package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.testkit.E2fsprogs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ext4j's mkfs against mkfs.ext4 1.47.0: the same parameters, UUID, hash seed and time give an image
 * that e2fsck -fn finds clean and whose dumpe2fs output (header and every group) equals mkfs.ext4's,
 * but for the fields that record when and by which program it was made.
 */
@Tag("oracle")
class MkfsOracleTest {
  static final Path DIR = Path.of("target", "test-images", "mkfs");

  @ParameterizedTest(name = "{0} bytes, {1}-byte blocks, -O {2}")
  @CsvSource({
    "67108864, 1024, ''",
    "268435456, 4096, ''",
    "33554432, 1024, '^64bit,^flex_bg'",
    "134217728, 4096, '^metadata_csum,uninit_bg'",
    "16777216, 1024, '^has_journal'",
    "1073741824, 4096, ''",
    "8388608, 2048, '^resize_inode'",
  })
  void emptyImage_matchesMkfsExt4_andChecksClean(long bytes, int blockSize, String features) throws Exception {
    Files.createDirectories(DIR);
    String tag = bytes + "-" + blockSize + "-" + Integer.toHexString(features.hashCode());
    Path ours = DIR.resolve("ours-" + tag + ".img");
    Path theirs = DIR.resolve("theirs-" + tag + ".img");
    UUID u = UUID.randomUUID();
    byte[] uuid = java.nio.ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    long now = Instant.now().getEpochSecond();
    Mkfs.Identity id = Mkfs.Identity.reproducible(uuid, Instant.ofEpochSecond(now));
    MkfsParameters.Builder b = MkfsParameters.builder().sizeBytes(bytes).blockSize(blockSize);
    if (!features.isEmpty()) {
      b.withFeatureString(features);
    }
    Geometry geo = Geometry.of(b.build());
    Files.deleteIfExists(ours);
    try (FileBlockDevice dev = FileBlockDevice.open(ours, blockSize, FileBlockDevice.Options.defaults().create(geo.blocksCount()))) {
      Mkfs.format(dev, geo, id, true);
    }
    E2fsprogs.assertE2fsckClean(ours, "ext4j's image");

    Files.deleteIfExists(theirs);
    try (var ch = java.nio.channels.FileChannel.open(theirs, java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.allocate(1), bytes - 1);
    }
    Path conf = DIR.resolve("mke2fs.conf");
    Files.writeString(conf, "[fs_types]\n\text4 = {\n\t\tfeatures = has_journal,extent,huge_file,flex_bg,metadata_csum,"
        + "metadata_csum_seed,64bit,dir_nlink,extra_isize,orphan_file,sparse_super,large_file,filetype,resize_inode,"
        + "dir_index,ext_attr\n\t\tinode_size = 256\n\t}\n\tsmall = {\n\t\tinode_ratio = 4096\n\t}\n\tfloppy = {\n\t\tinode_ratio = 8192\n\t}\n"
        + "\tbig = {\n\t\tinode_ratio = 32768\n\t}\n\thuge = {\n\t\tinode_ratio = 65536\n\t}\n\tdefault = {\n\t\tinode_ratio = 16384\n\t}\n");
    List<String> cmd = new java.util.ArrayList<>(List.of("env", "MKE2FS_CONFIG=" + conf.toAbsolutePath(), "E2FSPROGS_FAKE_TIME=" + now,
        "mkfs.ext4", "-q", "-F", "-b", String.valueOf(blockSize), "-U", u.toString(),
        "-E", "hash_seed=" + hashSeedUuid(id.hashSeed())));
    if (!features.isEmpty()) {
      cmd.add("-O");
      cmd.add(features);
    }
    cmd.add(theirs.toString());
    E2fsprogs.Result made = E2fsprogs.run(E2fsprogs.TIMEOUT, cmd.toArray(String[]::new));
    assertThat(made.exitCode()).as(made.output()).isZero();
    List<String> a = dump(ours);
    List<String> t = dump(theirs);
    assertThat(a).as("dumpe2fs of ext4j's image vs mkfs.ext4's").containsExactlyElementsOf(t);
  }

  static String hashSeedUuid(int[] seed) {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (int w : seed) {
      b.putInt(w);
    }
    b.flip();
    java.nio.ByteBuffer be = java.nio.ByteBuffer.wrap(b.array());
    return new UUID(be.getLong(), be.getLong()).toString();
  }

  /** dumpe2fs without the fields that say who made the image and when. */
  static List<String> dump(Path img) throws Exception {
    E2fsprogs.Result r = E2fsprogs.run(E2fsprogs.TIMEOUT, "dumpe2fs", img.toString());
    assertThat(r.exitCode()).as(r.output()).isZero();
    return r.stdout().lines()
        .filter(l -> !l.startsWith("Lifetime writes:") && !l.startsWith("Checksum:") && !l.contains("checksum 0x")
            && !l.startsWith("Filesystem created:") && !l.startsWith("Last write time:") && !l.startsWith("Last checked:"))
        .map(l -> l.replaceAll("csum 0x[0-9a-f]+", "csum"))
        .toList();
  }
}
