package io.ext4j.fs.xattr;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.format.PosixAcl.Entry;
import io.ext4j.testkit.Seeds;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link AclRules} on random valid ACLs: the laws that tie the bits and the three mirrored entries. */
@Tag("fast")
class AclRulesTest {
  static List<Entry> randomAcl(SplittableRandom r, boolean minimal) {
    List<Entry> acl = new ArrayList<>();
    acl.add(new Entry(PosixAcl.USER_OBJ, r.nextInt(8), -1));
    int users = minimal ? 0 : r.nextInt(3);
    for (int i = 0; i < users; i++) {
      acl.add(new Entry(PosixAcl.USER, r.nextInt(8), 1000 + i));
    }
    acl.add(new Entry(PosixAcl.GROUP_OBJ, r.nextInt(8), -1));
    int groups = minimal ? 0 : r.nextInt(3);
    for (int i = 0; i < groups; i++) {
      acl.add(new Entry(PosixAcl.GROUP, r.nextInt(8), 2000 + i));
    }
    if (!minimal && (users + groups > 0 || r.nextBoolean())) {
      acl.add(new Entry(PosixAcl.MASK, r.nextInt(8), -1));
    }
    acl.add(new Entry(PosixAcl.OTHER, r.nextInt(8), -1));
    return acl;
  }

  @Test
  void chmod_thenModeOf_givesTheBits_andKeepsNamedEntriesAndGroupObjUnderAMask() {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < 10_000; i++) {
      List<Entry> acl = randomAcl(r, r.nextInt(4) == 0);
      int mode = r.nextInt(01000);
      List<Entry> after = AclRules.chmod(acl, mode);
      assertThat(AclRules.modeOf(after)).as("seed %d: %s chmod %o", seed, acl, mode).isEqualTo(mode);
      boolean mask = acl.stream().anyMatch(e -> e.tag() == PosixAcl.MASK);
      for (int k = 0; k < acl.size(); k++) {
        Entry e = acl.get(k);
        if (e.tag() == PosixAcl.USER || e.tag() == PosixAcl.GROUP || (e.tag() == PosixAcl.GROUP_OBJ && mask)) {
          assertThat(after.get(k)).as("seed %d: %s chmod %o", seed, acl, mode).isEqualTo(e);
        }
      }
      assertThat(AclRules.extended(after)).isEqualTo(AclRules.extended(acl));
    }
  }

  @Test
  void inherit_limitsTheMirroredEntriesByTheMode_andDropsAnAclTheBitsExpress() {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < 10_000; i++) {
      List<Entry> dflt = randomAcl(r, r.nextInt(3) == 0);
      int mode = 0100000 | r.nextInt(010000);
      AclRules.Inherited in = AclRules.inherit(dflt, mode);
      String at = "seed " + seed + ": " + dflt + " mode " + Integer.toOctalString(mode);
      assertThat(in.mode() & ~0777).as(at).isEqualTo(mode & ~0777);
      assertThat(in.mode() & 0777 & ~mode).as("%s: no bit beyond the mode asked", at).isZero();
      assertThat(in.mode() & 0777 & ~AclRules.modeOf(dflt)).as("%s: no bit beyond the default ACL", at).isZero();
      if (AclRules.extended(dflt)) {
        assertThat(in.access()).as(at).isNotNull().hasSameSizeAs(dflt);
        assertThat(AclRules.modeOf(in.access())).as(at).isEqualTo(in.mode() & 0777);
      } else {
        assertThat(in.access()).as(at).isNull();
        assertThat(in.mode() & 0777).as(at).isEqualTo(mode & AclRules.modeOf(dflt) & 0777);
      }
    }
  }

  @Test
  void modeOf_takesTheMaskOverGroupObj() {
    List<Entry> acl = List.of(new Entry(PosixAcl.USER_OBJ, 7, -1), new Entry(PosixAcl.GROUP_OBJ, 7, -1),
        new Entry(PosixAcl.MASK, 1, -1), new Entry(PosixAcl.OTHER, 4, -1));
    assertThat(AclRules.modeOf(acl)).isEqualTo(0714);
    assertThat(AclRules.extended(acl)).isTrue();
    assertThat(AclRules.extended(acl.stream().filter(e -> e.tag() != PosixAcl.MASK).toList())).isFalse();
  }
}
