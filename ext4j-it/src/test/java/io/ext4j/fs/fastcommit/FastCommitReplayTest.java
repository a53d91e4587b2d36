package io.ext4j.fs.fastcommit;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.tools.check.CheckOptions;
import io.ext4j.tools.check.CheckReport;
import io.ext4j.tools.check.Checker;
import io.ext4j.tools.mkfs.Geometry;
import io.ext4j.tools.mkfs.Mkfs;
import io.ext4j.tools.mkfs.MkfsParameters;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.EnumSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link FastCommitReplay} on records written here (with {@link FastCommitAreaTest.Writer}) over an
 * image ext4j made: cases a kernel workload meets only by chance.
 */
@Tag("fast")
class FastCommitReplayTest {
  private static final int BS = 1024;

  private static MemoryBlockDevice image() throws Exception {
    Geometry geo = Geometry.of(MkfsParameters.builder().sizeBytes(8L << 20).blockSize(BS).build());
    MemoryBlockDevice dev = new MemoryBlockDevice("replay", BS, geo.blocksCount());
    Mkfs.format(dev, geo, Mkfs.Identity.reproducible(new byte[16], Instant.ofEpochSecond(1_700_000_000L)), true);
    return dev;
  }

  private static long sparseFile(Ext4FileSystem fs, String name, long size) throws Exception {
    long ino = fs.create(2, name.getBytes(StandardCharsets.UTF_8), 0644, Caller.ROOT).ino();
    try (OpenFile o = fs.open(ino, EnumSet.of(OpenFlag.WRITE))) {
      o.truncate(size);
    }
    return ino;
  }

  private static byte[] addRange(long ino, long lblk, long pblk, int len) {
    ByteBuffer v = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
    v.putInt((int) ino).putInt((int) lblk).putShort((short) len).putShort((short) (pblk >>> 32)).putInt((int) pblk);
    return v.array();
  }

  @Test
  void aTreeBlockIsNeverAllocatedWhereALaterRecordMapsFileData() throws Exception {
    MemoryBlockDevice dev = image();
    long a;
    long b;
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.builder().build(), false)) {
      a = sparseFile(fs, "a", 9L * BS);
      b = sparseFile(fs, "b", BS);
    }
    long p = dev.blockCount() - 200; // free in a fresh 8 MiB image (the checker below would say otherwise)
    byte[] data = new byte[BS];
    Arrays.fill(data, (byte) 'B');
    dev.write(p - 1, ByteBuffer.wrap(data)); // b's data, written before its fast commit as the kernel writes it

    FastCommitAreaTest.Writer w = new FastCommitAreaTest.Writer(BS);
    w.head(9);
    for (int i = 0; i < 5; i++) { // five extents: more than the inode holds, so a tree block
      w.record(FastCommitTag.ADD_RANGE, addRange(a, 2L * i, p + 2L * i, 1));
    }
    w.tail(9);
    w.record(FastCommitTag.ADD_RANGE, addRange(b, 0, p - 1, 1)); // just where a's tree block would go
    w.tail(9);
    FastCommitArea.Scan scan = FastCommitArea.scan("replay", 0, i -> w.blocks.get(i), w.blocks.size(), BS, 9, 256);
    assertThat(scan.commits()).isEqualTo(2);

    FastCommitReplay.Stats st = FastCommitReplay.run(dev, scan);
    assertThat(st.blocksMapped()).isEqualTo(6);

    byte[] now = new byte[BS];
    dev.read(p - 1, ByteBuffer.wrap(now));
    assertThat(now).as("b's data block").isEqualTo(data);
    CheckReport report = Checker.check(dev, CheckOptions.defaults());
    assertThat(report.clean()).as(report.toText()).isTrue();
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.builder().readOnly(true).build(), false)) {
      assertThat(fs.extents(a)).hasSize(5);
      byte[] got = new byte[BS];
      try (OpenFile o = fs.open(b, EnumSet.of(OpenFlag.READ))) {
        o.read(0, ByteBuffer.wrap(got));
      }
      assertThat(got).as("b read through ext4j").isEqualTo(data);
    }
  }

  @Test
  void aRangeFreedByOneInodeAndMappedByAnEarlierRecordOfAnother_staysInUse() throws Exception {
    // the kernel truncated c (freeing block q) and gave q to d; its fast commit lists d first
    MemoryBlockDevice dev = image();
    long c;
    long d;
    long q = dev.blockCount() - 300;
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.builder().build(), false)) {
      c = sparseFile(fs, "c", 4L * BS);
      d = sparseFile(fs, "d", BS);
    }
    FastCommitAreaTest.Writer w = new FastCommitAreaTest.Writer(BS);
    w.head(4);
    w.record(FastCommitTag.ADD_RANGE, addRange(c, 0, q, 4)); // c had q..q+3 at some point
    w.tail(4);
    w.record(FastCommitTag.ADD_RANGE, addRange(d, 0, q, 1)); // d now has q
    ByteBuffer del = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt((int) c).putInt(0).putInt(4);
    w.record(FastCommitTag.DEL_RANGE, del.array()); // and c none of them
    w.tail(4);
    FastCommitArea.Scan scan = FastCommitArea.scan("replay", 0, i -> w.blocks.get(i), w.blocks.size(), BS, 4, 256);
    FastCommitReplay.run(dev, scan);
    CheckReport report = Checker.check(dev, CheckOptions.defaults());
    assertThat(report.clean()).as("q is d's, so in use: %s", report.toText()).isTrue();
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.builder().readOnly(true).build(), false)) {
      assertThat(fs.extents(c)).isEmpty();
      assertThat(fs.extents(d)).hasSize(1);
    }
  }
}
