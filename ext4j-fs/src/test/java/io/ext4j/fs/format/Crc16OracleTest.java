package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.Ext4FormatException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link Crc16#groupDescriptorChecksum} against every bg_checksum e2fsprogs writes with uninit_bg (gdt_csum),
 * and {@link GroupDescriptor#decode} verifying it.
 */
@Tag("oracle")
class Crc16OracleTest {

  @ParameterizedTest(name = "{0}: mkfs.ext4 {1}")
  @CsvSource(delimiter = '|', value = {
      "gdtcsum-1k-64bit | -b 1024 -O ^metadata_csum,uninit_bg,64bit",
      "gdtcsum-1k-32bit | -b 1024 -O ^metadata_csum,uninit_bg,^64bit",
      "gdtcsum-4k-64bit | -b 4096 -g 1024 -O ^metadata_csum,uninit_bg,64bit",
      "gdtcsum-4k-32bit | -b 4096 -g 1024 -O ^metadata_csum,uninit_bg,^64bit",
      "gdtcsum-4k-noflex | -b 4096 -g 1024 -O ^metadata_csum,uninit_bg,^64bit,^flex_bg"})
  void groupDescriptorChecksum_equalsEveryStoredChecksum(String name, String options) throws Exception {
    Path img = Tools.mkfs(name, 64, options.trim().split("\\s+"));
    // Populate a little so that free counts, flags and used-dir counts differ between groups.
    Tools.debugfs(img, true, List.of("mkdir a", "mkdir b", "mkdir c", "write /etc/passwd a/f", "mkdir a/d"));
    byte[] bytes = Files.readAllBytes(img);
    Ext4Superblock sb = Ext4Superblock.decode(img.toString(), Arrays.copyOfRange(bytes, 1024, 2048));
    assertThat(sb.featureNames()).contains("uninit_bg").doesNotContain("metadata_csum");
    assertThat(sb.is64Bit()).isEqualTo(options.contains(",64bit"));
    byte[] uuid = Arrays.copyOfRange(sb.toBytes(), 0x68, 0x78);
    long gdt = (sb.firstDataBlock() + 1) * sb.blockSize();
    int ds = sb.descriptorSize();
    assertThat(sb.groupCount()).isGreaterThan(4);

    int withFlags = 0;
    for (int g = 0; g < sb.groupCount(); g++) {
      int off = Math.toIntExact(gdt + (long) g * ds);
      int stored = (bytes[off + 0x1E] & 0xFF) | (bytes[off + 0x1F] & 0xFF) << 8;
      int flags = (bytes[off + 0x12] & 0xFF) | (bytes[off + 0x13] & 0xFF) << 8;
      withFlags += flags != 0 ? 1 : 0;

      assertThat(Integer.toHexString(Crc16.groupDescriptorChecksum(uuid, g, bytes, off, ds)))
          .as("%s group %d (%d-byte descriptor at byte %d)", img, g, ds, off)
          .isEqualTo(Integer.toHexString(stored));
      assertThat(GroupDescriptor.decode(img.toString(), off, sb, g, bytes, off).checksum()).isEqualTo(stored);
    }
    assertThat(withFlags).as("groups with UNINIT/ZEROED flags, which only gdt_csum makes trustworthy").isPositive();

    int last = Math.toIntExact(gdt + (sb.groupCount() - 1) * ds);
    bytes[last + 0x0C] ^= 0x01; // free blocks count
    assertThatThrownBy(() -> GroupDescriptor.decode(img.toString(), last, sb, sb.groupCount() - 1, bytes, last))
        .isInstanceOf(Ext4FormatException.class)
        .hasMessageContaining("group " + (sb.groupCount() - 1) + " descriptor gdt_csum (crc16) mismatch: stored 0x");
  }
}
