package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.format.PosixAcl.Entry;
import io.ext4j.testkit.Seeds;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class PosixAclTest {
  private static final int[] TAGS = {PosixAcl.USER_OBJ, PosixAcl.USER, PosixAcl.GROUP_OBJ, PosixAcl.GROUP, PosixAcl.MASK, PosixAcl.OTHER};

  /** A well-formed ACL as the kernel accepts it: owner, named users, group, named groups, mask, other. */
  static List<Entry> randomValidAcl(Random rnd, boolean named) {
    List<Entry> acl = new ArrayList<>();
    acl.add(new Entry(PosixAcl.USER_OBJ, rnd.nextInt(8), PosixAcl.UNDEFINED_ID));
    int users = named ? rnd.nextInt(4) : 0;
    int groups = named ? (users == 0 ? 1 : 0) + rnd.nextInt(4) : 0;
    for (int id : distinctIds(rnd, users)) {
      acl.add(new Entry(PosixAcl.USER, rnd.nextInt(8), id));
    }
    acl.add(new Entry(PosixAcl.GROUP_OBJ, rnd.nextInt(8), PosixAcl.UNDEFINED_ID));
    for (int id : distinctIds(rnd, groups)) {
      acl.add(new Entry(PosixAcl.GROUP, rnd.nextInt(8), id));
    }
    if (users + groups > 0) {
      acl.add(new Entry(PosixAcl.MASK, rnd.nextInt(8), PosixAcl.UNDEFINED_ID));
    }
    acl.add(new Entry(PosixAcl.OTHER, rnd.nextInt(8), PosixAcl.UNDEFINED_ID));
    return acl;
  }

  private static SortedSet<Integer> distinctIds(Random rnd, int n) {
    TreeSet<Integer> ids = new TreeSet<>();
    while (ids.size() < n) {
      ids.add(rnd.nextInt(1 << 20));
    }
    return ids;
  }

  @Test
  void vfsToDiskToVfs_roundTripsRandomAcls() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int round = 0; round < 1000; round++) {
      List<Entry> acl = new ArrayList<>();
      int n = rnd.nextInt(12);
      for (int i = 0; i < n; i++) {
        int tag = TAGS[rnd.nextInt(TAGS.length)];
        boolean named = tag == PosixAcl.USER || tag == PosixAcl.GROUP;
        acl.add(new Entry(tag, rnd.nextInt(8), named ? rnd.nextInt() : PosixAcl.UNDEFINED_ID));
      }
      byte[] vfs = PosixAcl.toVfs(acl);

      byte[] disk = PosixAcl.toDisk(vfs);

      long named = acl.stream().filter(e -> e.tag() == PosixAcl.USER || e.tag() == PosixAcl.GROUP).count();
      assertThat(disk).as("seed %d", seed).hasSize((int) (4 + 4 * acl.size() + 4 * named));
      assertThat(PosixAcl.fromDisk(disk)).as("seed %d", seed).isEqualTo(vfs);
      assertThat(PosixAcl.parseVfs(PosixAcl.fromDisk(disk))).isEqualTo(acl);
      assertThat(PosixAcl.toDisk(PosixAcl.fromDisk(disk))).as("seed %d: disk → VFS → disk", seed).isEqualTo(disk);
    }
  }

  @Test
  void toDisk_ofTheAclDebugfsConverted_givesTheBytesE2fsprogsStored() {
    byte[] vfs = PosixAcl.toVfs(List.of(new Entry(1, 6, -1), new Entry(2, 4, 1000), new Entry(4, 4, -1),
        new Entry(8, 2, 50), new Entry(0x10, 6, -1), new Entry(0x20, 4, -1)));

    assertThat(HexFormat.of().formatHex(PosixAcl.toDisk(vfs)))
        .isEqualTo("01000000" + "01000600" + "02000400e8030000" + "04000400" + "0800020032000000" + "10000600" + "20000400");
  }

  @Test
  void toDisk_ignoresTheIdOfEntriesWithoutQualifier() {
    byte[] withZero = PosixAcl.toVfs(List.of(new Entry(PosixAcl.USER_OBJ, 7, 0), new Entry(PosixAcl.OTHER, 0, 0)));
    byte[] withUndefined = PosixAcl.toVfs(List.of(new Entry(PosixAcl.USER_OBJ, 7, -1), new Entry(PosixAcl.OTHER, 0, -1)));

    assertThat(PosixAcl.toDisk(withZero)).isEqualTo(PosixAcl.toDisk(withUndefined));
    assertThat(PosixAcl.fromDisk(PosixAcl.toDisk(withZero))).isEqualTo(withUndefined);
  }

  @Test
  void fromMode_isTheMinimalAcl() {
    assertThat(PosixAcl.parseVfs(PosixAcl.fromMode(0100754))).containsExactly(
        new Entry(PosixAcl.USER_OBJ, 7, -1), new Entry(PosixAcl.GROUP_OBJ, 5, -1), new Entry(PosixAcl.OTHER, 4, -1));
  }

  @Test
  void toDisk_rejectsBadVersionSizeTagAndPermission_sayingWhich() {
    byte[] good = PosixAcl.fromMode(0644);
    byte[] v1 = good.clone();
    v1[0] = 1;
    assertThatThrownBy(() -> PosixAcl.toDisk(v1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("VFS POSIX ACL version 1, expected 2");
    assertThatThrownBy(() -> PosixAcl.toDisk(java.util.Arrays.copyOf(good, good.length - 1)))
        .hasMessage("VFS POSIX ACL value of 27 bytes is not a 4-byte header and whole 8-byte entries");
    assertThatThrownBy(() -> PosixAcl.toDisk(new byte[] {2, 0, 0}))
        .hasMessage("VFS POSIX ACL value of 3 bytes is shorter than its 4-byte header");
    byte[] badTag = good.clone();
    badTag[12] = 0x40;
    assertThatThrownBy(() -> PosixAcl.toDisk(badTag)).hasMessage("VFS POSIX ACL entry 1 has unknown tag 0x40");
    byte[] badPerm = good.clone();
    badPerm[22] = 8;
    assertThatThrownBy(() -> PosixAcl.toDisk(badPerm)).hasMessage("POSIX ACL entry 2 has permission bits 0x8 beyond rwx (7)");
  }

  @Test
  void fromDisk_rejectsBadVersionTruncationAndTag_sayingWhich() {
    byte[] disk = PosixAcl.toDisk(PosixAcl.toVfs(List.of(new Entry(PosixAcl.USER_OBJ, 6, -1), new Entry(PosixAcl.USER, 4, 7))));
    byte[] v2 = disk.clone();
    v2[0] = 2;
    assertThatThrownBy(() -> PosixAcl.fromDisk(v2)).hasMessage("on-disk POSIX ACL version 2, expected 1");
    assertThatThrownBy(() -> PosixAcl.fromDisk(java.util.Arrays.copyOf(disk, disk.length - 2)))
        .hasMessage("on-disk POSIX ACL entry 1 (tag 0x2) at byte 8 needs 8 bytes but the value ends at byte 14");
    assertThatThrownBy(() -> PosixAcl.fromDisk(java.util.Arrays.copyOf(disk, 6)))
        .hasMessage("on-disk POSIX ACL entry 0 at byte 4 is cut off at byte 6");
    byte[] badTag = disk.clone();
    badTag[8] = 3;
    assertThatThrownBy(() -> PosixAcl.fromDisk(badTag)).hasMessage("on-disk POSIX ACL entry 1 has unknown tag 0x3");
    assertThat(PosixAcl.fromDisk(new byte[] {1, 0, 0, 0})).as("header only: no entries").containsExactly(2, 0, 0, 0);
  }

  @Test
  void randomValidAcl_isAcceptedBothWays() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    for (int i = 0; i < 100; i++) {
      byte[] vfs = PosixAcl.toVfs(randomValidAcl(rnd, rnd.nextBoolean()));
      assertThat(PosixAcl.fromDisk(PosixAcl.toDisk(vfs))).as("seed %d", seed).isEqualTo(vfs);
    }
  }
}
